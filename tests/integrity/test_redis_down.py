"""Redis down (REDIS_URL at a closed port): pages, result entry and sheets keep working.

A subprocess, because settings (cache, broker) are read at import: it runs
``redis_down_script.py`` against this test's database (PostgreSQL in CI; a fresh SQLite
file otherwise) and reports what happened. No worker runs either, which is the second
fault: a batch request must be built inline, not wait forever.
"""

from __future__ import annotations

import datetime
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from qualifying.services import draw_record
from races.grid.services import allocation_run
from races.models import SheetBatch
from tests.integrity.conftest import ON_POSTGRESQL
from tournament.access import Actor

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = Path(__file__).with_name("redis_down_script.py")


def closed_port() -> int:
    """A local port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def database_url(tmp_path: Path) -> str:
    if ON_POSTGRESQL:
        s = connection.settings_dict
        user = s["USER"] or ""
        password = f":{s['PASSWORD']}" if s["PASSWORD"] else ""
        host = s["HOST"] or "127.0.0.1"
        port = s["PORT"] or 5432
        return f"postgres://{user}{password}@{host}:{port}/{s['NAME']}"
    return f"sqlite:///{tmp_path / 'redis-down.sqlite3'}"


@pytest.mark.django_db(transaction=True)
def test_redis_down_every_page_result_entry_and_sheets_keep_working(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "REDIS_URL": f"redis://127.0.0.1:{closed_port()}/0",
        "DATABASE_URL": database_url(tmp_path),
        "PYTHONPATH": str(ROOT),
    }
    result = subprocess.run(
        [sys.executable, str(SCRIPT)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    line = next(x for x in result.stdout.splitlines() if x.startswith("REPORT "))
    report = json.loads(line.removeprefix("REPORT "))
    print(
        f"\nRedis down: {report['pages']} pages, slowest {report['slowest_page']} s;",
        report["batch"],
    )

    # The process really ran on Redis, with a real (unreachable) broker.
    assert report["cache"].endswith("RedisCache")
    assert report["broker"].startswith("redis://127.0.0.1:")
    assert report["eager"] is False
    assert report["pages"] > 100
    assert report["page_errors"] == []
    assert report["api_reads"] > 100
    assert report["api_errors"] == []
    assert report["slowest_page"] < 5
    page_status, page_version, grid = report["page_save"]
    assert (page_status, page_version) == (302, 1)
    api_status, api_version, finish = report["api_save"]
    assert (api_status, api_version) == (200, 2)
    assert report["stored"] == [2, finish]
    publish_status, published, publish_seconds = report["publish"]
    assert (publish_status, published) == (302, True) and publish_seconds < 10
    batch = report["batch"]
    assert batch["status_code"] == 200
    assert (batch["status"], batch["pdf"]) == ("done", "%PDF-")
    assert any("unavailable" in message for message in batch["messages"]), batch
    assert batch["seconds"] < 30


@pytest.mark.django_db
def test_a_queued_batch_offers_to_build_it_here(
    client, organiser, make_event, django_capture_on_commit_callbacks
) -> None:
    """Redis up but no worker: the page says it waits for a worker and offers to build it
    inline; the organiser's click builds it within the request."""
    event = make_event(n_drivers=4, qualifying_mode="draw")
    draw_record(actor=Actor(user=organiser), event=event, rolls={n: [n] for n in range(1, 5)})
    allocation_run(actor=Actor(user=organiser), event=event, table_size=4)
    SheetBatch.objects.create(event=event, kind="race")  # queued, no worker will come
    client.force_login(organiser)
    client.cookies["django_language"] = "en"
    page = client.get(reverse("sheet-batch", args=[event.slug, "race"])).content.decode()
    assert "Waiting for the background worker" in page
    assert 'name="inline" value="1"' in page and "Build it here now" in page

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("sheet-batch-request", args=[event.slug]), {"kind": "race", "inline": "1"}
        )
    assert response.status_code == 302
    batch = SheetBatch.objects.get(event=event, kind="race")
    assert (batch.status, bytes(batch.pdf)[:5]) == ("done", b"%PDF-")
    page = client.get(reverse("sheet-batch", args=[event.slug, "race"])).content.decode()
    assert "Build it here now" not in page and "Download the PDF" in page


@pytest.mark.django_db
def test_a_batch_no_worker_took_for_a_minute_says_so(client, organiser, make_event) -> None:
    """A queue restarted without its disk loses the messages it held: the batch would wait
    "for a worker" for good. After a minute the page says none took it, and to build it."""
    event = make_event(n_drivers=4, qualifying_mode="draw")
    batch = SheetBatch.objects.create(event=event, kind="race")
    client.force_login(organiser)
    client.cookies["django_language"] = "en"
    url = reverse("sheet-batch", args=[event.slug, "race"])
    assert "No background worker has taken" not in client.get(url).content.decode()
    SheetBatch.objects.filter(pk=batch.pk).update(
        updated_at=timezone.now() - datetime.timedelta(seconds=61)
    )
    page = client.get(url).content.decode()
    assert "No background worker has taken this request for more than a minute" in page
    assert "Waiting for the background worker" not in page and "Build it here now" in page
