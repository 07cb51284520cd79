"""Race tables and grids for Formula Dé competitions: no database here.

Everything in this module is pure: plain values in, plain values out. Article numbers
in comments (``§1-3-2``) refer to ``rules/formule-de-competition-rules.fr.txt``.

Tables are filled in general-classification order, the best drivers at table 1
(§1-3-2). The organisers may adjust that order (§1-3-3: "peuvent moduler ce
classement"), for instance to keep team-mates apart; how they do it here is a product
choice described in DOMAIN.md ("Tables and grids"), as are the table sizes.

Exception messages are plain English on purpose: callers translate them.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class RankedDriver:
    """A driver to seat, with their general qualifying rank (1 = best)."""

    driver: Hashable
    rank: int
    team: Hashable | None


@dataclass(frozen=True)
class Swap:
    """One exchange made to keep team-mates apart (§1-3-3)."""

    moved_down: Hashable
    moved_up: Hashable
    from_table: int
    to_table: int
    teammate: Hashable


@dataclass(frozen=True)
class TeamConflict:
    """Team-mates left at the same table because no swap could part them."""

    table: int
    drivers: tuple[Hashable, ...]
    team: Hashable


@dataclass(frozen=True)
class Allocation:
    """Tables (table 1 first), each listing its grid in rank order, pole first."""

    tables: list[list[Hashable]]
    swaps: list[Swap]
    conflicts: list[TeamConflict]


def _check_int(name: str, value: object) -> None:
    # bool is an int subclass; a stray True would silently count as 1.
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{name} must be an integer, got {value!r}")


def table_sizes(count: int, capacity: int) -> list[int]:
    """Sizes of the tables for ``count`` drivers, at most ``capacity`` per table.

    Product choice (the rule text is silent on sizes): ``ceil(count / capacity)``
    tables, as equal as possible, the larger ones first: 23 drivers at 10 a table
    give ``[8, 8, 7]``.
    """
    _check_int("driver count", count)
    _check_int("table capacity", capacity)
    if capacity < 1:
        raise ValueError(f"table capacity must be at least 1, got {capacity}")
    if count < 0:
        raise ValueError(f"driver count must not be negative, got {count}")
    if count == 0:
        return []
    tables = -(-count // capacity)
    base, extra = divmod(count, tables)
    return [base + 1] * extra + [base] * (tables - extra)


# A driver's place in the classification: rank, then the order given (ties in rank
# keep the input order). Unique, so it also identifies the driver inside allocate().
_Key = tuple[int, int]


def allocate(
    drivers: Sequence[RankedDriver], *, capacity: int, separate_teams: bool = True
) -> Allocation:
    """Seat ``drivers`` at tables of at most ``capacity``, best drivers at table 1.

    Drivers are sorted by rank (equal ranks keep the order given) and fill the tables
    of :func:`table_sizes` in order (§1-3-2). With ``separate_teams`` (§1-3-3), tables
    are then processed from 1 to T and, within a table, each driver with a
    better-ranked team-mate at that table is handled in rank order: it is swapped
    with the driver of the next table (the previous one for the last table) closest
    to it in rank whose move creates no new conflict at either table. Equally close
    candidates: the better-ranked one. A conflict no swap can resolve stays and is
    reported. Each table is finally sorted by rank: that is its grid.

    A driver whose team is ``None`` never conflicts with anyone.
    """
    sizes = table_sizes(len(drivers), capacity)
    seen: set[Hashable] = set()
    for entry in drivers:
        _check_int("rank", entry.rank)
        if entry.driver in seen:
            raise ValueError(f"driver {entry.driver!r} is given twice")
        seen.add(entry.driver)

    by_key: dict[_Key, RankedDriver] = {
        (entry.rank, index): entry for index, entry in enumerate(drivers)
    }
    ordered = sorted(by_key)
    # Each table as a list of keys kept sorted, so a grid is always in rank order.
    tables: list[list[_Key]] = []
    start = 0
    for size in sizes:
        tables.append(ordered[start : start + size])
        start += size

    swaps: list[Swap] = []
    if separate_teams and len(tables) > 1:
        swaps = _separate_teams(tables, by_key)

    allocated = [[by_key[key].driver for key in table] for table in tables]
    return Allocation(tables=allocated, swaps=swaps, conflicts=_conflicts(tables, by_key))


def allocate_by_rating(
    drivers: Sequence[RankedDriver],
    ratings: Mapping[Hashable, float],
    *,
    default: float,
    capacity: int,
    separate_teams: bool = True,
) -> Allocation:
    """Tables seeded by rating, grids by the draw: a club's choice for the quick rules.

    The quick rules seat the grid by a d20 alone (point 2: "le lancer d'un dé 20 (le plus
    petit nombre est en pôle position)"); ``drivers`` come ranked by that draw. A club may
    instead seat its tables by rating, as a competition seats them by qualifying: the
    best-rated at table 1, the next at table 2 (§1-3-2 "La répartition des tables se fera
    suivant le classement général"), team-mates kept apart the same way (§1-3-3). Players
    of a level race together, which is what the qualifying's grouping does and what a
    rating, unlike a d20, can tell. Within each table the d20 draw still gives the grid
    (pole to the lowest roll), so the dice keep their part.

    ``ratings``: the conservative rating (mu − 3 sigma) by driver; a driver without one
    gets ``default`` (the model's starting rating). Equal ratings keep the draw's order.
    """
    draw = {entry.driver: index for index, entry in enumerate(sorted(drivers, key=_draw_key))}
    by_rating = sorted(
        drivers, key=lambda e: (-ratings.get(e.driver, default), e.rank, draw[e.driver])
    )
    seeded = [
        RankedDriver(driver=entry.driver, rank=place, team=entry.team)
        for place, entry in enumerate(by_rating, start=1)
    ]
    result = allocate(seeded, capacity=capacity, separate_teams=separate_teams)
    return Allocation(
        tables=[sorted(table, key=draw.__getitem__) for table in result.tables],
        swaps=result.swaps,
        conflicts=result.conflicts,
    )


def _draw_key(entry: RankedDriver) -> int:
    _check_int("rank", entry.rank)
    return entry.rank


def _separate_teams(tables: list[list[_Key]], by_key: dict[_Key, RankedDriver]) -> list[Swap]:
    # Per-table team counters make each check O(1); a conflict then only scans the
    # other table outward from its own rank, never the whole field.
    counts = [Counter(by_key[key].team for key in table) for table in tables]
    last = len(tables) - 1
    swaps: list[Swap] = []
    for number, table in enumerate(tables):
        other = number + 1 if number < last else number - 1
        # A snapshot: drivers arriving by a swap never conflict at this table.
        for key in list(table):
            team = by_key[key].team
            if team is None or counts[number][team] < 2:
                continue
            best = next(k for k in table if by_key[k].team == team)
            if best == key:
                continue  # the best-ranked team-mate stays; the others move
            incoming = _closest_candidate(
                key, team, tables[other], counts[number], counts[other], by_key
            )
            if incoming is None:
                continue  # reported by _conflicts at the end
            _move(tables, counts, by_key, key, number, other)
            _move(tables, counts, by_key, incoming, other, number)
            swaps.append(
                Swap(
                    moved_down=by_key[key].driver,
                    moved_up=by_key[incoming].driver,
                    from_table=number + 1,
                    to_table=other + 1,
                    teammate=by_key[best].driver,
                )
            )
    return swaps


def _closest_candidate(
    key: _Key,
    team: Hashable,
    other_table: list[_Key],
    here: Counter[Hashable],
    there: Counter[Hashable],
    by_key: dict[_Key, RankedDriver],
) -> _Key | None:
    """The driver of ``other_table`` closest in rank to ``key`` who may swap with it."""

    def acceptable(candidate: _Key) -> bool:
        incoming_team = by_key[candidate].team
        same = incoming_team == team
        # The incoming driver has no team-mate at this table but the one leaving...
        if incoming_team is not None and here[incoming_team] - same > 0:
            return False
        # ...and the leaving driver none at the other table but the one it replaces.
        return there[team] - same == 0

    # Shortcut: with a team-mate at the other table, the only swap that adds none is
    # with that team-mate, who would then meet the better-ranked one still here.
    if there[team] > 0:
        return None
    rank = key[0]
    right = bisect_left(other_table, key)
    left = right - 1
    while left >= 0 or right < len(other_table):
        # Equally close: the better-ranked (left) candidate first.
        if right >= len(other_table) or (
            left >= 0 and rank - other_table[left][0] <= other_table[right][0] - rank
        ):
            candidate = other_table[left]
            left -= 1
        else:
            candidate = other_table[right]
            right += 1
        if acceptable(candidate):
            return candidate
    return None


def _move(
    tables: list[list[_Key]],
    counts: list[Counter[Hashable]],
    by_key: dict[_Key, RankedDriver],
    key: _Key,
    source: int,
    target: int,
) -> None:
    tables[source].remove(key)
    tables[target].insert(bisect_left(tables[target], key), key)
    team = by_key[key].team
    counts[source][team] -= 1
    counts[target][team] += 1


def _conflicts(tables: list[list[_Key]], by_key: dict[_Key, RankedDriver]) -> list[TeamConflict]:
    # Computed from the final tables, so every reported conflict is real and every
    # real one is reported, whatever the swaps did.
    conflicts: list[TeamConflict] = []
    for number, table in enumerate(tables, start=1):
        members: dict[Hashable, list[Hashable]] = {}
        for key in table:
            entry = by_key[key]
            if entry.team is not None:
                members.setdefault(entry.team, []).append(entry.driver)
        conflicts.extend(
            TeamConflict(table=number, drivers=tuple(drivers), team=team)
            for team, drivers in members.items()
            if len(drivers) > 1
        )
    return conflicts
