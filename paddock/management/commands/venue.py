"""``manage.py venue`` (``make venue``): serve the tournament day from this laptop.

See the README, "A tournament day on a laptop". In order: the data folder and the database
(this account's only: 0700, 0600; migrated; SQLite in the data folder unless
``DATABASE_URL``), the static files, the demo's logins closed if a demo database came in,
the organiser's account (asked on first start), the laptop's address, the poster and QR
code, then gunicorn on every interface with ``DEBUG`` off (organiser pages on the laptop
only, sessions for the day), and a backup every few minutes until Ctrl+C (a last one then).
"""

from __future__ import annotations

import os
import socket
import sys
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import connections
from django.urls import reverse
from django.utils import translation

from paddock.venue.database_backup import (
    BackupProblem,
    backup_recorded,
    restore_command,
    shown_path,
)
from paddock.venue.day import (
    NoAnswer,
    Venue,
    ask_organiser,
    close_demo_logins,
    featured_event,
    lan_address,
    organiser_exists,
    protect_data,
    static_files_current,
)
from paddock.venue.poster import Poster, PosterRenderer, terminal_qr
from paddock.venue.progress import collected
from paddock.venue.serving import Gunicorn, StopSignals, leftover, port_taken, say, serve
from tournament.away.arrival import ArrivalError, load_bundle


class Command(BaseCommand):
    help = (
        "Serve the tournament from this laptop to the phones of its network: gunicorn on "
        "every interface, DEBUG off, the laptop's address as the site's, a poster to print, "
        "and a backup of the whole database every few minutes."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument(
            "--address", default="", help="The address phones use (default: found by itself)."
        )
        parser.add_argument("--wifi", default="", help="The Wi-Fi's name, for the poster.")
        parser.add_argument(
            "--wifi-password", default="", help="Its password: the poster gets a Wi-Fi QR code."
        )
        parser.add_argument("--event", default="", help="The event the poster points to (slug).")
        parser.add_argument(
            "--backup-minutes",
            type=float,
            default=float(settings.BACKUP_MINUTES),
            help="Minutes between two backups (BACKUP_MINUTES, default 5).",
        )
        parser.add_argument(
            "--organisers-on-wifi",
            action="store_true",
            help="Organiser pages (login, admin, race control) from any device of the network, "
            "not this laptop alone (ORGANISERS_ON_WIFI=1): their passwords then cross the "
            "Wi-Fi in plain HTTP.",
        )
        parser.add_argument(
            "--bundle", default="", help="An event's bundle (its check-out) to load first."
        )
        parser.add_argument("--workers", type=int, default=2)
        parser.add_argument("--threads", type=int, default=4)

    def handle(self, *args: Any, **options: Any) -> None:
        # Its own handlers of SIGINT, SIGTERM and SIGHUP, whatever it inherited (a shell's
        # background job ignores SIGINT, and Python then installs none).
        signals = StopSignals(self.stderr)
        try:
            self.day(signals, options)
        finally:
            signals.restore()

    def day(self, signals: StopSignals, options: dict[str, Any]) -> None:
        if options["backup_minutes"] <= 0:
            raise CommandError("--backup-minutes must be more than 0.")
        # A server left running by an earlier start (its command killed, or still running
        # in another terminal): named, with how to stop it, before anything is touched.
        earlier = leftover(settings.DATA_DIR)
        if earlier is not None:
            raise CommandError(earlier.message())
        if port_taken(options["port"]):
            raise CommandError(
                f"Port {options['port']} is taken by another program: stop it, or start "
                "on another port (make venue PORT=8001)."
            )
        out = self.stdout
        for stream in (sys.stdout, sys.stderr):  # each line as it comes, even into a pipe
            if hasattr(stream, "reconfigure"):
                stream.reconfigure(line_buffering=True)
        out.write(f"Data folder: {settings.DATA_DIR}")
        # Every file this command and gunicorn create (database, journal, cache, photos) is
        # this account's only; the public static files keep the usual mode.
        usual = os.umask(0o077)
        database = connections["default"].settings_dict["NAME"]
        sqlite = connections["default"].vendor == "sqlite"
        protect_data(settings.DATA_DIR, settings.BASE_DIR, database if sqlite else None)
        call_command("migrate", interactive=False, verbosity=0)
        protect_data(settings.DATA_DIR, settings.BASE_DIR, database if sqlite else None)
        if options["bundle"]:  # make venue BUNDLE=…: the event away, loaded once
            try:
                out.write(load_bundle(options["bundle"]))
            except ArrivalError as exc:
                raise CommandError(str(exc)) from exc
        if not static_files_current():
            out.write("Compressing the static files (once: up to a minute on a slow laptop)…")
            os.umask(usual)
            collected(out.write)
            os.umask(0o077)
        for username in close_demo_logins():
            out.write(
                self.style.WARNING(
                    f"The demo login {username!r} still opened with its published password: "
                    "closed (it logs in no more, its sessions are ended). Give it a password "
                    f"of its own with: manage.py changepassword {username}"
                )
            )
        if not organiser_exists():
            out.write("First start: the organiser's account (race control logs in with it).")
            try:
                organiser = ask_organiser(sys.stdin, sys.stdout)
            except NoAnswer:
                raise CommandError(
                    "No organiser account: run make venue in a terminal to answer its "
                    "questions (or create one with manage.py createsuperuser)."
                ) from None
            club = organiser.memberships.select_related("club").first().club
            out.write(
                self.style.SUCCESS(
                    f"Organiser account created, owner of the club {club.name}: its "
                    "championships, circuits and people are made from its pages."
                )
            )

        address = options["address"] or lan_address()
        if not address:
            out.write(
                self.style.WARNING(
                    "No network found: serving this laptop only (127.0.0.1). Join the hall's "
                    "Wi-Fi and start again for the phones."
                )
            )
            address = "127.0.0.1"
        venue = Venue(
            address=address,
            port=options["port"],
            hostname=socket.gethostname(),
            organisers_on_wifi=options["organisers_on_wifi"],
        )
        event = featured_event(options["event"])
        if options["event"] and event is None:
            raise CommandError(f"No event {options['event']!r}.")
        base = venue.site_url
        url = base + (reverse("event", args=[event.slug]) if event else "/")
        with translation.override(settings.LANGUAGE_CODE):
            poster = PosterRenderer().render(
                Poster(
                    url=url,
                    title=event.name if event else "",
                    wifi_name=options["wifi"],
                    wifi_password=options["wifi_password"],
                )
            )
        poster_path = settings.DATA_DIR / "poster.pdf"
        poster_path.write_bytes(poster)
        connections.close_all()  # gunicorn's workers open their own

        out.write("")
        out.write(self.style.SUCCESS(f"Paddock serves the hall on {base}/"))
        if options["wifi"]:
            out.write(f"Wi-Fi: {options['wifi']}")
        out.write(terminal_qr(url))
        out.write(f"Phones: {url}")
        organisers = base if venue.organisers_on_wifi else venue.laptop_url
        if event:
            out.write(f"Where do I sit? {base}{reverse('where', args=[event.slug])}")
            out.write(f"Race control: {organisers}{reverse('event-desk', args=[event.slug])}")
        if venue.organisers_on_wifi:
            out.write(
                self.style.WARNING(
                    "ORGANISERS_ON_WIFI: organiser pages (login, admin, race control) answer "
                    "every device of the network. Plain HTTP: anyone on this Wi-Fi (its "
                    "password is on the poster) can read the organiser's password and session."
                )
            )
        else:
            out.write(
                f"Organiser pages (login, admin, race control) on this laptop only: "
                f"{venue.laptop_url}/ (phones get a page saying so). To open them from "
                "the Wi-Fi too, restart with: make venue ORGANISERS_ON_WIFI=1"
            )
        out.write("Sessions last the day: until the browser closes, 12 hours at most.")
        out.write(f"Poster to print (A4): {poster_path}")
        out.write(f"Health (for a monitor): {base}{reverse('health')}")
        out.write(
            f"Backups every {options['backup_minutes']:g} min into {settings.BACKUP_DIR}; "
            f"restore one with: {restore_command(f'{shown_path(settings.BACKUP_DIR)}/<file>')}"
        )
        out.write("Stop with Ctrl+C (a last backup is taken then; closing the terminal too).")
        out.write("")

        def backup() -> None:
            try:
                taken = backup_recorded(directory=settings.BACKUP_DIR, keep=settings.BACKUP_KEEP)
            except BackupProblem as exc:
                self.stderr.write(f"Backup failed: {exc}")
                return
            finally:
                connections.close_all()
            photos = f", {taken.photos} new photos of the sheets" if taken.photos else ""
            out.write(f"Backup: {taken.path.name} ({taken.size / 1e6:.1f} MB{photos})")

        complete = serve(
            Gunicorn(venue, workers=options["workers"], threads=options["threads"]),
            every=options["backup_minutes"] * 60,
            backup=backup,
            signals=signals,
            stderr=self.stderr,
        )
        say(self.stdout, f"Stopped. Backups in {settings.BACKUP_DIR}.")
        if not complete:
            raise CommandError("The last backup did not end: see above.")
