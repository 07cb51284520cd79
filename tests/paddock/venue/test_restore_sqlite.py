"""A SQLite backup is restored only if Paddock could have written it (issue 20, finding 4).

The red team planted a trigger in a backup: restored, it copied the organiser's session key
into a championship's name, on a public page. The backup is now read first, read-only, and
compared with the schema this code's migrations make: a trigger, a view, a table or a
column Paddock never makes, or a migration it does not know, is refused by name, in the
user's language, and the live database is left exactly as it was.

The backups are real: a database migrated by this code (in a process of its own, on SQLite
whatever the test database is), then tampered with as the red team did.
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from django.utils import translation

from paddock.venue.backup_checks import sqlite_refusals
from paddock.venue.rows import sqlite_row_problems

ROOT = Path(__file__).resolve().parents[3]

LEAK = (
    "CREATE TRIGGER leak AFTER INSERT ON django_session BEGIN "
    "UPDATE tournament_championship SET name = NEW.session_key; END"
)


@pytest.fixture(scope="module")
def clean(migrated_sqlite: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database as this code's migrations make it, on SQLite, with a championship."""
    path = tmp_path_factory.mktemp("restore") / "paddock-20260714-150000.sqlite3"
    path.write_bytes(migrated_sqlite.read_bytes())
    with sqlite3.connect(path) as db:
        db.execute(
            "INSERT INTO tournament_championship (slug, name, season, points_scale, "
            "points_mode, created_at) VALUES ('cf', 'Coupe de France', '2026', "
            "'[10, 8, 6]', 'per_table', '2026-07-14 09:00:00')"
        )
    return path


def tampered(clean: Path, folder: Path, *statements: str) -> Path:
    copy = folder / "paddock-20260714-160000.sqlite3"
    copy.write_bytes(clean.read_bytes())
    with sqlite3.connect(copy) as db:
        for statement in statements:
            db.execute(statement)
    return copy


#: SQLite adds no CHECK to a table but by rewriting its SQL in the schema.
PLANT = ["PRAGMA writable_schema = ON"]


def _check(table: str, check: str) -> str:
    """The statement that adds ``check`` to ``table``'s definition, as the red team did."""
    return (
        f"UPDATE sqlite_master SET sql = substr(sql, 1, length(sql) - 1) || ', {check})' "
        f"WHERE type = 'table' AND name = '{table}'"
    )


def test_a_backup_paddock_wrote_is_accepted(clean: Path) -> None:
    """Paddock's own triggers (the change counters) and every table, column and index."""
    assert sqlite_refusals(clean) == []


@pytest.mark.parametrize(
    ("statements", "refused"),
    [
        ([LEAK], ["the trigger leak, which Paddock never makes"]),
        (["CREATE VIEW sessions AS SELECT * FROM django_session"],
         ["the view sessions, which Paddock never makes"]),
        (["CREATE TABLE notes (text)"], ["the table notes, which Paddock never makes"]),
        (["ALTER TABLE tournament_event ADD COLUMN extra text"],
         ["an unknown column extra in the table tournament_event"]),
        (["CREATE INDEX shadow ON tournament_event (name)"],
         ["the index shadow, which Paddock never makes"]),
        # One of Paddock's own triggers, rewritten to do something else.
        (["DROP TRIGGER paddock_change_tournament_event_insert",
          'CREATE TRIGGER "paddock_change_tournament_event_insert" AFTER INSERT ON '
          '"tournament_event" BEGIN DELETE FROM auth_user; END'],
         ["the trigger paddock_change_tournament_event_insert is not Paddock's"]),
        # A CHECK planted on the sessions: every login then ran it (issue 32): by its name,
        # or by its text when it has none.
        ([*PLANT, _check("django_session", 'CONSTRAINT "spin" CHECK (length(session_key) > 0)')],
         ["the constraint spin of the table django_session, which Paddock never makes"]),
        ([*PLANT, _check("tournament_event", "CHECK (length(name) < 999)")],
         ["the constraint CHECK (length(name) < 999) of the table tournament_event, which "
          "Paddock never makes"]),
        # One of Paddock's own indexes, made again with a WHERE (or an expression).
        (["DROP INDEX auth_permission_content_type_id_2f476e4b",
          'CREATE INDEX "auth_permission_content_type_id_2f476e4b" ON "auth_permission" '
          '("content_type_id") WHERE abs(id) > 0'],
         ["the index auth_permission_content_type_id_2f476e4b is not Paddock's"]),
        (["DROP TRIGGER paddock_change_tournament_event_delete"],
         ["the trigger paddock_change_tournament_event_delete is missing"]),
        (["INSERT INTO django_migrations (app, name, applied) "
          "VALUES ('tournament', '9999_from_elsewhere', '2026-07-14')"],
         ["the migration tournament.9999_from_elsewhere, unknown to this version of Paddock "
          "(a newer one?)"]),
    ],
)  # fmt: skip
def test_what_paddock_never_writes_is_refused_by_name(
    clean: Path, tmp_path: Path, statements: list[str], refused: list[str]
) -> None:
    with translation.override("en"):
        assert sqlite_refusals(tampered(clean, tmp_path, *statements)) == refused


def test_a_file_that_is_no_database_is_refused(tmp_path: Path) -> None:
    junk = tmp_path / "paddock-20260714-150000.sqlite3"
    junk.write_bytes(b"SQLite format 3\x00" + b"\xff" * 2000)
    with translation.override("en"):
        (refusal,) = sqlite_refusals(junk)
    assert refusal.startswith(("the file is not a SQLite database", "the file is damaged"))


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def venue(data: Path) -> dict[str, str]:
    """The environment of the venue's laptop: SQLite in ``data``, French."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PADDOCK_DATA_DIR": str(data),
        "SECRET_KEY_FILE": str(data / "secret_key"),
        "LANG": "C.UTF-8",
    }


def restore_in(data: Path) -> Callable[..., subprocess.CompletedProcess[str]]:
    """``manage.py restore`` as on the venue's laptop."""
    env = venue(data)

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "manage.py", "restore", *args],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
        )  # fmt: skip

    return run


def test_a_planted_trigger_is_refused_and_the_live_database_is_unchanged(
    clean: Path, tmp_path: Path
) -> None:
    data = tmp_path / "venue"
    data.mkdir()
    live = data / "db.sqlite3"
    live.write_bytes(clean.read_bytes())
    with sqlite3.connect(live) as db:
        db.execute("UPDATE tournament_championship SET name = 'Coupe du jour'")
    before = digest(live)
    backup = tampered(clean, tmp_path, LEAK, "CREATE VIEW v AS SELECT 1")

    refused = restore_in(data)(str(backup), "--replace")

    assert refused.returncode != 0
    # Said in English, as every line of the console (issue 40: it was in French among
    # English lines), each thing by name.
    assert "nothing was restored" in refused.stderr, refused.stderr
    assert "- the trigger leak, which Paddock never makes" in refused.stderr
    assert "- the view v, which Paddock never makes" in refused.stderr
    assert digest(live) == before
    assert sorted(p.name for p in data.iterdir() if p.name.startswith("db.sqlite3")) == [
        "db.sqlite3"
    ]  # not even kept aside: nothing was touched


#: ``manage.py restore`` with the backup's file changed as soon as it has been checked (a copy
#: still arriving in the backups folder, another account writing there): argv 1, the backup;
#: argv 2, what it becomes.
CHANGED_ONCE_CHECKED = """
import os, sys
from pathlib import Path

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "paddock.settings")
django.setup()
from django.core.management import call_command

from paddock.venue import backup_checks

check = backup_checks.sqlite_refusals


def check_then_change(path):
    refused = check(path)
    Path(sys.argv[1]).write_bytes(Path(sys.argv[2]).read_bytes())
    return refused


backup_checks.sqlite_refusals = check_then_change
call_command("restore", sys.argv[1])
"""


def test_what_is_restored_is_what_was_checked(clean: Path, tmp_path: Path) -> None:
    """Checked, then loaded from the backups folder, the file would be loaded as it had
    become in between: the planted trigger restored. The restore checks a private copy of
    the file and loads that copy."""
    data = tmp_path / "venue"
    data.mkdir()
    backup = tmp_path / "paddock-20260714-170000.sqlite3"
    backup.write_bytes(clean.read_bytes())
    planted = tampered(clean, tmp_path, LEAK)

    done = subprocess.run(
        [sys.executable, "-c", CHANGED_ONCE_CHECKED, str(backup), str(planted)],
        cwd=ROOT, env=venue(data), capture_output=True, text=True, timeout=600,
    )  # fmt: skip

    assert done.returncode == 0, done.stderr
    assert digest(backup) == digest(planted)  # the file did change once checked
    with closing(sqlite3.connect(data / "db.sqlite3")) as db:
        kinds = db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
        triggers = {name for (name,) in kinds}
        names = [name for (name,) in db.execute("SELECT name FROM tournament_championship")]
    assert "leak" not in triggers and triggers  # Paddock's own change counters came back
    assert names == ["Coupe de France"]


def test_the_refusal_of_a_database_not_empty_prints_commands_that_do_what_they_say(
    clean: Path, tmp_path: Path
) -> None:
    """Pasted as printed, ``make restore FILE=… REPLACE=1`` replaced the default ``venue/``,
    not the data folder the refusal was about: every variable in use is printed (issue 32,
    item 5), quoted for the shell."""
    data = tmp_path / "salle des fêtes"
    data.mkdir()
    (data / "db.sqlite3").write_bytes(clean.read_bytes())
    backup = tmp_path / "paddock-20260714-150000.sqlite3"
    backup.write_bytes(clean.read_bytes())

    refused = restore_in(data)(str(backup))

    assert refused.returncode != 0
    commands = [line for line in refused.stderr.split("make restore ")[1:]]
    replace = next(c for c in commands if "REPLACE=1" in c)
    words = dict(word.split("=", 1) for word in shlex.split(replace.split(" (")[0]))
    assert words == {"DATA": str(data), "FILE": str(backup), "REPLACE": "1"}
    assert any(c.startswith("DATA=<") for c in commands)  # or a new folder


def test_a_restore_into_a_new_data_folder_makes_it_this_accounts_only(
    clean: Path, tmp_path: Path
) -> None:
    """``make restore`` into a new folder left it 0755 and the database 0644 until the next
    start (issue 32): 0700 and 0600 at once, as make venue's start makes them; the database
    it replaces, kept aside, 0600 too."""
    data = tmp_path / "new" / "venue"
    backup = tmp_path / "paddock-20260714-150000.sqlite3"
    backup.write_bytes(clean.read_bytes())
    backup.chmod(0o644)
    (tmp_path / "new").mkdir()
    data.mkdir(mode=0o755)
    data.chmod(0o755)

    done = restore_in(data)(str(backup))

    assert done.returncode == 0, done.stderr
    # Each step said as it starts, and how long it took (issue 32: 20 s without a word).
    lines = done.stdout.splitlines()
    steps = [n for n, line in enumerate(lines) if line.endswith("…")]
    took = [n for n, line in enumerate(lines) if re.fullmatch(r"  .* \d+ s\.", line)]
    assert len(steps) == len(took) == 4, done.stdout  # the rows checked too (issue 40)
    assert all(step < end for step, end in zip(steps, took, strict=True)), done.stdout
    assert data.stat().st_mode & 0o777 == 0o700
    for path in data.glob("db.sqlite3*"):
        assert path.stat().st_mode & 0o777 == 0o600, path
    again = restore_in(data)(str(backup), "--replace")
    assert again.returncode == 0, again.stderr
    (kept,) = data.glob("db.sqlite3.replaced-*")
    assert kept.stat().st_mode & 0o777 == 0o600


def test_a_row_paddock_never_writes_is_refused(clean: Path, tmp_path: Path) -> None:
    """Issue 40: a SQLite backup's schema was checked, not its rows (``row_problems``
    checked those of a championship file and of an event's return only): a slug no form
    takes, a choice that is none, are refused by the models' own validators, by row, and
    nothing is restored."""
    data = tmp_path / "venue"
    data.mkdir()
    backup = tampered(
        clean,
        tmp_path,
        "UPDATE tournament_championship SET slug = 'cf\"><script>', points_mode = 'n''importe'",
    )

    refused = restore_in(data)(str(backup))

    assert refused.returncode != 0
    assert "nothing was restored" in refused.stderr, refused.stderr
    lines = [line for line in refused.stderr.splitlines() if line.startswith("- championship")]
    assert any("slug" in line for line in lines) and any("points_mode" in line for line in lines)
    assert not (data / "db.sqlite3").exists()


def test_a_leagues_row_paddock_never_writes_is_refused(
    clean: Path, tmp_path: Path, django_db_blocker: Any
) -> None:
    """The leagues' tables (``standings.leagues``) are Paddock's own too: a whole-database
    backup holds them, and their rows are checked before anything is restored (the backup
    alone is read, through a connection of its own)."""
    backup = tampered(
        clean,
        tmp_path,
        "INSERT INTO tournament_club (id, slug, name, created_at) "
        "VALUES (1, 'aix', 'Aix', '2026-07-14 09:00:00')",
        "INSERT INTO leagues_league (slug, name, season, club_id, points_scale, points_mode, "
        "club_best, created_at) VALUES ('sud\"><script>', 'Sud', '2026', 1, '[10, 6]', "
        "'n''importe', 3, '2026-07-14 09:00:00')",
    )
    with translation.override("en"), django_db_blocker.unblock():
        problems = sqlite_row_problems(backup)
    league = [problem for problem in problems if problem.startswith("league ")]
    assert any("slug" in p for p in league) and any("points_mode" in p for p in league), problems
