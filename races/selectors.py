"""Reads for race day: tables with their grids, where a driver sits, sheet data."""

from __future__ import annotations

import unicodedata
from collections import defaultdict
from dataclasses import dataclass

from django.db.models import Prefetch

from races.models import GridSlot, RaceTable
from tournament.models import Driver, Event


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
    driver: Driver
    table: RaceTable
    position: int
    stand: int | None


def _plain(text: str) -> str:
    """Lowercase without accents: "Léa" and "LEA" both read "lea"."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def where_do_i_sit(*, event: Event, query: str) -> list[Seat]:
    """Seats matching a driver number or part of a name, ignoring accents and case.

    Matched in Python: an event has at most a few hundred seats, and SQLite's LIKE ignores
    case for ASCII letters only.
    """
    query = _plain(query.strip())
    if not query:
        return []
    slots = (
        GridSlot.objects.filter(event=event)
        .select_related("driver", "driver__team", "table")
        .order_by("table__number", "position")
    )
    seats = []
    for slot in slots:
        driver = slot.driver
        if query == str(driver.number) or query in _plain(driver.name):
            seats.append(Seat(driver, slot.table, slot.position, slot.stand))
    return seats[:50]


def event_results(*, event: Event) -> list:
    """The confirmed places of the day, by rank (table 1's classification first)."""
    from races.models import ResultLine

    return list(
        ResultLine.objects.filter(event=event)
        .select_related("driver", "driver__team", "table")
        .order_by("rank")
    )
