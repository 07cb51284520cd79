"""A crafted ``.pgdump`` is refused before anything is restored (issue 20, finding 4).

The red team's archive ran SQL as PostgreSQL's superuser during ``manage.py restore``: a
function and a trigger planted among Paddock's tables. The archive's table of contents is
now read first (``pg_restore --list``): functions, triggers, views, other schemas, tables
Paddock never makes and privileges are refused by name, and the database stays empty. A
real backup restoring is in ``test_database_backup.py``; the table of contents of a real
one is accepted here, entry by entry.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest
from django.db import connection

from paddock.venue import pg_schema
from paddock.venue.backup_checks import pg_refusals, pg_schema_refusals
from tests.paddock.venue.conftest import PostgreSQL

ROOT = Path(__file__).resolve().parents[3]

PLANTED = [
    "CREATE TABLE tournament_circuit (id integer PRIMARY KEY, name text)",
    "CREATE FUNCTION public.steal() RETURNS trigger LANGUAGE plpgsql AS "
    "$$ BEGIN EXECUTE 'ALTER ROLE ' || quote_ident(session_user) || ' SUPERUSER'; "
    "RETURN NULL; END $$",
    "CREATE TRIGGER steal AFTER INSERT ON tournament_circuit "
    "FOR EACH ROW EXECUTE FUNCTION public.steal()",
    # Paddock's own function's name, with another body.
    "CREATE FUNCTION public.paddock_change_bump() RETURNS trigger LANGUAGE plpgsql AS "
    "$$ BEGIN RETURN NULL; END $$",
    "CREATE VIEW public.sessions AS SELECT 1 AS key",
    "CREATE SCHEMA elsewhere",
    "CREATE TABLE elsewhere.t (id integer)",
    "CREATE TABLE public.notes (id integer)",
    "GRANT SELECT ON tournament_circuit TO PUBLIC",
    "INSERT INTO tournament_circuit VALUES (1, 'Monza')",
]


def pg_dump(url: str, target: Path) -> Path:
    done = subprocess.run(
        ["pg_dump", "--format=custom", "--file", str(target), url],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return target


def restore_as_role(
    postgresql: PostgreSQL, target: str, archive: Path, tmp_path: Path
) -> subprocess.CompletedProcess[str]:
    """``manage.py restore`` of ``archive`` into ``target``, as the application's own role."""
    env = {
        "PATH": os.environ.get("PATH", ""),
        "DEBUG": "true",
        "DATABASE_URL": postgresql.url(target, user=postgresql.role),
        "MEDIA_ROOT": str(tmp_path / "media"),
    }
    return subprocess.run(
        [sys.executable, "manage.py", "restore", str(archive)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip


def public_tables(url: str) -> list[tuple[str]]:
    with psycopg.connect(url) as db:
        return db.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', "
            "'information_schema') ORDER BY 1"
        ).fetchall()


@pytest.mark.django_db
def test_a_crafted_archive_is_refused_by_name_and_nothing_is_restored(
    postgresql: PostgreSQL, tmp_path: Path
) -> None:
    crafted = postgresql.database("crafted", owner=postgresql.superuser)
    with psycopg.connect(postgresql.url(crafted), autocommit=True) as db:
        for statement in PLANTED:
            db.execute(statement)
    archive = pg_dump(postgresql.url(crafted), tmp_path / "paddock-20260714-150000.pgdump")
    target = postgresql.database("target")
    refused = restore_as_role(postgresql, target, archive, tmp_path)

    assert refused.returncode != 0
    said = refused.stderr
    for name in (
        "FUNCTION public.steal()",
        "TRIGGER public.tournament_circuit steal",
        "VIEW public.sessions",
        "SCHEMA elsewhere",
        "elsewhere.t",
        "notes",
        "ACL public.TABLE tournament_circuit",
    ):
        assert name in said, (name, said)
    # Paddock's own function is never taken from a file: left out, not refused.
    assert "paddock_change_bump" not in said
    assert "nothing was restored" in said  # the console speaks English (issue 40)
    assert public_tables(postgresql.url(target)) == []


@pytest.mark.django_db
def test_a_real_backups_table_of_contents_is_accepted_but_paddocks_counters(
    postgresql: PostgreSQL, tmp_path: Path
) -> None:
    """Every entry of a backup of a migrated database is kept, but Paddock's function and
    its triggers (made again by ``freshness.install`` after the restore)."""
    archive = pg_dump(postgresql.url(connection.settings_dict["NAME"]), tmp_path / "paddock.pgdump")
    listing = subprocess.run(
        ["pg_restore", "--list", str(archive)], capture_output=True, text=True, check=True
    ).stdout
    refused, keep = pg_refusals(listing)
    assert refused == []
    entries = [line for line in listing.splitlines() if line and not line.startswith(";")]
    left_out = [line for line in entries if line not in keep]
    assert left_out and all(
        " FUNCTION public paddock_change_bump() " in line
        or " TRIGGER public " in line
        and (" paddock_change_row " in line or " paddock_change_truncate " in line)
        for line in left_out
    ), left_out
    assert any(" TABLE DATA public tournament_event " in line for line in keep)


def schema_of(archive: Path) -> tuple[str, str]:
    """What ``restore`` reads of an archive's tables: their DDL and the migrations recorded."""
    ddl = subprocess.run(["pg_restore", "--schema-only", "--file=-", str(archive)],
                         capture_output=True, text=True, check=True).stdout  # fmt: skip
    data = subprocess.run(
        ["pg_restore", "--data-only", "--table=django_migrations", "--file=-", str(archive)],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    return ddl, data


@pytest.mark.django_db
def test_a_real_backups_columns_are_those_the_migrations_make(
    postgresql: PostgreSQL, tmp_path: Path
) -> None:
    """Each column of each table of a backup of a migrated database: its type, nullability
    and default are those this code's migrations make (Django's migration state)."""
    archive = pg_dump(postgresql.url(connection.settings_dict["NAME"]), tmp_path / "paddock.pgdump")
    ddl, data = schema_of(archive)
    assert "CREATE TABLE public.tournament_event (" in ddl
    assert pg_schema_refusals(ddl, data) == []


#: Columns Paddock never makes, in tables it does: each refused by name.
RESHAPED = {
    "ALTER TABLE tournament_championship ADD COLUMN note text":
        "an unknown column note in the table tournament_championship",
    "ALTER TABLE tournament_team ADD COLUMN shout text GENERATED ALWAYS AS (upper(name)) STORED":
        "an unknown column shout in the table tournament_team",
    "ALTER TABLE tournament_event ALTER COLUMN name TYPE text":
        "the column name of the table tournament_event is missing",
    "ALTER TABLE tournament_driver ALTER COLUMN last_name SET DEFAULT current_user":
        "the column last_name of the table tournament_driver is missing",
    "ALTER TABLE races_racetable ALTER COLUMN number DROP NOT NULL":
        "the column number of the table races_racetable is missing",
    "ALTER TABLE tournament_circuit DROP COLUMN name":
        "the column name of the table tournament_circuit is missing",
}  # fmt: skip


@pytest.mark.django_db
def test_columns_paddock_never_makes_are_refused_by_name_and_nothing_is_restored(
    postgresql: PostgreSQL, tmp_path: Path
) -> None:
    """A backup of Paddock's own tables, reshaped: another column, another type, a default
    that runs a function, a generated column, a column dropped or made nullable."""
    real = pg_dump(postgresql.url(connection.settings_dict["NAME"]), tmp_path / "real.pgdump")
    reshaped = postgresql.database("reshaped", owner=postgresql.superuser)
    subprocess.run(
        ["pg_restore", "--no-owner", "--dbname", postgresql.url(reshaped), str(real)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    with psycopg.connect(postgresql.url(reshaped), autocommit=True) as db:
        for statement in RESHAPED:
            db.execute(statement)
    archive = pg_dump(postgresql.url(reshaped), tmp_path / "paddock-20260714-160000.pgdump")
    target = postgresql.database("target")

    refused = restore_as_role(postgresql, target, archive, tmp_path)

    assert refused.returncode != 0
    for said in RESHAPED.values():
        assert said in refused.stderr, (said, refused.stderr)
    assert refused.stderr.count("\n- ") == len(RESHAPED), refused.stderr  # nothing else
    assert public_tables(postgresql.url(target)) == []


@pytest.mark.django_db
def test_a_real_backups_constraints_indexes_and_defaults_are_those_the_migrations_make(
    postgresql: PostgreSQL, tmp_path: Path
) -> None:
    """Read from PostgreSQL itself (the migrations run in a schema of their own, rolled
    back): every constraint, index, default and identity of a real backup is accepted."""
    archive = pg_dump(postgresql.url(connection.settings_dict["NAME"]), tmp_path / "paddock.pgdump")
    ddl, data = schema_of(archive)
    found = pg_schema.archive_objects(ddl)
    assert found["constraint qualifying_qualifyingsession session_roll_d20"].startswith("CHECK (")
    assert "index run_one_counted_per_session" in found
    assert pg_schema.refusals(ddl, data) == []
    with connection.cursor() as cursor:  # nothing of the reference stayed
        cursor.execute("SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'paddock_reference%%'")
        assert cursor.fetchone() == (0,)


#: Constraints, indexes and defaults Paddock never makes, on its own tables and columns (a
#: CHECK on the sessions ran at every login: issue 32): each refused by name.
PLANTED_RULES = {
    "ALTER TABLE django_session ADD CONSTRAINT spin "
    "CHECK (length(session_key) > 0 OR pg_sleep(0) IS NULL)":
        "the constraint spin of the table django_session, which Paddock never makes",
    "ALTER TABLE qualifying_qualifyingsession DROP CONSTRAINT session_roll_d20, "
    "ADD CONSTRAINT session_roll_d20 CHECK (roll >= 1 AND current_user IS NOT NULL)":
        "the constraint session_roll_d20 of the table qualifying_qualifyingsession is not "
        "Paddock's",
    "CREATE INDEX shadow ON tournament_event ((abs(id) + 1))":
        "the index shadow, which Paddock never makes",
    "ALTER TABLE tournament_entry "
    "DROP CONSTRAINT tournament_entry_driver_id_76f15c8c_fk_tournament_driver_id":
        "the constraint tournament_entry_driver_id_76f15c8c_fk_tournament_driver_id of the table "
        "tournament_entry is missing",
}  # fmt: skip


@pytest.mark.django_db
def test_constraints_indexes_and_defaults_paddock_never_makes_are_refused_by_name(
    postgresql: PostgreSQL, tmp_path: Path
) -> None:
    real = pg_dump(postgresql.url(connection.settings_dict["NAME"]), tmp_path / "real.pgdump")
    planted = postgresql.database("planted", owner=postgresql.superuser)
    subprocess.run(
        ["pg_restore", "--no-owner", "--dbname", postgresql.url(planted), str(real)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    with psycopg.connect(postgresql.url(planted), autocommit=True) as db:
        for statement in PLANTED_RULES:
            db.execute(statement)
    archive = pg_dump(postgresql.url(planted), tmp_path / "paddock-20260714-160000.pgdump")
    target = postgresql.database("target")

    refused = restore_as_role(postgresql, target, archive, tmp_path)

    assert refused.returncode != 0
    for said in PLANTED_RULES.values():
        assert said in refused.stderr, (said, refused.stderr)
    assert refused.stderr.count("\n- ") == len(PLANTED_RULES), refused.stderr  # nothing else
    assert public_tables(postgresql.url(target)) == []
