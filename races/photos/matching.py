"""Which sheet a photo shows, by the QR code printed on it (no database here).

Every table sheet prints its referee link as a QR code (``tournament.documents.printing``):
``<SITE_URL>/r/<secret>/`` for a race table, ``/q/<secret>/`` for a qualifying table. The
same library that draws the codes (zxing-cpp) reads them back from the photo; the secret
then finds its table by its digest, as the link itself does (``races.photos.services``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

import zxingcpp
from PIL import Image, ImageFilter, ImageOps

#: A referee link's path: the kind of table, then its secret (``sealing.new_link_secret``).
_LINK_PATH = re.compile(r"^/(?P<kind>[rq])/(?P<secret>[A-Za-z0-9_-]{16,64})/?$")
#: Past this side, a first look at the photo is taken on a smaller copy (faster, and a
#: sheet's code stays 5 pixels a module or more on it).
FIRST_LOOK_SIDE = 2400
#: A picture is halved before it is sharpened only if it stays this large.
MIN_SHARPENED_SIDE = 1000


@dataclass(frozen=True)
class SheetLink:
    """A referee link read on a sheet: ``kind`` "race" or "qualifying", and its secret."""

    kind: str
    secret: str


def sheet_link(text: str) -> SheetLink | None:
    """The referee link in a QR code's ``text``, or None for any other code."""
    try:
        path = urlsplit(text.strip()).path
    except ValueError:
        return None
    found = _LINK_PATH.match(path)
    if found is None:
        return None
    return SheetLink("race" if found["kind"] == "r" else "qualifying", found["secret"])


def _read(image: Image.Image) -> list[SheetLink]:
    codes = zxingcpp.read_barcodes(
        image, formats=zxingcpp.BarcodeFormat.QRCode, try_rotate=True, try_downscale=True
    )
    return [link for code in codes if (link := sheet_link(code.text)) is not None]


def sheet_links(image: Image.Image, *, first_look: Image.Image | None = None) -> list[SheetLink]:
    """Every referee link whose QR code can be read in ``image``, first found first.

    A first look on ``first_look`` (a smaller copy: the stored picture) or else on a copy of
    at most ``FIRST_LOOK_SIDE`` pixels; then, if nothing was read, the whole picture, its
    contrast stretched (a dark photo, a shadow over the code), and a half-size copy
    sharpened (a blurred photo: measured by ``bench.photo_matching``). Only a photo whose
    code is hard to read pays for the later looks.
    """
    grey = image if image.mode == "L" else image.convert("L")
    looks = []
    if first_look is not None:
        looks.append(first_look)
    elif max(grey.size) > FIRST_LOOK_SIDE:
        small = grey.copy()
        small.thumbnail((FIRST_LOOK_SIDE, FIRST_LOOK_SIDE), Image.Resampling.BILINEAR)
        looks.append(small)
    looks += [grey, lambda: ImageOps.autocontrast(grey, cutoff=2), lambda: _sharpened(grey)]
    for look in looks:
        found = _read(look() if callable(look) else look)
        if found:
            return found
    return []


def _sharpened(grey: Image.Image) -> Image.Image:
    half = grey.reduce(2) if min(grey.size) >= 2 * MIN_SHARPENED_SIDE else grey
    return half.filter(ImageFilter.UnsharpMask(radius=3, percent=250, threshold=0))
