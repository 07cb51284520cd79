"""``python manage.py signup_daily``: sign-up's daily work by hand (Celery beat runs it
every morning where there is a worker: ``CELERY_BEAT_SCHEDULE``): the reminders two days
before each event and the deletion of unconfirmed registrations older than 7 days (each
sign-up deletes those too)."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from tournament.signup.broadcast import signup_daily


class Command(BaseCommand):
    help = "Sign-up's daily work: reminders two days before, old unconfirmed deleted."

    def handle(self, *args: object, **options: object) -> None:
        done = signup_daily()
        self.stdout.write(f"{done['reminders']} reminder(s) queued.")
        self.stdout.write(f"{done['deleted']} unconfirmed registration(s) deleted.")
