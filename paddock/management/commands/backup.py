"""``manage.py backup``: one backup of the whole database now, then the rotation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from paddock.venue.database_backup import BackupProblem, backup_recorded


class Command(BaseCommand):
    help = (
        "Back up the whole database (accounts, championships, history) and the new photos of "
        "the sheets into BACKUP_DIR "
        "(default: backups/ in the data folder), keeping the last BACKUP_KEEP and the last "
        "of each hour before them. Restore one with: manage.py restore <file>."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--directory", type=Path, default=None, help="Where to write it.")
        parser.add_argument("--keep", type=int, default=None, help="How many to keep.")

    def handle(self, *args: Any, **options: Any) -> None:
        directory = options["directory"] or settings.BACKUP_DIR
        keep = options["keep"] if options["keep"] is not None else settings.BACKUP_KEEP
        try:
            taken = backup_recorded(directory=directory, keep=max(1, keep))
        except BackupProblem as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(
            f"{taken.path} ({taken.size / 1e6:.1f} MB); {taken.photos} new photo files "
            f"of the sheets in {directory / 'photos'}"
        )
