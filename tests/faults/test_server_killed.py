"""The whole server killed (SIGKILL to gunicorn's arbiter and every worker at once: the
plug pulled) while a hundred result writes are under way, on SQLite in WAL mode as
``make venue`` runs it: the file passes ``PRAGMA integrity_check``, every acknowledged write
is in it, no table half-written; restarted on the same file, the server serves again and the
writes its clients were told had failed go through.

The writes come in two waves: thirty answered in full, then the rest sent while the test
holds SQLite's write lock, so that they are held inside the server when it is killed,
whatever the machine's speed. (Killed once thirty answers had come, as it was, the rest
could all be answered before the kill on a busy machine, and none was in flight.)
"""

from __future__ import annotations

import sqlite3
import time
from contextlib import closing
from pathlib import Path

from tests.faults.conftest import SqliteDay
from tests.faults.ledger import Ledger, all_writes, half_written, lost, settle, stored_tables
from tests.faults.processes import Gunicorn, wait_until
from tests.faults.world import SUBMITTED, TABLES

#: The first wave (answered before the kill): confirmations and sheets alike.
FIRST = [*range(1, 16), *range(SUBMITTED + 1, SUBMITTED + 16)]


def test_the_server_killed_mid_writes_on_sqlite_keeps_every_acknowledged_write(
    tmp_path: Path, sqlite_day: SqliteDay
) -> None:
    data = tmp_path / "venue"
    world = sqlite_day.copy(data)
    env = sqlite_day.environment(data)
    database = data / "db.sqlite3"

    server = Gunicorn(env, tmp_path, workers=2, threads=4)
    # The test's own connection, holding the write lock while the rest is sent. Closed last
    # of all, SQLite would fold the log into the file on its way out: it closes once the
    # file is opened again below, as after a crash.
    lock = sqlite3.connect(database, isolation_level=None)
    try:
        server.start()
        ledger = Ledger(server.url, world)
        kill: dict[str, float] = {}
        ledger.send_all(all_writes(FIRST))  # acknowledged before the plug is pulled
        lock.execute("BEGIN IMMEDIATE")  # the writes to come wait inside the server

        def pull_the_plug() -> None:
            held = server.workers * server.threads
            wait_until(lambda: server.held() >= held, timeout=300, what="writes held")
            kill["at"] = time.monotonic()
            server.kill()
            lock.execute("ROLLBACK")

        rest = [n for n in range(1, TABLES + 1) if n not in FIRST]
        ledger.send_all(all_writes(rest), meanwhile=pull_the_plug)
        assert (data / "db.sqlite3-wal").exists()  # killed with its log unmerged
    finally:
        server.stop()
        if lock.in_transaction:
            lock.execute("ROLLBACK")

    with closing(sqlite3.connect(database)) as db:
        lock.close()
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        stored = stored_tables(db.cursor(), world["event"])
    figures = ledger.figures(since=kill["at"])
    figures["lost"] = len(lost(ledger, stored))
    print(f"\nFAULT server SIGKILL on sqlite: {figures}")
    assert figures["sent"] == TABLES and figures["in_flight"] > 0
    assert figures["told_of_failure"] > 0 and figures["succeeded"] >= 30, figures
    assert lost(ledger, stored) == []
    assert half_written(stored, world) == []
    assert {i.status for i in ledger.sent} <= {200, 503, None}

    # Restarted on the same file: what failed is sent again and lands once.
    with Gunicorn(env, tmp_path, workers=2, threads=4) as again:
        assert again.answers() == 200
        restarted = Ledger(again.url, world)
        retried = settle(restarted, [i for i in ledger.sent if i.told_of_failure])
        assert all(i.succeeded or i.status == 409 for i in retried.sent), [
            (i.table, i.status, i.error) for i in retried.sent if not i.succeeded
        ]
        already = sum(1 for i in retried.sent if i.status == 409)
        print(f"FAULT retried after the restart: {len(retried.sent)}, already stored {already}")
    with closing(sqlite3.connect(database)) as db:
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        final = stored_tables(db.cursor(), world["event"])
    assert half_written(final, world) == []
    confirmed = {n for n, row in final.items() if row["status"] == "confirmed"}
    assert confirmed == set(range(1, SUBMITTED + 1))
    assert {n for n, row in final.items() if row["status"] == "submitted"} == set(
        range(SUBMITTED + 1, TABLES + 1)
    )
