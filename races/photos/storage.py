"""Where the stored photos live: files under ``MEDIA_ROOT/photos/``, each named by the
SHA-256 of its bytes. A file is written once and never changed (a replaced photo is a new
file), so that backups copy each one once (``paddock.venue.database_backup``) and a
restore on another folder finds them by name. A file goes with the last row that names it."""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models.signals import post_delete

from races.models import SheetPhoto

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


def forget(names: list[str]) -> None:
    """Delete the files of ``names`` that no photo row names any more (the same bytes are one
    file, which two rows may share). Called once the deletion is committed."""
    for name in names:
        path = path_of(name)
        if path is None:
            continue
        if SheetPhoto.objects.filter(image=name).exists():
            continue
        if SheetPhoto.objects.filter(thumbnail=name).exists():
            continue
        path.unlink(missing_ok=True)


def _photo_deleted(sender: Any, instance: Any, using: str, **kwargs: Any) -> None:
    names = [instance.image, instance.thumbnail]
    transaction.on_commit(lambda: forget(names), using=using)


def connect_deletions() -> None:
    """Delete a photo's files with its row (issue 32): a photo deleted alone, or with its
    table or event (the cascade sends ``post_delete`` for each row), once committed; a
    rolled-back deletion keeps them. Connected at start-up (``races.apps``)."""
    post_delete.connect(_photo_deleted, sender=SheetPhoto, dispatch_uid="photos-files")
