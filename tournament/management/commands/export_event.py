"""``manage.py export_event <event> > back.json``: on the laptop, the event's day as its way
back to the hosted server, signed with the check-out's key."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tournament.away.trip.export import ExportError, export_event


class Command(BaseCommand):
    help = "Write the event's day (its way back to the hosted server) to standard output."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("event", help="the event's slug")

    def handle(self, *args: Any, event: str, **options: Any) -> None:
        try:
            data = export_event(event)
        except ExportError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(json.dumps(data, ensure_ascii=False, sort_keys=True), ending="\n")
