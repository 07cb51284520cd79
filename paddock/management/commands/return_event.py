"""``manage.py return_event back.json``: on the hosted server, land an event's day from its
laptop, whole or not at all."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import translation
from django.utils.translation import gettext as _

from paddock.away.landing import land
from paddock.management.commands.import_event import read
from tournament.errors import ServiceError


class Command(BaseCommand):
    help = "Land an event's way back (export_event's file; “-” reads standard input)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="the way back, or - for standard input")

    def handle(self, *args: Any, file: str, **options: Any) -> None:
        with translation.override(None):  # the console speaks English
            self._handle(*args, file=file, **options)

    def _handle(self, *args: Any, file: str, **options: Any) -> None:
        try:
            answer = land(read(file))
        except ServiceError as exc:
            lines = [f"- {m}" for msgs in exc.errors.values() for m in msgs if m != exc.message]
            refused = [_("Refused, nothing landed: ") + exc.message, *lines]
            raise CommandError("\n".join(refused)) from exc
        self.stdout.write(json.dumps(answer, sort_keys=True))
