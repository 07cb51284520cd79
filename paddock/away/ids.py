"""The ids the day's rows take on the hosted server (``landing``): a laptop's ids are never
kept, nor trusted to be small.

Each table's laptop ids (its rows', the ids its history rows name, those other rows of the
day refer to) are numbered 1, 2, … in their order, and placed above everything the table,
its history and its sequence hold here: a file with one id of two thousand million takes one
id, as any other. The sequences move last of all, once every row is in and the constraints
are checked: ``setval`` is not undone by a rollback, and a return refused must leave every
sequence where it was (issue 40). On PostgreSQL the tables are locked against inserts from
the first id read to the commit (reads go on), so that no other write takes an id of the
block meanwhile; SQLite writes one transaction at a time.
"""

from __future__ import annotations

from collections import defaultdict

from django.apps import apps
from django.db import connection


class DayIds:
    """The laptop ids of the day's tables. First ``seen`` (each id met is noted, and stays
    as it was), then ``placed`` (each id is its table's base here plus its rank)."""

    def __init__(self) -> None:
        self._seen: dict[str, set[int]] = defaultdict(set)
        self._ranks: dict[str, dict[int, int]] | None = None
        self._bases: dict[str, int] = {}

    def new(self, label: str, old: int) -> int:
        """The id here of the laptop's id ``old`` of table ``label``."""
        if self._ranks is None:
            self._seen[label].add(old)
            return old
        return self._bases[label] + self._ranks[label][old]

    def place(self) -> None:
        """Read each table's base (locking it against inserts on PostgreSQL): from now on
        ``new`` answers the ids here. Nothing is written."""
        self._ranks = {
            label: {old: rank for rank, old in enumerate(sorted(ids), start=1)}
            for label, ids in self._seen.items()
        }
        labels = sorted(self._ranks)
        if connection.vendor == "postgresql" and labels:
            tables = sorted({table for label in labels for table in _tables(label)})
            with connection.cursor() as cursor:
                # Names come from the models, not from the file.
                cursor.execute(f"LOCK TABLE {', '.join(tables)} IN SHARE ROW EXCLUSIVE MODE")
        self._bases = {label: _base(label) for label in labels}

    def reserve(self) -> None:
        """Once the rows are in: check the constraints now (a violation refuses the return
        before any sequence moves), then move each table's sequence past its block."""
        if self._ranks is None:
            return
        with connection.cursor() as cursor:
            if connection.vendor == "postgresql":
                cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
                cursor.execute("SET CONSTRAINTS ALL DEFERRED")
            for label, ranks in sorted(self._ranks.items()):
                if ranks:
                    _move(cursor, label, self._bases[label] + len(ranks))


def _model(label: str):  # type: ignore[no-untyped-def]
    return apps.get_model(label)


def _tables(label: str) -> list[str]:
    """The table of ``label`` and that of its history, if any."""
    model = _model(label)
    history = getattr(model, "history", None)
    return [model._meta.db_table] + ([history.model._meta.db_table] if history else [])


def _base(label: str) -> int:
    """The highest id ``label``'s table, its sequence or its history (deleted rows) holds."""
    model = _model(label)
    table, pk = model._meta.db_table, model._meta.pk.column
    history = getattr(model, "history", None)
    ghost = f"(SELECT COALESCE(MAX(id), 0) FROM {history.model._meta.db_table})" if history else "0"
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                "SELECT GREATEST(COALESCE(pg_sequence_last_value(pg_get_serial_sequence(%s, %s)"
                f"::regclass), 0), (SELECT COALESCE(MAX({pk}), 0) FROM {table}), {ghost})",
                [table, pk],
            )
        else:
            cursor.execute(
                f"SELECT MAX((SELECT COALESCE(MAX(seq), 0) FROM sqlite_sequence WHERE name = %s),"
                f" (SELECT COALESCE(MAX({pk}), 0) FROM {table}), {ghost})",
                [table],
            )
        return int(cursor.fetchone()[0])


def _move(cursor, label: str, last: int) -> None:  # type: ignore[no-untyped-def]
    """``label``'s sequence at ``last`` at least (the next id is above it)."""
    model = _model(label)
    table, pk = model._meta.db_table, model._meta.pk.column
    if connection.vendor == "postgresql":
        cursor.execute(
            "SELECT setval(pg_get_serial_sequence(%s, %s), GREATEST(%s, COALESCE("
            "pg_sequence_last_value(pg_get_serial_sequence(%s, %s)::regclass), 0)))",
            [table, pk, last, table, pk],
        )
        return
    cursor.execute(
        "INSERT INTO sqlite_sequence (name, seq) SELECT %s, 0 WHERE NOT EXISTS "
        "(SELECT 1 FROM sqlite_sequence WHERE name = %s)",
        [table, table],
    )
    cursor.execute("UPDATE sqlite_sequence SET seq = MAX(seq, %s) WHERE name = %s", [last, table])
