"""Read the QR codes of a PDF back, as a referee's phone would: the page printed to an
image (poppler's pdftoppm) and decoded (zxing-cpp's reader)."""

from __future__ import annotations

import io
import subprocess

import zxingcpp
from PIL import Image


def qr_texts(pdf: bytes, *, page: int = 1, dpi: int = 150) -> list[str]:
    """The text of every QR code found on ``page`` of ``pdf``."""
    png = subprocess.run(
        ["pdftoppm", "-png", "-r", str(dpi), "-f", str(page), "-l", str(page), "-"],
        input=pdf,
        capture_output=True,
        check=True,
    ).stdout
    image = Image.open(io.BytesIO(png))
    return [
        code.text for code in zxingcpp.read_barcodes(image, formats=zxingcpp.BarcodeFormat.QRCode)
    ]
