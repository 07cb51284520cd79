"""Load: referees arriving over a few seconds (open loop), each reading their table's
result, saving a draft and submitting it through the JSON API, against gunicorn.

The client is asyncio + httpx: referee ``i`` starts at ``i × seconds / referees`` whether
or not the others are done (open loop: a slow server does not slow the arrivals down).
Bounded in count (one referee per table, three requests each) and in time (``deadline``).
Afterwards the database is checked: every table's result stored exactly once, as the
referee last sent it (lost updates = 0).
"""

from __future__ import annotations

import asyncio
import math
import os
import socket
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from bench.builder import LoadTable

ROOT = Path(__file__).resolve().parent.parent
WORKERS = 2
THREADS = 4


@dataclass
class Call:
    kind: str  # "get", "draft", "submit"
    table: int
    started: float
    seconds: float
    status: int | None  # None: no answer (connection error, timeout)
    error: str = ""


@dataclass
class Sent:
    """The last result a referee had accepted, to compare with what is stored."""

    finish: list[int]
    retired: list[dict[str, Any]]
    dns: list[int]
    version: int


@dataclass
class LoadRun:
    calls: list[Call] = field(default_factory=list)
    sent: dict[int, Sent] = field(default_factory=dict)
    unfinished: int = 0  # referees still running at the deadline


def payloads(table: LoadTable) -> tuple[dict[str, Any], dict[str, Any]]:
    """The draft (half the finishers written so far) and the complete submitted sheet."""
    *finishers, retired = table.grid
    draft = {"finish": finishers[: len(finishers) // 2], "retired": [], "dns": []}
    final = {
        "finish": finishers,
        "retired": [{"driver": retired, "cause": "engine", "lap": 2, "note": ""}],
        "dns": [],
    }
    return draft, final


async def _referee(
    client: httpx.AsyncClient, event: str, table: LoadTable, delay: float, run: LoadRun
) -> None:
    await asyncio.sleep(delay)
    url = f"/api/v1/events/{event}/tables/{table.number}/result"
    headers = {"Authorization": f"Bearer {table.token}", "Accept-Language": "en"}

    async def call(kind: str, method: str, body: dict[str, Any] | None = None) -> Any:
        started = time.perf_counter()
        try:
            response = await client.request(method, url, json=body, headers=headers)
        except httpx.HTTPError as exc:
            run.calls.append(
                Call(kind, table.number, started, time.perf_counter() - started, None, repr(exc))
            )
            return None
        seconds = time.perf_counter() - started
        ok = response.status_code == 200
        run.calls.append(
            Call(
                kind,
                table.number,
                started,
                seconds,
                response.status_code,
                "" if ok else response.text[:200],
            )
        )
        return response.json() if ok else None

    read = await call("get", "GET")
    if read is None:
        return
    draft, final = payloads(table)
    saved = await call("draft", "PUT", {**draft, "version": read["version"], "submit": False})
    if saved is None:
        return
    run.sent[table.number] = Sent(**draft, version=saved["version"])
    submitted = await call("submit", "PUT", {**final, "version": saved["version"], "submit": True})
    if submitted is not None:
        run.sent[table.number] = Sent(**final, version=submitted["version"])


async def drive(
    base_url: str,
    event: str,
    tables: list[LoadTable],
    *,
    seconds: float,
    deadline: float,
    transport: httpx.AsyncBaseTransport | None = None,
) -> LoadRun:
    """One referee per table, arriving evenly over ``seconds``; stop at ``deadline``."""
    run = LoadRun()
    limits = httpx.Limits(max_connections=len(tables) + 1, max_keepalive_connections=len(tables))
    async with httpx.AsyncClient(
        base_url=base_url, timeout=30, limits=limits, transport=transport
    ) as client:
        step = seconds / len(tables) if tables else 0
        tasks = [
            asyncio.create_task(_referee(client, event, table, index * step, run))
            for index, table in enumerate(tables)
        ]
        _done, pending = await asyncio.wait(tasks, timeout=deadline)
        run.unfinished = len(pending)
        for task in pending:
            task.cancel()
    return run


def verify(event_slug: str, sent: dict[int, Sent], tables: list[LoadTable]) -> dict[str, int]:
    """Compare the database with what the referees had accepted.

    A lost update: a table whose stored result is not the last accepted write, or whose
    history holds a different number of writes than were accepted (stored twice, or not).
    """
    from races.models import RaceResult, RaceTable

    stored = {
        r.table.number: r
        for r in RaceResult.objects.filter(table__event__slug=event_slug).select_related("table")
    }
    tables_stored = RaceTable.objects.filter(event__slug=event_slug).count()
    writes: dict[int, int] = {}
    for number in RaceResult.history.filter(table__event__slug=event_slug).values_list(
        "table__number", flat=True
    ):
        writes[number] = writes.get(number, 0) + 1
    lost = 0
    for number, expected in sent.items():
        result = stored.get(number)
        if (
            result is None
            or result.version != expected.version
            or list(result.finish) != expected.finish
            or list(result.dns) != expected.dns
            or [dict(r) for r in result.retired] != expected.retired
            or writes.get(number, 0) != expected.version
        ):
            lost += 1
    unexpected = len(set(stored) - set(sent))
    complete = sum(
        1
        for number, expected in sent.items()
        if expected.version == 2 and stored.get(number) and stored[number].submitted_at
    )
    return {
        "tables": len(tables),
        "tables_in_database": tables_stored,
        "results_stored": len(stored),
        "results_submitted": complete,
        "lost_updates": lost + unexpected,
    }


def report(run: LoadRun, *, seconds: float) -> dict[str, Any]:
    answered = [c for c in run.calls if c.status is not None]
    errors = [c for c in run.calls if c.status != 200]
    latencies = sorted(c.seconds * 1000 for c in run.calls)
    if run.calls:
        first = min(c.started for c in run.calls)
        last = max(c.started + c.seconds for c in run.calls)
        elapsed = max(last - first, 1e-9)
    else:
        elapsed = 0.0

    def percentile(q: float) -> float | None:
        if not latencies:
            return None
        return round(latencies[max(0, math.ceil(q * len(latencies)) - 1)], 1)  # nearest rank

    by_kind = {}
    for kind in ("get", "draft", "submit"):
        values = [c.seconds * 1000 for c in run.calls if c.kind == kind]
        if values:
            by_kind[kind] = {
                "median": round(statistics.median(values), 1),
                "max": round(max(values), 1),
            }
    return {
        "requests": len(run.calls),
        "answered": len(answered),
        "errors": len(errors) + run.unfinished,
        "error_samples": sorted({f"{c.kind} {c.status}: {c.error}" for c in errors})[:5],
        "unfinished_referees": run.unfinished,
        "arrival_seconds": seconds,
        "elapsed_s": round(elapsed, 2),
        "throughput_rps": round(len(answered) / elapsed, 1) if elapsed else 0.0,
        "p50_ms": percentile(0.50),
        "p95_ms": percentile(0.95),
        "max_ms": round(latencies[-1], 1) if latencies else None,
        "by_kind_ms": by_kind,
    }


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Gunicorn:
    """gunicorn serving the project on 127.0.0.1, stopped (its own pid only) on exit."""

    def __init__(self, env: dict[str, str], *, workers: int = WORKERS, threads: int = THREADS):
        self.port = _free_port()
        self.workers = workers
        self.threads = threads
        self.env = env
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> Gunicorn:
        command = [
            sys.executable,
            "-m",
            "gunicorn",
            "paddock.wsgi",
            "--bind",
            f"127.0.0.1:{self.port}",
            "--workers",
            str(self.workers),
            "--threads",
            str(self.threads),
            "--log-level",
            "warning",
        ]
        self.process = subprocess.Popen(command, cwd=ROOT, env={**os.environ, **self.env})
        give_up = time.monotonic() + 60
        while time.monotonic() < give_up:
            if self.process.poll() is not None:
                raise RuntimeError(f"gunicorn exited with {self.process.returncode}")
            try:
                if httpx.get(self.url + "/api/v1/openapi.json", timeout=5).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.3)
        self.__exit__(None, None, None)
        raise RuntimeError("gunicorn did not answer within 60 s")

    def __exit__(self, *exc: object) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def measure_load(
    event_slug: str,
    tables: list[LoadTable],
    *,
    env: dict[str, str],
    seconds: float,
    deadline: float,
) -> dict[str, Any]:
    """Run the referees against gunicorn, then check the database."""
    with Gunicorn(env) as server:
        run = asyncio.run(drive(server.url, event_slug, tables, seconds=seconds, deadline=deadline))
        workers, threads = server.workers, server.threads
    return {
        "server": f"gunicorn {workers} workers × {threads} threads (gthread), 127.0.0.1",
        "referees": len(tables),
        **report(run, seconds=seconds),
        **verify(event_slug, run.sent, tables),
    }
