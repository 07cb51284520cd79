"""`manage.py check --deploy` with production environment variables (issue 5).

Run in a subprocess because settings are read from the environment at import. The clean
case uses what README's production section sets; the other cases prove the check would
notice a production that forgot one of them.
"""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHECK = [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"]
SHOW = [
    sys.executable,
    "-c",
    "import django, os; os.environ['DJANGO_SETTINGS_MODULE'] = 'tournament.settings';"
    "django.setup(); from django.conf import settings as s;"
    "print(s.DEBUG, s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.SECURE_SSL_REDIRECT,"
    " s.SECURE_HSTS_SECONDS >= 31536000, s.SECURE_HSTS_INCLUDE_SUBDOMAINS,"
    " s.SESSION_COOKIE_HTTPONLY, s.X_FRAME_OPTIONS)",
]


def production(**overrides: str | None) -> dict[str, str]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "DEBUG": "false",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "paddock.example.org",
        "CSRF_TRUSTED_ORIGINS": "https://paddock.example.org",
        "SITE_URL": "https://paddock.example.org",
    }
    # Production also has its real services; the deploy check must not depend on them.
    for name in ("DATABASE_URL", "REDIS_URL"):
        if os.environ.get(name):
            env[name] = os.environ[name]
    for name, value in overrides.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return env


def run(command: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def test_check_deploy_is_clean_with_production_variables() -> None:
    result = run(CHECK, production())
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_production_cookies_are_secure_and_hsts_is_on() -> None:
    result = run(SHOW, production())
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [
        "False",
        "True",
        "True",
        "True",
        "True",
        "True",
        "True",
        "DENY",
    ]


def test_check_deploy_notices_a_forgotten_secret_key() -> None:
    result = run(CHECK, production(SECRET_KEY=None))
    assert result.returncode != 0
    assert "security.W009" in result.stdout + result.stderr


def test_check_deploy_notices_debug_left_on() -> None:
    result = run(CHECK, production(DEBUG="true"))
    assert result.returncode != 0
    assert "security.W018" in result.stdout + result.stderr
