"""``manage.py restore <file>``: a backup of ``manage.py backup`` (or ``make venue``) back
into the configured database."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.utils import translation
from django.utils.translation import ngettext

from paddock.venue.database_backup import (
    PHOTOS,
    BackupProblem,
    restore,
    restored_summary,
    unreadable_links,
)


class Command(BaseCommand):
    help = (
        "Restore a backup file (.sqlite3 or .pgdump) into the configured database, which "
        "must be empty unless --replace (make restore ... REPLACE=1), and the photos of the "
        "sheets kept beside it into the media root. Stop the server first. Only what Paddock "
        "writes is accepted (anything else is refused, by name, before the database is "
        "touched); PostgreSQL restores as the application's own role, never a superuser."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("file", type=Path, help="A file of the backups folder.")
        parser.add_argument(
            "--replace",
            action="store_true",
            help="Replace a database that is not empty (SQLite: kept aside first).",
        )
        parser.add_argument(
            "--role",
            default=None,
            help=(
                "PostgreSQL: the role the restore acts as (SET ROLE), when DATABASE_URL's is "
                "a superuser; never a superuser itself."
            ),
        )

    def handle(self, *args: Any, **options: Any) -> None:
        with translation.override(None):  # the console speaks English, its refusals too
            self._handle(**options)

    def _handle(self, **options: Any) -> None:
        try:
            kept = restore(
                options["file"],
                replace=options["replace"],
                role=options["role"],
                say=self.stdout.write,
            )
        except BackupProblem as exc:
            raise CommandError(str(exc)) from exc
        if kept:
            self.stdout.write(f"The replaced database is kept as {kept}.")
        photos = settings.MEDIA_ROOT / PHOTOS
        count = sum(1 for _ in photos.glob("*.jpg")) if photos.is_dir() else 0
        self.stdout.write(f"Photos of the sheets in {photos}: {count} files.")
        self.stdout.write(self.style.SUCCESS(f"Restored {options['file']}."))
        self.stdout.write(f"The database now holds: {restored_summary()}.")
        if unreadable := unreadable_links():
            self.stdout.write(
                self.style.WARNING(
                    ngettext(
                        "%(count)s referee link was sealed with another SECRET_KEY: it still "
                        "opens its table, but cannot be printed again. Put that key in "
                        "SECRET_KEY_FALLBACKS, or give the table a new link at the desk and "
                        "print its sheet again.",
                        "%(count)s referee links were sealed with another SECRET_KEY: they "
                        "still open their tables, but cannot be printed again. Put that key in "
                        "SECRET_KEY_FALLBACKS, or give those tables new links at the desk and "
                        "print their sheets again.",
                        unreadable,
                    )
                    % {"count": unreadable}
                )
            )
