"""Files a phone, a scanner or a mischief sends, made here (no file is checked in): bad files
of every kind, and photos of a printed race sheet (``bench.camera``)."""

from __future__ import annotations

import io
import struct
import zlib

from PIL import Image

from bench import camera
from races.sheets.pdf import RaceSheetRenderer
from races.sheets.selectors import race_sheets


def sheet_pdf(table) -> bytes:
    """The race sheet of ``table`` as the desk prints it, QR code of its link included."""
    (data,) = race_sheets(event=table.event, tables=[table])
    return RaceSheetRenderer().render(data)


def png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def decompression_bomb(side: int = 40_000, height: int | None = None) -> bytes:
    """A PNG of a few hundred bytes declaring ``side`` × ``side`` pixels (1.6 gigapixels),
    or ``side`` × ``height``."""
    header = struct.pack(">IIBBBBB", side, height or side, 8, 0, 0, 0, 0)  # 8-bit greyscale
    rows = zlib.compress(b"\x00" * (side + 1) * 4, 9)  # four rows of black, the rest missing
    return (
        b"\x89PNG\r\n\x1a\n"
        + png_chunk(b"IHDR", header)
        + png_chunk(b"IDAT", rows)
        + png_chunk(b"IEND", b"")
    )


def truncated_jpeg() -> bytes:
    image = Image.effect_noise((800, 600), 60).convert("RGB")
    out = io.BytesIO()
    image.save(out, format="JPEG", quality=90)
    data = out.getvalue()
    return data[: len(data) // 2]


def oriented_jpeg(orientation: int = 6) -> bytes:
    """A landscape 400 × 200 picture, red in its top-left corner, that the EXIF tag says to
    show turned (6: 90° clockwise, as a phone held upright writes it), with a GPS position."""
    image = Image.new("RGB", (400, 200), "white")
    image.paste((255, 0, 0), (0, 0, 40, 40))
    return camera.jpeg(image, quality=95, orientation=orientation)


def transparent_png() -> bytes:
    image = Image.new("RGBA", (300, 200), (0, 0, 0, 0))
    image.paste((0, 0, 255, 255), (0, 0, 100, 100))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()
