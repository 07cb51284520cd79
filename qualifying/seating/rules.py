"""Spreading an event's drivers over qualifying tables: no database here.

§1-0-4 (``rules/formule-de-competition-rules.fr.txt``): "Des tables devront être réservées
pour les pilotes courant régulièrement sous la minute", with experienced referees. Race
control marks those tables and flags those drivers; the spread seats every flagged driver
at a marked table. The sizes are a product choice (the text is silent): ``ceil(N / size)``
tables as equal as possible, the larger first, drivers in number order.

Exception messages are plain English on purpose: callers translate them.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from itertools import islice


class SeatingProblem(ValueError):
    """Why the flagged drivers cannot all sit at marked tables: ``kind`` is
    ``"no_fast_table"`` (none of tables 1..``tables`` is marked) or ``"too_many_fast"``
    (``flagged`` drivers for ``seats`` seats at the marked tables)."""

    def __init__(self, kind: str, flagged: int, seats: int, tables: int) -> None:
        super().__init__(f"{kind}: {flagged} flagged drivers, {seats} seats at fast tables")
        self.kind, self.flagged, self.seats, self.tables = kind, flagged, seats, tables


def table_sizes(count: int, capacity: int) -> list[int]:
    """Sizes of the tables for ``count`` drivers, at most ``capacity`` each, the larger
    first (23 drivers, 10 a table: 8, 8, 7)."""
    if capacity < 1:
        raise ValueError(f"a table seats at least one driver, got {capacity}")
    if count <= 0:
        return []
    tables = math.ceil(count / capacity)
    base, extra = divmod(count, tables)
    return [base + (1 if index < extra else 0) for index in range(tables)]


def spread(
    drivers: Sequence[int],
    *,
    capacity: int,
    fast_drivers: Collection[int] = (),
    fast_tables: Collection[int] = (),
) -> dict[int, list[int]]:
    """Seat ``drivers`` (numbers, in the order they fill seats) at tables 1..T.

    The flagged ``fast_drivers`` fill the marked ``fast_tables`` first (§1-0-4), in
    ``drivers`` order; every other seat takes the others in order. Marked tables beyond T
    do not exist after the spread and seat nobody. Raises :class:`SeatingProblem` when
    flagged drivers are left without a marked table or outnumber its seats.
    """
    if len(set(drivers)) != len(drivers):
        raise ValueError("a driver is listed twice")
    sizes = table_sizes(len(drivers), capacity)
    numbers = range(1, len(sizes) + 1)
    marked = [number for number in numbers if number in fast_tables]
    flagged = [driver for driver in drivers if driver in fast_drivers]
    seats = sum(sizes[number - 1] for number in marked)
    if flagged and not marked:
        raise SeatingProblem("no_fast_table", len(flagged), 0, len(sizes))
    if len(flagged) > seats:
        raise SeatingProblem("too_many_fast", len(flagged), seats, len(sizes))
    others = [driver for driver in drivers if driver not in fast_drivers]
    # Flagged drivers fill the marked tables in number order; then every spare seat, table
    # by table, takes the others in order.
    fast_seats: dict[int, int] = {}
    waiting = len(flagged)
    for number in marked:
        fast_seats[number] = min(sizes[number - 1], waiting)
        waiting -= fast_seats[number]
    queue_fast, queue_other = iter(flagged), iter(others)
    tables: dict[int, list[int]] = {}
    for number in numbers:
        fast = list(islice(queue_fast, fast_seats.get(number, 0)))
        tables[number] = fast + list(islice(queue_other, sizes[number - 1] - len(fast)))
    return tables


def join(
    tables: Mapping[int, Sequence[int]],
    newcomers: Sequence[int],
    *,
    capacity: int,
    fast_drivers: Collection[int] = (),
    fast_tables: Collection[int] = (),
) -> dict[int, list[int]]:
    """Seat late arrivals at the existing ``tables`` (number → drivers) without moving
    anyone already seated: each newcomer, in order, takes a seat at the emptiest table with
    room (the lower number on a tie); a flagged driver at a marked table (§1-0-4), the
    others at an unmarked one when there is one. A newcomer who finds no room opens the
    next table. Raises :class:`SeatingProblem` when a flagged newcomer finds no marked
    table, or no room at one.
    """
    seated = {driver for drivers in tables.values() for driver in drivers}
    if len(set(newcomers)) != len(newcomers) or seated & set(newcomers):
        raise ValueError("a driver is listed twice")
    result = {number: list(drivers) for number, drivers in sorted(tables.items())}
    marked = [number for number in result if number in fast_tables]
    flagged = [driver for driver in newcomers if driver in fast_drivers]
    if flagged and not marked:
        raise SeatingProblem("no_fast_table", len(flagged), 0, len(result))
    for driver in newcomers:
        fast = driver in fast_drivers
        unmarked = [number for number in result if number not in fast_tables]
        choices = marked if fast else (unmarked or list(result))
        room = [number for number in choices if len(result[number]) < capacity]
        if room:
            result[min(room, key=lambda number: (len(result[number]), number))].append(driver)
        elif fast:
            seats = sum(len(result[number]) for number in marked)
            raise SeatingProblem("too_many_fast", len(flagged), seats, len(result))
        else:
            result[max(result, default=0) + 1] = [driver]
    return result
