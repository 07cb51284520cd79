"""Reads for race day: tables with their grids, where a driver sits (the event's seating,
read once per version of its rows), sheet data."""

from __future__ import annotations

import contextlib
import functools
import threading
import unicodedata
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from django.core.cache import cache
from django.db import connection
from django.db.models import Prefetch, Q

from qualifying.models import QualifyingSeat, QualifyingTable
from races.models import GridSlot, RaceTable, ResultLine, ResultStatus
from tournament.models import Driver, Entry, Event, Team
from tournament.public import freshness
from tournament.public.names import shown_last_name

#: How long an event's seating stays in the shared cache when nothing changes (its key
#: changes with the data anyway).
SEATING_TIMEOUT = 3600


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


def allocation_warnings(*, event: Event, only: RaceTable | None = None) -> list[dict]:
    """Team-mates sitting at the same table now (after allocation and any manual swap), at
    every table of the event or at ``only`` that one.

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
    if only is not None:
        slots = slots.filter(table=only)
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
    order: "Michel Manon", "manon mich" and "9" all find Manon Michel (number 9). The name
    as the public reads it: a driver shown as "Élodie L." is not found by "Lefèvre"."""
    return _matches(str(driver.number), _plain(driver.public_name), words)


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
    by number; 50 at most. Searched in the event's seating (``event_seating``), read once
    per version of its rows: a search is no query but the change counters'.
    """
    if not _plain(query).split():
        return []
    return event_seating(event=event).search(query, race=race, qualifying=qualifying)


#: The tables the event's seating is read from: a change to any moves its version.
SEATING_TABLES = (
    "tournament.Driver",
    "tournament.Team",
    "tournament.Entry",
    "races.GridSlot",
    "races.RaceTable",
    "qualifying.QualifyingSeat",
    "qualifying.QualifyingTable",
)


class _Driver(NamedTuple):
    """A driver of the event as a seat shows them (the last name as the public reads it:
    "L." for a short name), and the folded "first last" and number that searches read
    (``_matches``)."""

    pk: int
    number: int
    first_name: str
    last_name: str
    team_id: int | None
    team: str
    plain: str
    digits: str


class Place(NamedTuple):
    """Where a driver of the event sits, as a search finds it: ``kind`` as ``Seat``'s,
    ``table`` the table's id, number and link fields (its digest and sealed copy, never the
    secret), None for a driver registered and seated nowhere."""

    kind: str
    driver: _Driver
    table: tuple[int, int, str, str] | None
    position: int | None = None
    stand: int | None = None


@dataclass(frozen=True)
class Seating:
    """Every driver of an event (registered, or seated: a driver withdrawn after the
    allocation keeps their seat) and where each sits, in the order a search lists them:
    race seats by table and grid position, qualifying seats by table, order and number,
    registered drivers by number. Plain tuples: kept in the shared cache as they are.

    ``rendered``: what a page made of these rows and keeps beside them in this process
    (each seat's HTML), gone with them when the rows change."""

    event_id: int
    drivers: tuple[_Driver, ...]
    race: tuple[Place, ...]
    qualifying: tuple[Place, ...]
    registered: tuple[Place, ...]
    rendered: dict = field(default_factory=dict, compare=False, repr=False)

    def find(self, query: str, *, race: bool = True, qualifying: bool = True) -> list[Place]:
        """The places of the drivers matching ``query``, as ``where_do_i_sit`` lists them:
        in memory, no query."""
        words = _plain(query).split()
        if not words:
            return []
        matched = {d.pk for d in self.drivers if _matches(d.digits, d.plain, words)}
        if not matched:
            return []
        found: dict[int, Place] = {}
        for places, wanted in ((self.race, race), (self.qualifying, qualifying)):
            if wanted:
                for place in places:
                    pk = place.driver.pk
                    if pk in matched and pk not in found:
                        found[pk] = place
        for place in self.registered:
            pk = place.driver.pk
            if pk in matched and pk not in found:
                found[pk] = place
        return list(found.values())[:50]

    def seat(self, place: Place) -> Seat:
        """The ``Seat`` of a place found: its driver and table are models with what a seat
        shows (number, names, team; the table's number and link), not read from the
        database, not to be saved."""
        row = place.driver
        driver = Driver(
            pk=row.pk,
            number=row.number,
            first_name=row.first_name,
            last_name=row.last_name,
            team_id=row.team_id,
        )
        if row.team_id is not None:
            driver.team = Team(pk=row.team_id, name=row.team)
        table = None
        if place.table is not None:
            model = RaceTable if place.kind == "race" else QualifyingTable
            pk, number, digest, sealed = place.table
            # Its own link fields: a table given none would draw a fresh secret and seal it.
            table = model(
                pk=pk,
                event_id=self.event_id,
                number=number,
                token_digest=digest,
                token_sealed=sealed,
            )
        return Seat(driver, table, place.position, place.stand, place.kind)

    def search(self, query: str, *, race: bool = True, qualifying: bool = True) -> list[Seat]:
        """``where_do_i_sit``'s answer, from these rows."""
        return [self.seat(place) for place in self.find(query, race=race, qualifying=qualifying)]

    def as_data(self) -> dict[str, Any]:
        """The rows as JSON (what the shared cache keeps: ``tournament.public.serializer``)."""
        return {
            "event": self.event_id,
            "drivers": [list(driver) for driver in self.drivers],
            "race": [[p.driver.pk, *p.table, p.position, p.stand] for p in self.race],  # type: ignore[misc]
            "qualifying": [[p.driver.pk, *p.table] for p in self.qualifying],  # type: ignore[misc]
            "registered": [p.driver.pk for p in self.registered],
        }

    @classmethod
    def of_data(cls, data: dict[str, Any]) -> Seating:
        """The seating ``as_data`` gave."""
        drivers = {row[0]: _Driver(*row) for row in data["drivers"]}
        return cls(
            event_id=data["event"],
            drivers=tuple(drivers.values()),
            race=tuple(
                Place("race", drivers[driver], (pk, number, digest, sealed), position, stand)
                for driver, pk, number, digest, sealed, position, stand in data["race"]
            ),
            qualifying=tuple(
                Place("qualifying", drivers[driver], (pk, number, digest, sealed))
                for driver, pk, number, digest, sealed in data["qualifying"]
            ),
            registered=tuple(Place("", drivers[driver], None) for driver in data["registered"]),
        )


def seating_read(*, event: Event) -> Seating:
    """The event's seating from the database: four queries of plain rows. Its drivers are
    named as they chose to be shown, and searched by that name alone (a public page: the
    last name of "Élodie L." finds nobody)."""
    drivers: dict[int, _Driver] = {}
    for pk, number, first, full_last, choice, team_id, team in Driver.objects.filter(
        Q(pk__in=Entry.objects.filter(event=event).values("driver"))
        | Q(pk__in=GridSlot.objects.filter(event=event).values("driver"))
        | Q(pk__in=QualifyingSeat.objects.filter(event=event).values("driver"))
    ).values_list(
        "pk", "number", "first_name", "last_name", "public_name_choice", "team_id", "team__name"
    ):
        last = shown_last_name(full_last, choice)
        drivers[pk] = _Driver(
            pk, number, first, last, team_id, team or "", _plain(f"{first} {last}"), str(number)
        )
    table = ("table_id", "table__number", "table__token_digest", "table__token_sealed")
    race = GridSlot.objects.filter(event=event).order_by("table__number", "position")
    seats = QualifyingSeat.objects.filter(event=event).order_by(
        "table__number", "order", "driver__number"
    )
    entries = Entry.objects.filter(event=event).order_by("driver__number")
    return Seating.of_data(
        {
            "event": event.pk,
            "drivers": list(drivers.values()),
            "race": race.values_list("driver_id", *table, "position", "stand"),
            "qualifying": seats.values_list("driver_id", *table),
            "registered": entries.values_list("driver_id", flat=True),
        }
    )


#: This process's seatings, by event: (version of their tables, seating). A few events'.
_seatings: dict[int, tuple[str, Seating]] = {}
_SEATINGS_KEPT = 16
_seatings_guard = threading.Lock()
#: One lock per event: its seating read by one thread of the process at a time.
_reading: dict[int, threading.Lock] = {}


def event_seating(*, event: Event) -> Seating:
    """The event's seating, read once per version of its tables (``SEATING_TABLES``'s
    change counters, ``tournament.public.freshness``) across the server's processes: kept
    in this process and in the shared cache (a phone's search during a spike then costs a
    filter in memory, where each search was a page of three queries and a hundred rows).
    Inside a transaction, or without counters, read afresh: its own writes have not moved
    the counters yet."""
    if connection.in_atomic_block:
        return seating_read(event=event)
    counters = freshness.versions(
        connection, [freshness.table_of(label) for label in SEATING_TABLES]
    )
    if counters is None:
        return seating_read(event=event)
    version = ".".join(str(c) for c in counters)
    kept = _seatings.get(event.pk)
    if kept is not None and kept[0] == version:
        return kept[1]
    # One thread of this process reads it; the others (the first phones of a spike, all at
    # once) wait for that read instead of each making its own.
    with _seatings_guard:
        reading = _reading.setdefault(event.pk, threading.Lock())
    with reading:
        kept = _seatings.get(event.pk)
        if kept is not None and kept[0] == version:
            return kept[1]
        return _seating_of_version(event, version)


def _seating_of_version(event: Event, version: str) -> Seating:
    """The seating at ``version``: from the shared cache, else read and put there; kept in
    this process."""
    # "names": its drivers' names as the public reads them (rows kept before held full ones).
    key = f"paddock:seating:names:{event.pk}:{version}"
    try:
        data = cache.get(key)
        seating = Seating.of_data(data) if isinstance(data, dict) else None
    except Exception:  # noqa: BLE001 - a cache outage (or a value not ours): read it again
        seating = None
    if seating is None:
        seating = seating_read(event=event)
        with contextlib.suppress(Exception):
            cache.set(key, seating.as_data(), SEATING_TIMEOUT)
    with _seatings_guard:  # gunicorn's threads: one changes the dictionary at a time
        if len(_seatings) >= _SEATINGS_KEPT and event.pk not in _seatings:
            _seatings.pop(next(iter(_seatings)), None)
        _seatings[event.pk] = (version, seating)
    return seating


def event_results(*, event: Event) -> list:
    """The confirmed places of the day, by rank (table 1's classification first)."""
    return list(
        ResultLine.objects.filter(event=event)
        .select_related("driver", "driver__team", "table")
        .order_by("rank")
    )


def confirmed_lines(table: RaceTable) -> list[ResultLine]:
    """A game table's confirmed result, in finishing order (none before race control
    confirms it): what its referee's page shows in place of the form."""
    if table.result_status != ResultStatus.CONFIRMED:
        return []
    return list(
        ResultLine.objects.filter(table=table).select_related("driver").order_by("position")
    )
