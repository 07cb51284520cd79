"""Reads for race day: tables with their grids, where a driver sits, sheet data."""

from __future__ import annotations

import functools
import unicodedata
from collections import defaultdict
from dataclasses import dataclass

from django.db.models import Prefetch, Q

from qualifying.models import QualifyingSeat, QualifyingTable
from races.models import GridSlot, RaceTable, ResultLine
from tournament.models import Driver, Entry, Event


def tables_with_grids(*, event: Event, only: RaceTable | None = None) -> list[RaceTable]:
    """The event's race tables (or ``only`` that one), each with ``grid`` = its slots in
    grid order."""
    slots = GridSlot.objects.select_related("driver", "driver__team", "configuration").order_by(
        "position"
    )
    tables = RaceTable.objects.filter(event=event)
    if only is not None:
        tables = tables.filter(pk=only.pk)
    return list(
        tables.prefetch_related(Prefetch("slots", queryset=slots, to_attr="grid")).order_by(
            "number"
        )
    )


def allocation_warnings(*, event: Event) -> list[dict]:
    """Team-mates sitting at the same table now (after allocation and any manual swap).

    Computed from the grids rather than stored, so a swap never leaves a stale warning.
    Empty when the event does not keep team-mates apart (§1-3-3 allows, not imposes).
    """
    if not event.separate_teams:
        return []
    together: dict[tuple[int, int], list] = defaultdict(list)
    slots = (
        GridSlot.objects.filter(event=event, driver__team__isnull=False)
        .select_related("driver", "table")
        .order_by("table__number", "position")
    )
    for slot in slots:
        together[(slot.table.number, slot.driver.team_id)].append(slot.driver)
    return [
        {"table": table, "drivers": drivers}
        for (table, _team), drivers in sorted(together.items(), key=lambda item: item[0])
        if len(drivers) > 1
    ]


@dataclass(frozen=True)
class Seat:
    """Where a driver of the event sits: a race table (``kind="race"``, with the grid
    position and stand), a qualifying table (``"qualifying"``), or nowhere yet (``""``,
    ``table`` None): registered, not seated."""

    driver: Driver
    table: RaceTable | QualifyingTable | None
    position: int | None
    stand: int | None
    kind: str = "race"


@functools.lru_cache(maxsize=8192)  # the same few hundred names, search after search
def _plain(text: str) -> str:
    """Lowercase without accents: "Léa" and "LEA" both read "lea"."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def name_matches(driver: Driver, words: list[str]) -> bool:
    """Every word of the query is the driver's number or a part of their name, in any
    order: "Michel Manon", "manon mich" and "9" all find Manon Michel (number 9)."""
    return _matches(str(driver.number), _plain(f"{driver.first_name} {driver.last_name}"), words)


def _matches(number: str, plain_name: str, words: list[str]) -> bool:
    return all(word == number if word.isdigit() else word in plain_name for word in words)


def where_do_i_sit(
    *, event: Event, query: str, race: bool = True, qualifying: bool = True
) -> list[Seat]:
    """The event's drivers matching ``query`` (``name_matches``) and where each sits.

    A driver seated at a race table gets it when ``race`` (the allocation is published,
    or race control asks); otherwise their qualifying table when ``qualifying``; a driver
    registered for the event but seated nowhere comes back without a table. Race seats
    first (table, grid position), then qualifying ones (table, order), then the others
    by number; 50 at most. Names are matched in Python on plain rows (SQLite's LIKE ignores
    case for ASCII letters only); only the drivers found are read in full.
    """
    words = _plain(query).split()
    if not words:
        return []
    # Registered, or seated (a driver withdrawn after the allocation keeps their seat):
    # three semi-joins, each driver once, no DISTINCT over a join.
    candidates = Driver.objects.filter(
        Q(pk__in=Entry.objects.filter(event=event).values("driver"))
        | Q(pk__in=GridSlot.objects.filter(event=event).values("driver"))
        | Q(pk__in=QualifyingSeat.objects.filter(event=event).values("driver"))
    ).values_list("pk", "number", "first_name", "last_name")
    matched = [
        pk
        for pk, number, first, last in candidates
        if _matches(str(number), _plain(f"{first} {last}"), words)
    ]
    if not matched:
        return []
    found: dict[int, Seat] = {}
    if race:
        slots = (
            GridSlot.objects.filter(event=event, driver__in=matched)
            .select_related("driver", "driver__team", "table")
            .order_by("table__number", "position")
        )
        for slot in slots:
            found[slot.driver_id] = Seat(slot.driver, slot.table, slot.position, slot.stand)
    if qualifying:
        seats = (
            QualifyingSeat.objects.filter(event=event, driver__in=matched)
            .exclude(driver__in=list(found))
            .select_related("driver", "driver__team", "table")
            .order_by("table__number", "order", "driver__number")
        )
        for seat in seats:
            found[seat.driver_id] = Seat(seat.driver, seat.table, None, None, "qualifying")
    entries = (
        Entry.objects.filter(event=event, driver__in=matched)
        .exclude(driver__in=list(found))
        .select_related("driver", "driver__team")
        .order_by("driver__number")
    )
    for entry in entries:
        found[entry.driver_id] = Seat(entry.driver, None, None, None, "")
    return list(found.values())[:50]


def event_results(*, event: Event) -> list:
    """The confirmed places of the day, by rank (table 1's classification first)."""
    return list(
        ResultLine.objects.filter(event=event)
        .select_related("driver", "driver__team", "table")
        .order_by("rank")
    )
