"""Two writes of one thing at once, made to meet deterministically (PostgreSQL).

The first runs in a thread of its own, in a transaction left open once its work is done;
the second starts then, in another thread, and the first commits only once PostgreSQL says
the second is waiting for one of its locks (``pg_locks``): the second meets the first's
rows exactly as a request arriving a millisecond later would. No sleep decides anything.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from django.db import connection, connections, transaction

from tests.faults.processes import wait_until


def _waiting(pid: int) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_locks WHERE pid = %s AND NOT granted", [pid])
        return bool(cursor.fetchone()[0])


def second_meets_first(first: Callable[[], Any], second: Callable[[], Any]) -> tuple[Any, Any]:
    """``first()`` and ``second()`` as two requests at once; what each answered (or raised:
    the exception is returned, not raised)."""
    a, b, _waited = meet(first, second)
    return a, b


def meet(first: Callable[[], Any], second: Callable[[], Any]) -> tuple[Any, Any, bool]:
    """As :func:`second_meets_first`, and whether the second had to wait for the first."""
    done_first = threading.Event()
    commit = threading.Event()
    pids: list[int] = []

    def held() -> Any:
        try:
            with transaction.atomic():
                value = first()
                done_first.set()
                assert commit.wait(timeout=30), "the second never waited"
            return value
        finally:
            done_first.set()
            connections.close_all()

    def later() -> Any:
        try:
            connections["default"].ensure_connection()
            pids.append(connections["default"].connection.info.backend_pid)
            return second()
        finally:
            connections.close_all()

    def outcome(future: Future[Any]) -> Any:
        error = future.exception(timeout=60)
        return error if error is not None else future.result()

    with ThreadPoolExecutor(2) as pool:
        a = pool.submit(held)
        assert done_first.wait(timeout=30)
        b = pool.submit(later)
        waited = []
        try:
            wait_until(
                lambda: b.done() or (pids and _waiting(pids[0]) and not waited.append(1)),
                timeout=30,
                what="the second request waiting for the first",
            )
        finally:
            commit.set()
        return outcome(a), outcome(b), bool(waited)
