"""Run as a process of its own (``python -m tests.races.photos.decode_memory N``): decodes N
copies of a PNG of 7,000 × 7,000 RGBA pixels (49 megapixels, just under the limit, decoded
whole) in N threads at once, as a worker's threads do with photos sent together, and prints
how far its memory rose above what it held before (megabytes, the peak's resident set).

No Django project here: the module under test needs only Pillow and settings enough to
translate nothing."""

from __future__ import annotations

import resource
import struct
import sys
import threading
import zlib

from django.conf import settings

settings.configure(USE_I18N=False)

from races.photos import images  # noqa: E402 - after the settings it reads

SIDE = 7_000


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def rgba_png(width: int, height: int) -> bytes:
    """A PNG of ``width`` × ``height`` RGBA pixels, written row by row (never held whole)."""
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    row = b"\x00" + bytes(range(256)) * (width * 4 // 256) + b"\x80" * (width * 4 % 256)
    packer = zlib.compressobj(6)
    rows = b"".join(packer.compress(row) for _ in range(height)) + packer.flush()
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", rows)
        + _chunk(b"IEND", b"")
    )


def resident_mb() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) // 1024
    raise RuntimeError("no VmRSS")


def main(count: int) -> None:
    data = rgba_png(SIDE, SIDE)
    images.normalise(rgba_png(64, 64), max_bytes=len(data))  # the libraries loaded
    before = resident_mb()
    failed: list[BaseException] = []

    def decode() -> None:
        try:
            images.normalise(data, max_bytes=len(data))
        except BaseException as exc:  # noqa: BLE001 - reported to the test
            failed.append(exc)

    threads = [threading.Thread(target=decode) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failed:
        raise SystemExit(f"decoding failed: {failed[0]!r}")
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024 - before)


if __name__ == "__main__":
    main(int(sys.argv[1]))
