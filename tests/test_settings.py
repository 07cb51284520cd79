"""Settings come from the environment: laptop defaults, real services when configured."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.core.cache import cache

ROOT = Path(__file__).resolve().parent.parent


def run_python(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` with only ``env`` set (plus PATH), as on a fresh machine."""
    clean = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **env}
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=clean, capture_output=True, text=True
    )


SHOW = (
    "import django, os; os.environ['DJANGO_SETTINGS_MODULE']='tournament.settings'; django.setup();"
    "from django.conf import settings as s;"
    "print(s.DATABASES['default']['ENGINE'], s.CELERY_TASK_ALWAYS_EAGER, s.DEBUG, s.LANGUAGE_CODE)"
)


def test_nothing_set_means_sqlite_and_inline_tasks():
    result = run_python(SHOW)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["django.db.backends.sqlite3", "True", "True", "fr"]


def test_database_and_redis_urls_switch_to_the_real_services():
    result = run_python(
        SHOW,
        DATABASE_URL="postgres://someone@127.0.0.1:5432/paddock",
        REDIS_URL="redis://127.0.0.1:6379/0",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[:2] == ["django.db.backends.postgresql", "False"]


def test_production_settings_pass_the_deploy_check():
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env={
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "DEBUG": "false",
            "SECRET_KEY": secrets.token_urlsafe(50),
            "ALLOWED_HOSTS": "paddock.example.org",
        },
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="REDIS_URL is not set")
def test_cache_round_trips_through_the_real_redis():
    assert settings.CACHES["default"]["BACKEND"].endswith("RedisCache")
    key = f"paddock-test-{secrets.token_hex(4)}"
    cache.set(key, {"pilote": "Élodie"}, 30)
    assert cache.get(key) == {"pilote": "Élodie"}
    cache.delete(key)
