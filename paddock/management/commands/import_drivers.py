"""Import a championship's drivers from a CSV file (all or nothing, update by number)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from tournament.access import Actor
from tournament.errors import ServiceError
from tournament.models import Championship
from tournament.registration.csv_import import decode
from tournament.registration.services import drivers_import


class Command(BaseCommand):
    help = (
        "Import drivers (number,first_name,last_name,team,email; ';' or ',') into a championship."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("championship", help="The championship's slug.")
        parser.add_argument("file", help="Path of the CSV file.")

    def handle(self, *args: Any, **options: Any) -> None:
        championship = Championship.objects.filter(slug=options["championship"]).first()
        if championship is None:
            raise CommandError(f"No championship with the slug {options['championship']!r}.")
        path = Path(options["file"])
        if not path.is_file():
            raise CommandError(f"No such file: {path}")
        # The command line is trusted like an administrator; the change is still recorded.
        admin = get_user_model()(username="manage.py", is_superuser=True, is_active=True)
        actor = Actor(user=admin, via="import_drivers")
        try:
            report = drivers_import(
                actor=actor, championship=championship, text=decode(path.read_bytes())
            )
        except ServiceError as exc:
            for error in exc.current or []:
                self.stderr.write(f"line {error.line}: {error.message}")
            raise CommandError(exc.message) from exc
        self.stdout.write(
            self.style.SUCCESS(f"{report.created} driver(s) created, {report.updated} updated.")
        )
