"""Whether the last backup worked, for race control's desk to say so.

``make venue`` takes the backups in its own process, beside gunicorn's (``paddock.venue``):
a backup that fails (the backups' disk full, the folder gone) must not stop the server, and
must not pass unseen either. Each attempt writes its outcome into a small JSON file of the
data folder (``BACKUP_STATE_FILE``), deliberately not in the backups' folder, whose disk is
the one likely full; the desk reads it on every load.
"""

from __future__ import annotations

import datetime
import json
import os
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.utils import timezone


@dataclass(frozen=True)
class BackupFailure:
    """The last backup failed: when, why, and when one last worked (None: never)."""

    at: datetime.datetime
    error: str
    last_success: datetime.datetime | None


def _path() -> Path:
    return Path(settings.BACKUP_STATE_FILE)


def _read() -> dict[str, str]:
    try:
        state = json.loads(_path().read_text())
    except (OSError, ValueError):
        return {}
    return state if isinstance(state, dict) else {}


def _write(state: dict[str, str]) -> None:
    """Replaced whole (a reader never sees half a file); a failure to write is let go: the
    backup's own outcome is what the caller reports."""
    path = _path()
    partial = path.with_name(path.name + ".partial")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial.write_text(json.dumps(state))
        os.replace(partial, path)
    except OSError:
        partial.unlink(missing_ok=True)


def record_success() -> None:
    _write({"last_success": timezone.now().isoformat()})


def record_failure(error: str) -> None:
    state = _read()
    _write(
        {
            "failed_at": timezone.now().isoformat(),
            "error": error[:500],
            **({"last_success": state["last_success"]} if "last_success" in state else {}),
        }
    )


def _moment(value: str | None) -> datetime.datetime | None:
    try:
        return datetime.datetime.fromisoformat(value) if value else None
    except ValueError:
        return None


def last_failure() -> BackupFailure | None:
    """The failure of the last backup, or None when it worked (or none was taken here)."""
    state = _read()
    failed_at = _moment(state.get("failed_at"))
    if failed_at is None:
        return None
    return BackupFailure(
        at=failed_at,
        error=str(state.get("error", "")),
        last_success=_moment(state.get("last_success")),
    )
