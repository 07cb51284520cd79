"""Reads for qualifying: classifications, progress, a table's drivers and runs.

The ordering itself lives in ``qualifying.scoring``; here we only fetch and attach objects.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, replace

from django.db.models import Count

from qualifying import scoring
from qualifying.models import (
    DrawRoll,
    QualifyingSession,
    QualifyingTable,
    Run,
    run_breakdown,
    run_result,
)
from races.sanctions import rules as sanction_rules
from tournament.models import Driver, Entry, Event, Sanction, Team


@dataclass(frozen=True)
class ClassifiedLine:
    """A classification row with the objects pages, API and sheets display."""

    rank: int
    driver: Driver
    status: str
    absolute_time: int | None
    stopwatch_cs: int | None
    session: int | None
    breakdown: scoring.Breakdown | None

    @property
    def stopwatch(self) -> str | None:
        return None if self.stopwatch_cs is None else scoring.format_stopwatch(self.stopwatch_cs)


def _with_teams(drivers: Iterable[Driver]) -> list[Driver]:
    """The drivers, each with its team attached: a team read once, not once per driver."""
    found = list(drivers)
    teams = Team.objects.in_bulk({d.team_id for d in found if d.team_id is not None})
    driver_team = Driver._meta.get_field("team")
    for driver in found:
        driver_team.set_cached_value(driver, teams.get(driver.team_id))
    return found


def throws_added(event: Event) -> dict[tuple[int, int], int]:
    """Throws the organisers added to runs (§1-2-3), by (driver id, session number)."""
    return sanction_rules.throws_added(
        sanction_rules.Sanction(driver=d, kind="throws", value=v, session=n)
        for d, v, n in Sanction.objects.filter(
            event=event, kind=Sanction.Kind.THROWS, withdrawn_at__isnull=True
        ).values_list("driver_id", "value", "session")
    )


def _sanctioned(run: Run, added: dict[tuple[int, int], int]) -> scoring.Breakdown | None:
    """The run's breakdown with the throws a sanction added (shown as their own part)."""
    return _with_sanction(run.breakdown(), added.get((run.driver_id, run.session.number), 0))


def _with_sanction(breakdown: scoring.Breakdown | None, extra: int) -> scoring.Breakdown | None:
    if breakdown is None or not extra:
        return breakdown
    return replace(breakdown, sanction=extra)


def session_classification(*, session: QualifyingSession) -> list[ClassifiedLine]:
    """One session's order (§1-3-2, eliminated last §1-1-14), throws added by a sanction
    counted (§1-2-3)."""
    runs = list(
        session.runs.filter(cancelled=False).select_related(
            "session", "session__event", "driver", "driver__team"
        )
    )
    added = throws_added(session.event)
    by_key = {}
    breakdowns = {}
    results = []
    for run in runs:  # each run's breakdown once: the classification and its line share it
        breakdown = breakdowns[run.pk] = _sanctioned(run, added)
        result = run.as_result(breakdown)
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
                breakdown=breakdowns[run.pk],
            )
        )
    return lines


_RUN_ROW = (
    "pk",
    "session_id",
    "driver_id",
    "eliminated",
    "throws",
    "placement_errors",
    "exit_squares",
    "tyres",
    "stopwatch_cs",
    "performed_at",
)


def general_classification(*, event: Event) -> list[ClassifiedLine]:
    """The event's classification over its sessions (mode ``best`` or ``sum``, or the draw).

    Runs are read as plain rows: as model instances, 2,000 runs were most of its time.
    """
    if event.qualifying_mode == Event.QualifyingMode.DRAW:
        return draw_classification(event=event)
    # The entered drivers in the order of their entries (registration), without the entries.
    entered = _with_teams(
        Driver.objects.filter(entries__event=event).order_by(
            "entries__registered_at", "entries__id"
        )
    )
    sessions = list(QualifyingSession.objects.filter(event=event))
    session_by_id = {session.pk: session for session in sessions}
    rows = list(Run.objects.filter(session__event=event, cancelled=False).values_list(*_RUN_ROW))
    by_id = {driver.pk: driver for driver in entered}
    missing = {row[2] for row in rows} - by_id.keys()
    if missing:  # a run but no entry (withdrawn after running): still classified
        by_id.update((d.pk, d) for d in _with_teams(Driver.objects.filter(pk__in=missing)))
    drivers = {driver.number: driver for driver in by_id.values()}
    added = throws_added(event)
    breakdowns: dict[tuple[int, int], scoring.Breakdown | None] = {}
    results = []
    for pk, session_id, driver_id, eliminated, throws, placement, exits, tyres, cs, at in rows:
        session, number = session_by_id[session_id], by_id[driver_id].number
        breakdown = _with_sanction(
            run_breakdown(
                eliminated=eliminated,
                throws=throws,
                placement_errors=placement,
                exit_squares=exits,
                tyres=tyres,
                stopwatch_cs=cs,
                track=session.track,
                minute_penalty=event.minute_penalty,
            ),
            added.get((driver_id, session.number), 0),
        )
        breakdowns[(number, session.number)] = breakdown
        results.append(
            run_result(
                pk=pk,
                driver=number,
                session=session.number,
                eliminated=eliminated,
                breakdown=breakdown,
                stopwatch_cs=cs,
                performed_at=at,
            )
        )
    classified = scoring.classify_general(
        drivers=[driver.number for driver in entered],
        sessions=[session.number for session in sessions],
        runs=results,
        mode=event.qualifying_mode,  # type: ignore[arg-type]
    )
    lines = []
    for row in classified:
        if event.qualifying_mode == Event.QualifyingMode.SUM:
            # The total is a sum of runs: so is its breakdown (shown wherever a total is).
            counted = [breakdowns[(r.driver, r.session)] for r in row.runs]
            breakdown = _sum_breakdowns(counted) if row.absolute is not None else None
        elif row.session is not None and row.status == "ok":
            breakdown = breakdowns[(row.driver, row.session)]
        else:
            breakdown = None
        lines.append(
            ClassifiedLine(
                rank=row.rank,
                driver=drivers[row.driver],
                status=row.status,
                absolute_time=row.absolute,
                stopwatch_cs=row.stopwatch_cs,
                session=row.session,
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
        sanction=sum(p.sanction for p in present),
    )


def _draw_outcome(
    event: Event, entries: list[Entry]
) -> tuple[dict[int, Driver], scoring.DrawOutcome]:
    drivers = {e.driver.number: e.driver for e in entries}
    rolls = {
        r.driver.number: r.rolls
        for r in DrawRoll.objects.filter(event=event).select_related("driver")
    }
    # In driver-number order, so that drivers still tied are listed by number.
    return drivers, scoring.draw_standing({n: list(rolls.get(n) or []) for n in sorted(drivers)})


def draw_classification(
    *, event: Event, entries: list[Entry] | None = None
) -> list[ClassifiedLine]:
    """Quick rules §2: the grid order of the d20 draw (lowest first), undrawn drivers last.

    A re-roll orders only the drivers who tied (``scoring.draw_standing``); drivers still
    waiting for their re-roll keep their place together, by number.
    """
    if entries is None:
        entries = list(Entry.objects.filter(event=event).select_related("driver", "driver__team"))
    drivers, outcome = _draw_outcome(event, entries)
    return [
        ClassifiedLine(
            rank=index + 1,
            driver=drivers[number],
            status="ok" if outcome.rolls.get(number) else "no_run",
            absolute_time=None,
            stopwatch_cs=None,
            session=None,
            breakdown=None,
        )
        for index, number in enumerate(outcome.order)
    ]


def draw_pending_ties(*, event: Event) -> list[list[Driver]]:
    """The drivers of the quick rules' draw who still need a die, once the draw has begun:
    each group of equal rolls waiting for its re-roll, then the drivers who have not
    rolled yet (none while nobody has rolled: the grid is then the registration order,
    as the other games use it). Only the
    drivers present when the event uses check-in, as the draw and the allocation."""
    entries = list(Entry.objects.filter(event=event).select_related("driver", "driver__team"))
    entries = [e for e in entries if e.checked_in] or entries
    drivers, outcome = _draw_outcome(event, entries)
    if not any(outcome.rolls.values()):
        return []  # no draw at all: the grid is the registration order (other games)
    return [[drivers[n] for n in group] for group in outcome.pending_ties]


@dataclass(frozen=True)
class TableProgress:
    table: QualifyingTable
    drivers: int
    runs_by_session: dict[int, int]


def qualifying_progress(
    *, event: Event, sessions: Iterable[QualifyingSession] | None = None
) -> list[TableProgress]:
    """How many runs each qualifying table has entered, per session (``sessions``: the
    event's, when the caller has read them already)."""
    if sessions is None:
        numbers = list(event.sessions.order_by("number").values_list("number", flat=True))
    else:
        numbers = sorted(session.number for session in sessions)
    tables = list(
        QualifyingTable.objects.filter(event=event).annotate(
            n_drivers=Count("seats", distinct=True)
        )
    )
    # Counted by the database, per table and session: the event's runs of each driver
    # seated at one of its tables (a driver has one seat per event).
    counts: dict[int, dict[int, int]] = defaultdict(lambda: defaultdict(int))
    for table_id, session_number, runs in (
        Run.objects.filter(
            session__event=event, cancelled=False, driver__qualifying_seats__table__event=event
        )
        .values_list("driver__qualifying_seats__table", "session__number")
        .annotate(runs=Count("pk"))
        .order_by()
    ):
        counts[table_id][session_number] = runs
    return [
        TableProgress(
            table=t,
            drivers=t.n_drivers,
            runs_by_session={n: counts[t.id][n] for n in numbers},
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


def previous_tyres(
    *, table: QualifyingTable, session: QualifyingSession
) -> dict[int, tuple[str, int]]:
    """The tyres each driver of ``table`` ran on in the latest earlier session, by driver id,
    with that session's number: offered (and marked as such) for a run not entered yet."""
    found: dict[int, tuple[str, int]] = {}
    earlier = (
        Run.objects.filter(
            session__event=session.event_id,
            session__number__lt=session.number,
            cancelled=False,
            driver__qualifying_seats__table=table,
        )
        .order_by("-session__number")
        .values_list("driver_id", "tyres", "session__number")
    )
    for driver_id, tyres, number in earlier:
        found.setdefault(driver_id, (tyres, number))
    return found
