"""A quiet console: a refusal the site meant (403, 404) is one line without a traceback,
and no line comes out twice (Django's own console handler is replaced, not added to).

Each case runs in a fresh process with the project's settings, as ``make run`` (DEBUG on)
or ``make venue`` (DEBUG off) would, and reads what it writes to its standard error.
"""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.faults.processes import static_manifest

ROOT = Path(__file__).resolve().parents[3]

SCRIPT = """
import datetime, logging, os, sys
import django
os.environ["DJANGO_SETTINGS_MODULE"] = "paddock.settings"
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
from django.test import Client
from tournament.models import Championship, Circuit, Event
championship = Championship.objects.create(slug="cf", name="Coupe", season="2026")
circuit = Circuit.objects.create(slug="monza", name="Monza", rain_from=1, rain_to=4,
    variable_from=5, variable_to=8, sun_from=9, sun_to=20)
Event.objects.create(championship=championship, slug="gp", name="GP",
    date=datetime.date(2026, 7, 14), circuit=circuit)
client = Client()
print("STATUS", client.get("/e/gp/desk/").status_code, client.get("/e/nope/").status_code)
sys.stderr.flush()
try:
    raise RuntimeError("boom")
except RuntimeError:
    logging.getLogger("django.request").error(
        "Internal Server Error: /x/", exc_info=True, extra={"status_code": 500})
"""


def settings_env(debug: str, data_dir: Path, static_root: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "DEBUG": debug,
        "PADDOCK_DATA_DIR": str(data_dir),
        "STATIC_ROOT": str(static_root),
        "SECRET_KEY": secrets.token_urlsafe(50),
        "SECURE_SSL_REDIRECT": "false",
    }


@pytest.fixture(scope="module", params=["true", "false"], ids=["make run", "make venue"])
def console(request, tmp_path_factory: pytest.TempPathFactory, migrated_sqlite: Path) -> str:
    """What one process writes to its standard error: once per setup, read by each test.
    Its database starts as the run's migrated copy (its own migrate has nothing left to do).
    With DEBUG off, pages name their static files through a manifest: one that names each
    file as itself (what is written to the console does not depend on the files' names,
    and collecting and compressing them cost this module 20 s)."""
    data = tmp_path_factory.mktemp("console")
    shutil.copyfile(migrated_sqlite, data / "db.sqlite3")
    env = settings_env(request.param, data, static_manifest())
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert "STATUS 403 404" in result.stdout, result.stdout + result.stderr
    return result.stderr


def test_an_expected_403_is_one_line_without_its_traceback(console: str) -> None:
    assert console.count("Forbidden (Permission denied): /e/gp/desk/") == 1, console
    assert "PermissionDenied" not in console


def test_an_expected_404_is_one_line(console: str) -> None:
    assert console.count("Not Found: /e/nope/") == 1, console


def test_only_the_server_error_has_a_traceback(console: str) -> None:
    """A real error must still say where it happened, once."""
    assert console.count("Internal Server Error: /x/") == 1, console
    assert console.count("Traceback") == 1 and "RuntimeError: boom" in console
