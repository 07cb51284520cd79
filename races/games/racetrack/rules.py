"""Racetrack (vector race on squared paper): a race's classification. No database here.

Quotes refer to ``rules/racetrack-rules.fr.txt``. Per driver the referee records the game
turns until a valid crossing of the line (turns passed after a crash count), the margin
past the line in squares, the crashes, and whether the car finished or was eliminated.

- "Accidents": by default a crash eliminates, and a collision eliminates both cars
  (``crash_limit`` 1); the variant eliminates only after N crashes (each costs a turn and
  a restart at speed 0), a collision adding a crash to both cars. Collisions may be
  switched off: then cars pass through and only crashes eliminate.
- The sheet has no field naming the other car of a collision, so by default a car
  eliminated without reaching the crash limit is the victim of a collision: allowed only
  with collisions on, and (once the sheet is complete) with another car eliminated too,
  since a collision eliminates both. In the variant a collision is a crash like any other,
  so an eliminated car has reached the limit.
- "Fin du jeu": finishers by fewest turns, then by the larger margin past the line ("c'est
  le joueur 2 qui gagne la course"); equal turns and margin is a tie ("égalité").
- "Fin du jeu", two variants (an event setting): "Soit la course s'arrête lorsque le
  vainqueur franchit la ligne de départ, soit elle continue jusqu'à ce que l'avant dernier
  la franchisse" (``second_to_last``, the default: the order is then fully defined). When
  it stops at the winner (``winner``), the referee places the cars still running (by their
  distance to the line): 1 for the closest; they share a place only when the referee
  writes the same place.
- "jusqu'à ce que l'avant dernier la franchisse": the race goes on until the
  second-to-last car crosses, so a complete sheet of that default end has at most one car
  still running (DOMAIN.md, "What the day enforces, continued"); two or more is refused.
- "le joueur restant sera déclaré automatiquement vainqueur (sous réserve qu'il arrive à
  boucler son tour de piste)": when every other car is out and none crossed, the last car
  wins only once it crosses the line. A complete sheet that leaves it still running is
  asked whether it crossed (``survivor_must_cross``): finished with its turns, or
  eliminated; it never takes the winner's place by default.
- Product choice (DOMAIN.md): then drivers still running when the race stopped (all
  equal when it ran to the second-to-last), then the eliminated (all equal). Points come
  from the championship's scale by place (mode ``per_table``) or by the day rank (mode
  ``overall``: the table's first place is ``first_rank``); a shared place takes the better
  points; eliminated drivers score 0.

Problems are structured values; callers translate them.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from races.games._ranking import is_int, scale_points, shared_ranks

Status = Literal["finished", "running", "eliminated"]
End = Literal["second_to_last", "winner"]
ENDS: tuple[str, ...] = ("second_to_last", "winner")
ProblemKind = Literal[
    "unknown_driver",
    "missing",
    "bad_number",
    "finished_and_eliminated",
    "turns_required",
    "over_crash_limit",
    "eliminated_below_limit",
    "eliminated_without_collision",
    "collision_alone",
    "place_required",
    "too_many_running",
    "survivor_must_cross",
]
Mode = Literal["per_table", "overall"]
FIELDS = ("turns", "margin", "crashes")


@dataclass(frozen=True)
class Run:
    driver: Hashable
    turns: int = 0
    margin: int = 0
    crashes: int = 0
    finished: bool = False
    eliminated: bool = False
    #: The referee's place for a car still running when the race stopped at the winner.
    place: int | None = None

    @property
    def status(self) -> Status:
        if self.finished:
            return "finished"
        return "eliminated" if self.eliminated else "running"


@dataclass(frozen=True)
class Problem:
    kind: ProblemKind
    driver: Hashable
    field: str | None = None
    value: object = None


@dataclass(frozen=True)
class Classified:
    """A driver's line: ``place`` may be shared, ``position`` is 1..n (ties in grid order)."""

    driver: Hashable
    place: int
    position: int
    status: Status
    points: int


def collision_eliminates(*, crash_limit: int, collisions: bool) -> bool:
    """True when a collision eliminates both cars by itself ("Accidents", the rule).

    In the variant of N crashes a collision adds a crash to both cars instead ("les deux
    joueurs ajoutent un crash à leur compteur"); with collisions off cars pass through.
    """
    return collisions and crash_limit <= 1


def problems(
    runs: Mapping[Hashable, Mapping[str, object]],
    *,
    grid: Sequence[Hashable],
    crash_limit: int = 1,
    collisions: bool = True,
    end: End = "second_to_last",
    complete: bool,
) -> list[Problem]:
    """Every problem of a referee's sheet, each naming the driver; empty when accepted.

    Counts are whole numbers ≥ 0; a car cannot both finish and be eliminated; a finisher
    has its turns; a car with ``crash_limit`` crashes is out. Only crashes and collisions
    eliminate: a car eliminated below the limit was hit in a collision, which needs
    collisions on and the rule's "a crash eliminates" (:func:`collision_eliminates`), and
    on a complete sheet another eliminated car, the collision eliminating both. A complete
    sheet has a line for every driver of the grid. When the race stops at the winner
    (``end="winner"``) the referee places each car still running (``place`` 1, 2, …);
    a complete sheet has a place for each. When it runs until the second-to-last crosses
    (``end="second_to_last"``), a complete sheet has at most one car still running: each
    of two or more is a ``too_many_running`` problem. Whatever the end, a complete sheet
    whose only car not eliminated is still running, nobody having crossed, asks whether it
    crossed (``survivor_must_cross``).
    """
    on_grid = set(grid)
    found: list[Problem] = []
    by_collision: list[Hashable] = []
    eliminated_cars = 0
    finished_cars = 0
    running_cars: list[Hashable] = []
    for driver, run in runs.items():
        if driver not in on_grid:
            found.append(Problem("unknown_driver", driver))
            continue
        numbers_ok = True
        for field in FIELDS:
            value = run.get(field, 0)
            if not is_int(value) or value < 0:  # type: ignore[operator]
                found.append(Problem("bad_number", driver, field, value))
                numbers_ok = False
        finished, eliminated = bool(run.get("finished")), bool(run.get("eliminated"))
        eliminated_cars += eliminated
        finished_cars += finished
        if finished and eliminated:
            found.append(Problem("finished_and_eliminated", driver))
        place = run.get("place")
        running = not finished and not eliminated
        if running:
            running_cars.append(driver)
        if end == "winner" and running:
            if place is not None and (not is_int(place) or place < 1):  # type: ignore[operator]
                found.append(Problem("bad_number", driver, "place", place))
            elif place is None and complete:
                found.append(Problem("place_required", driver, "place"))
        if not numbers_ok:
            continue
        crashes = int(run.get("crashes", 0))  # type: ignore[call-overload]
        if finished and int(run.get("turns", 0)) < 1:  # type: ignore[call-overload]
            found.append(Problem("turns_required", driver, "turns"))
        if crashes >= crash_limit and not eliminated:
            found.append(Problem("over_crash_limit", driver, "crashes", crashes))
        if eliminated and crashes < crash_limit:
            if collision_eliminates(crash_limit=crash_limit, collisions=collisions):
                by_collision.append(driver)
            elif not collisions:
                found.append(Problem("eliminated_without_collision", driver, "crashes", crashes))
            else:
                found.append(Problem("eliminated_below_limit", driver, "crashes", crashes))
    if complete:
        found.extend(Problem("missing", driver) for driver in grid if driver not in runs)
        # "en plus d'éliminer le joueur que l'on accidente": the other car is out as well.
        if eliminated_cars < 2:
            found.extend(Problem("collision_alone", driver) for driver in by_collision)
        # "jusqu'à ce que l'avant dernier la franchisse": one car at most is left running.
        if end == "second_to_last" and len(running_cars) > 1:
            found.extend(
                Problem("too_many_running", driver, value=len(running_cars))
                for driver in running_cars
            )
        # "le joueur restant sera déclaré automatiquement vainqueur (sous réserve qu'il
        # arrive à boucler son tour de piste)": the last car left wins once it crosses.
        if len(running_cars) == 1 and not finished_cars and eliminated_cars:
            found.append(Problem("survivor_must_cross", running_cars[0]))
    return found


def run_of(driver: Hashable, values: Mapping[str, object]) -> Run:
    return Run(
        driver=driver,
        turns=int(values.get("turns", 0) or 0),  # type: ignore[call-overload]
        margin=int(values.get("margin", 0) or 0),  # type: ignore[call-overload]
        crashes=int(values.get("crashes", 0) or 0),  # type: ignore[call-overload]
        finished=bool(values.get("finished")),
        eliminated=bool(values.get("eliminated")),
        place=values.get("place") if is_int(values.get("place")) else None,  # type: ignore[arg-type]
    )


def classification(
    runs: Sequence[Run],
    *,
    scale: Sequence[int],
    end: End = "second_to_last",
    mode: Mode = "per_table",
    first_rank: int = 1,
) -> list[Classified]:
    """Finishers, then drivers still running, then the eliminated; scale points by place.

    When the race stopped at the winner, the cars still running follow the referee's
    places; when it ran to the second-to-last, they share their place. Mode ``overall``
    (the championship's) scores the day rank instead, ``first_rank - 1 + place``: the
    winner of a table behind an 8-driver table 1 is rank 9 and takes the 9th points.
    """

    def key(run: Run) -> tuple[int, int, int]:
        if run.finished:
            return (0, run.turns, -run.margin)  # "Fin du jeu": fewer turns, larger margin
        if run.eliminated:
            return (2, 0, 0)
        return (1, run.place or 0, 0) if end == "winner" else (1, 0, 0)

    ranked = shared_ranks(list(runs), key=key)
    return [
        Classified(
            driver=run.driver,
            place=place,
            position=index,
            status=run.status,
            points=0
            if run.eliminated
            else scale_points(scale, place if mode == "per_table" else first_rank - 1 + place),
        )
        for index, (place, run) in enumerate(ranked, start=1)
    ]
