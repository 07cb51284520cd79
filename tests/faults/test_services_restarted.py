"""PostgreSQL restarted mid-day, then Redis: Paddock (gunicorn, production settings) on a
PostgreSQL cluster and a Redis of the test's own, stopped and started again by the test,
never the machine's shared ones.

While PostgreSQL is down every request gets a clear 503 in the user's language with
``Retry-After`` (the API's JSON error, a page elsewhere), never a 500 or a traceback; once it
is back the very next requests are served, by the same gunicorn workers (connections are
checked before reuse: ``CONN_HEALTH_CHECKS``). While Redis is down the public pages are built
from the database, a result is saved and a publication holds (the task queue cannot be
reached: the pages are built on first visit); once it is back, the pages are cached in it
again. Every write acknowledged before, during and after is in the database at the end.
"""

from __future__ import annotations

import socket
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest
from django.db import connection

from tests.faults.conftest import postgresql_environment
from tests.faults.processes import Gunicorn, RedisServer, postgres_cluster, postgresql_bin
from tests.faults.world import race_day

pytestmark = pytest.mark.django_db(transaction=True)

API = "/api/v1"


def copy_suite_database(target: str, folder: Path) -> None:
    """The suite's test database (migrated, with this test's day in it) into ``target``."""
    if connection.vendor != "postgresql":
        pytest.skip("copies the suite's PostgreSQL database: set DATABASE_URL")
    s = connection.settings_dict
    dump = folder / "day.pgdump"
    source = [f"--host={s['HOST'] or '127.0.0.1'}", f"--port={s['PORT'] or 5432}"]
    if s["USER"]:
        source.append(f"--username={s['USER']}")
    env = {"PGPASSWORD": str(s["PASSWORD"] or ""), "PATH": "/usr/bin:/bin"}
    for command in (
        [postgresql_bin() / "pg_dump", "--format=custom", "--no-owner", *source,
         f"--file={dump}", s["NAME"]],
        [postgresql_bin() / "pg_restore", "--no-owner", f"--dbname={target}", str(dump)],
    ):  # fmt: skip
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr


def redis_keys(redis: RedisServer) -> int:
    with socket.create_connection(("127.0.0.1", redis.port), timeout=2) as sock:
        sock.sendall(b"DBSIZE\r\n")
        return int(sock.recv(64).strip().lstrip(b":"))


class Phone:
    """What the clients send: a referee's sheet, race control's publication, pages."""

    def __init__(self, server: Gunicorn, world: dict[str, Any]) -> None:
        self.server, self.world = server, world
        self.event = f"{API}/events/{world['event']}"
        self.phase = "up"
        #: Per phase: requests sent, answered 2xx, answered otherwise (told of failure).
        self.tally: dict[str, list[int]] = {}

    def count(self, answer: httpx.Response) -> httpx.Response:
        sent, succeeded, told = self.tally.setdefault(self.phase, [0, 0, 0])
        ok = 200 <= answer.status_code < 300
        self.tally[self.phase] = [sent + 1, succeeded + ok, told + (not ok)]
        return answer

    def save(self, table: int, *, language: str = "en") -> httpx.Response:
        sheet = self.world["tables"][str(table)]
        return self.count(
            httpx.put(
                f"{self.server.url}{self.event}/tables/{table}/result",
                json={"version": 0, "finish": sheet["grid"], "submit": True},
                headers={"Authorization": f"Bearer {sheet['token']}", "Accept-Language": language},
                timeout=120,
            )
        )

    def publish(self) -> httpx.Response:
        return self.count(
            httpx.post(
                f"{self.server.url}{self.event}/publish",
                json={"allocation": True, "results": True},
                headers={"Authorization": f"Bearer {self.world['organiser']}"},
                timeout=120,
            )
        )

    def page(self, path: str) -> httpx.Response:
        return self.count(httpx.get(f"{self.server.url}{path}", timeout=120))


def stored_statuses(cluster: Any, slug: str) -> dict[int, str]:
    rows = cluster.psql(
        "paddock",
        "SELECT t.number, t.result_status FROM races_racetable t JOIN tournament_event e "
        f"ON e.id = t.event_id WHERE e.slug = '{slug}'",
    )
    return {int(n): status for n, status in (line.split("|") for line in rows.split())}


def assert_unavailable_page(answer: httpx.Response) -> None:
    assert answer.status_code == 503, answer.text[:500]
    assert answer.headers["Retry-After"] == "5"
    assert "text/html" in answer.headers["Content-Type"]
    # French, the site's language; no traceback, no Django debug page.
    assert "Réessayez dans un instant" in answer.text
    assert "Traceback" not in answer.text and "OperationalError" not in answer.text


def test_postgresql_then_redis_restarted_mid_day(tmp_path: Path) -> None:
    world = race_day(tables=10)
    slug = world["event"]
    with postgres_cluster() as cluster, RedisServer(tmp_path) as redis:
        cluster.psql("postgres", "CREATE DATABASE paddock")
        copy_suite_database(cluster.url("paddock"), tmp_path)
        env = postgresql_environment(tmp_path, cluster.url("paddock"), REDIS_URL=redis.url(0))
        with Gunicorn(env, tmp_path, workers=2, threads=2) as server:
            phone = Phone(server, world)
            workers = server.worker_pids()
            assert phone.save(6).status_code == 200
            assert phone.publish().status_code == 200
            assert phone.page(f"/e/{slug}/").status_code == 200

            # PostgreSQL stops: a clear 503 everywhere, in the user's language.
            cluster.stop(mode="fast")
            phone.phase = "postgresql down"
            refused = phone.save(7)
            assert refused.status_code == 503 and refused.headers["Retry-After"] == "5"
            assert refused.json() == {
                "detail": "The server cannot reach its database right now: try again in a few "
                "seconds. What was saved before is kept.",
                "errors": {},
            }
            assert (
                phone.save(7, language="fr")
                .json()["detail"]
                .startswith("Le serveur ne joint pas sa base de données")
            )
            for path in ("/", f"/e/{slug}/", f"/e/{slug}/desk/", f"/c/{world['championship']}/"):
                assert_unavailable_page(phone.page(path))
            assert phone.page("/health/").status_code == 503

            # Back: the next requests are served, by the same workers.
            cluster.start()
            phone.phase = "postgresql back"
            assert phone.save(7).status_code == 200
            assert phone.page(f"/e/{slug}/").status_code == 200
            assert phone.page("/health/").json() == {
                "status": "ok", "database": "ok", "cache": "ok"
            }  # fmt: skip
            assert server.worker_pids() == workers

            # Redis stops: pages from the database, writes and a publication hold.
            redis.stop()
            phone.phase = "redis down"
            assert phone.page(f"/e/{slug}/").status_code == 200
            assert phone.page("/").status_code == 200
            assert phone.save(8).status_code == 200
            assert phone.publish().status_code == 200
            assert phone.page("/health/").json()["cache"].startswith("error")

            # Back: the pages are kept in it again.
            redis.start()
            phone.phase = "redis back"
            assert phone.save(9).status_code == 200
            assert phone.page(f"/e/{slug}/").status_code == 200
            assert redis_keys(redis) > 0
            assert phone.page("/health/").status_code == 200
            assert server.worker_pids() == workers
            assert "Internal Server Error" not in server.output()

        # Every acknowledged write is stored; the refused one was not half-made.
        statuses = stored_statuses(cluster, slug)
        assert [statuses[n] for n in (6, 7, 8, 9)] == ["submitted"] * 4
        assert statuses[10] == "empty"
        print(f"\nFAULT restarts (sent, succeeded, told of failure; lost 0): {phone.tally}")
