"""`manage.py check --deploy` with production environment variables (issue 5).

Run in a subprocess because settings are read from the environment at import. The clean
case uses what README's production section sets; the other cases prove the check would
notice a production that forgot one of them.
"""

from __future__ import annotations

import os
import re
import secrets
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

CHECK = [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"]
SHOW = [
    sys.executable,
    "-c",
    "import django, os; os.environ['DJANGO_SETTINGS_MODULE'] = 'paddock.settings';"
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


def test_check_deploy_is_clean_when_debug_is_not_set() -> None:
    """Production is the default: nothing says DEBUG, the deploy check has nothing to say."""
    result = run(CHECK, production(DEBUG=None))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_a_forgotten_secret_key_stops_the_server_before_any_check() -> None:
    result = run(CHECK, production(SECRET_KEY=None))
    assert result.returncode != 0
    assert "SECRET_KEY is not set" in result.stderr
    assert "token_urlsafe(50)" in result.stderr


def test_check_deploy_notices_debug_left_on() -> None:
    result = run(CHECK, production(DEBUG="true"))
    assert result.returncode != 0
    assert "security.W018" in result.stdout + result.stderr


# --- Lock files (issue 14) ------------------------------------------------------------------
#
# requirements.txt and requirements-dev.txt are what people edit; requirements.lock and
# requirements-dev.lock are what gets installed (`make lock` writes them): every package,
# dependencies of dependencies included, pinned and hashed.

REQUIREMENT = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?==([^\s;\\#]+)")


def pins(path: Path) -> dict[str, str]:
    """name → version of every ``name==version`` line (names normalised as pip does)."""
    found = {}
    for line in path.read_text().splitlines():
        match = REQUIREMENT.match(line)
        if match:
            found[re.sub(r"[-_.]+", "-", match.group(1)).lower()] = match.group(2)
    return found


def locked_entries(path: Path) -> dict[str, str]:
    """name → the whole entry (its line and its ``--hash`` continuation lines)."""
    entries: dict[str, str] = {}
    name = ""
    for line in path.read_text().splitlines():
        match = REQUIREMENT.match(line)
        if match:
            name = re.sub(r"[-_.]+", "-", match.group(1)).lower()
            entries[name] = line
        elif line.startswith("    --hash=") and name:
            entries[name] += "\n" + line
    return entries


def test_the_lock_files_pin_what_the_requirements_files_name() -> None:
    runtime, dev = pins(ROOT / "requirements.lock"), pins(ROOT / "requirements-dev.lock")
    wanted_runtime = pins(ROOT / "requirements.txt")
    wanted_dev = {**wanted_runtime, **pins(ROOT / "requirements-dev.txt")}

    assert {n: runtime.get(n) for n in wanted_runtime} == wanted_runtime, "run `make lock`"
    assert {n: dev.get(n) for n in wanted_dev} == wanted_dev, "run `make lock`"
    # The dev lock installs the runtime packages at the runtime lock's versions.
    assert {n: dev.get(n) for n in runtime} == runtime
    # uv, installed first to install the rest, is the dev lock's uv.
    installer = pins(ROOT / "requirements-uv.lock")
    assert installer == pins(ROOT / "requirements-uv.txt") == {"uv": dev["uv"]}
    # And dependencies of dependencies are pinned too (celery's kombu, ninja's pydantic...).
    assert {"kombu", "pydantic", "asgiref", "sqlparse"} <= set(runtime)


def test_every_locked_package_has_its_hashes() -> None:
    for lock in ("requirements.lock", "requirements-dev.lock", "requirements-uv.lock"):
        entries = locked_entries(ROOT / lock)
        assert entries, lock
        unhashed = sorted(name for name, entry in entries.items() if "--hash=sha256:" not in entry)
        assert unhashed == [], f"{lock}: {unhashed}"


def test_make_installs_from_the_lock_files_with_hashes(tmp_path: Path) -> None:
    """What `make run` and `make test` (hence CI) would run, on a venv that does not exist."""
    if not shutil.which("make"):
        pytest.skip("make is not installed")
    commands = {}
    for target in ("run", "test"):
        dry = run(["make", "-n", "-B", f"VENV={tmp_path / 'venv'}", target], dict(os.environ))
        assert dry.returncode == 0, dry.stderr
        commands[target] = [line for line in dry.stdout.splitlines() if " install " in line]

    assert commands["run"] == [
        f"{tmp_path / 'venv'}/bin/pip install --quiet --require-hashes --only-binary :all: "
        "-r requirements.lock"
    ]
    # make test: pip installs uv from its own lock, and uv the dev lock, both checking hashes.
    venv = tmp_path / "venv"
    assert [line for line in commands["test"] if "pip install " in line] == [
        f"{venv}/bin/pip install --quiet --require-hashes --only-binary :all: "
        "-r requirements-uv.lock",
        f"{venv}/bin/uv pip install --quiet --python {venv}/bin/python --require-hashes "
        "--only-binary :all: -r requirements-dev.lock",
    ]


# --- What is typed on make's command line stays what it is (issue 20) ----------------------

HOSTILE_VALUES = {
    "WIFI": 'Salle "A"; touch pwned; $HOME `id` $(id)',
    "WIFI_PASSWORD": "it's $$x and $(PATH)",
    "EVENT": "gp;rm -rf ~",
    "DATA": "my data's $folder",
}


def dry_run(target: str, **values: str) -> list[str]:
    """The shell words of ``make -n <target>``'s command that runs manage.py."""
    dry = run(["make", "-n", target, *(f"{k}={v}" for k, v in values.items())], dict(os.environ))
    assert dry.returncode == 0, dry.stderr
    recipe = dry.stdout.replace("\\\n", " ")
    line = next(line for line in recipe.splitlines() if "manage.py" in line)
    return shlex.split(line)


def test_make_venue_passes_each_value_as_typed_as_one_argument() -> None:
    words = dry_run("venue", **HOSTILE_VALUES)
    assert words[words.index("--wifi") + 1] == HOSTILE_VALUES["WIFI"]
    assert words[words.index("--wifi-password") + 1] == HOSTILE_VALUES["WIFI_PASSWORD"]
    assert words[words.index("--event") + 1] == HOSTILE_VALUES["EVENT"]
    assert f"PADDOCK_DATA_DIR={HOSTILE_VALUES['DATA']}" in words
    assert f"SECRET_KEY_FILE={HOSTILE_VALUES['DATA']}/secret_key" in words


def test_make_restore_passes_the_file_as_typed() -> None:
    name = "backups/it's a $file; rm -rf ~ `id`.sqlite3"
    words = dry_run("restore", FILE=name, DATA="venue")
    assert words[words.index("restore") + 1] == name
