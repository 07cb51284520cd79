"""Qualifying arithmetic for Formula Dé competitions: no database here.

Everything in this module is pure: plain values in, plain values out, so that the
rules of the French competition text (``rules/formule-de-competition-rules.fr.txt``)
can be checked in isolation. Article numbers in comments (``§1-3-2``) refer to that
text; the quick-rules draw refers to ``rules/formule-de-quick-rules.fr.txt`` §2.

Exception messages are plain English on purpose: callers translate them.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Collection, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal, get_args

# The weather scale and the stopwatch's reading live on the ground (the event's and the
# circuit's forms and models read them too); qualifying reads them from there, and its
# modules the stopwatch's names through this one.
from tournament.rules.scales import Weather, check_d20
from tournament.rules.stopwatch import DEFAULT_MAX_STOPWATCH_CS as DEFAULT_MAX_STOPWATCH_CS
from tournament.rules.stopwatch import DEFAULT_MIN_STOPWATCH_CS as DEFAULT_MIN_STOPWATCH_CS
from tournament.rules.stopwatch import ShortReading as ShortReading
from tournament.rules.stopwatch import format_stopwatch as format_stopwatch
from tournament.rules.stopwatch import full_minutes
from tournament.rules.stopwatch import parse_stopwatch as parse_stopwatch
from tournament.rules.stopwatch import short_reading as short_reading
from tournament.rules.stopwatch import stopwatch_parts as stopwatch_parts

Tyres = Literal["hard", "soft", "rain"]
Track = Literal["dry", "wet"]
Mode = Literal["best", "sum"]
Status = Literal["ok", "eliminated", "incomplete", "no_run"]


def _check_count(name: str, value: int) -> None:
    # bool is an int subclass; a stray True would silently count as 1.
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if value < 0:
        raise ValueError(f"{name} must not be negative, got {value}")


# ---------------------------------------------------------------------------
# Tyres and weather
# ---------------------------------------------------------------------------

# Qualifying is a single lap on new tyres, so only the first-lap factors apply:
# §8-1-1/§8-1-2 hard is normal on both tracks, §8-2-1/§8-2-2 soft doubles on both,
# §8-3-1 rain doubles on a dry track and §8-3-2 is normal on a wet one.
_TYRE_FACTORS: dict[tuple[str, str], int] = {
    ("hard", "dry"): 1,
    ("soft", "dry"): 2,
    ("rain", "dry"): 2,
    ("hard", "wet"): 1,
    ("soft", "wet"): 2,
    ("rain", "wet"): 1,
}


def tyre_factor(tyres: Tyres, track: Track) -> int:
    """Throws added per corner-exit square in qualifying (§1-1-12, §8)."""
    try:
        return _TYRE_FACTORS[(tyres, track)]
    except (KeyError, TypeError):
        raise ValueError(f"unknown tyres/track: {tyres!r}/{track!r}") from None


def qualifying_track(weather: Weather) -> Track:
    """Track state for a qualifying session (§3-1-2 … §3-1-4)."""
    # Variable means clouds without rain during qualifying, hence dry (§3-1-4).
    if weather in ("sun", "variable"):
        return "dry"
    if weather == "rain":
        return "wet"
    raise ValueError(f"unknown weather: {weather!r}")


def roll_d20() -> int:
    """A fair d20 roll from the operating system's secure random source."""
    # secrets rather than random: draws decide grid places and must not be
    # predictable from earlier rolls.
    return secrets.randbelow(20) + 1


# ---------------------------------------------------------------------------
# Absolute time
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Breakdown:
    """The parts of an absolute time, all counted in throws.

    ``sanction``: throws the organisers added to the run (§1-2-3: "l'organisateur
    décidera des conséquences à donner"), 0 without a sanction.
    """

    throws: int
    placement: int
    corner_exits: int
    minutes: int
    sanction: int = 0

    @property
    def total(self) -> int:
        return self.throws + self.placement + self.corner_exits + self.minutes + self.sanction


def absolute_time(
    *,
    throws: int,
    placement_errors: int,
    exit_squares: int,
    tyres: Tyres,
    track: Track,
    stopwatch_cs: int,
    minute_penalty: bool = True,
) -> Breakdown:
    """Absolute time of one qualifying lap (§1-1-10 … §1-1-13, §8)."""
    _check_count("throws", throws)
    _check_count("placement errors", placement_errors)
    _check_count("corner-exit squares", exit_squares)
    _check_count("stopwatch time", stopwatch_cs)
    factor = tyre_factor(tyres, track)
    return Breakdown(
        throws=throws,
        placement=10 * placement_errors,
        corner_exits=exit_squares * factor,
        # Some leagues drop the minute rule; the stopwatch still breaks ties.
        minutes=full_minutes(stopwatch_cs) if minute_penalty else 0,
    )


# ---------------------------------------------------------------------------
# Session classification
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class RunResult:
    """One counted qualifying run, as far as classification cares."""

    driver: Hashable
    session: int
    eliminated: bool
    absolute: int | None
    stopwatch_cs: int | None
    order: tuple[Any, ...]

    def __post_init__(self) -> None:
        # An eliminated run keeps whatever numbers were noted; they are ignored.
        # A run that counts must have both, or it cannot be placed at all.
        if not self.eliminated:
            if self.absolute is None or self.stopwatch_cs is None:
                raise ValueError(
                    f"run of driver {self.driver!r} in session {self.session} "
                    "is not eliminated but has no absolute or stopwatch time"
                )
            _check_count("absolute time", self.absolute)
            _check_count("stopwatch time", self.stopwatch_cs)


def run_sort_key(run: RunResult) -> tuple[Any, ...]:
    """Ordering key of §1-3-2, with eliminated runs last (§1-1-14)."""
    # Leading 0/1 keeps the two tuple shapes from ever being compared further.
    if run.eliminated:
        # The rule only says "classé dernier"; among several eliminated runs the
        # one performed first stays ahead, like the perfect tie of §1-3-2.
        return (1, run.order)
    return (0, run.absolute, run.stopwatch_cs, run.order)


@dataclass(frozen=True)
class RankedRun:
    rank: int
    run: RunResult


def classify_session(runs: Iterable[RunResult]) -> list[RankedRun]:
    """Rank the runs of one session 1..n; the order performed breaks every tie."""
    ordered = sorted(runs, key=run_sort_key)
    return [RankedRun(rank, run) for rank, run in enumerate(ordered, start=1)]


# ---------------------------------------------------------------------------
# General classification
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class GeneralRow:
    rank: int
    driver: Hashable
    status: Status
    absolute: int | None
    stopwatch_cs: int | None
    session: int | None
    runs: tuple[RunResult, ...]


def classify_general(
    *,
    drivers: Sequence[Hashable],
    sessions: Sequence[int],
    runs: Iterable[RunResult],
    mode: Mode = "best",
) -> list[GeneralRow]:
    """Classify every driver over an event's qualifying sessions.

    ``drivers`` are the registered drivers in registration order. Mode ``best``
    keeps each driver's best run (§1-3-2); mode ``sum`` adds the runs of every
    session in ``sessions``. Drivers without a run come last, in registration
    order. Each driver appears exactly once, ranks are 1..N without sharing.
    """
    if mode not in get_args(Mode):
        raise ValueError(f"unknown classification mode: {mode!r}")
    registration: dict[Hashable, int] = {}
    for driver in drivers:
        if driver in registration:
            raise ValueError(f"driver {driver!r} is registered twice")
        registration[driver] = len(registration)

    by_driver: dict[Hashable, list[RunResult]] = {}
    for run in sorted(runs, key=lambda run: run.order):
        by_driver.setdefault(run.driver, []).append(run)
    for driver, driver_runs in by_driver.items():
        seen: set[int] = set()
        for run in driver_runs:
            if run.session in seen:
                raise ValueError(f"driver {driver!r} has two runs in session {run.session}")
            seen.add(run.session)
        # Unregistered drivers (late entries) still get classified; runs are
        # sorted, so they join in the order of their first run.
        registration.setdefault(driver, len(registration))

    keyed = _best_rows(by_driver) if mode == "best" else _sum_rows(by_driver, sessions)
    keyed.extend(
        ((3, index), _unranked(driver, "no_run", None, None, None, ()))
        for driver, index in registration.items()
        if driver not in by_driver
    )
    # Registration index last: even if a caller's order keys collide, the result
    # must not depend on the order the runs were given in.
    keyed.sort(key=lambda item: (item[0], registration[item[1].driver]))
    return [replace(row, rank=rank) for rank, (_, row) in enumerate(keyed, start=1)]


# Rows are built unranked (rank 0) with their sort key, then ranked once sorted.
_Keyed = list[tuple[tuple[Any, ...], GeneralRow]]


def _unranked(
    driver: Hashable,
    status: Status,
    absolute: int | None,
    stopwatch_cs: int | None,
    session: int | None,
    runs: tuple[RunResult, ...],
) -> GeneralRow:
    return GeneralRow(0, driver, status, absolute, stopwatch_cs, session, runs)


def _best_rows(by_driver: Mapping[Hashable, list[RunResult]]) -> _Keyed:
    keyed: _Keyed = []
    for driver, driver_runs in by_driver.items():
        runs = tuple(driver_runs)
        best = min(runs, key=run_sort_key)
        if best.eliminated:
            first = runs[0]
            row = _unranked(driver, "eliminated", None, None, first.session, runs)
            keyed.append(((1, first.order), row))
        else:
            row = _unranked(driver, "ok", best.absolute, best.stopwatch_cs, best.session, runs)
            keyed.append(((0, run_sort_key(best)), row))
    return keyed


def _sum_rows(by_driver: Mapping[Hashable, list[RunResult]], sessions: Sequence[int]) -> _Keyed:
    wanted = set(sessions)
    keyed: _Keyed = []
    for driver, driver_runs in by_driver.items():
        runs = tuple(driver_runs)
        stray = sorted({run.session for run in runs} - wanted)
        if stray:
            # A sum over sessions nobody asked for would be meaningless.
            raise ValueError(
                f"driver {driver!r} has runs in sessions {stray} "
                f"outside the classified sessions {sorted(wanted)}"
            )
        if any(run.eliminated for run in runs):
            row = _unranked(driver, "eliminated", None, None, None, runs)
            keyed.append(((1, runs[0].order), row))
            continue
        # Never None here: RunResult refuses a counted run without its times.
        absolute = sum(run.absolute or 0 for run in runs)
        stopwatch = sum(run.stopwatch_cs or 0 for run in runs)
        last = runs[-1].order
        # No strays and no duplicates, so equal counts mean every session is run.
        if len(runs) == len(wanted):
            row = _unranked(driver, "ok", absolute, stopwatch, None, runs)
            keyed.append(((0, absolute, stopwatch, last), row))
        else:
            row = _unranked(driver, "incomplete", absolute, stopwatch, None, runs)
            # Those who ran more sessions are closer to a complete result.
            keyed.append(((2, -len(runs), absolute, stopwatch, last), row))
    return keyed


# ---------------------------------------------------------------------------
# Quick-rules draw
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class DrawOutcome:
    order: list[Hashable]
    rolls: dict[Hashable, tuple[int, ...]]
    pending_ties: list[list[Hashable]]


# A genuine d20 tie lasting this long has odds of 20**-100; only a broken roll
# function gets here, and looping forever would hang a request.
_MAX_REROLLS = 100


def resolve_draw(
    rolls: Mapping[Hashable, Sequence[int]],
    *,
    system: Collection[Hashable],
    roll: Callable[[], int] = roll_d20,
) -> DrawOutcome:
    """Grid order of the quick rules' d20 draw: lowest roll takes pole (§2).

    ``rolls`` gives each driver's rolls so far (first roll, re-roll, ...). Drivers
    in ``system`` are rolled for with ``roll``; the others roll physical dice and
    their rolls are recorded by the caller. Ties are re-rolled among the tied
    drivers only. A group waiting for a physical re-roll is reported in
    ``pending_ties`` and keeps its place in ``order``.
    """
    # The text says nothing of ties; re-rolling among the tied drivers is a
    # product choice (DOMAIN.md, "Mode draw").
    sequences: dict[Hashable, list[int]] = {}
    for driver, driver_rolls in rolls.items():
        for value in driver_rolls:
            check_d20(value)
        sequences[driver] = list(driver_rolls)

    def draw(driver: Hashable) -> None:
        value = roll()
        check_d20(value)
        sequences[driver].append(value)

    # A system driver's first roll is nobody else's business: roll it now.
    for driver, driver_rolls in sequences.items():
        if driver in system and not driver_rolls:
            draw(driver)

    order: list[Hashable] = []
    pending: list[list[Hashable]] = []

    def settle(group: list[Hashable], depth: int) -> None:
        if len(group) == 1:
            order.extend(group)
            return
        if depth >= _MAX_REROLLS:
            raise RuntimeError("the roll function keeps producing ties")
        if any(driver not in system and len(sequences[driver]) <= depth for driver in group):
            # System drivers wait so that the whole group re-rolls together.
            order.extend(group)
            pending.append(list(group))
            return
        for driver in group:
            if len(sequences[driver]) <= depth:
                draw(driver)
        for value in sorted({sequences[driver][depth] for driver in group}):
            settle([d for d in group if sequences[d][depth] == value], depth + 1)

    rolled = [driver for driver in sequences if sequences[driver]]
    unrolled = [driver for driver in sequences if not sequences[driver]]
    if rolled:
        for value in sorted({sequences[driver][0] for driver in rolled}):
            settle([d for d in rolled if sequences[d][0] == value], 1)
    if unrolled:
        # Physical drivers who have not rolled yet cannot be placed; keep them
        # together at the back until their dice are recorded.
        order.extend(unrolled)
        pending.append(unrolled)

    return DrawOutcome(
        order=order,
        rolls={driver: tuple(values) for driver, values in sequences.items()},
        pending_ties=pending,
    )


def _no_roll() -> int:
    raise RuntimeError("reading a draw never rolls a die")


def draw_standing(rolls: Mapping[Hashable, Sequence[int]]) -> DrawOutcome:
    """The grid order of the rolls recorded so far, rolling nothing (§2 of the quick rules).

    Lowest first roll takes pole; a re-roll only orders the drivers who tied, among
    themselves: a driver who re-rolled never passes one who has not re-rolled yet. Tied
    drivers still waiting for a re-roll stay together in ``pending_ties`` (in the order
    given), and so does any driver with no roll at all.
    """
    return resolve_draw(rolls, system=(), roll=_no_roll)
