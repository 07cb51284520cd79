"""What a restore accepts: only what Paddock itself writes (issue 20).

A backup is a file from elsewhere: a USB stick, a mail, a shared folder. A trigger planted in
a SQLite backup published the organiser's session key on a public page; a crafted
``.pgdump`` ran SQL as PostgreSQL's superuser. So before anything of the live database is
touched, the backup is read and compared with what this code writes:

- SQLite: the file opened read-only, its schema (tables and their columns, indexes,
  triggers, views) compared with a database made by this code's migrations up to the
  migrations the backup records (``reference_schema``: a fresh in-memory database, in a
  process of its own), and every migration it records known to this code. Anything else
  (a view, a trigger, a table or a column Paddock never makes) is refused, by name.
- PostgreSQL: the archive's table of contents (``pg_restore -l``) holds only tables, their
  data, sequences, defaults, constraints and indexes of Paddock's own tables in the public
  schema, and those tables' columns are those this code's migrations make up to the
  migrations the archive records (``pg_columns``); Paddock's change counters (a function
  and its triggers, ``tournament.public.freshness``) are left out of the restore and made
  again by this code.
  Functions, triggers, views, rules, extensions, large objects, other schemas, privileges
  are refused.

Each function answers the list of what it refused, in the user's language (empty: accepted).
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import json
import os
import re
import sqlite3
import stat
import subprocess
import sys
import tempfile
import urllib.parse
from contextlib import closing
from pathlib import Path
from typing import Any

import django
from django.apps import apps
from django.conf import settings
from django.core.management import call_command
from django.db import connections
from django.db.migrations.loader import MigrationLoader
from django.utils.translation import gettext as _

from paddock.venue import pg_columns
from paddock.venue.sql_text import sql_checks, sql_words
from tournament.public import freshness

#: Internal tables of SQLite: its sequences and the planner's statistics.
SQLITE_OWN = {"sqlite_sequence", "sqlite_stat1", "sqlite_stat4"}


def read_only(path: Path) -> sqlite3.Connection:
    """``path`` opened so that nothing in it can be written, nor any code of its schema run."""
    db = sqlite3.connect(f"file:{urllib.parse.quote(str(path))}?mode=ro", uri=True)
    db.execute("PRAGMA trusted_schema = OFF")
    db.execute("PRAGMA query_only = ON")
    return db


def sqlite_schema(db: sqlite3.Connection) -> dict[str, Any]:
    """Every object of a SQLite database, as comparable values: ``"table x"`` → its columns,
    ``"index x"`` → its table, columns and kind, ``"trigger x"``/``"view x"`` → its SQL."""
    schema: dict[str, Any] = {}
    rows = db.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name")
    for kind, name, table, sql in rows.fetchall():
        if kind == "table":
            if name in SQLITE_OWN:
                continue
            columns = db.execute(
                'SELECT name, type, "notnull", dflt_value, pk, hidden '
                "FROM pragma_table_xinfo(?) ORDER BY cid",
                (name,),
            )
            schema[f"table {name}"] = [list(column) for column in columns.fetchall()]
            schema[f"constraints {name}"] = sorted(
                [*sql_checks(str(sql)), *_foreign_keys(db, name)]
            )
        elif kind == "index":
            listed = db.execute(
                'SELECT "unique", partial FROM pragma_index_list(?) WHERE name = ?', (table, name)
            ).fetchone()
            columns = db.execute(
                "SELECT name FROM pragma_index_xinfo(?) WHERE key = 1 ORDER BY seqno", (name,)
            )
            shown = name if not name.startswith("sqlite_autoindex_") else f"{table} (unique)"
            # Its SQL too (none for an index of a UNIQUE): an expression or a WHERE of its own
            # is code that every write to the table runs.
            schema[f"index {shown}"] = [
                table, list(listed or ()), [c[0] for c in columns], sql_words(sql)
            ]  # fmt: skip
        else:  # a trigger or a view: its SQL, exactly
            schema[f"{kind} {name}"] = [table, " ".join(str(sql).split())]
    return schema


def _foreign_keys(db: sqlite3.Connection, table: str) -> list[str]:
    rows = db.execute(
        'SELECT "table", "from", "to", on_update, on_delete, match '
        "FROM pragma_foreign_key_list(?) ORDER BY id, seq",
        (table,),
    )
    return [
        f"FOREIGN KEY ({origin}) REFERENCES {target} ({to}) ON UPDATE {update} "
        f"ON DELETE {delete} MATCH {match}"
        for target, origin, to, update, delete, match in rows.fetchall()
    ]


def _migrations(db: sqlite3.Connection) -> set[tuple[str, str]] | None:
    found = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'django_migrations'"
    ).fetchone()
    if not found:
        return None
    return {
        (str(app), str(name)) for app, name in db.execute("SELECT app, name FROM django_migrations")
    }


def _targets(applied: set[tuple[str, str]]) -> list[tuple[str, str]]:
    """For each app, its last migration among ``applied`` (the one the others lead to)."""
    graph = MigrationLoader(None, ignore_no_migrations=True).graph
    targets = []
    for app in sorted({app for app, _name in applied}):
        mine = {node for node in applied if node[0] == app}
        for node in sorted(mine):
            if mine <= set(graph.forwards_plan(node)):
                targets.append(node)
                break
    return targets


def reference_schema(applied: set[tuple[str, str]]) -> dict[str, Any]:
    """The schema this code's migrations make, up to ``applied``: built in a process of its
    own on an in-memory database (a data migration there never reaches the live one), once
    per process and set of migrations, and kept on disk for the next processes of this very
    code (``cache_folder``): the build costs seconds of CPU."""
    return json.loads(_reference(frozenset(applied)))


@functools.lru_cache(maxsize=4)
def _reference(applied: frozenset[tuple[str, str]]) -> str:
    targets = json.dumps(_targets(set(applied)))
    folder = cache_folder()
    if folder is None:
        return _built(targets)
    path = folder / f"schema-{_code_digest(targets)}.json"
    # One process builds while the others wait for its file (the workers of a test run, a
    # restore started beside a venue).
    try:
        lock = open(folder / "build.lock", "w")  # noqa: SIM115 - held while building
    except OSError:
        return _built(targets)
    with lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        cached = cached_schema(path)
        if cached is not None:
            return cached
        schema = _built(targets)
        _keep(path, schema)
        return schema


def _built(targets: str) -> str:
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "schema.json"
        env = {
            **os.environ,
            "DATABASE_URL": "sqlite://:memory:",
            "DJANGO_SETTINGS_MODULE": os.environ.get("DJANGO_SETTINGS_MODULE", "paddock.settings"),
        }
        command = [sys.executable, "-m", "paddock.venue.backup_checks", str(out), targets]
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
        if done.returncode != 0 or not out.exists():
            raise RuntimeError(f"The reference schema could not be built: {done.stderr[-800:]}")
        return out.read_text()


# The kept reference is trusted as the code is: it is read only from a folder and a file of
# this user's alone (owned by this user, no access for anyone else, no symbolic link), so
# whoever could change it could change this module too. A file a backup, a restore or
# another account could have written is ignored and the reference built again: a cache
# planted to accept a trigger never weakens the check. It is named by a digest of
# everything the reference follows from (every migration file, the project's own Python
# code, whose models and post-migrate hooks make the counters' triggers, Django's and
# SQLite's versions), so a changed migration or rule never reads an older reference.


def cache_folder() -> Path | None:
    """This user's folder of kept references (made private if missing), or None when there
    is none to trust (the references are then built each time, in memory)."""
    folder = Path(tempfile.gettempdir()) / f"paddock-schemas-{os.getuid()}"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
    except OSError:
        return None
    return folder if _private(folder, stat.S_ISDIR) else None


def _private(path: Path, kind: Any) -> bool:
    """``path`` is a ``kind`` (not a link) owned by this user, which no one else may use."""
    try:
        found = path.lstat()
    except OSError:
        return False
    return bool(kind(found.st_mode) and found.st_uid == os.getuid() and not found.st_mode & 0o077)


def cached_schema(path: Path) -> str | None:
    """The reference kept at ``path``, or None when missing, unreadable or not trusted."""
    if not (_private(path.parent, stat.S_ISDIR) and _private(path, stat.S_ISREG)):
        return None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        with os.fdopen(fd, encoding="utf-8") as file:
            text = file.read()
        if not isinstance(json.loads(text), dict):
            return None
    except (OSError, ValueError):
        return None
    return text


def _keep(path: Path, schema: str) -> None:
    """Write ``schema`` at ``path`` whole or not at all (readers never see half a file)."""
    try:
        fd, partial = tempfile.mkstemp(dir=path.parent, prefix=".schema-")  # mode 0600
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            file.write(schema)
        os.replace(partial, path)
    except OSError:
        pass  # a cache that cannot be written: the next process builds it again


def _code_digest(targets: str) -> str:
    """A digest of what the reference up to ``targets`` follows from."""
    digest = hashlib.sha256()
    for part in (targets, django.__version__, sqlite3.sqlite_version, sys.version):
        digest.update(part.encode() + b"\0")
    loader = MigrationLoader(None, ignore_no_migrations=True)
    modules = [sys.modules[migration.__module__] for migration in loader.disk_migrations.values()]
    files = {Path(module.__file__) for module in modules if getattr(module, "__file__", None)}
    for config in apps.get_app_configs():
        folder = Path(config.path)
        if folder.is_relative_to(settings.BASE_DIR) and "site-packages" not in folder.parts:
            files.update(folder.rglob("*.py"))  # the project's own apps
    for file in sorted(files):
        digest.update(str(file).encode() + b"\0" + file.read_bytes() + b"\0")
    return digest.hexdigest()


def _described(key: str) -> str:
    kind, name = key.split(" ", 1)
    return {
        "table": _("the table %(name)s"),
        "index": _("the index %(name)s"),
        "trigger": _("the trigger %(name)s"),
        "view": _("the view %(name)s"),
    }.get(kind, "%(name)s") % {"name": name}


def _column_words(table: str, found: list[list[Any]], expected: list[list[Any]]) -> list[str]:
    known = {column[0]: column for column in expected}
    seen = {column[0]: column for column in found}
    words = [
        _("an unknown column %(column)s in the table %(table)s") % {"column": name, "table": table}
        for name in seen
        if name not in known
    ]
    words += [
        _("the column %(column)s of the table %(table)s is missing or not Paddock's")
        % {"column": name, "table": table}
        for name in known
        if seen.get(name) != known[name]
    ]
    return words or [_("the columns of the table %(table)s are not Paddock's") % {"table": table}]


def constraint_words(table: str, found: list[str], expected: list[str]) -> list[str]:
    """Each constraint of ``table`` that Paddock never makes, and each of its own missing, by
    its name (or its text, when it has none)."""
    words = [
        _("the constraint %(constraint)s of the table %(table)s, which Paddock never makes")
        % {"constraint": _constraint_name(what), "table": table}
        for what in sorted(set(found) - set(expected))
    ]
    words += [
        _("the constraint %(constraint)s of the table %(table)s is missing")
        % {"constraint": _constraint_name(what), "table": table}
        for what in sorted(set(expected) - set(found))
    ]
    return words or [
        _("the constraints of the table %(table)s are not Paddock's") % {"table": table}
    ]


def _constraint_name(what: str) -> str:
    named = re.match(r"^CONSTRAINT (\S+) ", what)
    if named:
        return named.group(1).strip('"`[]')
    return what if len(what) <= 80 else what[:79] + "…"


def _migrations_refused(applied: set[tuple[str, str]] | None) -> list[str]:
    """None recorded, or one this code does not know: not a backup it can read."""
    if not applied:
        return [_("the file holds no migration of Paddock: it is not a Paddock backup")]
    known = set(MigrationLoader(None, ignore_no_migrations=True).disk_migrations)
    return [
        _("the migration %(migration)s, unknown to this version of Paddock (a newer one?)")
        % {"migration": f"{app}.{name}"}
        for app, name in sorted(applied - known)
    ]


def sqlite_refusals(path: Path, reference: Any = reference_schema) -> list[str]:
    """What a SQLite backup holds that Paddock never writes (empty: it may be restored).

    ``reference`` answers the schema of this code's migrations up to a set of migrations."""
    try:
        with closing(read_only(path)) as db:
            if db.execute("PRAGMA integrity_check").fetchone()[0] != "ok":
                return [_("the file is damaged (SQLite's integrity check failed)")]
            found = sqlite_schema(db)
            applied = _migrations(db)
    except sqlite3.DatabaseError as exc:
        return [_("the file is not a SQLite database (%(error)s)") % {"error": exc}]
    if migrations_refused := _migrations_refused(applied):
        return migrations_refused
    expected = reference(applied)
    refused = []
    for key in sorted(found.keys() - expected.keys()):
        if key.startswith("constraints "):
            continue  # said of its table
        refused.append(_("%(thing)s, which Paddock never makes") % {"thing": _described(key)})
    for key in sorted(expected.keys() - found.keys()):
        if key.startswith("constraints "):
            continue  # said of its table
        refused.append(_("%(thing)s is missing") % {"thing": _described(key)})
    for key in sorted(found.keys() & expected.keys()):
        if found[key] == expected[key]:
            continue
        if key.startswith("table "):
            refused += _column_words(key[6:], found[key], expected[key])
        elif key.startswith("constraints "):
            refused += constraint_words(key[12:], found[key], expected[key])
        else:
            refused.append(_("%(thing)s is not Paddock's") % {"thing": _described(key)})
    return refused


# --- PostgreSQL -------------------------------------------------------------------------------

#: The entries of a Paddock backup's table of contents (``pg_restore -l``).
PG_ACCEPTED = {
    "ENCODING", "STDSTRINGS", "SEARCHPATH", "TABLE", "TABLE DATA", "SEQUENCE", "SEQUENCE SET",
    "SEQUENCE OWNED BY", "DEFAULT", "CONSTRAINT", "FK CONSTRAINT", "INDEX",
}  # fmt: skip
#: Paddock's change counters: left out of the restore, made again by ``freshness.install``.
PG_COUNTERS = {("FUNCTION", "paddock_change_bump()")}
PG_COUNTER_TRIGGERS = ("paddock_change_row", "paddock_change_truncate")
#: Entry types of more than one word, longest first, as pg_restore -l prints them.
PG_TYPES = sorted(
    {
        *PG_ACCEPTED, "DEFAULT ACL", "EVENT TRIGGER", "LARGE OBJECT", "MATERIALIZED VIEW",
        "MATERIALIZED VIEW DATA", "FOREIGN TABLE", "PUBLICATION TABLE", "TEXT SEARCH CONFIGURATION",
        "TEXT SEARCH DICTIONARY", "FOREIGN DATA WRAPPER", "SERVER", "USER MAPPING", "BLOB",
        "BLOBS", "ACL", "COMMENT", "SCHEMA", "EXTENSION", "FUNCTION", "PROCEDURE", "TRIGGER",
        "VIEW", "RULE", "POLICY", "ROW SECURITY", "TYPE", "DOMAIN", "AGGREGATE", "OPERATOR",
        "CAST", "COLLATION", "CONVERSION", "LANGUAGE", "PUBLICATION", "SUBSCRIPTION",
        "STATISTICS", "PROCEDURAL LANGUAGE", "OPERATOR CLASS", "OPERATOR FAMILY", "DATABASE",
        "DATABASE PROPERTIES", "LARGE OBJECTS",
    },
    key=len,
    reverse=True,
)  # fmt: skip
TOC_LINE = re.compile(r"^(\d+); (\d+) (\d+) (.*)$")


def pg_tables() -> set[str]:
    """The tables of this code's models (and the migrations' own)."""
    tables = {"django_migrations", freshness.TABLE}
    for model in apps.get_models(include_auto_created=True):
        if model._meta.managed and not model._meta.proxy:
            tables.add(model._meta.db_table)
    return tables


def toc_entries(listing: str) -> list[tuple[str, str, str, str]]:
    """(line, type, schema, rest) of each entry of ``pg_restore -l``'s listing."""
    entries = []
    for line in listing.splitlines():
        match = TOC_LINE.match(line.strip())
        if not match:
            continue  # comments (;) and blank lines
        body = match.group(4)
        kind = next((t for t in PG_TYPES if body == t or body.startswith(t + " ")), "")
        if not kind:
            kind = body.split(" ", 1)[0]
        rest = body[len(kind) :].strip().split(" ")
        schema = rest[0] if rest else "-"
        entries.append((line.strip(), kind, schema, " ".join(rest[1:])))
    return entries


def pg_refusals(listing: str) -> tuple[list[str], list[str]]:
    """What an archive holds that Paddock never writes, and the lines of its table of contents
    to restore (Paddock's counters left out: ``freshness.install`` makes them again)."""
    tables = pg_tables()
    refused: list[str] = []
    keep: list[str] = []
    for line, kind, schema, rest in toc_entries(listing):
        named = rest.rsplit(" ", 1)[0] if " " in rest else rest  # the owner last
        if (kind, named) in PG_COUNTERS and schema == "public":
            continue
        table, _space, trigger = named.partition(" ")
        if (
            kind == "TRIGGER"
            and schema == "public"
            and (table in tables)
            and (trigger in PG_COUNTER_TRIGGERS)
        ):
            continue
        if kind not in PG_ACCEPTED:
            refused.append(
                _("%(kind)s %(name)s, which Paddock never writes")
                % {"kind": kind, "name": f"{schema}.{named}" if schema != "-" else named}
            )
        elif kind in ("ENCODING", "STDSTRINGS", "SEARCHPATH"):
            keep.append(line)
        elif schema != "public":
            refused.append(
                _("%(kind)s %(name)s, in a schema other than public")
                % {"kind": kind, "name": f"{schema}.{named}"}
            )
        elif kind in ("TABLE", "TABLE DATA") and table not in tables:
            refused.append(_("the table %(name)s, which Paddock never makes") % {"name": table})
        else:
            keep.append(line)
    return refused, keep


def pg_schema_refusals(ddl: str, data: str) -> list[str]:
    """What the tables of an archive whose table of contents was accepted hold that Paddock
    never makes (``pg_columns``): ``ddl``, ``pg_restore --schema-only``'s output; ``data``,
    its ``django_migrations`` rows (``pg_restore --data-only --table django_migrations``)."""
    applied = pg_columns.archive_migrations(data)
    if migrations_refused := _migrations_refused(applied):
        return migrations_refused
    found = pg_columns.archive_columns(ddl)
    expected = pg_columns.expected_columns(_targets(applied))
    refused = [
        _("%(thing)s, which Paddock never makes") % {"thing": _described(f"table {table}")}
        for table in sorted(found.keys() - expected.keys() - {freshness.TABLE})
    ]
    refused += [
        _("%(thing)s is missing") % {"thing": _described(f"table {table}")}
        for table in sorted(expected.keys() - found.keys())
    ]
    for table in sorted(found.keys() & expected.keys()):
        seen, known = (
            {column[0]: column for column in columns} for columns in (found[table], expected[table])
        )
        if seen != known:  # in any order
            refused += _column_words(table, found[table], expected[table])
    return refused


def _write_reference(out: Path, targets: list[list[str]]) -> None:
    """In a process of its own (``reference_schema``): migrate the in-memory database."""
    for app, name in targets:
        call_command("migrate", app, name, verbosity=0, interactive=False)
    db = connections["default"]
    db.ensure_connection()
    out.write_text(json.dumps(sqlite_schema(db.connection)))


if __name__ == "__main__":  # pragma: no cover - run by reference_schema
    django.setup()
    _write_reference(Path(sys.argv[1]), json.loads(sys.argv[2]))
