"""A table's race result as the referee writes it (Formula Dé): no database here.

Everything in this module is pure: plain values in, plain values out. Article numbers
in comments (``§21-1-4``) refer to ``rules/formule-de-competition-rules.fr.txt``.

The referee writes the grid, each retirement with its cause, and the finishing order
(§2-0-3). The race ends when every driver has retired or crossed the line (§21-1-3),
so a submitted result names every grid driver exactly once. How retired and
non-starting drivers are classified at the table is a product choice described in
DOMAIN.md ("Race result and retirements"): the rule text only orders the finishers.

Problems are returned as structured values, not prose, and exception messages are
plain English on purpose: callers translate them.
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, get_args

# §20-1 off track, §20-2 blocked, §20-3 body, §20-4 engine, §20-5 road holding;
# "other" covers what the text does not list (disqualification, withdrawal) and
# needs a note saying which.
Cause = Literal["off_track", "blocked", "body", "engine", "road_holding", "other"]
Status = Literal["finished", "retired", "dns", "dsq"]
ProblemKind = Literal[
    "unknown_driver",
    "duplicate",
    "missing",
    "bad_cause",
    "note_required",
    "note_too_long",
    "bad_lap",
    "lap_order",
    "note_not_finisher",
]
Section = Literal["finish", "retired", "dns"]

CAUSES: tuple[str, ...] = get_args(Cause)
NOTE_MAX = 200  # characters of a retirement note, as the sheet's line holds


@dataclass(frozen=True)
class Retirement:
    """One retirement, with its cause and the lap it happened in (1 = first lap)."""

    driver: Hashable
    cause: Cause
    lap: int | None
    note: str = ""


@dataclass(frozen=True)
class TableResult:
    """A table's result: what the race sheet holds besides the grid (§2-0-3)."""

    # Order of crossing the line, not the square reached (§21-1-4). A car whose
    # engine broke after the second-to-last corner and still reached the line is
    # a finisher (§16-0-6): it is listed here, with no retirement.
    finish: tuple[Hashable, ...]
    # In the order the retirements happened.
    retired: tuple[Retirement, ...]
    # Did not start, in the order given.
    dns: tuple[Hashable, ...]
    # A finisher's note, by driver: §16-0-6 lets a car whose engine broke "après
    # l'avant dernier virage" reach the line, §20-4-1 eliminates it if the break comes
    # "avant la fin du dernier virage"; the two disagree on the last corner, so the
    # referee decides (DOMAIN.md) and the sheet records why a finisher was kept.
    notes: Mapping[Hashable, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ResultProblem:
    """One reason a result cannot be accepted as written.

    ``detail`` depends on ``kind``: for ``unknown_driver`` the section where the
    driver was first written (``finish``, ``retired``, ``dns``); for ``duplicate``
    every section the driver appears in, comma-separated in order of appearance
    (``finish,retired``); for ``bad_cause`` the cause as given; for ``bad_lap`` the
    lap as given, or ``required`` when a complete result lacks it; for ``lap_order`` the
    lap of an earlier retirement that this one comes before; otherwise None.
    """

    kind: ProblemKind
    driver: Hashable | None
    detail: str | None = None


def _is_int(value: object) -> bool:
    # bool is an int subclass; a stray True would silently count as lap 1.
    return isinstance(value, int) and not isinstance(value, bool)


def _entries(result: TableResult) -> list[tuple[Section, Hashable, Retirement | None]]:
    """Every driver written on the sheet, section by section, in the order written."""
    entries: list[tuple[Section, Hashable, Retirement | None]] = []
    entries.extend(("finish", driver, None) for driver in result.finish)
    entries.extend(("retired", retirement.driver, retirement) for retirement in result.retired)
    entries.extend(("dns", driver, None) for driver in result.dns)
    return entries


def result_problems(
    result: TableResult, *, grid: Sequence[Hashable], laps: int, complete: bool
) -> list[ResultProblem]:
    """Every problem of ``result`` at once; empty when it can be accepted.

    ``grid`` is the table's grid, ``laps`` the race length (3 by default, §2-0-3).
    A draft (``complete=False``) may leave drivers out and retirement laps blank; a
    submitted result (``complete=True``) names every grid driver exactly once
    (§21-1-3) and gives the lap of each retirement.

    Retirements are written in the order they happened, so their laps never go down
    along the list (``lap_order``, naming the later retirement of an earlier lap).

    A finisher may carry a note (``notes``: e.g. an engine broken on the last lap and
    kept as a finisher under §16-0-6); a note for a driver who is not a finisher is
    ``note_not_finisher`` (a retirement's note goes with the retirement).

    Problems come in the order the sheet is written (finish, retired, dns), each
    driver's problems together; then the finishers' notes; ``missing`` drivers follow,
    in grid order.
    """
    if not _is_int(laps) or laps < 1:
        raise ValueError(f"laps must be a positive integer, got {laps!r}")
    on_grid = set(grid)
    if len(on_grid) != len(grid):
        raise ValueError("the grid lists a driver twice")

    sections: dict[Hashable, list[Section]] = {}
    for section, driver, _ in _entries(result):
        sections.setdefault(driver, []).append(section)

    problems: list[ResultProblem] = []
    reported: set[Hashable] = set()
    valid = [r.lap if _is_int(r.lap) and 1 <= r.lap <= laps else None for r in result.retired]  # type: ignore[operator]
    going_down = iter(lap_order(valid))
    for section, driver, retirement in _entries(result):
        if driver not in reported:
            reported.add(driver)
            if driver not in on_grid:
                problems.append(ResultProblem("unknown_driver", driver, section))
            if len(sections[driver]) > 1:
                problems.append(ResultProblem("duplicate", driver, ",".join(sections[driver])))
        if retirement is not None:
            found = _retirement_problems(retirement, laps=laps, complete=complete)
            problems.extend(found)
            earlier = next(going_down)
            if earlier is not None:
                problems.append(ResultProblem("lap_order", driver, str(earlier)))
    finishers = set(result.finish)
    for driver, note in result.notes.items():
        if driver not in finishers:
            problems.append(ResultProblem("note_not_finisher", driver))
        elif len(note or "") > NOTE_MAX:
            problems.append(ResultProblem("note_too_long", driver))
    if complete:
        problems.extend(
            ResultProblem("missing", driver) for driver in grid if driver not in sections
        )
    return problems


def lap_order(laps: Sequence[int | None]) -> list[int | None]:
    """Retirements, every game (DOMAIN.md "Every game's evening"), are listed in the order
    they happened, so their laps never go down along the list: for each retirement of
    ``laps`` (its lap, None when not known or not valid), the latest lap written before it
    when its own is lower, else None. On one lap, the one listed later went out later and
    ranks ahead (:func:`table_classification`)."""
    faults: list[int | None] = []
    latest = 0
    for lap in laps:
        faults.append(latest if lap is not None and lap < latest else None)
        if lap is not None:
            latest = max(latest, lap)
    return faults


def _retirement_problems(
    retirement: Retirement, *, laps: int, complete: bool
) -> list[ResultProblem]:
    problems: list[ResultProblem] = []
    driver = retirement.driver
    if retirement.cause not in CAUSES:
        problems.append(ResultProblem("bad_cause", driver, str(retirement.cause)))
    elif retirement.cause == "other" and not (retirement.note or "").strip():
        problems.append(ResultProblem("note_required", driver))
    if len(retirement.note or "") > NOTE_MAX:
        problems.append(ResultProblem("note_too_long", driver))
    lap = retirement.lap
    if lap is None:
        if complete:
            problems.append(ResultProblem("bad_lap", driver, "required"))
    elif not _is_int(lap) or not 1 <= lap <= laps:
        problems.append(ResultProblem("bad_lap", driver, str(lap)))
    return problems


@dataclass(frozen=True)
class Placed:
    """A driver's place in the table classification."""

    driver: Hashable
    position: int
    status: Status
    cause: Cause | None
    lap: int | None


def table_classification(result: TableResult) -> list[Placed]:
    """The table classification: positions 1..n, every driver written once.

    Finishers in crossing order (§21-1-1, §21-1-4); then retired drivers, the latest
    retirement first (the one who went furthest ranks best); then drivers who did
    not start, in the order given. The rule text orders only the finishers; the rest
    is the product choice of DOMAIN.md. Retirements are ordered as the referee
    recorded them, not by their laps. Works on drafts too; a driver written twice
    raises ValueError (see :func:`result_problems`).
    """
    seen: set[Hashable] = set()
    for _, driver, _ in _entries(result):
        if driver in seen:
            raise ValueError(f"driver {driver!r} is written twice in the result")
        seen.add(driver)

    placed: list[Placed] = []
    for driver in result.finish:
        placed.append(Placed(driver, len(placed) + 1, "finished", None, None))
    for retirement in reversed(result.retired):
        placed.append(
            Placed(
                retirement.driver,
                len(placed) + 1,
                "retired",
                retirement.cause,
                retirement.lap,
            )
        )
    for driver in result.dns:
        placed.append(Placed(driver, len(placed) + 1, "dns", None, None))
    return placed


def disqualified_last(placed: Sequence[Placed], disqualified: Collection[Hashable]) -> list[Placed]:
    """The table classification once the organisers disqualified some of its drivers
    (§1-2-3: "l'organisateur décidera des conséquences à donner").

    A disqualified driver is classed after everyone at the table, status ``dsq`` (no
    points, §21-1-2 only pays finishers); the drivers behind move up one place each.
    """
    kept = [p for p in sorted(placed, key=lambda p: p.position) if p.driver not in disqualified]
    out = [
        Placed(p.driver, position, p.status, p.cause, p.lap)
        for position, p in enumerate(kept, start=1)
    ]
    out += [
        Placed(p.driver, len(out) + index, "dsq", None, None)
        for index, p in enumerate(
            (p for p in sorted(placed, key=lambda p: p.position) if p.driver in disqualified),
            start=1,
        )
    ]
    return out


# §0-0-1 and §2-0-3: a competition race is run over three laps (the quick rules, mode
# ``draw``, take 1 to 3: ``races.games.quick.rules``).
COMPETITION_LAPS = 3


def competition_laps_problem(
    laps: int | None, circuit_laps: int | None
) -> Literal["laps", "circuit_laps"] | None:
    """Why a competition race's length breaks §2-0-3, None when it is 3 laps.

    The race is the event's own ``laps``, else the circuit's: ``"laps"`` when the event's
    own laps are not 3, ``"circuit_laps"`` when the event has none and the circuit's are
    not 3 (then the event must say 3).
    """
    if laps is not None:
        return None if laps == COMPETITION_LAPS else "laps"
    if circuit_laps is None or circuit_laps == COMPETITION_LAPS:
        return None
    return "circuit_laps"
