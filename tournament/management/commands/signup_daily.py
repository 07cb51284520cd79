"""``python manage.py signup_daily``: once a day (cron, or a systemd timer), the reminders
two days before each event and the deletion of unconfirmed registrations older than 7 days
(each sign-up deletes those too)."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from tournament.signup.broadcast import reminders_queue
from tournament.signup.services import registrations_clean


class Command(BaseCommand):
    help = "Sign-up's daily work: reminders two days before, old unconfirmed deleted."

    def handle(self, *args: object, **options: object) -> None:
        self.stdout.write(f"{reminders_queue()} reminder(s) queued.")
        self.stdout.write(f"{registrations_clean()} unconfirmed registration(s) deleted.")
