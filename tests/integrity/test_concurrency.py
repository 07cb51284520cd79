"""Concurrent writes on real PostgreSQL, through the JSON API, one connection per thread.

40 referees' phones save the same table's result based on one version: exactly one wins,
the others get 409 with the stored result, and the stored row is the winner's, whole. The
40 truly race: 40 threads, each with its database connection already open, released
together by a 40-party barrier. 100 tables saved at once are all saved, by a pool of 20
threads: the machine's PostgreSQL allows 100 connections (``SHOW max_connections``),
shared with everything else running, so that test is bounded. Every thread closes its
connection when done (settings keep connections for ``CONN_MAX_AGE`` seconds otherwise).
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from django.db import connection, connections
from django.test import Client

from qualifying.models import Run
from races.models import RaceResult, RaceTable, ResultStatus
from tests.integrity.conftest import build_race_day, needs_postgresql

pytestmark = [needs_postgresql, pytest.mark.django_db(transaction=True)]

#: Threads of the 100-tables test (bounded: see the module's docstring).
POOL = 20
#: Saves of one object that race at once, one thread and one connection each.
RACERS = 40


def _in_own_connection(
    work: Callable[[], Any], barrier: threading.Barrier | None = None
) -> Callable[[], Any]:
    def wrapped() -> Any:
        try:
            if barrier is not None:
                # Connected before the start: the requests then race, not the connections.
                connections["default"].ensure_connection()
                barrier.wait(timeout=60)
            return work()
        finally:
            # Each thread opened its own connection: give it back, or the server fills up.
            connections.close_all()

    return wrapped


def _free_connections() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SHOW max_connections")
        (limit,) = cursor.fetchone()
        cursor.execute("SELECT count(*) FROM pg_stat_activity")
        (used,) = cursor.fetchone()
    return int(limit) - int(used)


def _left_behind(before: set[int]) -> set[int]:
    """Backends opened since ``before`` that are still there. A closed connection's server
    process takes a moment to exit: wait for it (a few seconds at most) before blaming."""
    deadline = time.monotonic() + 5
    while (extra := _other_backends() - before) and time.monotonic() < deadline:
        time.sleep(0.05)
    return extra


def _other_backends() -> set[int]:
    """The server processes of the other connections to this database. Compared before and
    after a race: earlier tests' threads (a live server, a Celery worker) may hold theirs."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
            " AND pid <> pg_backend_pid()"
        )
        return {pid for (pid,) in cursor.fetchall()}


def _send(method: str, path: str, token: str, body: dict[str, Any]) -> tuple[int, Any]:
    client = Client(HTTP_AUTHORIZATION=f"Bearer {token}", HTTP_ACCEPT_LANGUAGE="en")
    response = getattr(client, method)(
        "/api/v1" + path, json.dumps(body), content_type="application/json"
    )
    return response.status_code, response.json()


def _run_all(jobs: list[Callable[[], Any]]) -> list:
    """Run ``jobs`` on a bounded pool of ``POOL`` threads, one connection each."""
    with ThreadPoolExecutor(max_workers=POOL) as pool:
        futures = [pool.submit(_in_own_connection(job)) for job in jobs]
        return [future.result(timeout=120) for future in futures]


def _race(jobs: list[Callable[[], Any]]) -> list:
    """Run every job at once: one thread and one open connection each, then a barrier
    for all of them, so that every request starts together."""
    free = _free_connections()
    assert free > len(jobs) + 5, (
        f"PostgreSQL has {free} free connections; {len(jobs)} racing threads need "
        "more (raise max_connections or stop other test runs)."
    )
    before = _other_backends()
    barrier = threading.Barrier(len(jobs))
    answers: list[Any] = [None] * len(jobs)
    errors: list[BaseException] = []

    def run(index: int, job: Callable[[], Any]) -> None:
        try:
            answers[index] = _in_own_connection(job, barrier)()
        except BaseException as exc:  # noqa: BLE001 - reported by the test below
            errors.append(exc)
            barrier.abort()

    threads = [
        threading.Thread(target=run, args=(i, job), daemon=True) for i, job in enumerate(jobs)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads), "a racing thread hung"
    assert not errors, errors
    # Every thread gave its connection back.
    assert _left_behind(before) == set()
    return answers


def test_forty_saves_of_one_result_on_one_version_one_wins() -> None:
    day = build_race_day(tables=1, per_table=5)
    table = day.tables[0]
    path = f"/events/{day.event.slug}/tables/1/result"
    status, first = _send("put", path, table.token, {"version": 0, "finish": [1], "submit": False})
    assert status == 200 and first["version"] == 1
    orders = list(itertools.permutations([1, 2, 3, 4, 5]))[:40]
    sheets = [{"version": 1, "finish": list(order), "submit": False} for order in orders]
    assert len(sheets) == RACERS
    # 40 threads, 40 connections, one barrier: the 40 saves are in flight together.
    started = time.monotonic()
    answers = _race([lambda s=sheet: _send("put", path, table.token, s) for sheet in sheets])
    elapsed = time.monotonic() - started

    codes = sorted(code for code, _ in answers)
    assert codes == [200] + [409] * 39, codes
    winner = next(body for code, body in answers if code == 200)
    stored = RaceResult.objects.get(table=table)
    assert stored.version == 2 == winner["version"]
    assert stored.finish == winner["finish"]
    assert winner["finish"] in [list(order) for order in orders]
    assert RaceTable.objects.get(pk=table.pk).result_status == ResultStatus.DRAFT
    # Nothing half-written: the history holds the base and the one accepted change.
    assert stored.history.count() == 2
    for code, body in answers:
        if code == 409:
            assert body["detail"] and body["current"]["version"] in (1, 2)
    print(f"\n40 concurrent saves of one result: {elapsed:.2f} s")


def test_hundred_referees_save_hundred_tables() -> None:
    day = build_race_day(tables=100, per_table=4)
    tables = list(RaceTable.objects.filter(event=day.event).order_by("number"))
    grids = {
        t.pk: list(t.slots.order_by("-position").values_list("driver__number", flat=True))
        for t in tables
    }
    before = _other_backends()
    started = time.monotonic()
    answers = _run_all(
        [
            lambda t=t: _send(
                "put",
                f"/events/{day.event.slug}/tables/{t.number}/result",
                t.token,
                {"version": 0, "finish": grids[t.pk], "retired": [], "dns": [], "submit": True},
            )
            for t in tables
        ]
    )
    elapsed = time.monotonic() - started

    assert [code for code, _ in answers] == [200] * 100, answers[:3]
    stored = {r.table_id: r for r in RaceResult.objects.filter(table__event=day.event)}
    assert len(stored) == 100
    for table in tables:
        assert stored[table.pk].finish == grids[table.pk]
        assert stored[table.pk].version == 1
    assert (
        RaceTable.objects.filter(event=day.event, result_status=ResultStatus.SUBMITTED).count()
        == 100
    )
    print(f"\n100 tables saved by 100 referees ({POOL} at a time): {elapsed:.2f} s")
    assert _left_behind(before) == set()  # the pool's threads closed theirs


def test_forty_corrections_of_one_run_on_one_version_one_wins() -> None:
    day = build_race_day(tables=1, per_table=5)
    # Qualifying still open: once the race tables exist a link no longer changes runs.
    RaceTable.objects.filter(event=day.event).delete()
    driver = day.drivers[0]
    token = day.qualifying_table.token
    runs = f"/events/{day.event.slug}/sessions/1/runs"
    status, body = _send(
        "post",
        runs,
        token,
        {"driver": driver.number, "tyres": "hard", "throws": 20, "stopwatch": "1:45.20"},
    )
    assert status == 201, body
    base = body["version"]
    corrections = [{"version": base, "throws": 10 + n} for n in range(RACERS)]
    answers = _race(
        [lambda c=c: _send("patch", f"{runs}/{driver.number}", token, c) for c in corrections]
    )

    codes = sorted(code for code, _ in answers)
    assert codes == [200] + [409] * 39, codes
    winner = next(body for code, body in answers if code == 200)
    run = Run.objects.get(session=day.session, driver=driver, cancelled=False)
    assert run.version == base + 1 == winner["version"]
    assert run.throws == winner["throws"]
    assert run.history.count() == 2
