"""The publication spike: race control publishes the tables and the results, then a room of
phones opens the public pages at once, while race control goes on working.

Race control publishes through the API (its time reported as ``publish_ms``: it includes
building the event's public pages, tasks inline as in ``make venue``); as soon as it is
answered, ``phones`` phones arrive evenly over ``seconds`` (open loop: each at its time,
whatever the server's state), each opening one page of a 300-driver event: "Where do I
sit?" with its own name (typed surname first, first name first, in part, or its number),
the championship standings, the results of the day or the event page. Through gunicorn as
in the load test (2 workers × 4 threads, ``DEBUG=false``, the cache in a folder shared by
the workers as ``make venue`` has it), the client on the same machine, phones sending
``Accept-Encoding: gzip, br`` and no cookie (nobody logged in). Meanwhile race control opens
its desk twice a second, logged in: its own timings are reported beside the phones'.

``cold``: the same phones on a server whose cache holds none of these pages (restarted
after the publication, its cache emptied): every page is built by its first visitors.

Also, in process: the standings of the 1,000-driver championship as a phone gets them once
cached (server time) and their size compressed.
"""

from __future__ import annotations

import asyncio
import math
import os
import random
import statistics
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from http.cookiejar import DefaultCookiePolicy
from typing import Any

import httpx

from bench.load import Gunicorn

MIX = (("where", 40), ("standings", 25), ("results", 20), ("event", 15))
DESK_EVERY = 0.5  # seconds between two desk requests of race control
#: Phones at once while the server warms up: every thread of every worker gets requests.
PHONES_AT_ONCE = 8


@dataclass
class Hit:
    kind: str
    started: float
    seconds: float
    status: int | None
    size: int = 0
    error: str = ""


@dataclass
class SpikeRun:
    hits: list[Hit] = field(default_factory=list)
    desk: list[Hit] = field(default_factory=list)
    unfinished: int = 0
    publish: Hit | None = None


def plan(event: Any, *, phones: int, seed: int = 1925) -> list[tuple[str, str, dict[str, str]]]:
    """What each phone opens: (kind, path, query), seeded."""
    from django.urls import reverse

    from tournament.models import Driver

    drivers = list(
        Driver.objects.filter(entries__event=event).values_list("number", "first_name", "last_name")
    )
    rng = random.Random(seed)
    kinds = [kind for kind, weight in MIX for _ in range(weight)]
    paths = {
        "where": reverse("where", args=[event.slug]),
        "standings": reverse("standings", args=[event.championship.slug]),
        "results": reverse("event-results", args=[event.slug]),
        "event": reverse("event", args=[event.slug]),
    }
    planned = []
    for _ in range(phones):
        kind = rng.choice(kinds)
        query: dict[str, str] = {}
        if kind == "where":
            number, first, last = rng.choice(drivers)
            query["q"] = rng.choice(
                (f"{last} {first}", f"{first} {last}", last[:4], str(number), first.lower())
            )
        planned.append((kind, paths[kind], query))
    return planned


def desk_session(event: Any) -> str:
    """A logged-in race control (a session of a superuser), as its cookie's value."""
    from django.contrib.auth import get_user_model
    from django.contrib.sessions.backends.db import SessionStore

    user, _ = get_user_model().objects.get_or_create(
        username="bench-race-control", defaults={"is_superuser": True, "is_staff": True}
    )
    session = SessionStore()
    session["_auth_user_id"] = str(user.pk)
    session["_auth_user_backend"] = "django.contrib.auth.backends.ModelBackend"
    session["_auth_user_hash"] = user.get_session_auth_hash()
    session.create()
    return str(session.session_key)


async def _get(client: httpx.AsyncClient, kind: str, path: str, **kwargs: Any) -> Hit:
    started = time.perf_counter()
    try:
        response = await client.get(path, **kwargs)
    except httpx.HTTPError as exc:
        return Hit(kind, started, time.perf_counter() - started, None, error=repr(exc))
    seconds = time.perf_counter() - started
    ok = response.status_code == 200
    return Hit(
        kind,
        started,
        seconds,
        response.status_code,
        size=int(response.headers.get("content-length", len(response.content))),
        error="" if ok else response.text[:200],
    )


async def _publish(client: httpx.AsyncClient, path: str, token: str) -> Hit:
    started = time.perf_counter()
    try:
        response = await client.post(
            path,
            json={"allocation": True, "results": True},
            headers={"Authorization": f"Bearer {token}"},
        )
    except httpx.HTTPError as exc:
        return Hit("publish", started, time.perf_counter() - started, None, error=repr(exc))
    ok = response.status_code == 200
    return Hit(
        "publish",
        started,
        time.perf_counter() - started,
        response.status_code,
        error="" if ok else response.text[:200],
    )


async def drive(
    base_url: str,
    planned: list[tuple[str, str, dict[str, str]]],
    *,
    desk_path: str,
    session: str,
    seconds: float,
    deadline: float,
    publish: tuple[str, str] | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
) -> SpikeRun:
    """The phones and race control's desk; ``publish`` (path, API token): race control
    publishes first, and the phones come once it is answered."""
    run = SpikeRun()
    # Idle connections dropped after 1 s, before gunicorn closes them (its keep-alive is
    # 2 s): a request sent on a connection the server is closing fails with a ReadError,
    # which a browser retries on its own and httpx does not.
    limits = httpx.Limits(max_connections=400, max_keepalive_connections=100, keepalive_expiry=1.0)
    headers = {"Accept-Encoding": "gzip, br", "Accept-Language": "fr"}
    async with httpx.AsyncClient(
        base_url=base_url, timeout=30, limits=limits, headers=headers, transport=transport
    ) as client:
        client.cookies.jar.set_policy(DefaultCookiePolicy(allowed_domains=[]))  # no cookie kept
        if publish is not None:
            run.publish = await _publish(client, *publish)
        step = seconds / len(planned) if planned else 0

        async def phone(index: int, kind: str, path: str, query: dict[str, str]) -> None:
            await asyncio.sleep(index * step)
            run.hits.append(await _get(client, kind, path, params=query))

        async def race_control() -> None:
            cookie = {"Cookie": f"sessionid={session}"}
            for index in range(int(seconds / DESK_EVERY)):
                await asyncio.sleep(max(0.0, index * DESK_EVERY - (time.perf_counter() - t0)))
                run.desk.append(await _get(client, "desk", desk_path, headers=cookie))

        t0 = time.perf_counter()
        tasks = [asyncio.create_task(phone(i, *p)) for i, p in enumerate(planned)]
        tasks.append(asyncio.create_task(race_control()))
        _done, pending = await asyncio.wait(tasks, timeout=deadline)
        run.unfinished = len(pending)
        for task in pending:
            task.cancel()
    return run


def _percentile(values: list[float], q: float) -> float | None:
    """The nearest-rank percentile: the smallest value with ``q`` of them at or below it.
    (Before, one rank higher: race control's 20 desk requests had the slowest of them as
    their "p95".)"""
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[max(0, math.ceil(q * len(ordered)) - 1)], 1)


def report(run: SpikeRun, *, phones: int, seconds: float) -> dict[str, Any]:
    latencies = [hit.seconds * 1000 for hit in run.hits]
    errors = [hit for hit in run.hits if hit.status != 200]
    desk = [hit.seconds * 1000 for hit in run.desk]
    by_kind = {}
    for kind, _weight in MIX:
        values = [hit.seconds * 1000 for hit in run.hits if hit.kind == kind]
        sizes = [hit.size for hit in run.hits if hit.kind == kind and hit.status == 200]
        if values:
            by_kind[kind] = {
                "requests": len(values),
                "p50_ms": _percentile(values, 0.5),
                "p95_ms": _percentile(values, 0.95),
                "median_bytes": int(statistics.median(sizes)) if sizes else None,
            }
    published = run.publish
    refused = 1 if published and published.status != 200 else 0
    return {
        "phones": phones,
        "arrival_seconds": seconds,
        "publish_ms": round(published.seconds * 1000, 1) if published else None,
        "publish_status": published.status if published else None,
        "requests": len(run.hits),
        "errors": len(errors) + run.unfinished + refused,
        "error_samples": sorted({f"{h.kind} {h.status}: {h.error}" for h in errors})[:5],
        "p50_ms": _percentile(latencies, 0.5),
        "p95_ms": _percentile(latencies, 0.95),
        "max_ms": round(max(latencies), 1) if latencies else None,
        "by_kind": by_kind,
        "desk_requests": len(desk),
        "desk_errors": sum(1 for hit in run.desk if hit.status != 200),
        "desk_p50_ms": _percentile(desk, 0.5),
        "desk_p95_ms": _percentile(desk, 0.95),
        "by_second": _by_second(run),
    }


def _by_second(run: SpikeRun) -> list[dict[str, Any]]:
    """The phones' and the desk's p95 by second of the spike (when each request was sent):
    whether the slow requests are spread over the spike or gathered at one moment of it."""
    hits = run.hits + run.desk
    if not hits:
        return []
    start = min(hit.started for hit in hits)
    seconds: dict[int, dict[str, list[float]]] = {}
    for hit in hits:
        second = seconds.setdefault(int(hit.started - start), {"phones": [], "desk": []})
        second["desk" if hit.kind == "desk" else "phones"].append(hit.seconds * 1000)
    return [
        {
            "second": second,
            "phones": len(times["phones"]),
            "phones_p95_ms": _percentile(times["phones"], 0.95),
            "desk_max_ms": round(max(times["desk"]), 1) if times["desk"] else None,
        }
        for second, times in sorted(seconds.items())
    ]


def warm_up(base_url: str, paths: list[str], desk_path: str, session: str) -> list[float]:
    """Each worker's first requests (imports, templates, catalogues), on other pages than the
    spike's: a phone opens the public ``paths``, race control its desk at ``desk_path`` (never
    a phone: that was a 403, logged "Forbidden" eight times a spike). A server that has run
    since the morning. Answers race control's desk times (ms) on the idle server: the page's
    own cost, beside its times during the spike."""
    desk: list[float] = []

    def phone(_index: int) -> None:
        # A connection of its own, closed after each request: a kept-alive connection
        # stays with one worker, and the other would meet the room without its first
        # requests (templates, catalogues, its threads' database connections).
        with httpx.Client(base_url=base_url, timeout=60, headers={"Connection": "close"}) as c:
            for path in paths:
                answer = c.get(path)
                assert answer.status_code == 200, (path, answer.status_code)

    with ThreadPoolExecutor(PHONES_AT_ONCE) as pool:
        list(pool.map(phone, range(4 * PHONES_AT_ONCE)))
    with httpx.Client(base_url=base_url, timeout=60, headers={"Connection": "close"}) as client:
        client.cookies.jar.set_policy(DefaultCookiePolicy(allowed_domains=[]))
        for _round in range(8):
            started = time.perf_counter()
            answer = client.get(desk_path, headers={"Cookie": f"sessionid={session}"})
            desk.append((time.perf_counter() - started) * 1000)
            assert answer.status_code == 200, (desk_path, answer.status_code)
    return desk[2:]  # each worker's first one loads the desk's templates


def measure_spike(
    event: Any,
    *,
    env: dict[str, str],
    phones: int,
    seconds: float,
    deadline: float,
    warm: list[str] = (),  # type: ignore[assignment]
    warm_desk: str = "",
    cold: bool = False,
) -> dict[str, Any]:
    """The spike against gunicorn on ``event``, the day's event (dated today): race control
    publishes its allocation and results, then the phones come; ``cold``: published before
    the server (re)started with an empty cache, which then builds the day's pages as it
    starts (``tournament.public.warming``), as ``make venue`` and any gunicorn start do."""
    from django.core.cache import cache
    from django.urls import reverse
    from django.utils import timezone

    from tournament.models import Event
    from tournament.public.cache import BUILDS, WAITS, counted

    planned = plan(event, phones=phones)
    session = desk_session(event)
    desk_path = reverse("event-desk", args=[event.slug])
    publish = None
    today = timezone.localdate()
    if cold:
        Event.objects.filter(pk=event.pk).update(
            published_allocation=True, published_results=True, date=today
        )
    else:
        Event.objects.filter(pk=event.pk).update(
            published_allocation=False, published_results=False, date=today
        )
        publish = (f"/api/v1/events/{event.slug}/publish", race_control_token())
    cache.clear()  # the server's cache (make venue's folder): nothing of a previous run
    with Gunicorn(env) as server:
        built_at_start = counted(BUILDS)
        desk_idle = warm_up(server.url, list(warm), warm_desk, session)
        built_before = counted(BUILDS)
        run = asyncio.run(
            drive(
                server.url,
                planned,
                desk_path=desk_path,
                session=session,
                seconds=seconds,
                deadline=deadline,
                publish=publish,
            )
        )
        workers, threads = server.workers, server.threads
    return {
        "server": f"gunicorn {workers} workers × {threads} threads (gthread), 127.0.0.1",
        "drivers": event.entries.count(),
        **report(run, phones=phones, seconds=seconds),
        # Pages built as the server started (the day's, cold only), and while the phones
        # came (a name searched is a page of its own; the publication's builds are counted
        # in it); requests that waited for another's build of their page.
        "builds_at_start": built_at_start,
        "builds_during_spike": counted(BUILDS) - built_before,
        "waits": counted(WAITS),
        "desk_idle_p50_ms": _percentile(desk_idle, 0.5),
        "desk_idle_max_ms": round(max(desk_idle), 1) if desk_idle else None,
        "load_average": load_average(),
    }


def load_average() -> str:
    """The machine's load (1, 5, 15 minutes) as the figures were taken: on a machine shared
    with other work, the wall-clock times count the others' work too."""
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def race_control_token() -> str:
    """An API token of race control (``desk_session``'s account), to publish with."""
    from django.contrib.auth import get_user_model

    from tournament.models import ApiToken

    return ApiToken.issue(get_user_model().objects.get(username="bench-race-control"))


def measure_cached_standings(championship: Any, *, runs: int) -> dict[str, Any]:
    """The standings page as a phone gets it once stored: server time (through Django's
    test client, in process) and bytes on the wire, brotli and gzip."""
    from django.test import Client
    from django.urls import reverse

    from bench.measures import summary, timed

    url = reverse("standings", args=[championship.slug])
    phone = Client(HTTP_ACCEPT_ENCODING="gzip, deflate, br")
    first = phone.get(url)  # builds and stores it
    assert first.status_code == 200 and first["Content-Encoding"] == "br", first.status_code
    gzip_size = len(Client(HTTP_ACCEPT_ENCODING="gzip").get(url).content)

    def get() -> None:
        response = phone.get(url)
        assert response.status_code == 200

    return summary(
        timed(get, runs=runs),
        drivers=championship.drivers.count(),
        bytes_br=len(first.content),
        bytes_gzip=gzip_size,
    )


def measure_requests(event: Any, *, phones: int, desk_runs: int) -> dict[str, Any]:
    """CPU time (this process's, ms) of one "Where do I sit?" search and of race control's
    desk, in process through Django's test client: the spike's planned searches, each a page
    of its own (built, as during the spike: another name than the earlier ones), then the desk
    ``desk_runs`` times, logged in. Wall clock aside: on a shared machine it counts the others'
    work; this process's CPU time does not (the database server's is not in it either)."""
    from django.core.cache import cache
    from django.test import Client
    from django.urls import reverse

    planned = plan(event, phones=phones)
    searches = list(dict.fromkeys(q["q"] for kind, _p, q in planned if kind == "where"))
    path = reverse("where", args=[event.slug])
    phone = Client(HTTP_ACCEPT_ENCODING="gzip, br")
    cache.clear()
    assert phone.get(path, {"q": "warm-up"}).status_code == 200  # templates, catalogues
    where: list[float] = []
    for query in searches:
        started = time.process_time()
        response = phone.get(path, {"q": query})
        where.append((time.process_time() - started) * 1000)
        assert response.status_code == 200, response.status_code
    desk_path = reverse("event-desk", args=[event.slug])
    control = Client()
    control.cookies["sessionid"] = desk_session(event)
    assert control.get(desk_path).status_code == 200
    desk: list[float] = []
    for _ in range(desk_runs):
        started = time.process_time()
        response = control.get(desk_path)
        desk.append((time.process_time() - started) * 1000)
        assert response.status_code == 200, response.status_code
    return {
        "where_searches": len(where),
        "where_cpu_p50_ms": _percentile(where, 0.5),
        "where_cpu_mean_ms": round(statistics.fmean(where), 2) if where else None,
        "desk_runs": len(desk),
        "desk_cpu_p50_ms": _percentile(desk, 0.5),
        "desk_cpu_mean_ms": round(statistics.fmean(desk), 2) if desk else None,
    }
