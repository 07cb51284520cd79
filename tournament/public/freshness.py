"""Change counters kept by the database itself, for cache keys that are never stale.

Every table of Paddock's apps (history tables aside) carries triggers that add 1 to its row
in ``paddock_change`` whenever a row of it is inserted, updated or deleted: by a service, a
bulk update, the admin, a raw query or an import alike, since no Python code has to
remember to say so. A page cached under the counters of the tables it reads is rebuilt as
soon as one of them moves (``tournament.public.cache``).

The counters are transactional: a reader sees a new value only once the change is
committed, and reads them before the data, so a page stored under a value was built from
data at least that recent. On PostgreSQL the counters move at commit (deferred constraint
triggers) under one transaction-level advisory lock: writers of different tables never
wait on each other's counters in a crossing order (no deadlock), and hold the counters for
the last instant of their transaction only.

``incarnation`` is a random number per database: a restored backup gets a new one
(``manage.py restore``), so that counters going back in time never meet old cache keys.

Django and the database only; no project import.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable

from django.apps import apps
from django.db import DatabaseError, models
from django.db.backends.base.base import BaseDatabaseWrapper

TABLE = "paddock_change"
INCARNATION = "_incarnation"
#: The apps whose tables are counted (``leagues``: a league's rounds decide its standings).
APPS = ("tournament", "qualifying", "races", "games", "leagues")
#: Any number: the lock that orders the counters' updates at commit (PostgreSQL).
ADVISORY_LOCK = 0x50616464  # "Padd"


def counted_tables() -> list[str]:
    """The tables of Paddock's models, history tables aside (nothing public reads them)."""
    tables = []
    for config in apps.get_app_configs():
        if config.label not in APPS:
            continue
        for model in config.get_models(include_auto_created=True):
            meta = model._meta
            if meta.proxy or not meta.managed or model.__name__.startswith("Historical"):
                continue
            tables.append(meta.db_table)
    return sorted(set(tables))


def table_of(model: type[models.Model] | str) -> str:
    """A model's table; a model given as ``"app_label.Model"``."""
    if isinstance(model, str):
        model = apps.get_model(model)
    return model._meta.db_table


# --- Installing the triggers ------------------------------------------------------------------


def install(connection: BaseDatabaseWrapper) -> None:
    """Create the counters' table and the triggers missing on any existing counted table.

    Idempotent, and cheap when nothing is missing: run after every ``migrate`` (a
    migration that rebuilds a SQLite table drops its triggers; a new model needs its own).
    """
    existing = set(connection.introspection.table_names())
    tables = [t for t in counted_tables() if t in existing]
    if connection.vendor == "postgresql":
        _install_postgresql(connection, tables)
    elif connection.vendor == "sqlite":
        _install_sqlite(connection, tables)
    else:  # pragma: no cover - Paddock runs on SQLite and PostgreSQL
        raise NotImplementedError(connection.vendor)


def _install_sqlite(connection: BaseDatabaseWrapper, tables: list[str]) -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            f"CREATE TABLE IF NOT EXISTS {TABLE} "
            "(name varchar(100) NOT NULL PRIMARY KEY, version integer NOT NULL)"
        )
        cursor.execute(
            f"INSERT OR IGNORE INTO {TABLE} (name, version) VALUES (%s, %s)",
            [INCARNATION, _random()],
        )
        cursor.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
        present = {row[0] for row in cursor.fetchall()}
        for table in tables:
            for operation in ("INSERT", "UPDATE", "DELETE"):
                name = f"{TABLE}_{table}_{operation.lower()}"
                if name in present:
                    continue
                cursor.execute(
                    f'CREATE TRIGGER IF NOT EXISTS "{name}" AFTER {operation} ON "{table}" '
                    f"BEGIN INSERT INTO {TABLE} (name, version) VALUES ('{table}', 1) "
                    "ON CONFLICT(name) DO UPDATE SET version = version + 1; END"
                )


_BUMP_FUNCTION = f"""
CREATE OR REPLACE FUNCTION {TABLE}_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- Once per table and transaction: a bulk insert of a thousand rows moves it by one.
    IF current_setting('{TABLE}.t_' || TG_TABLE_NAME, true) IS DISTINCT FROM '1' THEN
        PERFORM set_config('{TABLE}.t_' || TG_TABLE_NAME, '1', true);
        PERFORM pg_advisory_xact_lock({ADVISORY_LOCK});
        INSERT INTO {TABLE} (name, version) VALUES (TG_TABLE_NAME, 1)
            ON CONFLICT (name) DO UPDATE SET version = {TABLE}.version + 1;
    END IF;
    RETURN NULL;
END $$
"""


def _install_postgresql(connection: BaseDatabaseWrapper, tables: list[str]) -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            f"CREATE TABLE IF NOT EXISTS {TABLE} "
            "(name varchar(100) NOT NULL PRIMARY KEY, version bigint NOT NULL)"
        )
        cursor.execute(
            f"INSERT INTO {TABLE} (name, version) VALUES (%s, %s) ON CONFLICT (name) DO NOTHING",
            [INCARNATION, _random()],
        )
        cursor.execute(_BUMP_FUNCTION)
        cursor.execute(
            "SELECT c.relname, t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
            "WHERE t.tgname IN (%s, %s)",
            [f"{TABLE}_row", f"{TABLE}_truncate"],
        )
        present = set(cursor.fetchall())
        for table in tables:
            if (table, f"{TABLE}_row") not in present:
                # At commit (deferred): the counter's lock is taken last, held an instant.
                cursor.execute(
                    f"CREATE CONSTRAINT TRIGGER {TABLE}_row "
                    f'AFTER INSERT OR UPDATE OR DELETE ON "{table}" '
                    "DEFERRABLE INITIALLY DEFERRED "
                    f"FOR EACH ROW EXECUTE FUNCTION {TABLE}_bump()"
                )
            if (table, f"{TABLE}_truncate") not in present:
                cursor.execute(
                    f'CREATE TRIGGER {TABLE}_truncate AFTER TRUNCATE ON "{table}" '
                    f"FOR EACH STATEMENT EXECUTE FUNCTION {TABLE}_bump()"
                )


def _random() -> int:
    return secrets.randbelow(2**62)


def renew_incarnation(connection: BaseDatabaseWrapper) -> None:
    """A new random incarnation: every cache key built before becomes unreachable."""
    with connection.cursor() as cursor:
        cursor.execute(f"UPDATE {TABLE} SET version = %s WHERE name = %s", [_random(), INCARNATION])


# --- Reading the counters ---------------------------------------------------------------------


def versions(connection: BaseDatabaseWrapper, tables: Iterable[str]) -> tuple[int, ...] | None:
    """The incarnation, then the counter of each table (0: never changed), in one query.

    None when the counters cannot be read (no table yet: a database migrated before they
    existed): the caller must then not cache.
    """
    names = [INCARNATION, *tables]
    placeholders = ", ".join(["%s"] * len(names))
    try:
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT name, version FROM {TABLE} WHERE name IN ({placeholders})", names
            )
            found = dict(cursor.fetchall())
    except DatabaseError:
        return None
    if INCARNATION not in found:
        return None
    return tuple(int(found.get(name, 0)) for name in names)
