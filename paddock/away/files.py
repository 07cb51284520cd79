"""The photos' files of a way back (``landing``): each checked to be named by the SHA-256 of
its bytes and to be a JPEG picture, as the photos' files are (``races.photos.storage`` keeps
the JPEG copies ``races.photos.images`` made), and written once the day's rows are committed.
An ``.html`` file, or anything else that is not a photo, never reaches the media folder."""

from __future__ import annotations

import base64
import hashlib
import io
from typing import Any

from django.utils.translation import gettext as _
from PIL import Image, UnidentifiedImageError

from races.photos import images, storage
from tournament.errors import InvalidInput

#: The suffix of every photo's file (the stored copy and its thumbnail are JPEG).
SUFFIX = "jpg"


def _refused(why: str) -> InvalidInput:
    return InvalidInput(why, {"files": [why]})


def checked_files(data: dict[str, Any]) -> dict[str, bytes]:
    """The photos' files of the way back ``data``, checked (module docstring): name → bytes."""
    files = data.get("files") or {}
    if not isinstance(files, dict):
        raise _refused(_("The photos' files are damaged."))
    checked = {}
    for name, encoded in files.items():
        try:
            content = base64.b64decode(str(encoded), validate=True)
        except ValueError as exc:
            raise _refused(_("A photo's file is damaged: %(name)s.") % {"name": name}) from exc
        stem, dot, suffix = str(name).partition(".")
        if hashlib.sha256(content).hexdigest() != stem or not dot or "/" in suffix:
            raise _refused(_("A photo's file is not the one named: %(name)s.") % {"name": name})
        if suffix != SUFFIX or not is_jpeg(content):
            raise _refused(_("A file of the return is not a photo: %(name)s.") % {"name": name})
        checked[str(name)] = content
    return checked


def is_jpeg(content: bytes) -> bool:
    """True when ``content`` is a JPEG picture of a photo's size (its header read: the file
    was made by this code on the laptop, it is not decoded again)."""
    try:
        with Image.open(io.BytesIO(content), formats=("JPEG",)) as picture:
            return 0 < picture.width * picture.height <= images.MAX_PIXELS
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError, Image.DecompressionBombError):
        return False


def store_files(files: dict[str, bytes]) -> None:
    """Write the photos' files (``storage.store``: one already there is kept)."""
    for name, content in files.items():
        storage.store(content, suffix="." + name.partition(".")[2])
