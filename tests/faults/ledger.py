"""What the clients were told, and what the database kept: the fault tests' bookkeeping.

Every request sent is written down with its answer (a status and body, or the transport
error that told the client it failed). Afterwards the database is read as it is (SQL through
any DB-API cursor, SQLite's or PostgreSQL's) and judged against it:

- **lost**: a request answered 2xx whose write is not stored (must be 0);
- **half-written**: a table whose status, result, result lines and history disagree
  (a confirmed table without its lines, a result without its history row...);
- everything else either succeeded and is stored, or failed and its client was told.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import httpx

from tests.faults.world import SUBMITTED

API = "/api/v1"


@dataclass
class Sent:
    """One request and what its client was told."""

    kind: str  # "save" or "confirm"
    table: int
    started: float = 0.0
    finished: float = 0.0
    status: int | None = None
    body: Any = None
    error: str = ""

    @property
    def succeeded(self) -> bool:
        return self.status is not None and 200 <= self.status < 300

    @property
    def told_of_failure(self) -> bool:
        return not self.succeeded  # a transport error, or a status that is not 2xx


@dataclass
class Ledger:
    """The requests of one fault, sent concurrently."""

    base_url: str
    world: dict[str, Any]
    sent: list[Sent] = field(default_factory=list)
    done: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def request(self, item: Sent) -> Sent:
        """Send ``item``'s write: a referee's submitted sheet (``save``) or race control's
        confirmation (``confirm``) of table ``item.table``."""
        table = self.world["tables"][str(item.table)]
        path = f"{self.base_url}{API}/events/{self.world['event']}/tables/{item.table}"
        if item.kind == "save":
            method, url, token = "PUT", f"{path}/result", table["token"]
            body: dict[str, Any] = {"version": 0, "finish": table["grid"], "submit": True}
        else:
            method, url, token = "POST", f"{path}/confirm", self.world["organiser"]
            body = {"version": 1}
        item.started = time.monotonic()
        try:
            answer = httpx.request(
                method, url, json=body, timeout=300,
                headers={"Authorization": f"Bearer {token}", "Accept-Language": "en"},
            )  # fmt: skip
            item.status = answer.status_code
            try:
                item.body = answer.json()
            except ValueError:
                item.body = answer.text[:300]
        except httpx.TransportError as exc:
            item.error = f"{type(exc).__name__}: {exc}"
        item.finished = time.monotonic()
        with self.lock:
            self.done += 1
        return item

    def send_all(self, items: list[Sent], *, meanwhile: Callable[[], None] | None = None) -> None:
        """Every item at once (one thread each); ``meanwhile`` runs in this thread while
        they are in flight (the fault)."""
        self.sent.extend(items)
        with ThreadPoolExecutor(max_workers=len(items)) as pool:
            futures = [pool.submit(self.request, item) for item in items]
            if meanwhile is not None:
                meanwhile()
            for future in futures:
                future.result()

    def figures(self, *, since: float | None = None, until: float | None = None) -> dict[str, int]:
        """Requests sent, succeeded, told of failure; ``in_flight``: those under way at the
        moment(s) given (started before ``until``, not finished before ``since``)."""
        figures = {
            "sent": len(self.sent),
            "succeeded": sum(1 for item in self.sent if item.succeeded),
            "told_of_failure": sum(1 for item in self.sent if item.told_of_failure),
        }
        if since is not None:
            until = since if until is None else until
            figures["in_flight"] = sum(
                1 for item in self.sent if item.started <= until and item.finished >= since
            )
        return figures


def settle(ledger: Ledger, failed: list[Sent], *, rounds: int = 10) -> Ledger:
    """Send ``failed`` again, as a referee's phone does, until each is stored (2xx) or told
    it already was (409, with the stored result); a 503 (the database busy past its
    timeout on a loaded machine) is tried again, up to ``rounds`` times. Answers the
    ledger of the last tries of each."""
    last = Ledger(ledger.base_url, ledger.world)
    pending = [Sent(item.kind, item.table) for item in failed]
    for _round in range(rounds):
        if not pending:
            break
        tries = Ledger(ledger.base_url, ledger.world)
        tries.send_all(pending)
        last.sent.extend(i for i in tries.sent if i.succeeded or i.status == 409)
        pending = [
            Sent(i.kind, i.table) for i in tries.sent if not (i.succeeded or i.status == 409)
        ]
    last.sent.extend(pending)  # never answered: they fail the caller's check
    return last


def all_writes(tables: Iterable[int]) -> list[Sent]:
    """A write for every table: race control confirms the submitted tables while the
    referees of the empty ones submit their sheets."""
    return [Sent("confirm" if n <= SUBMITTED else "save", n) for n in tables]


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str | bytes) else value


def stored_tables(cursor: Any, slug: str) -> dict[int, dict[str, Any]]:
    """Each table of event ``slug`` as stored: status, result, lines and history."""
    cursor.execute(
        "SELECT t.id, t.number, t.result_status, r.id, r.version, r.finish, r.confirmed_at, "
        "(SELECT COUNT(*) FROM races_resultline l WHERE l.table_id = t.id) "
        "FROM races_racetable t JOIN tournament_event e ON e.id = t.event_id "
        f"LEFT JOIN races_raceresult r ON r.table_id = t.id WHERE e.slug = '{slug}'"  # noqa: S608
    )
    tables: dict[int, dict[str, Any]] = {}
    by_id: dict[int, dict[str, Any]] = {}
    for table_id, number, status, result_id, version, finish, confirmed_at, lines in cursor:
        row = {
            "status": status,
            "result": result_id is not None,
            "version": version,
            "finish": _json(finish),
            "confirmed": confirmed_at is not None,
            "lines": lines,
            "versions": [],
            "last_history_finish": None,
            "statuses": [],
        }
        tables[number] = by_id[table_id] = row
    cursor.execute(
        "SELECT table_id, version, finish FROM races_historicalraceresult ORDER BY history_id"
    )
    for table_id, version, finish in cursor:
        if table_id in by_id:
            by_id[table_id]["versions"].append(version)
            by_id[table_id]["last_history_finish"] = _json(finish)
    cursor.execute("SELECT id, result_status FROM races_historicalracetable ORDER BY history_id")
    for table_id, status in cursor:
        if table_id in by_id:
            by_id[table_id]["statuses"].append(status)
    return tables


def half_written(tables: dict[int, dict[str, Any]], world: dict[str, Any]) -> list[str]:
    """Tables whose stored parts disagree with each other or with their history."""
    problems = []
    expected = {
        "empty": (False, None, False, 0),
        "submitted": (True, 1, False, 0),
        "confirmed": (True, 2, True, 2),
    }
    for number, row in sorted(tables.items()):
        shape = (row["result"], row["version"], row["confirmed"], row["lines"])
        if expected.get(row["status"]) != shape:
            problems.append(f"table {number}: {row['status']} stored as {shape}")
        if row["result"]:
            grid = world["tables"][str(number)]["grid"]
            if row["finish"] != grid:
                problems.append(f"table {number}: finish {row['finish']}, sent {grid}")
            if row["versions"] != list(range(1, row["version"] + 1)):
                problems.append(f"table {number}: history versions {row['versions']}")
            if row["last_history_finish"] != row["finish"]:
                problems.append(f"table {number}: the last history row differs from the result")
        elif row["versions"]:
            problems.append(f"table {number}: history of a result that is not stored")
        if row["statuses"] and row["statuses"][-1] != row["status"]:
            problems.append(f"table {number}: last history status {row['statuses'][-1]}")
    return problems


def lost(ledger: Ledger, tables: dict[int, dict[str, Any]]) -> list[str]:
    """Writes answered 2xx that the database does not hold."""
    missing = []
    for item in ledger.sent:
        if not item.succeeded:
            continue
        status = tables[item.table]["status"]
        if item.kind == "save" and status not in ("submitted", "confirmed"):
            missing.append(f"table {item.table}: sheet acknowledged, table {status}")
        if item.kind == "confirm" and status != "confirmed":
            missing.append(f"table {item.table}: confirmation acknowledged, table {status}")
    return missing
