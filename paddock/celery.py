"""The Celery application. Without REDIS_URL, tasks run inline (eager)."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "paddock.settings")

app = Celery("paddock")
app.config_from_object("django.conf:settings", namespace="CELERY")
# The task modules are named in settings (CELERY_IMPORTS).
