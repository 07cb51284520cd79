"""Sign-up before the day (issue 29): ``registration_rush`` and ``registration_mails``.

``registration_rush``: 2,000 people sign up for 120 seats through the API of API.md ("Sign-up
before the day") against gunicorn (2 workers × 4 threads) on PostgreSQL, Redis as the
cache that counts the sign-up tries. They arrive evenly over ``seconds`` (open loop), each
from an address of its own behind one proxy (``TRUSTED_PROXY_COUNT=1`` and its
``X-Forwarded-For``, settings the app already reads: the limits per address and per e-mail
stay as they are). Each reads its confirmation token in the mail the server wrote to its
outbox (``tournament_mail``: the server has no mail server, as at a venue, so the mails stay
queued there; the link as the mail carries it, unsealed from ``link_sealed``) and confirms
at once. Then the database is checked: exactly ``capacity``
accepted, every other one waiting, the accepted ones the first confirmed, each waiting rank
its place in the order of confirmation, and each answer what the database holds.

Race control watches meanwhile: its registrations list (the API's, ``GET
/api/v1/events/{event}/registrations`` with an organiser's token) and its event desk (the
page, logged in) are each asked every second while the rush lasts (``desk_p95_ms``). The
server's CPU (its workers', from ``/proc``) is read around the rush and divided by the
requests it answered meanwhile (``server_cpu_ms_per_request``: sign-ups, confirmations and
the desk's).

``registration_mails``: the outbox's "you are in" and "waiting list" mails handed to one
real Celery worker (Redis as its broker) that sends them to an SMTP server on loopback
(aiosmtpd); the time until the server holds every one of them, and the duplicates it got
(by Message-ID).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import os
import re
import ssl
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from bench.load import ROOT, Gunicorn, _free_port

try:
    import sniffio  # noqa: F401
except ImportError:
    # httpcore asks for sniffio at each lock and event it makes (several a request) and
    # anyio 4 no longer brings it: each ask was a failed import, a walk of ``sys.path``, a
    # third of a millisecond, about a third of the client's CPU in the rush. Marked absent,
    # the ask fails at once and httpcore takes asyncio, as it did.
    sys.modules["sniffio"] = None  # type: ignore[assignment]
from bench.spike import _percentile, load_average

CONFIRM = re.compile(r"/registrations/confirm/([A-Za-z0-9_-]+)/")
#: The bench's Redis: database 6 (cache, sign-up tries, Celery's broker).
#: Registrants sharing one HTTP client (a pool of as many connections).
PER_CLIENT = 20
#: How long a registrant's browser waits for an answer before it is an error.
WAIT_S = 120.0
REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/6")


@dataclass
class Registrant:
    index: int
    email: str
    signed: float = 0.0  # seconds: the sign-up request
    confirm: float = 0.0  # seconds: the confirmation request
    status: str = ""
    rank: int | None = None
    error: str = ""
    done_at: float = 0.0


@dataclass
class Rush:
    people: list[Registrant] = field(default_factory=list)
    unfinished: int = 0
    elapsed: float = 0.0
    #: Race control's requests during the rush: (what, ms, status or None).
    desk: list[tuple[str, float, int | None]] = field(default_factory=list)


@dataclass(frozen=True)
class Desk:
    """Race control during the rush: the paths it asks every ``every`` seconds, each with
    its headers (a token, a session's cookie)."""

    paths: tuple[tuple[str, str, dict[str, str]], ...]
    every: float = 1.0


#: How often race control asks its desk during the rush (s).
DESK_EVERY = 1.0


def race_control(event: Any) -> Desk:
    """Race control of ``event``: its registrations list through the API (an organiser's
    token) and its event desk (a logged-in session)."""
    from django.contrib.auth import get_user_model
    from django.urls import reverse

    from bench.spike import desk_session
    from tournament.models import ApiToken

    session = desk_session(event)
    user = get_user_model().objects.get(username="bench-race-control")
    token = ApiToken.issue(user)
    return Desk(
        paths=(
            (
                "registrations",
                f"/api/v1/events/{event.slug}/registrations",
                {"Authorization": f"Bearer {token}"},
            ),
            ("desk", reverse("event-desk", args=[event.slug]), {"Cookie": f"sessionid={session}"}),
        ),  # fmt: skip
        every=DESK_EVERY,
    )


async def _watch(client: httpx.AsyncClient, desk: Desk, rush: Rush, done: asyncio.Event) -> None:
    """Race control asks each of its paths every ``desk.every`` s until ``done``."""
    while not done.is_set():
        started_round = time.perf_counter()
        for name, path, headers in desk.paths:
            started = time.perf_counter()
            try:
                status: int | None = (await client.get(path, headers=headers)).status_code
            except httpx.HTTPError:
                status = None
            rush.desk.append((name, (time.perf_counter() - started) * 1000, status))
        pause = desk.every - (time.perf_counter() - started_round)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(done.wait(), timeout=max(0.0, pause))


def open_event(*, capacity: int, slug: str = "bench-signup") -> Any:
    """An event open for sign-up, first come first served, ``capacity`` seats."""
    from django.utils import timezone

    from bench.builder import _circuit
    from tournament.models import Championship, Event
    from tournament.signup.models import Announcement

    championship = Championship.objects.create(slug=slug, name="Finale", season="2026")
    event = Event.objects.create(
        championship=championship,
        slug=f"{slug}-final",
        name="Finale nationale",
        date=timezone.localdate() + datetime.timedelta(days=30),
        circuit=_circuit(),
    )
    Announcement.objects.create(
        event=event,
        place="Salle des fêtes",
        capacity=capacity,
        opens_at=timezone.now() - datetime.timedelta(days=1),
        closes_at=timezone.now() + datetime.timedelta(days=20),
    )
    return event


def redis_environment(env: dict[str, str]) -> dict[str, str]:
    """The bench's server with Redis (cache and broker) and the clients behind one proxy."""
    return {**env, "REDIS_URL": REDIS_URL, "TRUSTED_PROXY_COUNT": "1", "CACHE_DIR": ""}


def flush_redis() -> None:
    """The bench's own Redis database emptied (tries counted by an earlier run, tasks)."""
    import redis

    redis.Redis.from_url(REDIS_URL).flushdb()


def _token(email: str) -> str | None:
    """The token of the confirmation mail's link, as the mail carries it: the row keeps the
    link sealed apart from the bodies, which the sender renders (``mails.link_of``)."""
    from tournament.signup import mails
    from tournament.signup.models import Mail

    mail = Mail.objects.filter(to=email, kind=Mail.Kind.CONFIRM).order_by("-pk").first()
    link = mails.link_of(mail) if mail else None
    found = CONFIRM.search(link) if link else None
    return found.group(1) if found else None


#: How often the outbox is read for the tokens of everyone waiting for theirs (s).
POLL_EVERY = 0.03
#: How long a registrant waits for its confirmation mail before it is an error (s).
MAIL_WAIT_S = 20.0


class Outbox:
    """Every registrant's confirmation token, read from the outbox by one thread for all of
    those waiting for theirs: one query every ``POLL_EVERY`` seconds instead of one (and a
    thread's hop) per registrant, which cost the bench's client about as much CPU as the
    server spent on the sign-up, on the same two cores. The mail is written with the
    registration, so it is there when the sign-up is answered."""

    def __init__(self, event: str) -> None:
        self.event = event
        self.lock = threading.Lock()
        #: By address key: (the registrant's future, when it began to wait).
        self.waiting: dict[str, tuple[asyncio.Future[str | None], float]] = {}
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name="bench-outbox", daemon=True)
        self.loop: asyncio.AbstractEventLoop | None = None

    def __enter__(self) -> Outbox:
        self.loop = asyncio.get_running_loop()
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join()

    async def token(self, email: str) -> str | None:
        """The token of ``email``'s confirmation mail, or None when none came in time."""
        from tournament.signup.rules import address_key

        assert self.loop is not None
        found: asyncio.Future[str | None] = self.loop.create_future()
        with self.lock:
            self.waiting[address_key(email)] = (found, time.monotonic())
        return await found

    def _run(self) -> None:
        from django.db import connection

        try:
            while not self.stop.wait(POLL_EVERY):
                with self.lock:
                    keys = list(self.waiting)
                try:
                    tokens = _tokens(self.event, keys) if keys else {}
                except Exception:  # noqa: BLE001 - a lost connection: the next round's
                    connection.close()
                    tokens = {}
                self._hand_over(tokens)
        finally:
            connection.close()

    def _hand_over(self, tokens: dict[str, str | None]) -> None:
        assert self.loop is not None
        late = time.monotonic() - MAIL_WAIT_S
        with self.lock:
            settled = [k for k, (_f, since) in self.waiting.items() if k in tokens or since < late]
            for key in settled:
                found, _since = self.waiting.pop(key)
                self.loop.call_soon_threadsafe(_settle, found, tokens.get(key))


def _settle(found: asyncio.Future[str | None], token: str | None) -> None:
    if not found.done():
        found.set_result(token)


def _tokens(event: str, keys: list[str]) -> dict[str, str | None]:
    """The token of the last confirmation mail of each registration of ``event`` whose
    address key is in ``keys`` (by key), in one query (the registrations' index on the event
    and the address key, then the mails' on the registration)."""
    from tournament.signup import mails
    from tournament.signup.models import Mail

    rows = (
        Mail.objects.filter(
            kind=Mail.Kind.CONFIRM,
            registration__event__slug=event,
            registration__email_key__in=keys,
        )
        .order_by("pk")
        .values_list("registration__email_key", "link_sealed")
    )
    tokens: dict[str, str | None] = {}
    for key, sealed in rows:  # the last mail of each wins
        link = mails.link_of(Mail(link_sealed=sealed))
        found = CONFIRM.search(link) if link else None
        tokens[key] = found.group(1) if found else None
    return tokens


async def _person(
    client: httpx.AsyncClient,
    event: str,
    person: Registrant,
    delay: float,
    t0: float,
    outbox: Outbox,
) -> None:
    await asyncio.sleep(delay)
    address = f"10.{person.index // 65536 % 256}.{person.index // 256 % 256}.{person.index % 256}"
    headers = {"X-Forwarded-For": address, "Accept-Language": "fr"}
    body = {
        "first_name": f"Élodie{person.index}",
        "last_name": "Lefèvre",
        "email": person.email,
        "public_name": "short" if person.index % 3 else "full",
        "language": "en" if person.index % 4 == 0 else "fr",
    }
    started = time.perf_counter()
    try:
        answer = await client.post(
            f"/api/v1/events/{event}/registrations", json=body, headers=headers
        )
    except httpx.HTTPError as exc:
        person.error = f"sign-up: {exc!r}"
        return
    person.signed = time.perf_counter() - started
    if answer.status_code != 202:
        person.error = f"sign-up {answer.status_code}: {answer.text[:200]}"
        return

    token = await outbox.token(person.email)  # the mail is written with the registration
    if token is None:
        person.error = "no confirmation mail in the outbox"
        return
    started = time.perf_counter()
    try:
        answer = await client.post(
            "/api/v1/registrations/confirm", json={"token": token}, headers=headers
        )
    except httpx.HTTPError as exc:
        person.error = f"confirm: {exc!r}"
        return
    person.confirm = time.perf_counter() - started
    person.done_at = time.perf_counter() - t0
    if answer.status_code != 200:
        person.error = f"confirm {answer.status_code}: {answer.text[:200]}"
        return
    data = answer.json()
    person.status, person.rank = data["status"], data.get("rank")


async def drive(
    base_url: str,
    event: str,
    *,
    people: int,
    seconds: float,
    deadline: float,
    transport: httpx.AsyncBaseTransport | None = None,
    desk: Desk | None = None,
) -> Rush:
    rush = Rush(people=[Registrant(n, f"pilote{n:05d}@bench.example.org") for n in range(people)])
    # A client per ``PER_CLIENT`` registrants, each with a connection for every one of them:
    # one pool for 2,000 waiting requests costs the client more CPU than the server its
    # answers (httpcore walks its queue at every step), and people each have their own.
    # One TLS context for them all (the server is plain HTTP): each client would load the
    # certificate authorities again, 17 ms of the client's CPU each.
    tls = ssl.create_default_context()
    async with contextlib.AsyncExitStack() as stack:
        clients = [
            await stack.enter_async_context(
                httpx.AsyncClient(
                    base_url=base_url,
                    # A person's browser waits minutes before it gives up, not seconds.
                    timeout=WAIT_S,
                    limits=httpx.Limits(max_connections=PER_CLIENT, keepalive_expiry=1.0),
                    transport=transport,
                    verify=tls,
                )
            )
            for _ in range(-(-people // PER_CLIENT))
        ]
        outbox = stack.enter_context(Outbox(event))
        step = seconds / people if people else 0
        t0 = time.perf_counter()
        tasks = [
            asyncio.create_task(
                _person(clients[n % len(clients)], event, person, n * step, t0, outbox)
            )
            for n, person in enumerate(rush.people)
        ]
        done = asyncio.Event()
        watching = None
        if desk is not None:  # race control's own browser: a client of its own
            watcher = await stack.enter_async_context(
                httpx.AsyncClient(
                    base_url=base_url, timeout=WAIT_S, transport=transport, verify=tls
                )
            )
            watching = asyncio.create_task(_watch(watcher, desk, rush, done))
        _done, pending = await asyncio.wait(tasks, timeout=deadline)
        rush.elapsed = time.perf_counter() - t0
        rush.unfinished = len(pending)
        for task in pending:
            task.cancel()
        done.set()
        if watching is not None:
            await watching
    return rush


def verify(event: Any, rush: Rush, *, capacity: int) -> dict[str, Any]:
    """What the database holds against the order of confirmation and the answers."""
    from tournament.signup.models import Registration
    from tournament.signup.services import rank_of

    rows = list(
        Registration.objects.filter(event=event)
        .exclude(confirmed_at=None)
        .order_by("confirmed_at", "pk")
    )
    accepted = [r for r in rows if r.status == Registration.Status.ACCEPTED]
    waiting = [r for r in rows if r.status == Registration.Status.WAITING]
    in_order = [r.status for r in rows] == (
        [Registration.Status.ACCEPTED] * len(accepted)
        + [Registration.Status.WAITING] * len(waiting)
    )
    ranks = [rank_of(r) for r in waiting]
    ranks_in_order = ranks == list(range(1, len(waiting) + 1))
    # Each answer as the database holds it (no cancellation: a rank answered stays).
    stored = {r.email: (r.status, rank_of(r) if r.status == "waiting" else None) for r in rows}
    answered_wrong = sum(
        1
        for p in rush.people
        if not p.error
        and stored.get(p.email) != (p.status, p.rank if p.status == "waiting" else None)
    )
    return {
        "registrations": Registration.objects.filter(event=event).count(),
        "confirmed": len(rows),
        "accepted": len(accepted),
        "waiting": len(waiting),
        "accepted_first_then_waiting": in_order,
        "waiting_in_confirmation_order": ranks_in_order,
        "answers_not_as_stored": answered_wrong,
        "capacity": capacity,
    }


def measure_rush(
    env: dict[str, str], *, people: int, capacity: int, seconds: float, deadline: float
) -> tuple[dict[str, Any], Any]:
    """``registration_rush``; answers its measures and the event (for the mails)."""
    event = open_event(capacity=capacity)
    flush_redis()
    with Gunicorn(redis_environment(env)) as server:
        # Each worker's first requests (imports, catalogues) on another event's reads.
        with httpx.Client(base_url=server.url, headers={"Connection": "close"}) as client:
            for _ in range(8):
                client.get(f"/api/v1/events/{event.slug}/entrants")
            desk = race_control(event)
            for _ in range(4):  # each worker's first desk (templates, catalogues)
                for _name, path, headers in desk.paths:
                    client.get(path, headers=headers)
        client_cpu, server_cpu = time.process_time(), _children_cpu(server.process.pid)
        rush = asyncio.run(
            drive(
                server.url,
                event.slug,
                people=people,
                seconds=seconds,
                deadline=deadline,
                desk=desk,
            )
        )
        client_cpu = time.process_time() - client_cpu
        server_cpu = _children_cpu(server.process.pid) - server_cpu
        workers, threads = server.workers, server.threads
    errors = [p for p in rush.people if p.error]
    confirms = [p.confirm * 1000 for p in rush.people if p.confirm]
    signs = [p.signed * 1000 for p in rush.people if p.signed]
    done = [p.done_at for p in rush.people if p.done_at]
    desk_ms = [ms for _name, ms, _status in rush.desk]
    # Every request the server answered while its CPU was read: each registrant's sign-up
    # and confirmation (those sent), and race control's.
    requests = len(signs) + len(confirms) + len(rush.desk)
    return {
        "server": f"gunicorn {workers} workers × {threads} threads (gthread), 127.0.0.1, Redis",
        "people": people,
        "arrival_seconds": seconds,
        "errors": len(errors) + rush.unfinished,
        "error_samples": sorted({p.error for p in errors})[:5],
        "all_confirmed_s": round(max(done), 2) if done and not errors else None,
        "confirm_p50_ms": _percentile(confirms, 0.5),
        "confirm_p95_ms": _percentile(confirms, 0.95),
        "confirm_max_ms": round(max(confirms), 1) if confirms else None,
        "signup_p50_ms": _percentile(signs, 0.5),
        "signup_p95_ms": _percentile(signs, 0.95),
        **verify(event, rush, capacity=capacity),
        # Where the CPU went during the rush: the bench's client (this process) and the
        # server's workers (PostgreSQL's is in neither).
        "client_cpu_s": round(client_cpu, 1),
        "server_cpu_s": round(server_cpu, 1),
        "server_requests": requests,
        "server_cpu_ms_per_request": round(server_cpu * 1000 / requests, 2) if requests else None,
        "desk_requests": len(desk_ms),
        "desk_errors": sum(1 for _name, _ms, status in rush.desk if status != 200),
        "desk_p50_ms": _percentile(desk_ms, 0.5),
        "desk_p95_ms": _percentile(desk_ms, 0.95),
        "desk_max_ms": round(max(desk_ms), 1) if desk_ms else None,
        "load_average": load_average(),
    }, event


def _children_cpu(pid: int) -> float:
    """CPU seconds (user + system) of ``pid``'s child processes (gunicorn's workers)."""
    total = 0.0
    ticks = os.sysconf("SC_CLK_TCK")
    for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
        try:
            fields = Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / ticks  # utime, stime
    return total


class _Counting:
    """The SMTP server's handler: every message's Message-ID, as it arrives."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.ids: list[str] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
        import email
        import email.policy

        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        with self.lock:
            self.ids.append(str(message["Message-ID"]))
        return "250 OK"


def measure_mails(env: dict[str, str], event: Any, *, deadline: float) -> dict[str, Any]:
    """``registration_mails``: the rush's "in" and "waiting" mails sent by one worker."""
    from aiosmtpd.controller import Controller

    from tournament.signup.models import Mail

    rows = Mail.objects.filter(
        registration__event=event, kind__in=[Mail.Kind.ACCEPTED, Mail.Kind.WAITING]
    )
    ids = list(rows.values_list("pk", flat=True))
    handler = _Counting()
    smtp = Controller(handler, hostname="127.0.0.1", port=_free_port())
    smtp.start()
    worker_env = {
        **os.environ,
        **redis_environment(env),
        "EMAIL_HOST": "127.0.0.1",
        "EMAIL_PORT": str(smtp.port),
        "EMAIL_USE_TLS": "false",
        "DEFAULT_FROM_EMAIL": "paddock@bench.example.org",
    }
    log = Path(tempfile.mkstemp(prefix="paddock-bench-celery-", suffix=".log")[1])
    command = [
        sys.executable, "-m", "celery", "-A", "paddock", "worker", "--pool", "prefork",
        "--concurrency", "2", "--loglevel", "warning", "--without-heartbeat",
        "--without-gossip", "--without-mingle",
    ]  # fmt: skip
    worker = subprocess.Popen(
        command, cwd=ROOT, env=worker_env, stdout=log.open("wb"), stderr=subprocess.STDOUT
    )
    try:
        # The tasks as the server queues them, through the same broker, once the worker
        # answers (its start is not the mails' time).
        started = enqueue(ids, worker_env)
        give_up = started + deadline
        while time.time() < give_up:
            if len(handler.ids) >= len(ids) and worker.poll() is None:
                break
            if worker.poll() is not None:
                raise RuntimeError(f"the Celery worker exited: see {log}")
            time.sleep(0.2)
        seconds = time.time() - started
        time.sleep(1.0)  # any late duplicate has a second to arrive
    finally:
        worker.terminate()
        try:
            worker.wait(timeout=30)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()
        smtp.stop()
    received = list(handler.ids)
    expected = set(Mail.objects.filter(pk__in=ids).values_list("message_id_header", flat=True))
    return {
        "mails": len(ids),
        "delivered": len(set(received) & expected),
        "duplicates": len(received) - len(set(received)),
        "strangers": len(set(received) - expected),
        "all_delivered_s": round(seconds, 2) if expected <= set(received) else None,
        "sent_in_outbox": Mail.objects.filter(pk__in=ids, state=Mail.State.SENT).count(),
        "worker": "one Celery worker (prefork, 2 processes), Redis broker; aiosmtpd on 127.0.0.1",
        "load_average": load_average(),
    }


def enqueue(ids: list[int], worker_env: dict[str, str]) -> float:
    """``send_mail.delay`` for each mail, from a process whose settings queue to Redis (this
    one's run tasks inline), once the worker answers a ping; answers when the first was
    queued (``time.time()``)."""
    script = (
        "import sys, time, django; django.setup()\n"
        "from paddock.celery import app\n"
        "from tournament.signup.tasks import send_mail\n"
        "give_up = time.time() + 120\n"
        "while not app.control.ping(timeout=1.0):\n"
        "    assert time.time() < give_up, 'the worker never answered'\n"
        "print(time.time(), flush=True)\n"
        "for pk in sys.stdin.read().split(): send_mail.delay(int(pk))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=worker_env,
        input=" ".join(map(str, ids)).encode(),
        check=True,
        capture_output=True,
    )
    return float(done.stdout.split()[0])


def targets(measured: dict[str, Any]) -> list[tuple]:
    """The issue's targets (rows as ``bench.run.checks_of`` takes them)."""
    rows: list[tuple] = []
    rush = measured.get("registration_rush")
    if rush:
        capacity, people = rush["capacity"], rush["people"]
        waiting = people - capacity
        ordered = rush["accepted_first_then_waiting"] and rush["waiting_in_confirmation_order"]
        rows += [
            (f"registration rush: exactly {capacity} accepted", rush["accepted"], "",
             rush["accepted"] == capacity),
            (f"registration rush: {waiting} waiting in confirmation order", rush["waiting"], "",
             rush["waiting"] == waiting and ordered and rush["answers_not_as_stored"] == 0),
            ("registration rush: 0 errors", rush["errors"], "", rush["errors"] == 0),
            (f"registration rush: all {people} confirmed ≤ 60 s", rush["all_confirmed_s"], "s",
             60),
            ("registration rush: confirmation p95 ≤ 300 ms", rush["confirm_p95_ms"], "ms", 300),
            ("registration rush: sign-up p95 ≤ 300 ms", rush.get("signup_p95_ms"), "ms", 300),
            ("registration rush: server CPU ≤ 6 ms a request",
             rush.get("server_cpu_ms_per_request"), "ms", 6),
            ("registration rush: race control's desk p95 ≤ 250 ms", rush.get("desk_p95_ms"),
             "ms", 250),
            ("registration rush: race control's desk 0 errors", rush.get("desk_errors"), "",
             rush.get("desk_errors") == 0),
        ]  # fmt: skip
    mails = measured.get("registration_mails")
    if mails:
        rows += [
            (f"registration mails: {mails['mails']} delivered ≤ 120 s", mails["all_delivered_s"],
             "s", 120),
            ("registration mails: 0 duplicates", mails["duplicates"], "", mails["duplicates"] == 0),
        ]  # fmt: skip
    return rows
