"""The roof: settings, the URL and API roots, the Celery app, wsgi, the admin site, the
management commands, and what spans every app (the day on one laptop, the trip away and
back, the guide). Nothing below imports it."""

from .celery import app as celery_app

__all__ = ("celery_app",)
