"""A phone's photo of a printed sheet, simulated (for the tests, the bench and the matching
measure): the PDF printed to an image by poppler (``pdftoppm``), laid on a table, turned,
seen at an angle, and saved as a phone saves it (JPEG noise, HEIC, an EXIF block with a GPS
position and an orientation). Then what goes wrong in a hall: blur, a dark corner, a thumb
over the code.
"""

from __future__ import annotations

import io
import random
import subprocess
from dataclasses import dataclass

import pillow_heif
from PIL import Image, ImageDraw, ImageEnhance, ImageFilter

pillow_heif.register_heif_opener()

#: EXIF tags: Orientation, and the GPS block (GPSLatitude…) a phone writes.
ORIENTATION, GPS_IFD, GPS_LATITUDE, GPS_LATITUDE_REF = 0x0112, 0x8825, 2, 1


def printed(pdf: bytes, *, dpi: int = 150) -> Image.Image:
    """The first page of ``pdf`` as paper would show it (RGB)."""
    png = subprocess.run(
        ["pdftoppm", "-png", "-r", str(dpi), "-f", "1", "-l", "1", "-"],
        input=pdf,
        capture_output=True,
        check=True,
    ).stdout
    return Image.open(io.BytesIO(png)).convert("RGB")


def _coefficients(target: list[tuple[float, float]], source: list[tuple[float, float]]):
    """The 8 coefficients of Pillow's perspective transform mapping ``target`` to ``source``."""
    rows, rhs = [], []
    for (x, y), (u, v) in zip(target, source, strict=True):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y])
        rhs += [u, v]
    # Gaussian elimination on 8 unknowns (numpy is not a dependency of the app).
    n = 8
    m = [row[:] + [value] for row, value in zip(rows, rhs, strict=True)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        for r in range(n):
            if r != col and m[r][col]:
                factor = m[r][col] / m[col][col]
                m[r] = [a - factor * b for a, b in zip(m[r], m[col], strict=True)]
    return [m[i][n] / m[i][i] for i in range(n)]


@dataclass(frozen=True)
class Shot:
    """How the phone took the picture."""

    width: int = 1600  # the photo's longest side, in pixels (4000 for 12 megapixels)
    angle: float = 8.0  # degrees the sheet is turned on the table
    tilt: float = 0.12  # perspective: how much narrower the far edge looks (0 = from above)
    quality: int = 70  # JPEG quality (noise)
    blur: float = 0.0  # Gaussian blur radius, in pixels of the photo
    light: float = 1.0  # brightness (0.3: a dark corner of the hall)
    cover: float = 0.0  # share of the QR code's width covered by a thumb, from its left
    seed: int = 1


def photograph(page: Image.Image, shot: Shot = Shot(), *, qr_box=None) -> Image.Image:
    """``page`` as a phone would see it on a grey table (see ``Shot``). ``qr_box`` (left,
    top, right, bottom in the page's pixels) is where a thumb covers the code."""
    rng = random.Random(shot.seed)
    page = page.copy()
    if shot.cover and qr_box is not None:
        left, top, right, bottom = qr_box
        ImageDraw.Draw(page).rectangle(
            (left, top, left + (right - left) * shot.cover, bottom), fill=(196, 150, 120)
        )
    w, h = page.size
    # The sheet on a table: a margin of grey around it, then turned.
    table = Image.new("RGB", (int(w * 1.25), int(h * 1.2)), (92, 88, 80))
    table.paste(page, ((table.width - w) // 2, (table.height - h) // 2))
    if shot.width < max(table.size):  # turn and tilt no more pixels than the photo has
        ratio = shot.width / max(table.size)
        table = table.resize(
            (round(table.width * ratio), round(table.height * ratio)), Image.Resampling.BILINEAR
        )
    turned = table.rotate(
        shot.angle, resample=Image.Resampling.BICUBIC, expand=True, fillcolor=(92, 88, 80)
    )
    # Seen at an angle: the far (top) edge narrower than the near one.
    tw, th = turned.size
    inset = tw * shot.tilt / 2
    jitter = [rng.uniform(-0.01, 0.01) * tw for _ in range(4)]
    source = [
        (inset + jitter[0], jitter[1]),
        (tw - inset + jitter[2], jitter[3]),
        (tw, th),
        (0, th),
    ]
    target = [(0, 0), (tw, 0), (tw, th), (0, th)]
    seen = turned.transform(
        (tw, th),
        Image.Transform.PERSPECTIVE,
        _coefficients(target, source),
        resample=Image.Resampling.BICUBIC,
        fillcolor=(92, 88, 80),
    )
    scale = shot.width / max(seen.size)
    photo = seen.resize(
        (round(seen.width * scale), round(seen.height * scale)), Image.Resampling.BILINEAR
    )
    if shot.blur:
        photo = photo.filter(ImageFilter.GaussianBlur(shot.blur))
    if shot.light != 1.0:
        photo = ImageEnhance.Brightness(photo).enhance(shot.light)
    return photo


def jpeg(
    photo: Image.Image, *, quality: int = 70, exif: bool = True, orientation: int = 1
) -> bytes:
    """``photo`` saved as a phone saves it: JPEG with an EXIF block (a GPS position in
    Paris, the orientation tag)."""
    out = io.BytesIO()
    photo.save(out, format="JPEG", quality=quality, exif=phone_exif(orientation) if exif else b"")
    return out.getvalue()


def heic(photo: Image.Image, *, quality: int = 60, orientation: int = 1) -> bytes:
    """``photo`` saved as an iPhone saves it: HEIC with the same EXIF block."""
    out = io.BytesIO()
    # x265 at its fastest preset: ten times quicker than its default, the same picture.
    photo.save(
        out,
        format="HEIF",
        quality=quality,
        exif=phone_exif(orientation),
        enc_params={"preset": "ultrafast"},
    )
    return out.getvalue()


def phone_exif(orientation: int = 1) -> bytes:
    exif = Image.Exif()
    exif[ORIENTATION] = orientation
    gps = exif.get_ifd(GPS_IFD)
    gps[GPS_LATITUDE_REF] = "N"
    gps[GPS_LATITUDE] = (48.0, 51.0, 24.0)
    return exif.tobytes()
