"""The finishing-order game's rules (pure, no Django, no database): DOMAIN.md "Any racing
game". Paddock does not know the game's own rules: it seats the tables (by rating, then
entry order, balanced sizes), orders each grid (a draw, or by rating), checks the crossing
order the referee wrote, and places the drivers for the championship's scale.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Hashable, Sequence
from dataclasses import dataclass
from random import Random

from races.results.rules import Placed, disqualified_last, lap_order

#: The one retirement cause: the game's own words go in the note.
CAUSE = "other"


@dataclass(frozen=True)
class Seat:
    """A driver to seat: their conservative rating in the game's family (None: unrated)
    and their place in the entry order (0 first)."""

    driver: Hashable
    rating: float | None
    entry: int


@dataclass(frozen=True)
class Problem:
    """Why a result cannot be accepted: ``kind`` is ``duplicate``, ``unknown_driver``,
    ``missing`` (a submitted result without a grid driver), ``bad_cause``, ``bad_lap`` or
    ``lap_order`` (a retirement listed after one of a later lap: they are listed in the
    order they happened, ``races.results.rules.lap_order``)."""

    kind: str
    driver: Hashable


@dataclass(frozen=True)
class Line:
    """A driver's place at the table: finishers 1..k in crossing order, then the retired
    (the latest retirement first), then the non-starters."""

    driver: Hashable
    position: int
    status: str  # "finished", "retired", "dns"
    lap: int | None = None
    note: str = ""


def by_rating(seats: Sequence[Seat]) -> list[Seat]:
    """Best conservative rating first; the unrated after them, each group in entry order."""
    return sorted(seats, key=lambda s: (s.rating is None, -(s.rating or 0.0), s.entry))


def table_sizes(count: int, capacity: int) -> list[int]:
    """Balanced sizes: as few tables as ``capacity`` allows, the larger ones first
    (10 drivers at tables of 4: 4, 3, 3)."""
    if capacity < 2:
        raise ValueError("a table seats at least 2 drivers")
    if count <= 0:
        return []
    tables = math.ceil(count / capacity)
    base, extra = divmod(count, tables)
    return [base + 1] * extra + [base] * (tables - extra)


def tables(seats: Sequence[Seat], capacity: int) -> list[list[Seat]]:
    """The tables, table 1 the best-rated (by rating, then entry order), balanced sizes."""
    ordered = by_rating(seats)
    out, start = [], 0
    for size in table_sizes(len(ordered), capacity):
        out.append(ordered[start : start + size])
        start += size
    return out


def grid(table: Sequence[Seat], how: str, rng: Random) -> list[Hashable]:
    """A table's grid, pole first: ``rating`` keeps the rating order, ``draw`` shuffles
    with ``rng`` (a secure one, ``secrets.SystemRandom``, outside tests)."""
    if how == "rating":
        return [s.driver for s in by_rating(table)]
    if how != "draw":
        raise ValueError(f"unknown grid: {how!r}")
    drivers = [s.driver for s in table]
    rng.shuffle(drivers)
    return drivers


def problems(
    *,
    grid: Sequence[Hashable],
    finish: Sequence[Hashable],
    retired: Sequence[dict[str, object]],
    dns: Sequence[Hashable],
    laps: int | None,
    complete: bool,
) -> list[Problem]:
    """Every problem of a written result, in the sheet's order, then the missing drivers
    in grid order (only when ``complete``: a draft may leave drivers out)."""
    found: list[Problem] = []
    on_grid, seen = set(grid), set()
    written = [*finish, *(r.get("driver") for r in retired), *dns]
    for driver in written:
        if driver not in on_grid and Problem("unknown_driver", driver) not in found:
            found.append(Problem("unknown_driver", driver))
        elif driver in seen and Problem("duplicate", driver) not in found:
            found.append(Problem("duplicate", driver))
        seen.add(driver)
    valid: list[int | None] = []
    for retirement in retired:
        driver, lap = retirement.get("driver"), retirement.get("lap")
        if retirement.get("cause", CAUSE) != CAUSE:
            found.append(Problem("bad_cause", driver))
        if lap is not None and (
            not isinstance(lap, int) or isinstance(lap, bool) or lap < 1 or (laps and lap > laps)
        ):
            found.append(Problem("bad_lap", driver))
            lap = None
        valid.append(lap)  # type: ignore[arg-type]
    for retirement, earlier in zip(retired, lap_order(valid), strict=True):
        if earlier is not None:
            found.append(Problem("lap_order", retirement.get("driver")))
    if complete:
        found += [Problem("missing", d) for d in grid if d not in seen]
    return found


def classification(
    finish: Sequence[Hashable], retired: Sequence[dict[str, object]], dns: Sequence[Hashable]
) -> list[Line]:
    """Positions 1..n: the finishers in crossing order, then the retired, the one who
    went furthest first (retirements are written in the order they happened), then the
    non-starters, who took no place (they score nothing)."""
    lines = [Line(d, i, "finished") for i, d in enumerate(finish, start=1)]
    for r in reversed(retired):
        lap = r.get("lap")
        lines.append(
            Line(
                r.get("driver"),
                len(lines) + 1,
                "retired",
                lap if isinstance(lap, int) else None,
                str(r.get("note") or ""),
            )
        )
    lines += [Line(d, len(lines) + i, "dns") for i, d in enumerate(dns, start=1)]
    return lines


def placed(
    finish: Sequence[Hashable],
    retired: Sequence[dict[str, object]],
    dns: Sequence[Hashable],
    *,
    disqualified: Collection[Hashable] = (),
) -> list[Placed]:
    """The table classification as the race floor scores it (its ``Placed``). The
    disqualified (§1-2-3) are taken out first, as in Formula Dé (DOMAIN.md "Every game's
    evening": the table is reclassified without the driver, then scored): the places
    behind move up, the disqualified follow with status ``dsq``."""
    return disqualified_last(
        [
            Placed(
                driver=line.driver,
                position=line.position,
                status=line.status,  # type: ignore[arg-type]
                cause=CAUSE if line.status == "retired" else None,  # type: ignore[arg-type]
                lap=line.lap,
            )
            for line in classification(finish, retired, dns)
        ],
        disqualified,
    )
