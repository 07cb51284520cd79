"""``offline_return`` (issue 31): the hall's Wi-Fi comes back and every table's phone sends its
outbox at once.

Real HTTP clients (httpx, no browser) against gunicorn (2 workers × 4 threads) on the bench's
PostgreSQL. 12 tables of 10 drivers; each phone holds a full outbox, written while the
network was down, each entry with its own ``Idempotency-Key`` (API.md "Writes that may be
sent twice") and the version it was based on, sent in order as the page's outbox sends it:

1. qualifying: the 12 qualifying tables' phones, each with its 10 drivers' runs
   (``POST …/sessions/1/runs``), all reconnecting in the same second;
2. race: once race control has made the tables (the allocation, written here by the bench),
   the 12 race tables' phones, each with its stands chosen one by one in grid order
   (``PUT …/stands``), its 10 cars' configurations (``PUT …/configurations``), and its result
   (``PUT …/result``: the draft, then the whole sheet submitted), all in the same second.

Each phone, once its outbox is sent, sends its first ``RESENT`` entries again with their
keys, as an outbox does when the answers were lost on the way back: each must be answered
its first answer again (``Idempotent-Replayed``), writing nothing. Meanwhile race control
opens the event's desk again 0.1 s after each answer: about 25 requests over the two
waves (twice a second gave 9, and a p95 of 9 is their slowest). Afterwards the database is
checked: every run, stand, configuration and result stored exactly once (the history
counted), 0 errors, and each wave's last outbox empty within ``DEADLINE_S``.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import httpx

from bench.load import Gunicorn
from bench.spike import _percentile, desk_session, load_average

TABLES = 12
DRIVERS_PER_TABLE = 10
RESENT = 3  # entries a phone sends again, their answers lost on the way
DESK_EVERY = 0.1  # s between a desk's answer and race control's next request
DEADLINE_S = 10.0  # every outbox empty within this, from the first phone's reconnection
CONFIGURATION = {
    "tyres": 4,
    "brakes": 3,
    "gearbox": 4,
    "body": 3,
    "engine": 3,
    "road_holding": 3,
    "stand_points": 2,
}


@dataclass
class Entry:
    """One write in a phone's outbox."""

    kind: str  # run, stands, configuration, draft, submit
    method: str
    path: str
    body: dict[str, Any]
    key: str = field(default_factory=lambda: str(uuid.uuid4()))


@dataclass
class Phone:
    token: str
    entries: list[Entry]
    sent: list[tuple[str, float, int | None, str]] = field(default_factory=list)
    replays: list[tuple[int | None, bool, bool]] = field(default_factory=list)
    emptied_at: float | None = None


@dataclass
class Day:
    event: Any
    qualifying: list[tuple[str, list[int]]]  # (link's token, drivers' numbers)
    grids: list[list[int]] = field(default_factory=list)
    race_tokens: list[str] = field(default_factory=list)


def build_day(*, tables: int = TABLES, size: int = DRIVERS_PER_TABLE) -> Day:
    """An event of ``tables × size`` drivers, its qualifying session open at ``tables``
    qualifying tables (each with its referee link), no run yet."""
    from django.utils import timezone

    from bench.builder import _circuit
    from qualifying.models import QualifyingSeat, QualifyingSession, QualifyingTable
    from tournament.models import Championship, Driver, Entry, Event, Team

    championship = Championship.objects.create(
        slug="bench-offline", name="Hors ligne", season="2026"
    )
    teams = Team.objects.bulk_create(
        Team(championship=championship, name=f"Écurie {n}") for n in range(1, size + 1)
    )
    drivers = Driver.objects.bulk_create(
        Driver(
            championship=championship,
            number=n,
            first_name=f"Pilote{n}",
            last_name="Sansfil",
            team=teams[(n - 1) // tables % size],
        )
        for n in range(1, tables * size + 1)
    )
    event = Event.objects.create(
        championship=championship,
        slug="bench-offline-day",
        name="Grand Prix sans Wi-Fi",
        date=timezone.localdate(),
        circuit=_circuit(),
        table_size=size,
        use_configurations=True,
    )
    Entry.objects.bulk_create(Entry(event=event, driver=d, checked_in=True) for d in drivers)
    QualifyingSession.objects.create(
        event=event, number=1, roll=12, source="physical", weather="sun", track="dry"
    )
    day = Day(event=event, qualifying=[])
    for number in range(1, tables + 1):
        table = QualifyingTable.objects.create(
            event=event, number=number, referee_name=f"Arbitre {number}"
        )
        seated = drivers[(number - 1) * size : number * size]
        QualifyingSeat.objects.bulk_create(
            QualifyingSeat(event=event, table=table, driver=d, order=order)
            for order, d in enumerate(seated)
        )
        day.qualifying.append((table.token, [d.number for d in seated]))
    return day


def allocate(day: Day) -> None:
    """Race control's allocation (§2-0-1), as the bench's stand-in: the race weather drawn,
    each race table with its grid of the qualifying table's drivers, each with its link."""
    from races.models import GridSlot, RaceTable, RaceWeather
    from tournament.models import Driver

    event = day.event
    RaceWeather.objects.create(event=event, roll=15, source="physical", weather="sun")
    by_number = {d.number: d for d in Driver.objects.filter(championship=event.championship)}
    for number, (_token, grid) in enumerate(day.qualifying, 1):
        table = RaceTable.objects.create(
            event=event, number=number, referee_name=f"Arbitre {number}", weather="sun",
            track="dry",
        )  # fmt: skip
        GridSlot.objects.bulk_create(
            GridSlot(
                event=event, table=table, driver=by_number[n], position=p, rank=number * 100 + p
            )
            for p, n in enumerate(grid, 1)
        )
        day.grids.append(grid)
        day.race_tokens.append(table.token)


def qualifying_outboxes(day: Day) -> list[Phone]:
    path = f"/api/v1/events/{day.event.slug}/sessions/1/runs"
    phones = []
    for token, numbers in day.qualifying:
        entries = [
            Entry(
                "run",
                "POST",
                path,
                {
                    "driver": n,
                    "tyres": "soft" if n % 2 else "hard",
                    "throws": 20 + n % 7,
                    "placement_errors": n % 3,
                    "exit_squares": n % 2,
                    "stopwatch": f"1:{40 + n % 20:02d}.{n % 100:02d}",
                },
            )
            for n in numbers
        ]
        phones.append(Phone(token, entries))
    return phones


def race_outboxes(day: Day) -> list[Phone]:
    slug = day.event.slug
    phones = []
    for number, (token, grid) in enumerate(zip(day.race_tokens, day.grids, strict=True), 1):
        base = f"/api/v1/events/{slug}/tables/{number}"
        entries = [
            Entry("stands", "PUT", f"{base}/stands", {"stands": {str(n): stand}})
            for stand, n in enumerate(grid, 1)
        ]
        entries += [
            Entry("configuration", "PUT", f"{base}/configurations",
                  {"configurations": {str(n): CONFIGURATION}})
            for n in grid
        ]  # fmt: skip
        *finishers, retired = grid
        entries += [
            Entry("draft", "PUT", f"{base}/result",
                  {"finish": finishers[:5], "retired": [], "dns": [], "version": 0,
                   "submit": False}),
            Entry("submit", "PUT", f"{base}/result",
                  {"finish": finishers, "dns": [], "version": 1, "submit": True,
                   "retired": [{"driver": retired, "cause": "engine", "lap": 2, "note": ""}]}),
        ]  # fmt: skip
        phones.append(Phone(token, entries))
    return phones


async def _phone(client: httpx.AsyncClient, phone: Phone, delay: float, t0: float) -> None:
    """The outbox sent in order; an entry stays (and the phone stops) at its first error."""
    await asyncio.sleep(delay)
    headers = {"Authorization": f"Bearer {phone.token}", "Accept-Language": "fr"}
    for entry in phone.entries:
        started = time.perf_counter()
        try:
            answer = await client.request(
                entry.method, entry.path, json=entry.body,
                headers={**headers, "Idempotency-Key": entry.key},
            )  # fmt: skip
        except httpx.HTTPError as exc:
            phone.sent.append((entry.kind, time.perf_counter() - started, None, repr(exc)))
            return
        ok = 200 <= answer.status_code < 300
        error = "" if ok else answer.text[:200]
        phone.sent.append((entry.kind, time.perf_counter() - started, answer.status_code, error))
        if not ok:
            return
    phone.emptied_at = time.perf_counter() - t0
    # The answers of the first entries were lost on the way: the outbox sends them again.
    for entry in phone.entries[:RESENT]:
        try:
            answer = await client.request(
                entry.method, entry.path, json=entry.body,
                headers={**headers, "Idempotency-Key": entry.key},
            )  # fmt: skip
        except httpx.HTTPError:
            phone.replays.append((None, False, False))
            continue
        replayed = answer.headers.get("Idempotent-Replayed", "").lower() in ("true", "1", "yes")
        phone.replays.append((answer.status_code, replayed, 200 <= answer.status_code < 300))


async def wave(
    base_url: str, phones: list[Phone], *, desk_path: str, session: str, within: float = 1.0
) -> tuple[float, list[tuple[float, int | None]]]:
    """Every phone reconnecting within ``within`` s; race control at its desk meanwhile.
    Answers the wave's time and the desk's (ms, status)."""
    desk: list[tuple[float, int | None]] = []
    finished = asyncio.Event()
    limits = httpx.Limits(max_connections=len(phones) + 4)
    async with httpx.AsyncClient(base_url=base_url, timeout=30, limits=limits) as client:

        async def race_control() -> None:
            cookie = {"Cookie": f"sessionid={session}"}
            while not finished.is_set():
                started = time.perf_counter()
                try:
                    status: int | None = (await client.get(desk_path, headers=cookie)).status_code
                except httpx.HTTPError:
                    status = None
                desk.append(((time.perf_counter() - started) * 1000, status))
                try:
                    await asyncio.wait_for(finished.wait(), DESK_EVERY)
                except TimeoutError:
                    continue

        polling = asyncio.create_task(race_control())
        t0 = time.perf_counter()
        step = within / len(phones)
        await asyncio.gather(*(_phone(client, p, i * step, t0) for i, p in enumerate(phones)))
        seconds = time.perf_counter() - t0
        finished.set()
        await polling
    return seconds, desk


def verify(day: Day) -> dict[str, Any]:
    """Every write stored exactly once, as the outboxes held it."""
    from qualifying.models import Run
    from races.models import CarConfiguration, GridSlot, RaceResult

    event = day.event
    runs = Run.objects.filter(session__event=event)
    run_history = Run.history.filter(session__event=event).count()
    stands = dict(GridSlot.objects.filter(event=event).values_list("driver__number", "stand"))
    expected_stands = {n: p for grid in day.grids for p, n in enumerate(grid, 1)}
    configurations = CarConfiguration.objects.filter(slot__event=event)
    results = {r.table.number: r for r in RaceResult.objects.filter(table__event=event)
               .select_related("table")}  # fmt: skip
    result_history = RaceResult.history.filter(table__event=event).count()
    wrong_results = sum(
        1
        for number, grid in enumerate(day.grids, 1)
        if number not in results
        or list(results[number].finish) != grid[:-1]
        or results[number].version != 2
        or results[number].submitted_at is None
    )
    drivers = TABLES * DRIVERS_PER_TABLE if day.grids else 0
    return {
        "runs": runs.count(),
        "runs_history": run_history,
        "runs_expected": len(day.qualifying) * DRIVERS_PER_TABLE,
        "stands_as_sent": sum(1 for n, s in expected_stands.items() if stands.get(n) == s),
        "configurations": configurations.count(),
        "results": len(results),
        "results_history": result_history,
        "results_wrong": wrong_results,
        "drivers": drivers,
    }


def _summary(phones: list[Phone]) -> dict[str, Any]:
    sent = [s for p in phones for s in p.sent]
    errors = [s for s in sent if s[2] is None or not 200 <= s[2] < 300]
    unsent = sum(len(p.entries) - sum(1 for s in p.sent if s[3] == "") for p in phones)
    replays = [r for p in phones for r in p.replays]
    emptied = [p.emptied_at for p in phones]
    latencies = [s[1] * 1000 for s in sent]
    return {
        "phones": len(phones),
        "writes": sum(len(p.entries) for p in phones),
        "errors": len(errors),
        "error_samples": sorted({f"{k} {status}: {e}" for k, _s, status, e in errors})[:5],
        "left_in_outboxes": unsent,
        "all_empty_s": round(max(emptied), 2) if emptied and None not in emptied else None,
        "write_p50_ms": _percentile(latencies, 0.5),
        "write_p95_ms": _percentile(latencies, 0.95),
        "resent": len(replays),
        "resent_answered_again": sum(1 for _s, replayed, ok in replays if replayed and ok),
    }


def measure_offline_return(env: dict[str, str]) -> dict[str, Any]:
    from django.urls import reverse

    day = build_day()
    session = desk_session(day.event)
    desk_path = reverse("event-desk", args=[day.event.slug])
    out: dict[str, Any] = {}
    desk_all: list[tuple[float, int | None]] = []
    with Gunicorn(env) as server:
        with httpx.Client(base_url=server.url, timeout=60) as client:
            for _ in range(8):  # each worker's first desk (templates, catalogues)
                client.get(
                    desk_path, headers={"Cookie": f"sessionid={session}", "Connection": "close"}
                )
        phones = qualifying_outboxes(day)
        seconds, desk = asyncio.run(wave(server.url, phones, desk_path=desk_path, session=session))
        out["qualifying"] = {"seconds": round(seconds, 2), **_summary(phones)}
        desk_all += desk
        allocate(day)
        race = race_outboxes(day)
        seconds, desk = asyncio.run(wave(server.url, race, desk_path=desk_path, session=session))
        out["race"] = {"seconds": round(seconds, 2), **_summary(race)}
        desk_all += desk
        workers, threads = server.workers, server.threads
    times = [ms for ms, _status in desk_all]
    waves = (out["qualifying"], out["race"])
    checked = verify(day)
    exactly_once = (
        checked["runs"] == checked["runs_history"] == checked["runs_expected"]
        and checked["stands_as_sent"] == checked["drivers"]
        and checked["configurations"] == checked["drivers"]
        and checked["results"] == TABLES
        and checked["results_history"] == 2 * TABLES
        and checked["results_wrong"] == 0
        and all(w["resent_answered_again"] == w["resent"] for w in waves)
    )
    return {
        "server": f"gunicorn {workers} workers × {threads} threads (gthread), 127.0.0.1",
        "tables": TABLES,
        "drivers_per_table": DRIVERS_PER_TABLE,
        **out,
        **checked,
        "exactly_once": exactly_once,
        "errors": sum(w["errors"] for w in waves),
        "all_empty_s": max(
            (w["all_empty_s"] for w in waves if w["all_empty_s"] is not None), default=None
        )
        if all(w["all_empty_s"] is not None for w in waves)
        else None,
        "desk_requests": len(times),
        "desk_errors": sum(1 for _ms, status in desk_all if status != 200),
        "desk_p50_ms": _percentile(times, 0.5),
        "desk_p95_ms": _percentile(times, 0.95),
        "load_average": load_average(),
    }


def targets(measured: dict[str, Any]) -> list[tuple]:
    back = measured.get("offline_return")
    if not back:
        return []
    return [
        ("offline return: every write lands exactly once", back["exactly_once"], "",
         bool(back["exactly_once"])),
        ("offline return: 0 errors", back["errors"], "", back["errors"] == 0),
        (f"offline return: every outbox empty ≤ {DEADLINE_S:g} s", back["all_empty_s"], "s",
         DEADLINE_S),
        ("offline return: race control's desk p95 ≤ 250 ms", back["desk_p95_ms"], "ms", 250),
    ]  # fmt: skip
