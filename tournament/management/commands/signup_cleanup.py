"""``python manage.py signup_cleanup``: delete unconfirmed registrations older than 7 days
(sign-up also does it on each new sign-up; run this from cron on a quiet server)."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from tournament.signup.services import registrations_clean


class Command(BaseCommand):
    help = "Delete unconfirmed registrations older than 7 days."

    def handle(self, *args: object, **options: object) -> None:
        self.stdout.write(f"{registrations_clean()} unconfirmed registration(s) deleted.")
