"""Paddock on several servers for real: gunicorn instances on free loopback ports sharing
this test's PostgreSQL database and Redis database, a Celery worker apart, as a federation
hosts it behind a proxy (README, "Run it for real").

- A result confirmed through one server is on the other's public pages at once: the pages
  are cached in the shared Redis under the database's change counters, never stale.
- 30 saves of one sheet at once, spread over both servers, give exactly one success; the
  others a 409 saying why, with the stored result.
- A restarted server has the day's public pages built before its first request, and two
  cold requests for one page on two servers build it once (``tournament.public.cache``'s
  single flight; the builds are counted in the shared cache).

The servers run the production settings (DEBUG off), each in a process group of its own,
stopped by their own pids. PostgreSQL and Redis only: the test's own database and Redis
database (``tests/settings.py``), which the servers and the worker share.
"""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from races.models import RaceResult, ResultLine
from tests.faults.processes import default_signals, static_manifest, stop
from tests.integrity.conftest import RaceDay, build_race_day, needs_postgresql
from tournament.models import ApiToken, Event
from tournament.public.cache import BUILDS, WAITS, counted
from tournament.public.tasks import event_pages

ROOT = Path(__file__).resolve().parents[2]
SAVES = 30

pytestmark = [
    needs_postgresql,
    pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="several servers share Redis"),
    pytest.mark.django_db(transaction=True),
]


# --- The servers (small helpers; tests/faults has its own) ----------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def database_url() -> str:
    s = connection.settings_dict
    password = f":{s['PASSWORD']}" if s["PASSWORD"] else ""
    return (
        f"postgres://{s['USER'] or ''}{password}@{s['HOST'] or '127.0.0.1'}:"
        f"{s['PORT'] or 5432}/{s['NAME']}"
    )


def environment() -> dict[str, str]:
    """Production settings on this test's database and Redis database."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "PYTHONPATH": str(ROOT),
        "DJANGO_SETTINGS_MODULE": "paddock.settings",
        "DATABASE_URL": database_url(),
        "REDIS_URL": os.environ["REDIS_URL"],  # this worker's own database (tests/settings.py)
        "DEBUG": "false",
        "SECRET_KEY": "two-servers-" + secrets.token_urlsafe(48),
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "SITE_URL": "http://127.0.0.1",
        "SECURE_SSL_REDIRECT": "false",
        "SECURE_COOKIES": "false",
        "SECURE_HSTS_SECONDS": "0",
        # Pages name their static files through a manifest of their own: the project's
        # staticfiles/ may be collected again by another test meanwhile (a half-written
        # manifest answered 500 in a full run). The servers serve pages, not files.
        "STATIC_ROOT": str(static_manifest()),
    }


class Server:
    """gunicorn serving Paddock on a free loopback port, its output kept in a file."""

    def __init__(self, env: dict[str, str], log: Path, *, workers: int, threads: int) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = log
        command = [
            sys.executable, "-m", "gunicorn", "paddock.wsgi",
            "--bind", f"127.0.0.1:{self.port}", "--workers", str(workers),
            "--threads", str(threads), "--log-level", "warning",
        ]  # fmt: skip
        with log.open("wb") as out:
            self.process = subprocess.Popen(
                command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                start_new_session=True, preexec_fn=default_signals(),
            )  # fmt: skip

    def wait_bound(self) -> None:
        """Until gunicorn listens: from then on a request waits in the socket's queue for
        a worker (still loading the application, and building the day's pages)."""
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                assert self.process.poll() is None, self.log.read_text()[-3000:]
                assert time.monotonic() < deadline, "gunicorn never bound its port"
                time.sleep(0.05)

    def get(self, path: str, **kwargs: Any) -> httpx.Response:
        return httpx.get(self.url + path, timeout=60, **kwargs)

    def stop(self) -> None:
        stop(self.process, timeout=30)  # its process group: the workers with their arbiter


@contextmanager
def servers(
    tmp_path: Path, count: int, *, workers: int = 1, threads: int = 2, celery: bool = False
) -> Iterator[list[Server]]:
    env = environment()
    with ExitStack() as stack:
        if celery:
            out = stack.enter_context((tmp_path / "celery.log").open("wb"))
            worker = subprocess.Popen(
                [sys.executable, "-m", "celery", "-A", "paddock", "worker",
                 "--pool", "solo", "--loglevel", "warning", "--without-heartbeat",
                 "--without-gossip", "--without-mingle"],
                cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                start_new_session=True, preexec_fn=default_signals(),
            )  # fmt: skip
            stack.callback(stop, worker, timeout=30)
        started = []
        for index in range(count):
            server = Server(env, tmp_path / f"server-{index}.log", workers=workers, threads=threads)
            stack.callback(server.stop)
            started.append(server)
        for server in started:
            server.wait_bound()
        yield started


def until(condition: Callable[[], object], what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


# --- The day ---------------------------------------------------------------------------------


def the_day(*, tables: int = 2, published: bool = True) -> tuple[RaceDay, str]:
    """Today's event, its tables allocated, and race control's API token."""
    day = build_race_day(tables=tables, per_table=5, slug="servers")
    Event.objects.filter(pk=day.event.pk).update(
        date=timezone.localdate(), published_allocation=published, published_results=published
    )
    day.event.refresh_from_db()
    chief = get_user_model().objects.create_user("chief", password="x-unused-x-2026")
    day.championship.organisers.add(chief)
    return day, ApiToken.issue(chief)


def sheet(day: RaceDay, number: int) -> list[int]:
    """Table ``number``'s drivers in grid order: a complete finishing order."""
    table = day.tables[number - 1]
    return list(table.slots.order_by("position").values_list("driver__number", flat=True))


def api(server: Server, method: str, path: str, token: str, body: Any = None) -> httpx.Response:
    return httpx.request(
        method,
        f"{server.url}/api/v1{path}",
        json=body,
        headers={"Authorization": f"Bearer {token}", "Accept-Language": "en"},
        timeout=60,
    )


PHONE = {"Accept-Language": "fr", "Accept-Encoding": "gzip"}


# --- The tests -------------------------------------------------------------------------------


def test_a_result_confirmed_on_one_server_is_public_on_the_other_at_once(tmp_path: Path) -> None:
    day, chief = the_day(published=False)
    slug = day.event.slug
    results = reverse("event-results", args=[slug])
    with servers(tmp_path, 2, workers=1, celery=True) as (first, second):
        # Race control publishes through the first; the worker apart builds the pages.
        published = api(first, "POST", f"/events/{slug}/publish", chief,
                        {"allocation": True, "results": True})  # fmt: skip
        assert published.status_code == 200, published.text
        pages = event_pages(Event.objects.get(pk=day.event.pk))
        until(lambda: counted(BUILDS) >= len(pages), "the worker built no page", timeout=60)
        built = counted(BUILDS)
        # The second server serves them as built by the worker: no build of its own.
        before = second.get(results, headers=PHONE)
        assert before.status_code == 200
        assert "Pilote6" not in before.text  # table 2 has no result yet
        assert counted(BUILDS) == built

        table = day.tables[1]
        saved = api(first, "PUT", f"/events/{slug}/tables/2/result", table.token,
                    {"version": 0, "finish": sheet(day, 2), "submit": True})  # fmt: skip
        assert saved.status_code == 200, saved.text
        confirmed = api(first, "POST", f"/events/{slug}/tables/2/confirm", chief)
        assert confirmed.status_code == 200, confirmed.text
        # At once: the next phone on the other server sees the confirmed places.
        after = second.get(results, headers=PHONE)
        assert after.status_code == 200
        assert "Pilote6" in after.text and after.headers["ETag"] != before.headers["ETag"]
        standings = second.get(reverse("standings", args=[day.championship.slug]))
        assert "Pilote6" in standings.text
        assert ResultLine.objects.filter(event=day.event, table=table).count() == 5


def test_thirty_saves_of_one_sheet_over_two_servers_one_succeeds(tmp_path: Path) -> None:
    day, _chief = the_day(tables=1)
    table = day.tables[0]
    path = f"/events/{day.event.slug}/tables/1/result"
    grid = sheet(day, 1)
    # One worker of eight threads on each server: the thirty saves still race in two processes.
    with servers(tmp_path, 2, workers=1, threads=8) as pair:
        first = api(pair[0], "PUT", path, table.token, {"version": 0, "finish": grid[:1]})
        assert first.status_code == 200 and first.json()["version"] == 1, first.text
        orders = [grid[i:] + grid[:i] for i in range(len(grid))] * 6
        barrier = threading.Barrier(SAVES)
        answers: list[httpx.Response | None] = [None] * SAVES

        def save(index: int) -> None:
            body = {"version": 1, "finish": orders[index], "submit": False}
            with httpx.Client(timeout=60) as client:
                client.get(pair[index % 2].url + "/health/")  # connected before the race
                barrier.wait(timeout=60)
                answers[index] = client.put(
                    f"{pair[index % 2].url}/api/v1{path}",
                    json=body,
                    headers={"Authorization": f"Bearer {table.token}", "Accept-Language": "en"},
                )

        threads = [threading.Thread(target=save, args=(i,)) for i in range(SAVES)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
    assert all(answer is not None for answer in answers), "a save got no answer"
    codes = sorted(answer.status_code for answer in answers)  # type: ignore[union-attr]
    assert codes == [200] + [409] * (SAVES - 1), codes
    winner = next(a for a in answers if a.status_code == 200)  # type: ignore[union-attr]
    stored = RaceResult.objects.get(table=table)
    assert stored.version == 2 == winner.json()["version"]
    assert stored.finish == winner.json()["finish"]
    assert stored.history.count() == 2  # the first draft and the one accepted change
    for answer in answers:
        if answer.status_code == 409:  # type: ignore[union-attr]
            body = answer.json()  # type: ignore[union-attr]
            assert "meanwhile" in body["detail"], body
            assert body["current"]["version"] == 2


def test_a_started_server_has_the_days_pages_before_its_first_request(tmp_path: Path) -> None:
    day, _chief = the_day()
    pages = event_pages(day.event)
    assert len(pages) == 4  # the event, where do I sit, the results, the standings
    with servers(tmp_path, 1, workers=2) as (server,):
        first = server.get(pages[0], headers=PHONE)
        assert first.status_code == 200
        # Built before the first request was answered (once for both workers, unless the
        # shared cache was too slow to answer one: tested exactly on two servers below).
        built = counted(BUILDS)
        assert built >= len(pages), server.log.read_text()[-3000:]
        for path in pages:
            assert server.get(path, headers=PHONE).status_code == 200
        assert counted(BUILDS) == built  # every first visitor found its page built


def test_two_cold_requests_on_two_servers_build_the_page_once(tmp_path: Path) -> None:
    day, _chief = the_day(published=False)  # nothing to build at start
    with servers(tmp_path, 2) as (first, second):
        assert first.get("/health/").status_code == second.get("/health/").status_code == 200
        Event.objects.filter(pk=day.event.pk).update(published_results=True)
        page = reverse("event-results", args=[day.event.slug])
        answers: list[httpx.Response] = []
        # The page's query on the results waits behind this lock, so that the two
        # requests are both in flight before either build can end.
        with psycopg.connect(database_url().replace("postgres://", "postgresql://")) as lock:
            lock.execute(f'LOCK TABLE "{ResultLine._meta.db_table}" IN ACCESS EXCLUSIVE MODE')
            ask = [
                threading.Thread(target=lambda s=s: answers.append(s.get(page, headers=PHONE)))
                for s in (first, second)
            ]
            ask[0].start()
            until(lambda: _blocked(lock) == 1, "the first build never reached the lock")
            ask[1].start()
            # The second either waits for the first's build, or builds too (and blocks).
            until(lambda: counted(WAITS) == 1 or _blocked(lock) == 2, "no second request")
            lock.rollback()
        for thread in ask:
            thread.join(timeout=60)
    assert [a.status_code for a in answers] == [200, 200]
    assert answers[0].headers["ETag"] == answers[1].headers["ETag"]
    assert (counted(BUILDS), counted(WAITS)) == (1, 1)


def _blocked(lock: psycopg.Connection[Any]) -> int:
    """Backends of this database waiting for a lock (the builds behind ``lock``)."""
    with psycopg.connect(database_url().replace("postgres://", "postgresql://")) as probe:
        row = probe.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND wait_event_type = 'Lock'"
        ).fetchone()
    return int(row[0]) if row else 0
