"""Cannes–Monaco 1925 (Antoine Bauza): a race's points in championship mode. No database.

Section names refer to ``rules/cannes-monaco-1925-bauza-rules.fr.txt``. The referee
records each car's square on the 36-square road (0 = still on the start board) and
whether it crossed the finish line. "Règles de championnat — Décompte des points":

- the last car(s) ("Lanterne Rouge") score nothing;
- every other car scores the number of squares between it and the last car;
- cars that crossed the finish line score three more.

A car over the line counts as square 36. "FIN DE LA COURSE": "Le premier pilote qui
franchit la ligne d'arrivée est déclaré vainqueur", so the referee records the crossing
order: the cars over the line are placed in that order (the first is the winner), the
others by their square, equal squares sharing the place. Product choices (the text is
silent): when every car crossed the line, all of them are "last" and score 0; the points
stay the rule's whatever the crossing order (every car over the line counts as square 36).
Problems are structured values; callers translate them.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from races.games._ranking import is_int, shared_ranks

SQUARES = 36  # "Le circuit est construit avec les 36 cases"
CROSSING_BONUS = 3  # "trois points de bonus supplémentaires"
MIN_DRIVERS, MAX_DRIVERS = 3, 6  # "pour 3 à 6 pilotes"

ProblemKind = Literal["unknown_driver", "bad_square", "missing", "crossed_twice"]


@dataclass(frozen=True)
class Car:
    driver: Hashable
    square: int
    crossed: bool = False

    @property
    def distance(self) -> int:
        """The square that counts: 36 once over the line."""
        return SQUARES if self.crossed else self.square


@dataclass(frozen=True)
class Problem:
    kind: ProblemKind
    driver: Hashable
    value: object = None


@dataclass(frozen=True)
class Classified:
    """A driver's line: ``place`` may be shared, ``position`` is 1..n (ties in grid order)."""

    driver: Hashable
    place: int
    position: int
    status: Literal["finished", "running"]
    points: int


def problems(
    squares: Mapping[Hashable, object],
    crossed: Sequence[Hashable],
    *,
    grid: Sequence[Hashable],
    complete: bool,
) -> list[Problem]:
    """Every problem of a referee's sheet, each naming the driver; empty when accepted.

    A car that crossed the line needs no square (it counts as 36); a complete sheet has a
    square (or a crossing) for every driver of the grid.
    """
    on_grid = set(grid)
    found: list[Problem] = []
    for driver, square in squares.items():
        if driver not in on_grid:
            found.append(Problem("unknown_driver", driver))
        elif square is not None and (not is_int(square) or not 0 <= square <= SQUARES):
            found.append(Problem("bad_square", driver, square))
    seen: set[Hashable] = set()
    for driver in crossed:
        if driver not in on_grid:
            found.append(Problem("unknown_driver", driver))
        elif driver in seen:
            found.append(Problem("crossed_twice", driver))
        seen.add(driver)
    if complete:
        over = set(crossed)
        found.extend(
            Problem("missing", driver)
            for driver in grid
            if driver not in over and squares.get(driver) is None
        )
    return found


def table_size_ok(count: int) -> bool:
    """True when a race of ``count`` cars may be played: 3 to 6 drivers."""
    return MIN_DRIVERS <= count <= MAX_DRIVERS


def table_capacity(count: int, wanted: int) -> int:
    """The table capacity that seats ``count`` drivers in races of 3 to 6, nearest ``wanted``.

    Tables are filled as evenly as possible (``races.grid.allocation.table_sizes``): the
    capacity is capped at 6 and, when ``wanted`` would leave a table of fewer than 3, the
    tables are made fewer (and larger). Raises ValueError below 3 drivers in all.
    """
    if count < MIN_DRIVERS:
        raise ValueError(f"a race needs {MIN_DRIVERS} drivers, got {count}")
    wanted = max(MIN_DRIVERS, min(MAX_DRIVERS, wanted))
    # Between ceil(count / 6) tables (none above 6) and count // 3 tables (none below 3).
    tables = max(-(-count // MAX_DRIVERS), min(-(-count // wanted), count // MIN_DRIVERS))
    return -(-count // tables)


@dataclass(frozen=True)
class Race:
    """A complete sheet: the cars in grid order and the crossing order (first = winner)."""

    cars: tuple[Car, ...]
    crossing: tuple[Hashable, ...]

    @property
    def winner(self) -> Hashable | None:
        """The first car over the line ("déclaré vainqueur"), None if none crossed."""
        return self.crossing[0] if self.crossing else None


def cars(
    squares: Mapping[Hashable, int | None], crossed: Sequence[Hashable], *, grid: Sequence[Hashable]
) -> Race:
    """The race of a valid complete sheet: the grid's cars in grid order, and ``crossed``
    as the crossing order."""
    over = list(dict.fromkeys(crossed))
    return Race(
        cars=tuple(
            Car(driver, SQUARES if driver in over else int(squares[driver] or 0), driver in over)
            for driver in grid
        ),
        crossing=tuple(over),
    )


def points(race: Sequence[Car]) -> dict[Hashable, int]:
    """Each car's points ("Décompte des points"); never negative, last car(s) 0."""
    if not race:
        return {}
    last = min(car.distance for car in race)
    scored: dict[Hashable, int] = {}
    for car in race:
        if car.distance == last:
            scored[car.driver] = 0  # "le ou les derniers pilotes ne marquent aucun point"
        else:
            scored[car.driver] = car.distance - last + (CROSSING_BONUS if car.crossed else 0)
    return scored


def classification(race: Race) -> list[Classified]:
    """Places: the cars over the line in crossing order (the winner first), then the others
    by square (further first), equal squares sharing the place; the game's own points."""
    scored = points(race.cars)
    crossing = {driver: index for index, driver in enumerate(race.crossing)}

    def key(car: Car) -> tuple[int, int]:
        if car.crossed:
            return (0, crossing[car.driver])
        return (1, -car.square)

    ranked = shared_ranks(list(race.cars), key=key)
    return [
        Classified(
            driver=car.driver,
            place=place,
            position=index,
            status="finished" if car.crossed else "running",
            points=scored[car.driver],
        )
        for index, (place, car) in enumerate(ranked, start=1)
    ]
