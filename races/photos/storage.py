"""Where the stored photos live: files under ``MEDIA_ROOT/photos/``, each named by the
SHA-256 of its bytes. A file is written once and never changed (a replaced photo is a new
file), so that backups copy each one once (``tournament.venue.database_backup``) and a
restore on another folder finds them by name."""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

from django.conf import settings

#: The photos' folder under the media root; backups keep the same name beside their files.
FOLDER = "photos"


def folder() -> Path:
    return Path(settings.MEDIA_ROOT) / FOLDER


def store(data: bytes, *, suffix: str = ".jpg") -> str:
    """Write ``data`` (once: the same bytes are the same file) and answer its name."""
    name = hashlib.sha256(data).hexdigest() + suffix
    target = folder() / name
    if target.exists():
        return name
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, partial = tempfile.mkstemp(dir=target.parent, prefix=".partial-")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(partial, target)  # a file under its final name is always complete
    finally:
        if os.path.exists(partial):
            os.unlink(partial)
    return name


def path_of(name: str) -> Path | None:
    """The file of a stored name, or None when it is missing (or the name is not one)."""
    if not name or "/" in name or "\\" in name or name.startswith("."):
        return None
    path = folder() / name
    return path if path.is_file() else None
