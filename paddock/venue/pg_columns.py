"""What a PostgreSQL archive's tables are made of, compared with what this code makes.

The table of contents (``backup_checks.pg_refusals``) says which tables an archive holds; this
says what is in them. Each table's columns, as the archive's ``CREATE TABLE`` statements
give them (``pg_restore --schema-only``), are compared with the columns this code's
migrations make up to the migrations the archive records (its ``django_migrations`` rows):
Django's migration state, rendered without a database, each field's PostgreSQL type. A
column of another type or nullability, an unknown or missing column, a default where
Paddock writes none or that is an expression rather than a constant (``DEFAULT
pg_sleep(…)``, a generated column), a table of options (``INHERITS``, ``PARTITION BY``) are
refused by name, in the SQLite check's words (``backup_checks.pg_schema_refusals``). Column
order is not compared.

Paddock's change counters' table (``tournament.public.freshness``) is no model: its columns
are left to ``freshness.install``, which the restore runs after.
"""

from __future__ import annotations

import re
from typing import Any

from django.db import connections
from django.db.migrations.loader import MigrationLoader
from django.db.migrations.recorder import MigrationRecorder
from django.db.models import NOT_PROVIDED

#: ``CREATE TABLE public.name (`` as ``pg_restore --schema-only`` writes it.
CREATE_TABLE = re.compile(r'^CREATE TABLE public\.("?)([\w$]+)\1 \($')
#: ``COPY public.django_migrations (id, app, name, applied) FROM stdin;``
COPY_MIGRATIONS = re.compile(r"^COPY public\.django_migrations \(([^)]*)\) FROM stdin;$")
#: A default that is a constant: a quoted string (with its cast), a number, a boolean.
CONSTANT = re.compile(r"^(?:'(?:[^']|'')*'(?:::[a-z ]+)?|-?\d+(?:\.\d+)?|true|false)$")
#: Django's PostgreSQL types as ``pg_dump`` spells them.
SPELLED = ((re.compile(r"^varchar\b"), "character varying"),
           (re.compile(r"^time$"), "time without time zone"),
           (re.compile(r", "), ","))  # fmt: skip


def archive_migrations(data: str) -> set[tuple[str, str]]:
    """The (app, name) rows of ``django_migrations`` in ``pg_restore --data-only --table
    django_migrations``'s output."""
    found: set[tuple[str, str]] = set()
    columns: list[str] | None = None
    for line in data.splitlines():
        if columns is None:
            header = COPY_MIGRATIONS.match(line)
            if header:
                columns = [name.strip().strip('"') for name in header.group(1).split(",")]
            continue
        if line == "\\.":
            break
        row = dict(zip(columns, line.split("\t"), strict=False))
        if "app" in row and "name" in row:
            found.add((row["app"], row["name"]))
    return found


def archive_columns(ddl: str) -> dict[str, list[list[Any]]]:
    """Each public table's columns in ``pg_restore --schema-only``'s output: [name, type,
    not null, default] (default: None, "constant" or the expression); what follows the
    closing parenthesis other than ``;`` as an ["(options)", …] entry."""
    tables: dict[str, list[list[Any]]] = {}
    current: list[list[Any]] | None = None
    for line in ddl.splitlines():
        if current is None:
            found = CREATE_TABLE.match(line)
            if found:
                current = tables.setdefault(found.group(2), [])
            continue
        if line.startswith(")"):
            if line != ");":
                current.append(["(options)", line[1:].strip(), False, None])
            current = None
            continue
        text = line.strip().rstrip(",")
        if not text.startswith("CONSTRAINT "):
            current.append(_column(text))
    return tables


def _column(text: str) -> list[Any]:
    if text.startswith('"'):
        end = text.find('"', 1)
        name, rest = text[1:end], text[end + 1 :].strip()
    else:
        name, _space, rest = text.partition(" ")
    not_null = rest.endswith(" NOT NULL")
    if not_null:
        rest = rest[: -len(" NOT NULL")]
    default = None
    if " DEFAULT " in rest:
        rest, default = rest.split(" DEFAULT ", 1)
        default = "constant" if CONSTANT.match(default) else default
    return [name, rest, not_null, default]


def expected_columns(targets: list[tuple[str, str]]) -> dict[str, list[list[Any]]]:
    """Each table this code's migrations make up to ``targets`` (each app's last), and the
    migrations' own, with its columns as ``archive_columns`` reads them."""
    loader = MigrationLoader(None, ignore_no_migrations=True)
    state = loader.project_state(targets, at_end=True)
    connection = connections["default"]
    tables = {}
    models = [*state.apps.get_models(include_auto_created=True), MigrationRecorder.Migration]
    for model in models:
        meta = model._meta
        if not meta.managed or meta.proxy:
            continue
        tables[meta.db_table] = [
            [
                field.column,
                _spelled(field.db_type(connection)),
                not field.null,
                None if field.db_default is NOT_PROVIDED else "constant",
            ]
            for field in meta.local_concrete_fields
        ]
    return tables


def _spelled(kind: str) -> str:
    for pattern, spelling in SPELLED:
        kind = pattern.sub(spelling, kind)
    return kind
