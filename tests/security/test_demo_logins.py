"""load_demo on a production (issue 14): refused unless forced, and never the published logins.

The README prints the demo's logins (``admin`` / ``paddock-admin``, ``organisateur`` /
``paddock-pc``): with DEBUG on (a laptop) that is the point; with DEBUG off they would let
anyone in. With DEBUG on the published logins stay (tests/tournament/registration/test_services.py).
"""

from __future__ import annotations

import io
import os
import re
import secrets
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parent.parent.parent
PUBLISHED = {"admin": "paddock-admin", "organisateur": "paddock-pc"}


@pytest.fixture
def production(settings):
    """What load_demo sees under a DEBUG-off settings module (see the subprocess test)."""
    settings.DEMO_LOGINS_ALLOWED = False
    return settings


def printed_logins(output: str) -> dict[str, str]:
    return dict(re.findall(r"^  (admin|organisateur) / (\S+)", output, flags=re.MULTILINE))


def test_load_demo_refuses_to_run_on_a_production_server(tmp_path: Path) -> None:
    """The real thing: DEBUG off in the environment, nothing written to the database."""
    database = tmp_path / "production.sqlite3"
    result = subprocess.run(
        [sys.executable, "manage.py", "load_demo"],
        cwd=ROOT,
        env={
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "DEBUG": "false",
            "SECRET_KEY": secrets.token_urlsafe(50),
            "ALLOWED_HOSTS": "paddock.example.org",
            "DATABASE_URL": f"sqlite:///{database}",
        },
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert result.returncode != 0
    assert "DEBUG is off" in result.stderr
    assert "--force" in result.stderr
    assert "paddock-admin" not in result.stdout + result.stderr
    if database.exists():  # nothing created, not even the tables
        with sqlite3.connect(database) as connection:
            assert connection.execute("select count(*) from sqlite_master").fetchone() == (0,)


def test_load_demo_without_force_creates_no_account(production) -> None:
    with pytest.raises(CommandError, match="DEBUG is off"):
        call_command("load_demo", stdout=io.StringIO())

    assert not get_user_model().objects.exists()


def test_forced_load_demo_gives_random_passwords_printed_once(production) -> None:
    first, second = io.StringIO(), io.StringIO()

    call_command("load_demo", "--force", stdout=first)
    call_command("load_demo", "--force", stdout=second)

    passwords = printed_logins(first.getvalue())
    assert set(passwords) == {"admin", "organisateur"}
    assert len(set(passwords.values())) == 2
    users = get_user_model().objects
    for username, password in passwords.items():
        assert len(password) >= 20
        assert password != PUBLISHED[username]
        user = users.get(username=username)
        assert user.check_password(password)
        assert not user.check_password(PUBLISHED[username])
    for output in (first.getvalue(), second.getvalue()):
        assert "paddock-admin" not in output
        assert "paddock-pc" not in output
    # Printed once: the second run leaves them and says so.
    assert printed_logins(second.getvalue()) == {
        "admin": "(password",
        "organisateur": "(password",
    }
    assert "(password unchanged)" in second.getvalue()
    for password in passwords.values():
        assert password not in second.getvalue()
    assert users.get(username="admin").check_password(passwords["admin"])


def test_forced_load_demo_replaces_the_published_passwords_of_earlier_demos(
    production, django_user_model
) -> None:
    """A production that once ran the demo with DEBUG on: its accounts are closed now."""
    django_user_model.objects.create_superuser("admin", password="paddock-admin")
    django_user_model.objects.create_user("organisateur", password="a-password-of-its-own-1")
    out = io.StringIO()

    call_command("load_demo", "--force", stdout=out)

    passwords = printed_logins(out.getvalue())
    admin = django_user_model.objects.get(username="admin")
    assert not admin.check_password("paddock-admin")
    assert admin.check_password(passwords["admin"])
    # A password someone chose is theirs: left as it is.
    assert passwords["organisateur"] == "(password"
    organiser = django_user_model.objects.get(username="organisateur")
    assert organiser.check_password("a-password-of-its-own-1")
