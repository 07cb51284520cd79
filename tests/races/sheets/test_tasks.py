"""The background build of all of an event's sheets in one PDF: inline, then with a real
Celery worker consuming the Redis broker (TESTING.md, "Celery in tests")."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from pypdf import PdfReader

from qualifying.models import Run
from qualifying.seating.services import qualifying_tables_auto
from qualifying.services import session_create
from races.grid.services import allocation_run, sheet_batch_request
from races.models import SheetBatch
from races.sheets.pdf import RaceSheetRenderer
from races.sheets.tasks import build_sheet_batch
from tournament.access import Actor
from tournament.models import Driver


@pytest.fixture
def actor(organiser):
    return Actor(user=organiser)


@pytest.fixture
def allocated(make_event, actor):
    """Seven drivers at three race tables (3, 2, 2) and two qualifying tables."""
    event = make_event(n_drivers=7)
    Driver.objects.filter(championship=event.championship).update(team=None)
    Driver.objects.filter(championship=event.championship, number=7).update(
        first_name="Léa", last_name="Morel"
    )
    session = session_create(actor=actor, event=event, number=1, weather_roll=15)
    for number in range(1, 8):
        Run.objects.create(
            session=session,
            driver=Driver.objects.get(championship=event.championship, number=number),
            tyres="hard",
            throws=10 + number,
            stopwatch_cs=5000,
        )
    qualifying_tables_auto(actor=actor, event=event, table_size=4)
    allocation_run(actor=actor, event=event, table_size=3)
    return event


def pages(pdf: bytes) -> list[str]:
    assert pdf.startswith(b"%PDF")
    return [page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages]


def test_build_sheet_batch_inline_builds_the_race_sheets(allocated):
    batch = SheetBatch.objects.create(event=allocated, kind="race", language="en")

    result = build_sheet_batch.delay(batch.pk)

    assert result.get() == "done"
    batch.refresh_from_db()
    assert (batch.status, batch.done, batch.total, batch.error) == ("done", 3, 3, "")
    assert batch.percent == 100
    texts = pages(bytes(batch.pdf))
    for number in (1, 2, 3):
        assert any(f"Table {number}" in text for text in texts), number
    assert "Léa Morel" in "\n".join(texts)


def test_build_sheet_batch_inline_builds_the_qualifying_sheets(allocated):
    batch = SheetBatch.objects.create(event=allocated, kind="qualifying", language="fr")

    assert build_sheet_batch(batch.pk) == "done"

    batch.refresh_from_db()
    assert (batch.status, batch.done, batch.total) == ("done", 2, 2)
    texts = pages(bytes(batch.pdf))
    for number in (1, 2):
        assert any(f"Table {number}" in text for text in texts), number


def test_build_sheet_batch_of_a_deleted_batch_does_nothing(db):
    assert build_sheet_batch(123456) == "missing"


def test_build_sheet_batch_failure_is_shown_not_waited_for(allocated, monkeypatch):
    def broken(self, sheets, progress=None):
        raise RuntimeError("printer on fire")

    monkeypatch.setattr(RaceSheetRenderer, "render_many", broken)
    batch = SheetBatch.objects.create(event=allocated, kind="race")

    with pytest.raises(RuntimeError):
        build_sheet_batch.delay(batch.pk)

    batch.refresh_from_db()
    assert (batch.status, batch.error) == ("failed", "printer on fire")
    assert batch.pdf is None


def test_sheet_batch_request_runs_the_task_once_committed(
    allocated, actor, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        batch = sheet_batch_request(actor=actor, event=allocated, kind="race", language="en")
        # Nothing is sent before the request's transaction commits.
        assert SheetBatch.objects.get(pk=batch.pk).status == "queued"

    assert len(callbacks) == 1
    batch.refresh_from_db()
    assert (batch.status, batch.done, batch.total) == ("done", 3, 3)


def test_sheet_batch_request_again_resets_and_replaces_the_batch(
    allocated, actor, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        first = sheet_batch_request(actor=actor, event=allocated, kind="race", language="en")
    SheetBatch.objects.filter(pk=first.pk).update(status="failed", error="old")

    with django_capture_on_commit_callbacks(execute=False):
        again = sheet_batch_request(actor=actor, event=allocated, kind="race", language="xx")
    again.refresh_from_db()

    assert again.pk == first.pk
    assert SheetBatch.objects.count() == 1
    assert (again.status, again.done, again.total, again.error, again.language) == (
        "queued",
        0,
        0,
        "",
        "fr",
    )


@pytest.mark.celery_worker
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_builds_the_batch_sent_through_redis(allocated, actor):
    if not os.environ.get("REDIS_URL"):
        pytest.skip("REDIS_URL is not set")
    from celery.contrib.testing.worker import start_worker

    from paddock.celery import app

    assert not app.conf.task_always_eager
    app.control.purge()  # stale messages of earlier runs must not reach this worker
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=30):
        batch = sheet_batch_request(actor=actor, event=allocated, kind="race", language="en")
        deadline = time.monotonic() + 30
        while True:
            batch.refresh_from_db()
            if batch.status in ("done", "failed") or time.monotonic() > deadline:
                break
            time.sleep(0.2)

    assert (batch.status, batch.error) == ("done", "")
    assert (batch.done, batch.total) == (3, 3)
    texts = pages(bytes(batch.pdf))
    for number in (1, 2, 3):
        assert any(f"Table {number}" in text for text in texts), number


def test_a_worker_started_afresh_knows_every_task():
    """A worker process imports its tasks from CELERY_IMPORTS at start-up (the tasks live in
    the package of their concern, where autodiscovery would not look): none is unknown."""
    code = (
        "import django; django.setup();"
        "from paddock.celery import app; app.loader.import_default_modules();"
        "print(' '.join(sorted(n for n in app.tasks if not n.startswith('celery.'))))"
    )
    env = {"PATH": os.environ.get("PATH", ""), "DEBUG": "true",
           "DJANGO_SETTINGS_MODULE": "paddock.settings"}  # fmt: skip
    shown = subprocess.run(
        [sys.executable, "-c", code],
        cwd=Path(__file__).resolve().parents[3], env=env, capture_output=True, text=True,
    )  # fmt: skip
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.split() == [
        "races.build_sheet_batch",
        "tournament.account_request_mail",
        "tournament.password_reset_mails",
        "tournament.recompute_ratings",
        "tournament.signup_daily",
        "tournament.signup_send_mail",
        "tournament.warm_event_pages",
    ]
