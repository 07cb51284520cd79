"""``manage.py import_championship file.json``: load an export, all or nothing."""

from __future__ import annotations

import json
import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext as _

from paddock.venue.championship_backup import BackupError, import_championship


class Command(BaseCommand):
    help = "Load a championship written by export_championship (“-” reads standard input)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="the export file, or - for standard input")

    def handle(self, *args: Any, file: str, **options: Any) -> None:
        try:
            if file == "-":
                data = json.load(sys.stdin)
            else:
                with open(file, encoding="utf-8") as handle:
                    data = json.load(handle)
        except OSError as exc:
            raise CommandError(
                _("Cannot read %(file)s: %(error)s") % {"file": file, "error": exc.strerror}
            ) from exc
        except (ValueError, UnicodeDecodeError) as exc:
            raise CommandError(
                _("%(file)s is not JSON, hence not a Paddock export: %(error)s")
                % {"file": file, "error": exc}
            ) from exc
        try:
            imported = import_championship(data)
        except BackupError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(_("Championship “%(slug)s” imported.") % {"slug": imported.slug})
        if imported.links_renewed:
            self.stdout.write(
                _(
                    "%(count)s referee links were renewed: this server's SECRET_KEY cannot "
                    "open the file's. Print those tables' sheets again."
                )
                % {"count": imported.links_renewed}
            )
