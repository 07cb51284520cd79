"""Stands in grid order and a table's start, for Formula Dé competitions: no database here.

Everything in this module is pure: plain values in, plain values out. Article numbers
refer to ``rules/formule-de-competition-rules.fr.txt``.

- §4-0-1: "Le pilote placé en pole position choisit en premier la place de son stand …
  et ainsi de suite jusqu'au dernier sur la grille de départ": the stands recorded at a
  table are always those of the first k drivers of its grid; §4-0-2: one stand each, so a
  stand is taken once per table.
- §5-0-2: "Les configurations doivent être faites au stylo bille ou au feutre, pas au
  crayon de papier": once the race starts at a table, its stands and configurations are
  written in ink. The referee's "start" checks that every driver has a stand and, when
  the event records them, a configuration (DOMAIN.md "What the day enforces").

Problems are structured values naming the drivers; callers translate them.
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

StandProblemKind = Literal["unknown_driver", "unknown_stand", "taken", "out_of_order"]


@dataclass(frozen=True)
class StandProblem:
    """One reason a choice of stands cannot be recorded.

    ``driver`` is the driver whose choice is refused. For ``taken``, ``other`` is the
    driver who holds the stand; for ``out_of_order``, the driver who chooses first (the
    first driver of the grid without a stand once the choice would be made).
    """

    kind: StandProblemKind
    driver: Hashable
    stand: int | None = None
    other: Hashable | None = None


def stand_problems(
    grid: Sequence[Hashable],
    current: Mapping[Hashable, int | None],
    changes: Mapping[Hashable, int | None],
    *,
    stands: Collection[int],
) -> list[StandProblem]:
    """Every problem of recording ``changes`` over the ``current`` stands of a table.

    ``grid`` is the table's grid, pole first; ``current`` the stands recorded now (a
    driver left out has none); ``changes`` the stands to record (None frees a driver's
    stand); ``stands`` the stand numbers of the event. A driver may change their stand
    (a correction before the start), but after the changes the drivers with a stand must
    be the first k of the grid, and no stand may be held twice (§4-0-1, §4-0-2).
    """
    problems: list[StandProblem] = []
    on_grid = set(grid)
    for driver, stand in changes.items():
        if driver not in on_grid:
            problems.append(StandProblem("unknown_driver", driver, stand))
        elif stand is not None and stand not in stands:
            problems.append(StandProblem("unknown_stand", driver, stand))
    if problems:
        return problems
    final = {driver: current.get(driver) for driver in grid}
    final.update(changes)
    # Who holds each stand: a driver who keeps theirs holds it against one who asks for it.
    holders: dict[int, Hashable] = {}
    for driver in sorted(grid, key=lambda d: (d in changes, grid.index(d))):
        stand = final[driver]
        if stand is None:
            continue
        if stand in holders:
            problems.append(StandProblem("taken", driver, stand, holders[stand]))
        else:
            holders[stand] = driver
    first_free = next((driver for driver in grid if final[driver] is None), None)
    if first_free is not None:
        after = grid[grid.index(first_free) + 1 :]
        problems.extend(
            StandProblem("out_of_order", driver, final[driver], first_free)
            for driver in after
            if final[driver] is not None
        )
    return problems


def next_to_choose(grid: Sequence[Hashable], current: Mapping[Hashable, int | None]) -> Hashable:
    """The driver who chooses a stand now: the first of the grid without one (§4-0-1);
    None once every driver has chosen."""
    return next((driver for driver in grid if current.get(driver) is None), None)


StartMissing = Literal["stand", "configuration"]


@dataclass(frozen=True)
class Missing:
    driver: Hashable
    what: StartMissing


def start_problems(
    grid: Sequence[Hashable],
    stands: Mapping[Hashable, int | None],
    configured: Collection[Hashable],
    *,
    configurations: bool,
    stands_required: bool = True,
) -> list[Missing]:
    """What is missing before the referee starts the race at a table, in grid order:
    a stand for every driver (§4-0-1; none under the quick rules, which have no stands),
    and a configuration for every driver when the event records them (§5-0-2). Empty when
    the race may start."""
    missing = []
    if stands_required:
        missing = [Missing(driver, "stand") for driver in grid if stands.get(driver) is None]
    if configurations:
        held = set(configured)
        missing += [Missing(driver, "configuration") for driver in grid if driver not in held]
    return missing
