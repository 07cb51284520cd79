"""An image as a careful server treats it (no database here): what a phone or a scanner sends
is opened only if it is a JPEG, PNG, WebP or HEIC/HEIF photo of a sane size, turned upright
by its EXIF orientation, and re-encoded from its pixels alone, so that no metadata (a
phone's GPS position, its owner's name) is kept; the stored copy is capped in pixels and
bytes, with a thumbnail beside it.

Pillow decodes, pillow-heif adds the HEIC/HEIF iPhones send. Everything a file may do wrong
(empty, too large, not an image, truncated, a decompression bomb) ends as ``BadImage`` with
a sentence for the person who sent it.

Memory: a JPEG is decoded small (its draft mode), but a PNG, WebP or HEIF picture is decoded
whole: up to 50 megapixels, 200 MB in RGBA, before it is made small. Three at once took a
worker from 163 MB to 1,007 MB (issue 40, item 21). Those are treated one at a time in a
process (``WHOLE_DECODES``), from the first byte decoded to the last copy made; a JPEG, never
larger than ``DECODED_PIXELS``, does not wait for them. A process thus holds one whole
picture at a time, whatever the photos sent together.
"""

from __future__ import annotations

import io
import threading
import warnings
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass

import pillow_heif
from django.template.defaultfilters import filesizeformat
from django.utils.translation import gettext as _
from PIL import Image

pillow_heif.register_heif_opener()

#: What is accepted, by the format Pillow finds in the bytes (never by the file's name).
FORMATS = ("JPEG", "PNG", "WEBP", "HEIF")
#: Past this many pixels a file is refused from its header, before it is decoded: a phone's
#: largest photo is 48 or 50 megapixels (an iPhone's "HEIF Max", Android's 50 MP), an A4
#: page scanned at 600 dpi 35; a "decompression bomb" declares far more in a few bytes (a
#: 261 kB PNG of 62 megapixels cost a worker 640 MB).
MAX_PIXELS = 50_000_000
#: What is decoded at most: a JPEG is decoded at 1/2, 1/4 or 1/8 of its size (its "draft"
#: mode, which never holds the full picture), any other picture is reduced right after it is
#: decoded. A sheet's QR code stays readable on 16 megapixels (a page of 3,000 pixels or more).
DECODED_PIXELS = 16_000_000
#: The stored copy: longest side, JPEG quality, and the bytes it may take at most.
LONGEST_SIDE = 2400
QUALITY = 85
MAX_STORED_BYTES = 2_500_000
THUMBNAIL_SIDE = 360
#: EXIF's Orientation tag: how the camera was held, and what turns the picture upright
#: (the table of ``PIL.ImageOps.exif_transpose``).
ORIENTATION_TAG = 0x0112
UPRIGHT = {
    2: Image.Transpose.FLIP_LEFT_RIGHT,
    3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_270,
    7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_90,
}


#: One picture decoded whole at a time in a process (see the module's docstring).
WHOLE_DECODES = threading.Lock()
#: How a JPEG begins (SOI, then a marker): the one format decoded within its bound.
JPEG_MAGIC = b"\xff\xd8\xff"


class BadImage(ValueError):
    """A file that is not stored, with the reason in the user's language."""


@dataclass(frozen=True)
class Normalised:
    """The stored copy (JPEG bytes) and its thumbnail, made from the pixels alone."""

    jpeg: bytes
    thumbnail: bytes
    width: int
    height: int
    #: The whole picture in grey, as it was taken (the QR reader turns it itself).
    picture: Image.Image
    #: The stored picture in grey: a first, quicker look for the QR code.
    stored: Image.Image


def open_checked(data: bytes, *, max_bytes: int) -> Image.Image:
    """The picture in ``data``, decoded; ``BadImage`` for anything else."""
    if not data:
        raise BadImage(_("The file is empty: take the photo again."))
    if len(data) > max_bytes:
        raise BadImage(
            _("The file is too large (%(size)s): send a photo of %(limit)s at most.")
            % {"size": filesizeformat(len(data)), "limit": filesizeformat(max_bytes)}
        )
    try:
        with warnings.catch_warnings():
            # Pillow warns past its own limit and refuses past twice it: refuse at ours.
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data), formats=FORMATS)
            # Image.open has read the header alone: the size is known, nothing is decoded.
            if image.width * image.height > MAX_PIXELS:
                raise BadImage(_too_many_pixels(image.width, image.height))
            scale = decoding_scale(image.size)
            if image.format == "JPEG" and scale > 1:
                image.draft("RGB", (-(-image.width // scale), -(-image.height // scale)))
            image.load()
    except BadImage:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise BadImage(_("This image declares too many pixels to be a photo.")) from exc
    except Image.UnidentifiedImageError as exc:
        raise BadImage(
            _("This file is not a photo: send a JPEG, PNG, WebP or HEIC image.")
        ) from exc
    except (OSError, SyntaxError, ValueError, EOFError, MemoryError, RuntimeError) as exc:
        # Truncated or damaged data: Pillow says "image file is truncated", "broken data
        # stream"…; pillow-heif's errors are RuntimeError's and OSError's.
        raise BadImage(_("This photo is damaged or incomplete: send it again.")) from exc
    return image


def decoding_scale(size: tuple[int, int]) -> int:
    """The divisor (1, 2, 4 or 8) that brings a picture of ``size`` within
    ``DECODED_PIXELS``."""
    width, height = size
    for scale in (1, 2, 4):
        if (width // scale) * (height // scale) <= DECODED_PIXELS:
            return scale
    return 8


#: Rows of the full picture converted and reduced at once (``_bounded``).
BAND_ROWS = 512


def _bounded(image: Image.Image) -> Image.Image:
    """``image`` within ``DECODED_PIXELS``: a box reduction of what its decoder could not
    make small (the caller drops the full-size picture).

    Band by band: a whole conversion (a palette to RGB) or ``reduce`` of RGBA, which Pillow
    makes on a premultiplied copy, would hold a second full-size picture (+196 MB at 49
    megapixels); a band of ``BAND_ROWS`` rows takes a few megabytes."""
    scale = decoding_scale(image.size)
    if scale == 1:
        return image
    mode = image.mode if image.mode in ("L", "RGB", "RGBA") else None
    target = mode or ("RGBA" if _transparent(image) else "RGB")
    width, height = image.size
    out = Image.new(target, (-(-width // scale), -(-height // scale)))
    rows = BAND_ROWS - BAND_ROWS % scale  # a band ends on a reduced row's edge
    for top in range(0, height, rows):
        band = image.crop((0, top, width, min(height, top + rows)))
        if mode is None:
            band = band.convert(target)
        out.paste(band.reduce(scale), (0, top // scale))
    return out


def _transparent(image: Image.Image) -> bool:
    return image.mode in ("RGBA", "LA", "PA") or (
        image.mode == "P" and "transparency" in image.info
    )


def _too_many_pixels(width: int, height: int) -> str:
    return _("This image is %(width)s × %(height)s pixels: %(limit)s megapixels at most.") % {
        "width": width,
        "height": height,
        "limit": MAX_PIXELS // 1_000_000,
    }


def _pixels_only(image: Image.Image) -> Image.Image:
    """``image``'s pixels in RGB and nothing else: transparency laid on white, and no EXIF,
    XMP, ICC profile or comment (Pillow carries some of them in ``info`` through a
    ``convert``, and its JPEG writer would write a comment back)."""
    if _transparent(image):
        rgba = image.convert("RGBA")
        flat = Image.new("RGB", rgba.size, "white")
        flat.paste(rgba, mask=rgba.getchannel("A"))
        return flat
    clean = image.convert("RGB") if image.mode != "RGB" else image.copy()
    clean.info = {}
    return clean


def _jpeg(image: Image.Image, *, max_bytes: int) -> bytes:
    quality = QUALITY
    while True:
        out = io.BytesIO()
        image.save(out, format="JPEG", quality=quality)
        if out.tell() <= max_bytes or quality <= 50:
            return out.getvalue()
        quality -= 10


def normalise(data: bytes, *, max_bytes: int) -> Normalised:
    """``data`` checked, upright, stripped and re-encoded (see the module docstring).

    The picture is decoded within ``DECODED_PIXELS`` (``open_checked``, ``_bounded``) and kept
    in grey at that size for the QR reader, which finds a code at any quarter turn; a copy
    made small (a box reduction, then a bicubic filter) is turned upright and stored.
    """
    with _one_at_a_time(data):
        return _normalised(data, max_bytes=max_bytes)


def _one_at_a_time(data: bytes) -> AbstractContextManager[object]:
    """The lock of pictures decoded whole, for anything that is not a JPEG (a file that
    is not a photo at all is refused from its header, quickly, under it too)."""
    return nullcontext() if data.startswith(JPEG_MAGIC) else WHOLE_DECODES


def _normalised(data: bytes, *, max_bytes: int) -> Normalised:
    image = open_checked(data, max_bytes=max_bytes)
    turn = UPRIGHT.get(image.getexif().get(ORIENTATION_TAG, 1))
    image = _bounded(image)
    picture = image.convert("L")
    image.thumbnail((LONGEST_SIDE, LONGEST_SIDE), Image.Resampling.BICUBIC, reducing_gap=2.0)
    upright = _pixels_only(image if turn is None else image.transpose(turn))
    small = upright.copy()
    small.thumbnail((THUMBNAIL_SIDE, THUMBNAIL_SIDE), Image.Resampling.BICUBIC, reducing_gap=2.0)
    return Normalised(
        jpeg=_jpeg(upright, max_bytes=MAX_STORED_BYTES),
        thumbnail=_jpeg(small, max_bytes=MAX_STORED_BYTES),
        width=upright.width,
        height=upright.height,
        picture=picture,
        stored=upright.convert("L"),
    )
