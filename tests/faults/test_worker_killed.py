"""``kill -9`` of a gunicorn worker in the middle of a hundred result writes, on PostgreSQL
and on SQLite (WAL): every request either succeeded and is stored, or failed and its client
was told (a broken connection, or a status that is not 2xx); no table half-written, no
acknowledged write lost, the history equal to what is stored. The clients told of a failure
then send again, as a referee's phone does: each lands once (or is told it was already
stored, with a 409), and every table ends where it was meant to.

The kill lands while the writes under way are held inside the workers by a lock of the test
(``writes_held``), never by timing: a kill timed by the answers already received could hit
a worker that happened to hold no request (all 100 succeeded, a CI run failed on it). The
writes come in two waves: the first answered in full, then the rest sent with the lock
already held (taken after a number of answers, the lock raced the writes: on a machine at
load 9 they had all been answered before it, and none was left to hold). The kill waits
for a state on both databases: PostgreSQL's backends waiting on the lock, SQLite's held
connections inside the workers (it was a second's sleep).
"""

from __future__ import annotations

import os
import signal
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, closing, contextmanager
from pathlib import Path
from typing import Any

import psycopg
import pytest
from django.db import connection

from tests.faults.conftest import SqliteDay, postgresql_environment, suite_database_url
from tests.faults.ledger import Ledger, all_writes, half_written, lost, settle, stored_tables
from tests.faults.processes import Gunicorn, wait_until
from tests.faults.world import SUBMITTED, TABLES, race_day

#: The first wave's tables (answered before the lock): confirmations and sheets alike.
FIRST = [*range(1, 9), *range(SUBMITTED + 1, SUBMITTED + 9)]

pytestmark = pytest.mark.django_db(transaction=True)


def read_postgresql(slug: str) -> dict[int, dict[str, Any]]:
    with connection.cursor() as cursor:
        return stored_tables(cursor, slug)


def read_sqlite(database: Path, slug: str) -> dict[int, dict[str, Any]]:
    with closing(sqlite3.connect(database)) as db:
        return stored_tables(db.cursor(), slug)


#: Backends of this database waiting for a lock (PostgreSQL).
WAITING = (
    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
    "AND wait_event_type = 'Lock'"
)


@contextmanager
def writes_held(database: str, tmp_path: Path, server: Gunicorn) -> Iterator[Callable[[int], None]]:
    """The results' writes made to wait, inside the server: PostgreSQL, the race tables
    locked (each write locks its table's row first); SQLite, the database's write lock
    taken. Answers a wait until ``n`` requests are held: PostgreSQL's backends waiting on
    the lock, SQLite's connections the workers hold unanswered."""
    if database == "postgresql":
        url = suite_database_url()
        with psycopg.connect(url) as holder, psycopg.connect(url, autocommit=True) as watcher:
            # The whole table at once (row by row, the lock met the writes' own: a deadlock):
            # EXCLUSIVE waits for the writes under way, then holds every new one at its
            # first lock of a race table's row; reads go on.
            holder.execute("LOCK TABLE races_racetable IN EXCLUSIVE MODE")

            def waiting(count: int) -> None:
                wait_until(
                    lambda: watcher.execute(WAITING).fetchone()[0] >= count,
                    timeout=300,
                    what=f"{count} writes waiting on the lock",
                )

            yield waiting
            holder.rollback()
        return
    with closing(sqlite3.connect(tmp_path / "venue" / "db.sqlite3", isolation_level=None)) as db:
        db.execute("BEGIN IMMEDIATE")

        def held(count: int) -> None:
            # Accepted and unanswered while the lock is held: waiting for it (within the
            # server's 20 s busy timeout), or queued for a thread of the worker.
            wait_until(lambda: server.held() >= count, timeout=300, what=f"{count} held")

        yield held
        db.execute("ROLLBACK")


@pytest.mark.parametrize("database", ["postgresql", "sqlite"])
def test_a_worker_killed_mid_writes_loses_nothing_acknowledged(
    database: str, tmp_path: Path, sqlite_day: SqliteDay
) -> None:
    if database == "postgresql":
        env = postgresql_environment(tmp_path, suite_database_url())
        world = race_day()
        read = lambda: read_postgresql(world["event"])  # noqa: E731
    else:
        world = sqlite_day.copy(tmp_path / "venue")
        env = sqlite_day.environment(tmp_path / "venue")
        read = lambda: read_sqlite(tmp_path / "venue" / "db.sqlite3", world["event"])  # noqa: E731

    with Gunicorn(env, tmp_path, workers=2, threads=4) as server:
        ledger = Ledger(server.url, world)
        kill: dict[str, float] = {}
        # The first wave, answered in full: writes acknowledged before the kill.
        ledger.send_all(all_writes(FIRST))
        with ExitStack() as held:
            # The rest sent with the lock already held: each write waits inside a worker
            # (or for a thread of one), whatever the machine's speed (a kill at a moment the
            # other worker happened to serve them all hit nothing, on a busy run).
            all_waiting = held.enter_context(writes_held(database, tmp_path, server))

            def kill_a_worker() -> None:
                all_waiting(server.workers * server.threads)
                kill["at"] = time.monotonic()
                os.kill(server.busiest_worker(), signal.SIGKILL)
                held.close()  # the lock let go: the other worker's writes go on

            rest = [n for n in range(1, TABLES + 1) if n not in FIRST]
            ledger.send_all(all_writes(rest), meanwhile=kill_a_worker)
        figures = ledger.figures(since=kill["at"])
        stored = read()
        figures["lost"] = len(lost(ledger, stored))
        print(f"\nFAULT worker kill -9 on {database}: {figures}")
        assert figures["sent"] == TABLES
        assert lost(ledger, stored) == []
        assert half_written(stored, world) == []
        # The kill hit requests under way, and their clients were told.
        assert figures["in_flight"] > 0 and figures["told_of_failure"] > 0, figures
        assert all(item.error or item.status for item in ledger.sent)
        # Told by a broken connection, or by a 503 (never a 500, never a half answer).
        assert {i.status for i in ledger.sent} <= {200, 503, None}, [
            (i.status, i.body) for i in ledger.sent if i.status not in (200, 503, None)
        ]

        # The arbiter replaced the worker; what failed is sent again, once each.
        wait_until(lambda: len(server.worker_pids()) == 2, timeout=300, what="a new worker")
        again = [item for item in ledger.sent if item.told_of_failure]
        retried = settle(ledger, again)
        already = [i for i in retried.sent if i.status == 409]
        assert all(i.succeeded or i.status == 409 for i in retried.sent), [
            (i.table, i.status, i.error) for i in retried.sent if not i.succeeded
        ]
        # A 409 says the first try was stored after all, with the stored result.
        assert all(i.body["current"]["version"] >= 1 for i in already)
        print(f"FAULT retried on {database}: {len(again)}, already stored {len(already)}")

        final = read()
        assert half_written(final, world) == []
        assert {n for n, row in final.items() if row["status"] == "confirmed"} == set(
            range(1, SUBMITTED + 1)
        )
        assert {n for n, row in final.items() if row["status"] == "submitted"} == set(
            range(SUBMITTED + 1, TABLES + 1)
        )
