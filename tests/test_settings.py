"""Settings come from the environment: production unless DEBUG is on, laptop defaults with
DEBUG on, real services when configured."""

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
    "import django, os; os.environ['DJANGO_SETTINGS_MODULE']='paddock.settings'; django.setup();"
    "from django.conf import settings as s;"
    "print(s.DATABASES['default']['ENGINE'], s.CELERY_TASK_ALWAYS_EAGER, s.DEBUG, s.LANGUAGE_CODE)"
)


def test_debug_on_alone_means_sqlite_and_inline_tasks():
    """The laptop setup (`make run` sets DEBUG=true): no key, no service needed."""
    result = run_python(SHOW, DEBUG="true")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["django.db.backends.sqlite3", "True", "True", "fr"]


def test_debug_is_off_unless_set():
    result = run_python(SHOW, SECRET_KEY=secrets.token_urlsafe(50))
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[2] == "False"


def test_database_and_redis_urls_switch_to_the_real_services():
    result = run_python(
        SHOW,
        DEBUG="true",
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


# --- No production without its own secret key (issue 14) -----------------------------------

DEVELOPMENT_KEY = "django-insecure-paddock-development-key-change-me-in-production"
HOW_TO_GENERATE = "python -c 'import secrets; print(secrets.token_urlsafe(50))'"


def manage_check(**env: str) -> subprocess.CompletedProcess[str]:
    clean = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **env}
    return subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=ROOT,
        env=clean,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("debug", "key", "reason"),
    [
        (None, None, "SECRET_KEY is not set"),
        ("false", None, "SECRET_KEY is not set"),
        ("false", "", "SECRET_KEY is not set"),
        ("false", "k" * 20 + secrets.token_hex(14), "SECRET_KEY has 48 characters"),
        ("false", DEVELOPMENT_KEY, "SECRET_KEY is the development key"),
        ("false", "django-insecure-" + secrets.token_urlsafe(50), "SECRET_KEY is Django's"),
        ("false", "ab" * 40, "SECRET_KEY repeats"),
    ],
    ids=["nothing-set", "missing", "empty", "short", "development-key", "insecure", "repetitive"],
)
def test_the_server_refuses_to_start_without_a_proper_key(debug, key, reason):
    env = {"ALLOWED_HOSTS": "paddock.example.org"}
    if debug is not None:
        env["DEBUG"] = debug
    if key is not None:
        env["SECRET_KEY"] = key

    result = manage_check(**env)

    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert reason in result.stderr
    assert HOW_TO_GENERATE in result.stderr
    assert "System check identified no issues" not in result.stdout


@pytest.mark.parametrize("fallback", [DEVELOPMENT_KEY, "short-old-key"], ids=["published", "short"])
def test_the_server_refuses_a_published_or_weak_fallback_key(fallback):
    """An old key kept in SECRET_KEY_FALLBACKS still opens links and sessions: the published
    development key there would open them for anyone (issue 20)."""
    result = manage_check(
        DEBUG="false",
        SECRET_KEY=secrets.token_urlsafe(50),
        SECRET_KEY_FALLBACKS=f"{secrets.token_urlsafe(50)},{fallback}",
        ALLOWED_HOSTS="paddock.example.org",
    )
    assert result.returncode != 0
    assert "In SECRET_KEY_FALLBACKS:" in result.stderr
    assert "System check identified no issues" not in result.stdout


def test_a_generated_key_starts_the_server():
    result = manage_check(
        DEBUG="false", SECRET_KEY=secrets.token_urlsafe(50), ALLOWED_HOSTS="paddock.example.org"
    )
    assert result.returncode == 0, result.stderr
    assert "System check identified no issues" in result.stdout


def test_debug_on_keeps_the_development_key():
    result = run_python(SHOW.replace("s.LANGUAGE_CODE", "s.SECRET_KEY"), DEBUG="true")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[-1] == DEVELOPMENT_KEY


# --- The venue's settings (issue 13) ------------------------------------------------------------

DATABASE = (
    "import django, os; os.environ['DJANGO_SETTINGS_MODULE']='paddock.settings'; django.setup();"
    "from django.conf import settings as s; from django.db import connection;"
    "connection.ensure_connection(); c = connection.cursor();"
    "c.execute('PRAGMA journal_mode'); mode = c.fetchone()[0];"
    "c.execute('PRAGMA synchronous'); sync = c.fetchone()[0];"
    "print(s.DATABASES['default']['NAME'], mode, sync, s.BACKUP_DIR)"
)


def test_sqlite_is_in_the_data_folder_in_write_ahead_log_mode(tmp_path: Path) -> None:
    result = run_python(DATABASE, DEBUG="true", PADDOCK_DATA_DIR=str(tmp_path))
    assert result.returncode == 0, result.stderr
    name, mode, synchronous, backups = result.stdout.split()
    assert name == str(tmp_path / "db.sqlite3")
    # 2 = FULL: a commit is flushed before "saved" is answered (NORMAL, 1, may lose the last
    # acknowledged ones to a power cut).
    assert (mode, synchronous) == ("wal", "2")
    assert backups == str(tmp_path / "backups")


def test_postgresql_connections_are_checked_before_reuse() -> None:
    code = SHOW.replace(
        "print(s.DATABASES['default']['ENGINE'], s.CELERY_TASK_ALWAYS_EAGER, s.DEBUG, "
        "s.LANGUAGE_CODE)",
        "d = s.DATABASES['default']; print(d['CONN_MAX_AGE'], d['CONN_HEALTH_CHECKS'])",
    )
    result = run_python(code, DEBUG="true", DATABASE_URL="postgres://someone@127.0.0.1/paddock")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["60", "True"]


KEY = (
    "import django, os; os.environ['DJANGO_SETTINGS_MODULE']='paddock.settings'; django.setup();"
    "from django.conf import settings as s; print(s.SECRET_KEY)"
)


def test_a_key_file_is_written_once_then_kept(tmp_path: Path) -> None:
    """make venue: DEBUG off, no SECRET_KEY; the key is made once into the data folder."""
    key_file = tmp_path / "venue" / "secret_key"
    first = run_python(KEY, SECRET_KEY_FILE=str(key_file))
    assert first.returncode == 0, first.stderr
    second = run_python(KEY, SECRET_KEY_FILE=str(key_file))
    assert first.stdout == second.stdout and len(first.stdout.strip()) >= 50
    assert key_file.read_text().strip() == first.stdout.strip()
    assert key_file.stat().st_mode & 0o777 == 0o600


def test_a_short_key_in_the_file_still_stops_the_server(tmp_path: Path) -> None:
    key_file = tmp_path / "secret_key"
    key_file.write_text("too-short\n")
    result = run_python(KEY, SECRET_KEY_FILE=str(key_file))
    assert result.returncode != 0 and "SECRET_KEY has 9 characters" in result.stderr


SENTRY = (
    "import django, os; os.environ['DJANGO_SETTINGS_MODULE']='paddock.settings'; django.setup();"
    "import sentry_sdk; c = sentry_sdk.get_client();"
    "print(c.is_active(), c.options.get('send_default_pii'),"
    " any(type(i).__name__ == 'DjangoIntegration' for i in c.integrations.values()))"
)


def test_error_reports_are_off_unless_a_dsn_is_set() -> None:
    off = run_python(SENTRY, DEBUG="true")
    assert off.returncode == 0, off.stderr
    assert off.stdout.split()[0] == "False"
    on = run_python(SENTRY, DEBUG="true", SENTRY_DSN="https://public@sentry.example.org/1")
    assert on.returncode == 0, on.stderr
    assert on.stdout.split() == ["True", "False", "True"]


def test_each_test_worker_has_a_redis_database_of_its_own():
    """make test's workers (pytest-xdist) share no Redis database: gw0 keeps REDIS_URL's,
    gw<n> takes the n-th after it, and past Redis's 16 the run stops and says why."""
    from tests.settings import redis_url_of_worker

    assert redis_url_of_worker("redis://127.0.0.1:6379/0", 0) == "redis://127.0.0.1:6379/0"
    assert redis_url_of_worker("redis://127.0.0.1:6379/0", 2) == "redis://127.0.0.1:6379/2"
    assert redis_url_of_worker("redis://:pw@h:6380/3", 1) == "redis://:pw@h:6380/4"
    assert redis_url_of_worker("redis://127.0.0.1:6379", 1) == "redis://127.0.0.1:6379/1"
    with pytest.raises(RuntimeError, match="Redis has 16"):
        redis_url_of_worker("redis://127.0.0.1:6379/10", 6)
    if os.environ.get("REDIS_URL"):  # this worker's cache is on the database it was given
        assert settings.CACHES["default"]["LOCATION"] == os.environ["REDIS_URL"]


MAIL_FROM = (
    "import django, os; os.environ['DJANGO_SETTINGS_MODULE']='paddock.settings'; django.setup();"
    "from django.conf import settings as s; print(s.DEFAULT_FROM_EMAIL)"
)


def test_mails_come_from_the_site_s_name_at_its_host_unless_set():
    """Issue 40: mails came from Django's ``webmaster@localhost``, which receiving servers
    take for spam. Unset, the sender is the site's name at SITE_URL's host."""
    derived = run_python(MAIL_FROM, DEBUG="true", SITE_URL="https://paddock.example.org/")
    assert derived.returncode == 0, derived.stderr
    assert derived.stdout.strip() == "Paddock <noreply@paddock.example.org>"
    chosen = run_python(MAIL_FROM, DEBUG="true", DEFAULT_FROM_EMAIL="Club <club@example.org>")
    assert chosen.stdout.strip() == "Club <club@example.org>"
