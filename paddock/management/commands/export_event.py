"""``make export EVENT=<event>`` (``manage.py export_event <event> --output <file or
folder>``): on the laptop, the event's day as its way back to the hosted server, signed
with the check-out's key. Without ``--output`` it goes to standard output.

The file is written whole or not at all: into a file of its own beside the target, renamed
once complete, so that a failure (an unknown event, a key this laptop cannot read) never
leaves an empty or half-written file that could be taken for the day. It is this account's
only (0600): it may carry the registrants' addresses.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import translation

from paddock.away.export import ExportError, export_event


def write_whole(path: Path, text: str) -> None:
    """``text`` into ``path``, complete or not at all (a partial file renamed at the end)."""
    handle, partial = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".partial")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(partial, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(partial)


class Command(BaseCommand):
    help = (
        "Write the event's day (its way back to the hosted server) to --output (a file, or a "
        "folder: <event>.back.json in it), or to standard output."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("event", help="the event's slug")
        parser.add_argument(
            "--output",
            type=Path,
            default=None,
            help="the file to write (or a folder for <event>.back.json), whole or not at all",
        )

    def handle(self, *args: Any, event: str, output: Path | None, **options: Any) -> None:
        with translation.override(None):  # the console speaks English
            try:
                data = export_event(event)
            except ExportError as exc:
                raise CommandError(str(exc)) from exc
        text = json.dumps(data, ensure_ascii=False, sort_keys=True) + "\n"
        if output is None:
            self.stdout.write(text, ending="")
            return
        path = output / f"{event}.back.json" if output.is_dir() else output
        if not path.parent.is_dir():
            raise CommandError(f"No folder {path.parent} to write the way back into.")
        try:
            write_whole(path, text)
        except OSError as exc:
            raise CommandError(f"The way back could not be written to {path}: {exc}") from exc
        shown = path.resolve()
        self.stdout.write(
            f"The day of {event} is in {shown} ({len(text.encode()) // 1024 + 1} kB).\n"
            'Bring it home: on the hosted server, the event\'s desk, "The day on a laptop", '
            f"upload this file; or, with internet here: make push EVENT={event} "
            "TO=https://<hosted server> TOKEN=<an organiser's API token there>."
        )
