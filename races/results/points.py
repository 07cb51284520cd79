"""Championship points and standings for Formula Dé competitions: no database here.

Everything in this module is pure: plain values in, plain values out. Article numbers
in comments (``§21-1-2``) refer to ``rules/formule-de-competition-rules.fr.txt``.

The rule text only says that a driver must cross the finishing line to score the
points the organisers give for their place (§21-1-2). The scales, the day
classification, the ``overall`` mode, best-K results, countback and shared ranks are
the product choices described in DOMAIN.md ("Race result and retirements",
championship standings).

Exception messages are plain English on purpose: callers translate them.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple, get_args

from races.results.rules import Placed
from races.sanctions.rules import championship_total

# Points by place, 1st first; places beyond the scale score nothing.
Mode = Literal["per_table", "overall"]
#: Read once: a championship's standings ask for every one of its results.
MODES = get_args(Mode)


def _check_int(name: str, value: object, *, minimum: int) -> None:
    if type(value) is int and value >= minimum:  # the usual case, checked at once
        return
    # bool is an int subclass; a stray True would silently count as 1.
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value}")


def _check_scale(scale: Sequence[int]) -> None:
    for points in scale:
        _check_int("points in the scale", points, minimum=0)


def _scale_points(scale: Sequence[int], place: int) -> int:
    return scale[place - 1] if place <= len(scale) else 0


# ---------------------------------------------------------------------------
# Day classification
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class DayLine:
    """A driver's line in the day classification of one event."""

    driver: Hashable
    table: int
    position: int
    rank: int
    status: str
    cause: str | None
    lap: int | None
    points: int
    #: The place at the table as the game shares it (in games where equal results share
    #: a place); None: the position, Formula Dé shares none.
    place: int | None = None
    #: Championship points removed by a sanction (§1-2-3), already taken off ``points``.
    removed: int = 0

    @property
    def table_place(self) -> int:
        return self.position if self.place is None else self.place


def day_classification(
    tables: Sequence[Sequence[Placed]], *, scale: Sequence[int], mode: Mode = "per_table"
) -> list[DayLine]:
    """The day classification: table 1's classification, then table 2's, and so on.

    ``tables`` are the table classifications, table 1 first; each is placed by
    ``position``. Only finishers score (§21-1-2). Mode ``per_table`` gives
    ``scale[position - 1]``; mode ``overall`` gives ``scale[rank - 1]``, retired and
    non-starting drivers taking their ranks with 0 points (so the winner at table 2
    behind an 8-driver table 1 is rank 9). Places beyond the scale score 0.
    """
    if mode not in get_args(Mode):
        raise ValueError(f"unknown points mode: {mode!r}")
    _check_scale(scale)
    seen: set[Hashable] = set()
    lines: list[DayLine] = []
    for number, table in enumerate(tables, start=1):
        for line in table_lines(
            table, table=number, first_rank=len(lines) + 1, scale=scale, mode=mode
        ):
            if line.driver in seen:
                raise ValueError(f"driver {line.driver!r} is classified twice")
            seen.add(line.driver)
            lines.append(line)
    return lines


def table_lines(
    placed: Sequence[Placed],
    *,
    table: int,
    first_rank: int,
    scale: Sequence[int],
    mode: Mode = "per_table",
) -> list[DayLine]:
    """One table's part of the day classification, its first driver at ``first_rank``.

    Lets a table be scored as soon as it is confirmed: its ranks only depend on how many
    drivers sit at the tables before it, not on their results.
    """
    if mode not in get_args(Mode):
        raise ValueError(f"unknown points mode: {mode!r}")
    _check_scale(scale)
    lines: list[DayLine] = []
    for offset, line in enumerate(sorted(placed, key=lambda p: p.position)):
        _check_int("position", line.position, minimum=1)
        rank = first_rank + offset
        points = 0
        if line.status == "finished":  # §21-1-2
            points = _scale_points(scale, line.position if mode == "per_table" else rank)
        lines.append(
            DayLine(
                driver=line.driver,
                table=table,
                position=line.position,
                rank=rank,
                status=line.status,
                cause=line.cause,
                lap=line.lap,
                points=points,
                place=line.position,
            )
        )
    return lines


def disqualified_after(
    lines: Sequence[DayLine], disqualified: Sequence[Hashable], *, table: int
) -> list[DayLine]:
    """A table's lines once some of its drivers are disqualified (§1-2-3): ``lines`` are the
    table classified and scored without them (DOMAIN.md "Every game's evening": the table
    is reclassified without the driver, then scored, in every game); the disqualified
    follow with status ``dsq`` and 0 points, their ranks for the caller to set (last of
    the event)."""
    out = sorted(lines, key=lambda line: line.position)
    last = out[-1].rank if out else 0
    for driver in disqualified:
        out.append(
            DayLine(
                driver=driver,
                table=table,
                position=len(out) + 1,
                rank=last + 1,
                status="dsq",
                cause=None,
                lap=None,
                points=0,
                place=len(out) + 1,
            )
        )
    return out


# ---------------------------------------------------------------------------
# Championship standings
# ---------------------------------------------------------------------------


class EventResult(NamedTuple):
    """A driver's confirmed result at one event: table position and points.

    ``counted_place`` is the place the result counts for in countback (see
    :func:`countback_place`); None: it counts for none.

    A named tuple rather than a frozen dataclass: as plain and as immutable, and a
    championship's standings make one per driver and event (10,000 at 1,000 drivers),
    which a frozen dataclass's ``__init__`` made three times dearer.
    """

    event: Hashable
    driver: Hashable
    position: int
    status: str
    points: int
    counted_place: int | None


def countback_place(*, mode: Mode, status: str, place: int, rank: int) -> int | None:
    """The place a result counts for when equal points are broken by countback (DOMAIN.md
    "What the day enforces"), None when it counts for none.

    Mode ``per_table`` counts places at the table: a retirement holds its place, and
    drivers sharing a place (the games that share places) count the same place. Mode
    ``overall`` counts day ranks, shared the same way. A driver who did not start, or was
    disqualified (§1-2-3), took no place: it counts for nothing.
    """
    if mode not in MODES:
        raise ValueError(f"unknown points mode: {mode!r}")
    if status in ("dns", "dsq"):
        return None
    counted = place if mode == "per_table" else rank
    _check_int("counted place", counted, minimum=1)
    return counted


#: The statuses that score (§21-1-2: who crossed the line; other games: a car still on the
#: road when the race stopped). The others score 0 whatever their place.
SCORING_STATUSES = ("finished", "running")


def line_points(*, scale: Sequence[int], mode: Mode, status: str, place: int, rank: int) -> int:
    """What a stored line scores on another ``scale`` and ``mode`` than its championship's
    (a league counting the event): the place at the table (``per_table``; a shared place
    takes the better points) or the day's rank (``overall``), for a scoring status only."""
    if mode not in MODES:
        raise ValueError(f"unknown points mode: {mode!r}")
    if status not in SCORING_STATUSES:
        return 0
    counted = place if mode == "per_table" else rank
    _check_int("counted place", counted, minimum=1)
    return _scale_points(scale, counted)


def points_after_sanction(points: int, removed: int) -> int:
    """An event's line once a sanction removed ``removed`` points (§1-2-3): the line of
    the event never shows less than 0. The championship total takes the whole of
    ``removed`` off all the same (:func:`races.sanctions.rules.championship_total`)."""
    _check_int("points", points, minimum=0)
    _check_int("points removed", removed, minimum=0)
    return max(0, points - removed)


@dataclass(frozen=True)
class StandingLine:
    """A driver's line in the championship standings.

    ``counted`` lists the events whose points count (all of them without a best-K
    option), in the order the results were given; ``results`` are all the driver's
    results in that order; ``countback`` counts the driver's 1st, 2nd, 3rd... counted
    places over all results (:func:`countback_place`), one entry per place up to the
    highest place anyone counts, so that every line has the same length.
    """

    rank: int
    driver: Hashable
    points: int
    counted: tuple[Hashable, ...]
    results: tuple[EventResult, ...]
    countback: tuple[int, ...]
    #: Championship points removed by sanctions (§1-2-3), already off ``points``.
    removed: int = 0


def standings(
    drivers: Sequence[Hashable],
    results: Iterable[EventResult],
    *,
    best: int | None = None,
    removed: Mapping[Hashable, int] | None = None,
) -> list[StandingLine]:
    """The championship standings of ``drivers`` over ``results``.

    Every driver is listed, with 0 points if need be; a driver with results who is
    not in ``drivers`` is added after them, in the order of their first result.
    Points are the sum of all results, or of the ``best`` highest ones when set
    (equal points: the earlier result counts). Equal points are separated by
    countback over all results: more 1st places (each result's ``counted_place``),
    then more 2nd places, and so on. Lines still equal share a rank (1, 2, 2, 4) and keep the order
    of ``drivers``. ``removed`` (points sanctions, by driver) comes off each total after
    best-K, in full (:func:`races.sanctions.rules.championship_total`); a total may go below
    zero. Results' ``points`` are then what the events scored before any sanction.
    """
    if best is not None:
        _check_int("best results", best, minimum=1)
    # Each driver's results by event, in the order given (a dict: an event twice is seen at
    # once); drivers in the order of ``drivers``, then of their first result.
    by_driver: dict[Hashable, dict[Hashable, EventResult]] = {}
    for driver in drivers:
        if driver in by_driver:
            raise ValueError(f"driver {driver!r} is listed twice")
        by_driver[driver] = {}
    deepest = 0
    for result in results:
        position, points, place = result.position, result.points, result.counted_place
        # The usual case checked at once, the rest by _check_int (a championship's standings
        # check every one of its results).
        if type(position) is not int or position < 1:
            _check_int("position", position, minimum=1)
        if type(points) is not int or points < 0:
            _check_int("points", points, minimum=0)
        driver_results = by_driver.get(result.driver)
        if driver_results is None:
            driver_results = by_driver[result.driver] = {}
        if result.event in driver_results:
            raise ValueError(f"driver {result.driver!r} has two results at event {result.event!r}")
        driver_results[result.event] = result
        if place is not None:
            if type(place) is not int or place < 1:
                _check_int("counted place", place, minimum=1)
            if place > deepest:
                deepest = place

    taken_of = removed or {}
    unranked: list[tuple[Any, ...]] = []  # points, countback, driver, results, taken, counted
    for driver, by_event in by_driver.items():
        driver_results = tuple(by_event.values())
        kept: Sequence[EventResult] = driver_results
        if best is not None and len(driver_results) > best:
            # sorted() is stable, reversed too: among equal points the earlier result is kept.
            chosen = sorted(driver_results, key=_points_of, reverse=True)[:best]
            # By identity: comparing the results field by field cost more than the rest.
            chosen_ids = {id(result) for result in chosen}
            kept = [result for result in driver_results if id(result) in chosen_ids]
        countback = [0] * deepest
        for result in driver_results:
            if result.counted_place is not None:
                countback[result.counted_place - 1] += 1
        taken = taken_of.get(driver, 0)
        unranked.append(
            (
                championship_total([result.points for result in kept], taken),
                tuple(countback),
                driver,
                driver_results,
                taken,
                tuple([result.event for result in kept]),
            )
        )

    # More points first, then more 1st places, more 2nd places... (countback): the same
    # order as ascending (-points, -countback), each line of equal length. A stable sort,
    # reversed too, over lines in the order of ``drivers``: equal lines keep it.
    unranked.sort(key=_order_of, reverse=True)
    ranked: list[StandingLine] = []
    rank = 0
    for index, (points, countback, driver, driver_results, taken, counted) in enumerate(unranked):
        # Written 1, 2, 2, 4: a shared rank still uses up the places it covers.
        previous = unranked[index - 1] if index else None
        if previous is None or previous[0] != points or previous[1] != countback:
            rank = index + 1
        ranked.append(
            StandingLine(
                rank=rank,
                driver=driver,
                points=points,
                removed=taken,
                counted=counted,
                results=driver_results,
                countback=countback,
            )
        )
    return ranked


def _points_of(result: EventResult) -> int:
    return result.points


def _order_of(line: tuple[Any, ...]) -> tuple[int, tuple[int, ...]]:
    return line[0], line[1]


# ---------------------------------------------------------------------------
# Team standings
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class TeamLine:
    rank: int
    team: Hashable
    points: int


def team_standings(
    lines: Sequence[StandingLine], team_of: Mapping[Hashable, Hashable | None]
) -> list[TeamLine]:
    """Team standings: the sum of the team's drivers' counted points.

    Drivers without a team (absent from ``team_of`` or mapped to None) are left out.
    Equal points share a rank (1, 2, 2, 4); teams with equal points keep the order in
    which they first appear in ``lines``.
    """
    totals: dict[Hashable, int] = {}
    for line in lines:
        team = team_of.get(line.driver)
        if team is not None:
            totals[team] = totals.get(team, 0) + line.points
    ordered = sorted(totals.items(), key=lambda item: -item[1])
    ranked: list[TeamLine] = []
    for index, (team, points) in enumerate(ordered):
        shared = index > 0 and points == ordered[index - 1][1]
        rank = ranked[-1].rank if shared else index + 1
        ranked.append(TeamLine(rank=rank, team=team, points=points))
    return ranked
