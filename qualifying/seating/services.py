"""Writes of the qualifying tables: who sits where (§1-0-4): a table set by hand, the spread
of every entry, late arrivals joining without moving anyone who ran, the tables and drivers
under a minute. The pure rules they follow are ``qualifying.seating.rules``.

Every write checks who acts, saves in one transaction and leaves a history row saying who
did it and when.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils.translation import gettext as _
from simple_history.utils import bulk_create_with_history

from qualifying.models import (
    QualifyingSeat,
    QualifyingTable,
    Run,
)
from qualifying.seating import rules as seating
from tournament.access import Actor
from tournament.errors import Conflict, InvalidInput
from tournament.games.registry import require_step
from tournament.models import Driver, Entry, Event
from tournament.registration.services import require_organiser
from tournament.wording import seating_message

MAX_TABLES = 200


def _table_get_or_create(actor: Actor, event: Event, number: int) -> QualifyingTable:
    """Table ``number`` of ``event``; a new one is recorded as created by ``actor``."""
    table = QualifyingTable.objects.filter(event=event, number=number).first()
    if table is not None:
        return table
    table = QualifyingTable(event=event, number=number)
    try:
        with transaction.atomic():
            actor.stamp(table).save()
    except IntegrityError:  # created meanwhile by another request
        return QualifyingTable.objects.get(event=event, number=number)
    return table


def _seat(actor: Actor, event: Event, seating: Mapping[QualifyingTable, Sequence[Driver]]) -> None:
    """Seat each table's drivers in order, recording who moved, seated or unseated whom.

    Only the seats in ``seating``'s tables and of its drivers change: a driver already at
    the right place keeps their seat (no history row), one at another table moves (a
    change of table in the history), one new to the tables gets a seat; the drivers who
    were at these tables and are no longer lose theirs (a deletion in the history).
    """
    wanted = {
        driver.pk: (table, order)
        for table, drivers in seating.items()
        for order, driver in enumerate(drivers)
    }
    tables = [table.pk for table in seating]
    seats = QualifyingSeat.objects.select_for_update().filter(
        Q(event=event) & (Q(table__in=tables) | Q(driver__in=list(wanted)))
    )
    new = []
    kept = set()
    for seat in seats.order_by("pk"):
        if seat.driver_id not in wanted:
            actor.stamp(seat).delete()
            continue
        kept.add(seat.driver_id)
        table, order = wanted[seat.driver_id]
        if (seat.table_id, seat.order) != (table.pk, order):
            seat.table, seat.order = table, order
            actor.stamp(seat).save(update_fields=["table", "order"])
    for table, drivers in seating.items():
        new += [
            QualifyingSeat(event=event, table=table, driver=driver, order=order)
            for order, driver in enumerate(drivers)
            if driver.pk not in kept
        ]
    if new:
        bulk_create_with_history(
            new,
            QualifyingSeat,
            default_user=actor.user if actor.is_authenticated else None,
            custom_historical_attrs={"history_actor": actor.label},
        )


def entries_to_seat(event: Event) -> list[Entry]:
    """Checked-in entries when the event uses check-in, else every entry not marked
    absent (DOMAIN.md)."""
    entries = list(Entry.objects.filter(event=event, absent=False).select_related("driver"))
    checked = [e for e in entries if e.checked_in]
    return checked or entries


@transaction.atomic
def qualifying_table_set(
    *,
    actor: Actor,
    event: Event,
    number: int,
    drivers: Sequence[int],
    referee_name: str | None = None,
    fast: bool | None = None,
) -> QualifyingTable:
    """Create or replace qualifying table ``number``; a driver moves here from any other table.

    ``fast`` marks (or unmarks) the table for the drivers running under a minute (§1-0-4);
    None keeps the mark as it is.
    """
    require_organiser(actor, event.championship)
    require_step(event, "qualifying_tables")
    if not 1 <= number <= MAX_TABLES:
        raise InvalidInput(
            _("Tables are numbered from 1 to %(max)s.") % {"max": MAX_TABLES},
            {"number": [_("1 to %(max)s.") % {"max": MAX_TABLES}]},
        )
    if referee_name is not None and len(referee_name.strip()) > 120:
        raise InvalidInput(
            _("The referee's name is limited to 120 characters."),
            {"referee": [_("120 characters at most.")]},
        )
    found = {
        e.driver.number: e.driver
        for e in Entry.objects.filter(event=event, driver__number__in=drivers).select_related(
            "driver"
        )
    }
    unknown = [n for n in drivers if n not in found]
    if unknown:
        raise InvalidInput(
            _("Not registered for this event: %(numbers)s.")
            % {"numbers": ", ".join(str(n) for n in unknown)},
            {"drivers": [_("Not registered: %(numbers)s") % {"numbers": unknown}]},
        )
    if len(set(drivers)) != len(drivers):
        raise InvalidInput(_("A driver is listed twice."), {"drivers": [_("Duplicate number.")]})
    table = _table_get_or_create(actor, event, number)
    if referee_name is not None and table.referee_name != referee_name.strip():
        table.referee_name = referee_name.strip()
        actor.stamp(table).save(update_fields=["referee_name"])
    if fast is not None and table.fast != fast:
        table.fast = fast
        actor.stamp(table).save(update_fields=["fast"])
    _seat(actor, event, {table: [found[n] for n in drivers]})
    return table


def _spread_problem(problem: seating.SeatingProblem) -> InvalidInput:
    return InvalidInput(seating_message(problem), {"fast": [seating_message(problem)]})


def _full_spread(event: Event, table_size: int) -> dict[int, list[Driver]]:
    """Every driver to seat, table by table, as a fresh spread would seat them."""
    entries = sorted(entries_to_seat(event), key=lambda e: e.driver.number)
    if not entries:
        raise InvalidInput(_("Register drivers for the event first."))
    marked = set(
        QualifyingTable.objects.filter(event=event, fast=True).values_list("number", flat=True)
    )
    try:
        spread = seating.spread(
            [e.driver.number for e in entries],
            capacity=table_size,
            fast_drivers={e.driver.number for e in entries if e.fast},
            fast_tables=marked,
        )
    except seating.SeatingProblem as problem:
        raise _spread_problem(problem) from None
    drivers = {e.driver.number: e.driver for e in entries}
    return {number: [drivers[n] for n in numbers] for number, numbers in spread.items()}


class SpreadMove(NamedTuple):
    """A seated driver a new spread would move: from table ``before`` to ``after`` (0: no
    table), and whether they already ran (their run sits on the old table's sheet)."""

    driver: Driver
    before: int
    after: int
    ran: bool


def qualifying_spread_moves(*, event: Event, table_size: int) -> list[SpreadMove]:
    """Each seated driver a spread moves, in number order, whether they ran or not: a
    driver who has not run yet may hold a printed card of their old table too."""
    after = {
        driver.pk: number
        for number, drivers in _full_spread(event, table_size).items()
        for driver in drivers
    }
    ran = set(Run.objects.filter(session__event=event).values_list("driver", flat=True))
    seats = QualifyingSeat.objects.filter(event=event).select_related("driver", "table")
    return [
        SpreadMove(
            seat.driver, seat.table.number, after.get(seat.driver_id, 0), seat.driver_id in ran
        )
        for seat in seats.order_by("driver__number")
        if after.get(seat.driver_id, 0) != seat.table.number
    ]


@transaction.atomic
def qualifying_tables_auto(
    *, actor: Actor, event: Event, table_size: int, move_runs: bool = False
) -> list[QualifyingTable]:
    """Spread the entries over ``ceil(N / size)`` tables of balanced sizes, in number order;
    the drivers flagged as running under a minute sit at the tables marked for them (§1-0-4).

    Existing tables keep their referee, link and mark; runs already entered are untouched.
    A spread that would move a driver who already has a run is a ``Conflict`` unless
    ``move_runs`` (race control confirmed, knowing the sheets handed out change).
    """
    require_organiser(actor, event.championship)
    require_step(event, "qualifying_tables")
    moves = qualifying_spread_moves(event=event, table_size=table_size)
    if not move_runs and any(move.ran for move in moves):
        raise Conflict(
            _(
                "This spread would move drivers who already ran to other tables: seat the "
                "late arrivals instead, or confirm the new spread."
            )
        )
    spread = _full_spread(event, table_size)
    seating_by_table: dict[QualifyingTable, list[Driver]] = {}
    for number, drivers in spread.items():
        seating_by_table[_table_get_or_create(actor, event, number)] = drivers
    # Every seat of the event is reconsidered: the tables beyond the spread are emptied.
    extra_tables = list(QualifyingTable.objects.filter(event=event, number__gt=len(spread)))
    _seat(actor, event, {**seating_by_table, **{table: [] for table in extra_tables}})
    for table in extra_tables:
        actor.stamp(table).delete()
    return list(seating_by_table)


@transaction.atomic
def qualifying_tables_join(
    *, actor: Actor, event: Event, table_size: int
) -> list[tuple[Driver, QualifyingTable]]:
    """Seat the late arrivals at the emptiest tables with room, moving nobody seated
    (``seating.join``): ``(driver, table)`` for each, in number order (none: empty)."""
    require_organiser(actor, event.championship)
    require_step(event, "qualifying_tables")
    entries = sorted(entries_to_seat(event), key=lambda e: e.driver.number)
    seats = QualifyingSeat.objects.select_for_update().filter(event=event)
    current: dict[int, list[Driver]] = {
        number: [] for number in event.qualifying_tables.values_list("number", flat=True)
    }
    for seat in seats.select_related("driver", "table").order_by("table__number", "order"):
        current.setdefault(seat.table.number, []).append(seat.driver)
    seated = {driver.number for drivers in current.values() for driver in drivers}
    newcomers = {e.driver.number: e.driver for e in entries if e.driver.number not in seated}
    if not newcomers:
        return []
    try:
        joined = seating.join(
            {number: [d.number for d in drivers] for number, drivers in current.items()},
            list(newcomers),
            capacity=table_size,
            fast_drivers={e.driver.number for e in entries if e.fast},
            fast_tables=set(
                event.qualifying_tables.filter(fast=True).values_list("number", flat=True)
            ),
        )
    except seating.SeatingProblem as problem:
        raise _spread_problem(problem) from None
    placed = []
    for number, numbers in joined.items():
        new = [newcomers[n] for n in numbers if n in newcomers]
        if new:
            table = _table_get_or_create(actor, event, number)
            _seat(actor, event, {table: current.get(number, []) + new})
            placed += [(driver, table) for driver in new]
    return sorted(placed, key=lambda pair: pair[0].number)


@transaction.atomic
def fast_tables_set(*, actor: Actor, event: Event, numbers: Iterable[int]) -> list[int]:
    """Reserve tables ``numbers`` for the drivers under a minute (§1-0-4), made empty if
    need be (the spread fills them); the others lose the mark."""
    require_organiser(actor, event.championship)
    require_step(event, "qualifying_tables")
    wanted = sorted(set(numbers))
    if any(not 1 <= n <= MAX_TABLES for n in wanted):
        message = _("Tables are numbered from 1 to %(max)s.") % {"max": MAX_TABLES}
        raise InvalidInput(message, {"tables": [message]})
    for table in [_table_get_or_create(actor, event, n) for n in wanted] + list(
        event.qualifying_tables.filter(fast=True).exclude(number__in=wanted)
    ):
        if table.fast != (table.number in wanted):
            table.fast = table.number in wanted
            actor.stamp(table).save(update_fields=["fast"])
    return wanted


@transaction.atomic
def fast_drivers_set(
    *, actor: Actor, event: Event, numbers: Iterable[int], fast: bool = True, only: bool = False
) -> list[Entry]:
    """Flag (or unflag) entries as drivers running under a minute (§1-0-4); with ``only``,
    the drivers not listed lose their flag. Answers every flagged entry of the event."""
    require_organiser(actor, event.championship)
    require_step(event, "qualifying_tables")
    wanted = list(dict.fromkeys(numbers))
    locked = Entry.objects.select_for_update().filter(event=event).select_related("driver")
    entries = {e.driver.number: e for e in locked if e.driver.number in wanted or only}
    if only:
        for number, entry in entries.items():
            if number not in wanted and entry.fast:
                entry.fast = False
                actor.stamp(entry).save(update_fields=["fast"])
        entries = {n: e for n, e in entries.items() if n in wanted}
    unknown = [n for n in wanted if n not in entries]
    if unknown:
        raise InvalidInput(
            _("Not registered for this event: %(numbers)s.")
            % {"numbers": ", ".join(str(n) for n in unknown)},
            {"numbers": [_("Not registered: %(numbers)s") % {"numbers": unknown}]},
        )
    for entry in entries.values():
        if entry.fast != fast:
            entry.fast = fast
            actor.stamp(entry).save(update_fields=["fast"])
    return list(
        Entry.objects.filter(event=event, fast=True)
        .select_related("driver", "driver__team")
        .order_by("driver__number")
    )
