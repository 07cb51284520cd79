"""Reads for qualifying: classifications, progress, a table's drivers and runs.

The ordering itself lives in ``qualifying.scoring``; here we only fetch and attach objects.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.db.models import Count

from qualifying import scoring
from qualifying.models import DrawRoll, QualifyingSession, QualifyingTable, Run
from tournament.models import Driver, Entry, Event


@dataclass(frozen=True)
class ClassifiedLine:
    """A classification row with the objects pages, API and sheets display."""

    rank: int
    driver: Driver
    status: str
    absolute_time: int | None
    stopwatch_cs: int | None
    session: int | None
    run: Run | None
    breakdown: scoring.Breakdown | None

    @property
    def stopwatch(self) -> str | None:
        return None if self.stopwatch_cs is None else scoring.format_stopwatch(self.stopwatch_cs)


def _runs(
    event: Event, *, sessions: list[QualifyingSession], drivers: dict[int, Driver]
) -> list[Run]:
    """The event's counted runs, each with its session (and the session's event) and its
    driver (and team) attached from what the caller already holds, ``drivers`` by id.

    Joined in SQL, 2,000 runs would bring 2,000 copies of the same two sessions, of the same
    event and of the same thousand drivers: five model instances a row, most of the time of
    a general classification. Drivers with a run but no entry are fetched apart.
    """
    runs = list(Run.objects.filter(session__event=event, cancelled=False))
    missing = {run.driver_id for run in runs} - drivers.keys()
    if missing:
        drivers = {**drivers, **Driver.objects.select_related("team").in_bulk(missing)}
    session_event = QualifyingSession._meta.get_field("event")
    for session in sessions:
        session_event.set_cached_value(session, event)
    by_id = {session.pk: session for session in sessions}
    run_session, run_driver = Run._meta.get_field("session"), Run._meta.get_field("driver")
    for run in runs:
        run_session.set_cached_value(run, by_id[run.session_id])
        run_driver.set_cached_value(run, drivers[run.driver_id])
    return runs


def session_classification(*, session: QualifyingSession) -> list[ClassifiedLine]:
    """One session's order (§1-3-2, eliminated last §1-1-14)."""
    runs = list(
        session.runs.filter(cancelled=False).select_related(
            "session", "session__event", "driver", "driver__team"
        )
    )
    by_key = {}
    results = []
    for run in runs:
        result = run.as_result()
        by_key[result.driver] = run
        results.append(result)
    lines = []
    for ranked in scoring.classify_session(results):
        run = by_key[ranked.run.driver]
        lines.append(
            ClassifiedLine(
                rank=ranked.rank,
                driver=run.driver,
                status="eliminated" if run.eliminated else "ok",
                absolute_time=ranked.run.absolute,
                stopwatch_cs=run.stopwatch_cs,
                session=session.number,
                run=run,
                breakdown=run.breakdown(),
            )
        )
    return lines


def general_classification(*, event: Event) -> list[ClassifiedLine]:
    """The event's classification over its sessions (mode ``best`` or ``sum``, or the draw)."""
    if event.qualifying_mode == Event.QualifyingMode.DRAW:
        return draw_classification(event=event)
    # The entered drivers in the order of their entries (registration), without the entries.
    entered = list(
        Driver.objects.filter(entries__event=event)
        .select_related("team")
        .order_by("entries__registered_at", "entries__id")
    )
    drivers = {driver.number: driver for driver in entered}
    sessions = list(QualifyingSession.objects.filter(event=event))
    runs = _runs(event, sessions=sessions, drivers={driver.pk: driver for driver in entered})
    run_by_key: dict[tuple[int, int], Run] = {}
    results = []
    for run in runs:
        drivers.setdefault(run.driver.number, run.driver)
        result = run.as_result()
        run_by_key[(result.driver, result.session)] = run
        results.append(result)
    rows = scoring.classify_general(
        drivers=[driver.number for driver in entered],
        sessions=[session.number for session in sessions],
        runs=results,
        mode=event.qualifying_mode,  # type: ignore[arg-type]
    )
    lines = []
    for row in rows:
        run = run_by_key.get((row.driver, row.session)) if row.session is not None else None
        if event.qualifying_mode == Event.QualifyingMode.SUM:
            # The total is a sum of runs: so is its breakdown (shown wherever a total is).
            counted = [run_by_key[(r.driver, r.session)].breakdown() for r in row.runs]
            breakdown = _sum_breakdowns(counted) if row.absolute is not None else None
        else:
            breakdown = run.breakdown() if run is not None and row.status == "ok" else None
        lines.append(
            ClassifiedLine(
                rank=row.rank,
                driver=drivers[row.driver],
                status=row.status,
                absolute_time=row.absolute,
                stopwatch_cs=row.stopwatch_cs,
                session=row.session,
                run=run,
                breakdown=breakdown,
            )
        )
    return lines


def _sum_breakdowns(parts: list[scoring.Breakdown | None]) -> scoring.Breakdown | None:
    present = [p for p in parts if p is not None]
    if not present:
        return None
    return scoring.Breakdown(
        throws=sum(p.throws for p in present),
        placement=sum(p.placement for p in present),
        corner_exits=sum(p.corner_exits for p in present),
        minutes=sum(p.minutes for p in present),
    )


def draw_classification(
    *, event: Event, entries: list[Entry] | None = None
) -> list[ClassifiedLine]:
    """Quick rules §2: the grid order of the d20 draw (lowest first), undrawn drivers last."""
    if entries is None:
        entries = list(Entry.objects.filter(event=event).select_related("driver", "driver__team"))
    drivers = {e.driver.number: e.driver for e in entries}
    rolls = {
        r.driver.number: r.rolls
        for r in DrawRoll.objects.filter(event=event).select_related("driver")
    }
    drawn = sorted((n for n in drivers if rolls.get(n)), key=lambda n: (tuple(rolls[n]), n))
    order = drawn + [n for n in drivers if not rolls.get(n)]
    return [
        ClassifiedLine(
            rank=index + 1,
            driver=drivers[number],
            status="ok" if rolls.get(number) else "no_run",
            absolute_time=None,
            stopwatch_cs=None,
            session=None,
            run=None,
            breakdown=None,
        )
        for index, number in enumerate(order)
    ]


@dataclass(frozen=True)
class TableProgress:
    table: QualifyingTable
    drivers: int
    runs_by_session: dict[int, int]


def qualifying_progress(*, event: Event) -> list[TableProgress]:
    """How many runs each qualifying table has entered, per session."""
    sessions = list(event.sessions.order_by("number").values_list("number", flat=True))
    tables = list(
        QualifyingTable.objects.filter(event=event).annotate(
            n_drivers=Count("seats", distinct=True)
        )
    )
    seat_table = dict(
        event.qualifying_tables.values_list("seats__driver_id", "id").exclude(seats__driver_id=None)
    )
    counts: dict[int, dict[int, int]] = defaultdict(lambda: defaultdict(int))
    for driver_id, session_number in Run.objects.filter(
        session__event=event, cancelled=False
    ).values_list("driver_id", "session__number"):
        table_id = seat_table.get(driver_id)
        if table_id is not None:
            counts[table_id][session_number] += 1
    return [
        TableProgress(
            table=t,
            drivers=t.n_drivers,
            runs_by_session={n: counts[t.id][n] for n in sessions},
        )
        for t in tables
    ]


def table_drivers(*, table: QualifyingTable) -> list[Driver]:
    return [s.driver for s in table.seats.select_related("driver", "driver__team")]


def table_runs(*, table: QualifyingTable, session: QualifyingSession) -> dict[int, Run]:
    """Counted runs of this table's drivers in ``session``, by driver id."""
    return {
        r.driver_id: r
        for r in Run.objects.filter(
            session=session, cancelled=False, driver__qualifying_seats__table=table
        ).select_related("session", "session__event", "driver")
    }


def run_history(*, session: QualifyingSession, driver: Driver) -> list[object]:
    """Every recorded version of this driver's runs in ``session``, newest first."""
    return list(
        Run.history.filter(session_id=session.pk, driver_id=driver.pk)
        .select_related("history_user")
        .order_by("-history_date", "-history_id")
    )
