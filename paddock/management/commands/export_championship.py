"""``manage.py export_championship <slug> > file.json``: a whole championship, with history."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from paddock.venue.championship_backup import BackupError, dumps, export_championship


class Command(BaseCommand):
    help = (
        "Write a championship (drivers, events, runs, tables, results, history) as JSON; "
        "the photos of the signed sheets are not included (the venue's backups keep them)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug", help="the championship's slug")

    def handle(self, *args: Any, slug: str, **options: Any) -> None:
        try:
            data = export_championship(slug)
        except BackupError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(dumps(data))
