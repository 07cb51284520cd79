"""A backup of main from before the house move (issue 50, point 4) restores on this code.

The old code is the repository's own history: commit ``OLD`` (settings
``tournament.settings``, commands in ``tournament/management/commands/``), extracted with
``git archive`` into a temporary folder and run there by the project's Python, with that
folder as its only code (it never imports this one). It migrates a database, loads its demo
and takes a backup with its own ``manage.py backup``, as ``make venue`` does; this code's
``manage.py restore`` takes it into a new data folder (``make restore DATA=<new folder>``),
``migrate`` applies what came after, and every table holds the same rows. Each run tests the
database it runs on: SQLite without DATABASE_URL, PostgreSQL with it (databases of the test's
own, dropped afterwards); CI's two passes (.ci/run) run both. The old code's day costs about
half a minute a database: the suite's budget pays it once a pass.

In a clone without that commit (a shallow one), the tests are skipped, and in CI that skip
fails the run (tests/conftest.py).
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import psycopg
import pytest
from psycopg import sql

from tests.paddock.venue.conftest import PostgreSQL

ROOT = Path(__file__).resolve().parents[3]
#: Main before the house move: the last commit with ``tournament/settings.py``.
OLD = "41937b8"
#: What the old code needs to migrate, load its demo and back up.
OLD_PATHS = ("manage.py", "tournament", "qualifying", "races", "templates", "locale")
#: The old code's day in one process (its own commands, one Django start-up): migrate, its
#: demo, then a backup as make venue's are taken (``manage.py backup``).
OLD_DAY = """
import django
django.setup()
from django.core.management import call_command
call_command("migrate", interactive=False, verbosity=0)
call_command("load_demo", quiet=True)
call_command("backup")
"""
#: Tables whose rows this code's ``migrate`` adds to (its new models' content types and
#: permissions, its new migrations): the old rows are all there.
GROWN = ("auth_permission", "django_content_type", "django_migrations")
#: The public pages' change counters: every restore renews their incarnation, and a
#: migration that writes bumps a counter. The same counters, not the same values.
RENEWED = "paddock_change"
#: Tables the comparison must not find empty (else it would prove little).
SAMPLE = ("tournament_championship", "tournament_driver", "races_resultline", "qualifying_run")


def _git(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, timeout=60)


@pytest.fixture(scope="module")
def old_code(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The code of ``OLD``, extracted into a temporary folder once for the module."""
    if shutil.which("git") is None or _git("cat-file", "-e", f"{OLD}^{{commit}}").returncode:
        pytest.skip(
            f"commit {OLD} (main before the house move) is not in this repository: a shallow "
            "clone? (git fetch --unshallow)"
        )
    folder = tmp_path_factory.mktemp("before-the-house")
    archive = _git("archive", "--format=tar", OLD, *OLD_PATHS)
    assert archive.returncode == 0, archive.stderr
    extracted = subprocess.run(
        ["tar", "-x", "-C", str(folder)], input=archive.stdout, capture_output=True, timeout=60
    )
    assert extracted.returncode == 0, extracted.stderr
    assert (folder / "tournament" / "settings.py").is_file()
    return folder


def old_day(code: Path, data: Path, database_url: str | None = None) -> Path:
    """The old code's day in ``data`` (its SQLite database there, or ``database_url``): the
    backup it took."""
    env = {
        "PATH": os.environ.get("PATH", ""),
        "DEBUG": "true",
        "DJANGO_SETTINGS_MODULE": "tournament.settings",
        "PYTHONPATH": str(code),
        # make venue's data folder and key (the Makefile's VENUE).
        "PADDOCK_DATA_DIR": str(data),
        "SECRET_KEY_FILE": str(data / "secret_key"),
        **({"DATABASE_URL": database_url} if database_url else {}),
    }
    done = subprocess.run(
        [sys.executable, "-c", OLD_DAY],
        cwd=code, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    [backup] = (data / "backups").glob("paddock-*.*")
    return backup


@pytest.fixture(scope="module")
def old_sqlite(old_code: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The old code's SQLite data folder: its database and its backup."""
    data = tmp_path_factory.mktemp("old-venue")
    old_day(old_code, data)
    return data


def new_code(command: list[str], data: Path, database_url: str | None = None) -> str:
    """This code's ``manage.py`` on the data folder ``data`` (a new one), as make runs it."""
    env = {
        "PATH": os.environ.get("PATH", ""),
        "DEBUG": "true",
        "PADDOCK_DATA_DIR": str(data),
        "SECRET_KEY_FILE": str(data / "secret_key"),
        **({"DATABASE_URL": database_url} if database_url else {}),
    }
    done = subprocess.run(
        [sys.executable, "manage.py", *command],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def restored(backup: Path, old_data: Path, new_data: Path, database_url: str | None = None) -> None:
    """``make restore DATA=<new folder> FILE=<backup>`` then ``migrate``, on this code; the
    laptop's key travels with the day (its sealed referee links stay readable)."""
    new_data.mkdir()
    shutil.copy2(old_data / "secret_key", new_data / "secret_key")
    said = new_code(["restore", str(backup)], new_data, database_url)
    assert "The database now holds: 3 championships" in said, said
    assert "SECRET_KEY" not in said, said
    new_code(["migrate", "--noinput"], new_data, database_url)


#: A database read whole: each table's columns, in order, and its rows.
Tables = dict[str, tuple[list[str], list[tuple]]]


def sqlite_tables(path: Path) -> Tables:
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        names = db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%'"
        ).fetchall()
        read: Tables = {}
        for (table,) in names:
            rows = db.execute(f'SELECT * FROM "{table}"')  # noqa: S608 - its own names
            read[table] = ([column[0] for column in rows.description], rows.fetchall())
        return read


def pg_tables(url: str) -> Tables:
    with psycopg.connect(url) as db:
        names = db.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'").fetchall()
        read: Tables = {}
        for (table,) in names:
            rows = db.execute(sql.SQL("SELECT * FROM {}").format(sql.Identifier(table)))
            assert rows.description is not None
            read[table] = ([column.name for column in rows.description], rows.fetchall())
        return read


def on(columns: list[str], read: tuple[list[str], list[tuple]]) -> list[tuple]:
    """The rows of ``read`` on ``columns`` only (a table the new code added columns to),
    in a stable order."""
    names, rows = read
    places = [names.index(column) for column in columns]
    return sorted((tuple(row[place] for place in places) for row in rows), key=repr)


def assert_same_rows(old: Tables, new: Tables, old_code: Path) -> None:
    """Every table of the old database holds the same rows in the restored one (read on the
    old columns); the tables this code added are empty."""
    assert set(old) <= set(new), sorted(set(old) - set(new))
    for table in sorted(set(new) - set(old)):
        assert new[table][1] == [], table
    for table in SAMPLE:
        assert old[table][1], table
    for table, (columns, _rows) in sorted(old.items()):
        assert set(columns) <= set(new[table][0]), table
        before, after = on(columns, old[table]), on(columns, new[table])
        if table == RENEWED:
            assert on(["name"], old[table]) == on(["name"], new[table])
        elif table in GROWN:
            assert set(before) <= set(after), table
        else:
            assert before == after, table
    # What migrate added to django_migrations: this code's migrations after OLD, no other.
    added = set(on(["name"], new["django_migrations"])) - set(
        on(["name"], old["django_migrations"])
    )
    assert added, "the new code's migrations after the old commit"
    for (name,) in added:
        assert list(ROOT.glob(f"*/**/migrations/{name}.py")), name
        assert not list(old_code.glob(f"*/**/migrations/{name}.py")), name


# The SQLite case is the pass without PostgreSQL's (a skip would fail CI's pass with it).
if not os.environ.get("DATABASE_URL"):

    def test_a_sqlite_backup_of_before_the_house_restores_with_the_same_rows(
        old_code: Path, old_sqlite: Path, tmp_path: Path
    ) -> None:
        [backup] = (old_sqlite / "backups").glob("paddock-*.sqlite3")
        restored(backup, old_sqlite, tmp_path / "venue")
        assert_same_rows(
            sqlite_tables(old_sqlite / "db.sqlite3"),
            sqlite_tables(tmp_path / "venue" / "db.sqlite3"),
            old_code,
        )


def test_a_postgresql_backup_of_before_the_house_restores_with_the_same_rows(
    old_code: Path, postgresql: PostgreSQL, tmp_path: Path
) -> None:
    old_database = postgresql.database("before_house", owner=postgresql.superuser)
    old_data = tmp_path / "old-venue"
    old_data.mkdir()
    backup = old_day(old_code, old_data, postgresql.url(old_database))
    assert backup.suffix == ".pgdump"
    # Restored as the application's own role (never a superuser), into its own database.
    target = postgresql.database("after_house")
    restored(backup, old_data, tmp_path / "venue", postgresql.url(target, user=postgresql.role))
    assert_same_rows(
        pg_tables(postgresql.url(old_database)), pg_tables(postgresql.url(target)), old_code
    )
