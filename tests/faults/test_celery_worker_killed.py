"""A Celery worker's process killed (SIGKILL) in the middle of a task: the task is done anyway.

A message of the queue is acknowledged once its task is done, not as it is received
(``CELERY_TASK_ACKS_LATE``), and given back to the queue when the process running it dies
(``CELERY_TASK_REJECT_ON_WORKER_LOST``): the worker's next process runs it again; every
task here is safe to run twice. Before, a batch of sheets whose process was killed stayed
"queued" for good, its message gone.

The task is caught in its middle by a row lock, not by timing: the test holds the batch's
row (``SELECT … FOR UPDATE``, in a connection of its own), so the task, which first marks
the batch as being built, waits for it; once PostgreSQL shows the task's query waiting, the
process running it is killed. A real worker (prefork, one process), this test's PostgreSQL
database and Redis database.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import psycopg
import pytest
from django.test import override_settings

from races.models import SheetBatch
from races.sheets.tasks import build_sheet_batch
from tests.faults.conftest import postgresql_environment, suite_database_url
from tests.faults.processes import children, start, stop, wait_until
from tests.integrity.conftest import build_race_day, needs_postgresql

pytestmark = [
    needs_postgresql,
    pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="a real queue: set REDIS_URL"),
    pytest.mark.django_db(transaction=True),
    pytest.mark.celery_worker,
]

WAITING = (
    "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
    "AND wait_event_type = 'Lock' AND query LIKE 'UPDATE %%races_sheetbatch%%'"
)


def test_a_task_whose_process_is_killed_is_run_again_to_the_end(tmp_path: Path) -> None:
    day = build_race_day(tables=2, per_table=5, slug="tuer-le-worker")
    batch = SheetBatch.objects.create(event=day.event, kind=SheetBatch.Kind.RACE)
    url = suite_database_url()
    env = postgresql_environment(tmp_path, url, REDIS_URL=os.environ["REDIS_URL"])
    log = tmp_path / "celery.log"
    worker = start(
        [sys.executable, "-m", "celery", "-A", "paddock", "worker", "--pool", "prefork",
         "--concurrency", "1", "--loglevel", "info", "--without-heartbeat", "--without-gossip",
         "--without-mingle"],
        env=env, log=log,
    )  # fmt: skip
    try:
        with psycopg.connect(url) as holder, psycopg.connect(url, autocommit=True) as watcher:
            holder.execute("SELECT id FROM races_sheetbatch WHERE id = %s FOR UPDATE", [batch.pk])

            def waiting() -> list[int]:
                return [pid for (pid,) in watcher.execute(WAITING).fetchall()]

            build_sheet_batch.delay(batch.pk)
            first = wait_until(waiting, timeout=300, what="the task waiting on the batch's row")
            (process,) = children(worker.pid)
            os.kill(process, signal.SIGKILL)
            # The message back in the queue, the worker's next process runs the task: its
            # own query waits on the row too, from another connection.
            wait_until(
                lambda: [pid for pid in waiting() if pid not in first] or None,
                timeout=300,
                what="the task run again after its process was killed",
            )
            holder.rollback()  # the row let go: the task goes on
        wait_until(
            lambda: SheetBatch.objects.filter(pk=batch.pk, status=SheetBatch.Status.DONE).first(),
            timeout=300,
            what="the batch built",
        )
    finally:
        stop(worker)
    with override_settings(SECRET_KEY=env["SECRET_KEY"]):  # the worker's, sealing the PDF
        done = SheetBatch.objects.get(pk=batch.pk)
    assert done.pdf.startswith(b"%PDF") and done.total == done.done == 2
    assert "WorkerLostError" in log.read_text()
