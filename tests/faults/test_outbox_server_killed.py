"""The server killed (SIGKILL, the plug pulled) while fifty phones send their outboxes, each
write with its own Idempotency-Key (issue 31); restarted on the same SQLite file, every
phone sends its whole outbox again with the same keys, as the page does when it cannot
tell whether an answer was lost: nothing lost, nothing doubled.

A key left running by the killed server answers 409 until it is taken over
(``IDEMPOTENCY_STALE_SECONDS``, 1 s here); a write that landed before the kill answers its
first answer again, or, if the kill came between its commit and its answer being kept,
the stored result as a refusal of a stale version (never a second write).
"""

from __future__ import annotations

import sqlite3
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from pathlib import Path
from typing import Any

import httpx

from tests.faults.conftest import SqliteDay
from tests.faults.ledger import API
from tests.faults.processes import Gunicorn, wait_until
from tests.faults.world import SUBMITTED, TABLES

PHONES = range(SUBMITTED + 1, TABLES + 1)  # the tables whose result is still empty


def _send(url: str, world: dict[str, Any], table: int, key: str) -> tuple[int | None, Any]:
    token = world["tables"][str(table)]["token"]
    body = {"version": 0, "finish": world["tables"][str(table)]["grid"], "submit": True}
    try:
        answer = httpx.put(
            f"{url}{API}/events/{world['event']}/tables/{table}/result", json=body, timeout=60,
            headers={"Authorization": f"Bearer {token}", "Idempotency-Key": key,
                     "Accept-Language": "en"},
        )  # fmt: skip
    except httpx.TransportError:
        return None, None
    try:
        return answer.status_code, answer.json()
    except ValueError:
        return answer.status_code, answer.text


def _settled(status: int | None, body: Any) -> bool:
    """Answered for good: stored (2xx) or refused with what is stored (409 ``current``)."""
    if status is None or status >= 500:
        return False
    if status == 409:
        return isinstance(body, dict) and "current" in body
    return True


def test_outboxes_sent_again_after_the_server_was_killed_land_once(
    tmp_path: Path, sqlite_day: SqliteDay
) -> None:
    data = tmp_path / "venue"
    world = sqlite_day.copy(data)
    env = sqlite_day.environment(data, IDEMPOTENCY_STALE_SECONDS="1")
    keys = {table: str(uuid.uuid4()) for table in PHONES}
    first: dict[int, tuple[int | None, Any]] = {}
    lock = threading.Lock()

    server = Gunicorn(env, tmp_path, workers=2, threads=4)
    try:
        server.start()

        def send(table: int) -> None:
            answer = _send(server.url, world, table, keys[table])
            with lock:
                first[table] = answer

        with ThreadPoolExecutor(max_workers=len(keys)) as pool:
            futures = [pool.submit(send, table) for table in PHONES]
            wait_until(lambda: len(first) >= 10 or None, timeout=60, what="the first answers")
            server.kill()
            for future in futures:
                future.result()
    finally:
        server.stop()
    assert any(status is None for status, _body in first.values())  # some were cut off

    with Gunicorn(env, tmp_path, workers=2, threads=4) as again:
        answers: dict[int, tuple[int | None, Any]] = {}

        def all_settled() -> bool | None:
            for table in PHONES:  # each phone's outbox again, with its keys
                if table not in answers or not _settled(*answers[table]):
                    answers[table] = _send(again.url, world, table, keys[table])
            return all(_settled(*answers[t]) for t in PHONES) or None

        wait_until(all_settled, timeout=120, what="every outbox sent")
    for table, (status, body) in answers.items():
        before = first[table]
        if before[0] == 200:
            assert (status, body) == before, table  # its first answer, again
        if status == 409:
            assert body["current"]["version"] == 1, table

    with closing(sqlite3.connect(data / "db.sqlite3")) as db:
        rows = db.execute(
            "SELECT t.number, t.result_status, r.version FROM races_racetable t"
            " JOIN races_raceresult r ON r.table_id = t.id"
        ).fetchall()
        saves = dict(
            db.execute(
                "SELECT t.number, COUNT(*) FROM races_historicalraceresult h"
                " JOIN races_racetable t ON t.id = h.table_id GROUP BY t.number"
            ).fetchall()
        )
    stored = {number: (status, version) for number, status, version in rows}
    for table in PHONES:
        assert stored[table] == ("submitted", 1), table  # landed, once
        assert saves[table] == 1, table  # one save in its history: nothing doubled
