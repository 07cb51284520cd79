"""``manage.py import_event bundle.json``: on the laptop, load an event's bundle (its
check-out from the hosted server), all or nothing."""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import translation
from django.utils.translation import gettext as _

from tournament.away.arrival import ArrivalError, import_event, loaded_line


def read(file: str) -> bytes:
    """The bytes of ``file`` (“-”: standard input), or CommandError saying why not."""
    if file == "-":
        return sys.stdin.buffer.read()
    try:
        with open(file, "rb") as handle:
            return handle.read()
    except OSError as exc:
        raise CommandError(
            _("Cannot read %(file)s: %(error)s") % {"file": file, "error": exc.strerror}
        ) from exc


class Command(BaseCommand):
    help = "Load an event's bundle (its check-out) into this database (“-” reads standard input)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="the bundle, or - for standard input")

    def handle(self, *args: Any, file: str, **options: Any) -> None:
        with translation.override(None):  # the console speaks English
            try:
                arrived = import_event(read(file))
            except ArrivalError as exc:
                raise CommandError(str(exc)) from exc
        self.stdout.write(loaded_line(arrived))
