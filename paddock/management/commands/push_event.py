"""``manage.py push_event <event> --to https://… --token …``: from the laptop, once it has
internet, send the event's way back straight to the hosted server's API."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import translation
from django.utils.translation import gettext as _

from paddock.away.export import ExportError, export_event


class Command(BaseCommand):
    help = "Send the event's day to the hosted server (POST /api/v1/events/{event}/return)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("event", help="the event's slug")
        parser.add_argument("--to", required=True, help="the hosted server's address")
        parser.add_argument("--token", required=True, help="an organiser's API token there")
        parser.add_argument("--timeout", type=float, default=300.0)

    def handle(self, *args: Any, event: str, to: str, token: str, **options: Any) -> None:
        with translation.override(None):  # the console speaks English
            self._handle(*args, event=event, to=to, token=token, **options)

    def _handle(self, *args: Any, event: str, to: str, token: str, **options: Any) -> None:
        if not to.startswith(("https://", "http://")):
            raise CommandError(_("--to takes the server's address: https://…"))
        try:
            body = json.dumps(export_event(event), ensure_ascii=False).encode()
        except ExportError as exc:
            raise CommandError(str(exc)) from exc
        request = urllib.request.Request(  # noqa: S310 (an http(s) address, checked above)
            to.rstrip("/") + f"/api/v1/events/{event}/return",
            data=body,
            method="POST",
            headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=options["timeout"]) as response:  # noqa: S310
                answer = json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as exc:
            try:
                detail = json.loads(exc.read() or b"{}").get("detail", "")
            except ValueError:
                detail = ""
            raise CommandError(
                _("The server refused it (%(status)s): %(detail)s")
                % {"status": exc.code, "detail": detail or exc.reason}
            ) from exc
        except (urllib.error.URLError, OSError) as exc:
            raise CommandError(
                _("The server could not be reached: %(error)s") % {"error": exc}
            ) from exc
        self.stdout.write(json.dumps(answer, sort_keys=True))
