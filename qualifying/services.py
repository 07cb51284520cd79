"""Writes for qualifying: sessions and their weather, qualifying tables, runs, the d20 draw.

Every write checks who acts, validates, saves in one transaction and leaves a history row
saying who did it (user or referee link), when, and the values before and after.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _
from simple_history.utils import bulk_create_with_history

from qualifying import scoring, seating
from qualifying.closure import (
    check_open,
    check_stopwatch,
    qualifying_closed,
    rank_moves,
    ranks,
)
from qualifying.models import (
    DrawRoll,
    QualifyingSeat,
    QualifyingSession,
    QualifyingTable,
    RollSource,
    Run,
    Tyres,
)
from qualifying.referee.words import run_values
from tournament.access import Actor, last_saved
from tournament.errors import Conflict, InvalidInput, NotAllowed, NotFound
from tournament.models import Driver, Entry, Event
from tournament.registration.services import require_organiser
from tournament.wording import seating_message

MAX_SESSIONS = 20
MAX_TABLES = 200

RUN_FIELDS = (
    "tyres",
    "throws",
    "placement_errors",
    "exit_squares",
    "stopwatch",
    "eliminated",
    "performed_at",
)


def roll_or_record(roll: int | None) -> tuple[int, str]:
    """The given physical roll, or a secure system roll: ``(roll, source)``."""
    if roll is None:
        return scoring.roll_d20(), RollSource.SYSTEM
    if not 1 <= roll <= 20:
        raise InvalidInput(_("A d20 roll is between 1 and 20."), {"roll": [_("1 to 20.")]})
    return roll, RollSource.PHYSICAL


@transaction.atomic
def session_create(
    *, actor: Actor, event: Event, number: int, weather_roll: int | None = None
) -> QualifyingSession:
    """Open a qualifying session and draw its weather once for every table (§1-0-3, §3-1)."""
    require_organiser(actor, event.championship)
    if event.qualifying_mode == Event.QualifyingMode.DRAW:
        raise Conflict(
            _("This event uses the d20 draw for the grid: it has no qualifying session.")
        )
    if not 1 <= number <= MAX_SESSIONS:
        raise InvalidInput(
            _("Sessions are numbered from 1 to %(max)s.") % {"max": MAX_SESSIONS},
            {"number": [_("1 to %(max)s.") % {"max": MAX_SESSIONS}]},
        )
    if QualifyingSession.objects.filter(event=event, number=number).exists():
        raise Conflict(_("Session %(number)s already exists.") % {"number": number})
    roll, source = roll_or_record(weather_roll)
    weather = event.circuit.weather_scale.weather_for(roll)
    session = QualifyingSession(
        event=event,
        number=number,
        roll=roll,
        source=source,
        weather=weather,
        track=scoring.qualifying_track(weather),
    )
    actor.stamp(session).save()
    return session


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


def _entries_to_seat(event: Event) -> list[Entry]:
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
    entries = sorted(_entries_to_seat(event), key=lambda e: e.driver.number)
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


def qualifying_spread_moves(*, event: Event, table_size: int) -> list[tuple[Driver, int, int]]:
    """``(driver, table now, table after or 0)`` for each driver with a run a spread moves."""
    after = {
        driver.pk: number
        for number, drivers in _full_spread(event, table_size).items()
        for driver in drivers
    }
    ran = set(Run.objects.filter(session__event=event).values_list("driver", flat=True))
    seats = QualifyingSeat.objects.filter(event=event, driver__in=ran).select_related(
        "driver", "table"
    )
    return [
        (seat.driver, seat.table.number, after.get(seat.driver_id, 0))
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
    if not move_runs and qualifying_spread_moves(event=event, table_size=table_size):
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
    entries = sorted(_entries_to_seat(event), key=lambda e: e.driver.number)
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


def _driver_of_event(event: Event, number: int) -> Driver:
    entry = (
        Entry.objects.filter(event=event, driver__number=number)
        .select_related("driver", "driver__team")
        .first()
    )
    if entry is None:
        raise InvalidInput(
            _("Driver %(number)s is not registered for this event.") % {"number": number},
            {"driver": [_("Not registered for this event.")]},
        )
    return entry.driver


def _check_referee(actor: Actor, event: Event, driver: Driver) -> None:
    """Organisers write any run; a referee only those of the drivers at their table."""
    if actor.can_organise(event.championship):
        return
    seat = QualifyingSeat.objects.filter(event=event, driver=driver).select_related("table").first()
    if seat is None or not actor.can_referee(seat.table):
        raise NotAllowed(
            _("Driver %(number)s does not sit at your qualifying table.")
            % {"number": driver.number}
        )


def _apply(run: Run, data: Mapping[str, Any]) -> None:
    """Copy validated values onto ``run``; refuse an incomplete lap whatever the caller."""
    if not data.get("eliminated") and (data.get("throws") is None or data.get("stopwatch") is None):
        raise InvalidInput(
            _("A run that is not eliminated needs its throws and its stopwatch time."),
            {"throws": [_("Required.")], "stopwatch": [_("Required.")]},
        )
    if data.get("tyres") not in Tyres.values:
        raise InvalidInput(
            _("Choose the tyres of the run: hard, soft or rain."),
            {"tyres": [_("Choose the tyres.")]},
        )
    check_stopwatch(run.session.event, data, run.stopwatch_cs if run.pk else None)
    run.tyres = data["tyres"]
    run.eliminated = bool(data.get("eliminated"))
    run.throws = data.get("throws")
    run.placement_errors = data.get("placement_errors") or 0
    run.exit_squares = data.get("exit_squares") or 0
    run.stopwatch_cs = data.get("stopwatch")
    if data.get("performed_at"):
        run.performed_at = data["performed_at"]


def _reason(reason: str) -> str:
    return reason.strip()[:200]


def run_record(
    *,
    actor: Actor,
    session: QualifyingSession,
    driver_number: int,
    data: Mapping[str, Any],
    reason: str = "",
) -> Run:
    """Record a driver's run in ``session`` (``data`` as cleaned by RunForm).

    Once the race tables exist only race control may, with a ``reason``; the answer's
    ``rank_moves`` then lists the drivers whose general rank it changed (else None).
    """
    event = session.event
    driver = _driver_of_event(event, driver_number)
    _check_referee(actor, event, driver)
    with transaction.atomic():
        moves = check_open(actor, event, reason)
        before = ranks(event) if moves is not None else {}
        current = Run.objects.filter(session=session, driver=driver, cancelled=False).first()
        if current is not None:
            raise Conflict(
                _("Driver %(number)s already has a run in session %(session)s.")
                % {"number": driver.number, "session": session.number},
                current=current,
            )
        run = Run(
            session=session, driver=driver, performed_at=timezone.now(), reason=_reason(reason)
        )
        _apply(run, data)
        try:
            with transaction.atomic():
                actor.stamp(run).save()
        except IntegrityError as exc:  # the same run sent twice at once
            raise Conflict(
                _("Driver %(number)s already has a run in session %(session)s.")
                % {"number": driver.number, "session": session.number},
                current=Run.objects.filter(session=session, driver=driver, cancelled=False).first(),
            ) from exc
        run.rank_moves = None if moves is None else rank_moves(before, event)
    return run


def counted_run(*, session: QualifyingSession, driver_number: int) -> Run:
    run = (
        Run.objects.filter(session=session, driver__number=driver_number, cancelled=False)
        .select_related("driver", "driver__team", "session", "session__event")
        .first()
    )
    if run is None:
        raise NotFound(
            _("Driver %(number)s has no run in session %(session)s.")
            % {"number": driver_number, "session": session.number}
        )
    return run


def run_update(
    *, actor: Actor, run: Run, version: int, data: Mapping[str, Any], reason: str = ""
) -> Run:
    """Correct a run; refused (409) when ``version`` is not the stored one.

    Once the race tables exist only race control may, with a ``reason`` (see run_record).
    """
    event = run.session.event
    _check_referee(actor, event, run.driver)
    with transaction.atomic():
        moves = check_open(actor, event, reason)
        before = ranks(event) if moves is not None else {}
        locked = Run.objects.select_for_update().select_related("session__event").get(pk=run.pk)
        if locked.cancelled:
            raise Conflict(_("This run was cancelled; it can no longer change."), current=locked)
        if locked.version != version:
            raise Conflict(
                _(
                    "%(who)s saved this run meanwhile, at %(time)s: %(values)s. What you "
                    "typed is not saved: check it against theirs, then save again."
                )
                % {
                    **last_saved(locked, QualifyingTable.objects.filter(seats__driver=run.driver)),
                    "values": run_values(locked),
                },
                current=locked,
            )
        _apply(locked, data)
        locked.version += 1
        locked.reason = _reason(reason)
        actor.stamp(locked).save()
        locked.rank_moves = None if moves is None else rank_moves(before, event)
    return locked


def run_cancel(*, actor: Actor, run: Run, reason: str) -> Run:
    """Cancel a run so the driver may run again: only where the event allows one redo."""
    event = run.session.event
    _check_referee(actor, event, run.driver)
    if not event.allow_redo:
        raise Conflict(_("This event does not allow a redo."))
    if not reason.strip():
        raise InvalidInput(_("Give a reason for the cancellation."), {"reason": [_("Required.")]})
    with transaction.atomic():
        moves = check_open(actor, event, reason)
        before = ranks(event) if moves is not None else {}
        locked = Run.objects.select_for_update().get(pk=run.pk)
        if locked.cancelled:
            raise Conflict(_("This run is already cancelled."))
        if Run.objects.filter(session=run.session, driver=run.driver, cancelled=True).exists():
            raise Conflict(
                _("Driver %(number)s already used their redo in this session.")
                % {"number": run.driver.number}
            )
        locked.cancelled = True
        locked.cancel_reason = _reason(reason)
        locked.version += 1
        actor.stamp(locked).save()
        locked.rank_moves = None if moves is None else rank_moves(before, event)
    return locked


def _draw_drivers(event: Event) -> list[Driver]:
    return [e.driver for e in _entries_to_seat(event)]


@transaction.atomic
def draw_record(
    *,
    actor: Actor,
    event: Event,
    rolls: Mapping[int, Sequence[int]] | None = None,
    reason: str = "",
) -> scoring.DrawOutcome:
    """Quick rules §2 grid draw: record physical rolls, roll the rest, re-roll system ties.

    The allocation closes the rolls (the grids were built on them): a roll is then refused
    to a table's link, and race control rewrites one only with a ``reason`` (recorded;
    the grids no longer follow the draw).
    """
    closed = bool(rolls) and qualifying_closed(event=event)
    table = getattr(actor.table, "event_id", None)
    if closed and table == event.pk:
        raise Conflict(
            _(
                "The d20 draw is closed: the race tables were built on it. Ask race control "
                "to correct a roll."
            ),
            {"rolls": [_("Closed by the allocation.")]},
        )
    require_organiser(actor, event.championship)
    if event.qualifying_mode != Event.QualifyingMode.DRAW:
        raise Conflict(_("This event's grid comes from qualifying, not from a d20 draw."))
    reason = _reason(reason or "")
    if closed and not reason:
        raise Conflict(
            _(
                "The race tables were built on this d20 draw: give a reason for rewriting a "
                "roll now (the grids will no longer follow the draw)."
            ),
            {"reason": [_("Required once the race tables exist.")]},
        )
    drivers = {d.number: d for d in _draw_drivers(event)}
    rolls = rolls or {}
    unknown = [n for n in rolls if n not in drivers]
    if unknown:
        raise InvalidInput(
            _("Not registered for this event: %(numbers)s.")
            % {"numbers": ", ".join(str(n) for n in unknown)}
        )
    for number, sequence in rolls.items():
        if not sequence or any(not 1 <= r <= 20 for r in sequence):
            raise InvalidInput(
                _("Driver %(number)s: a d20 roll is between 1 and 20.") % {"number": number},
                {str(number): [_("1 to 20.")]},
            )
    stored = {
        r.driver.number: r for r in DrawRoll.objects.filter(event=event).select_related("driver")
    }
    for number, sequence in rolls.items():
        record = stored.get(number) or DrawRoll(event=event, driver=drivers[number])
        record.rolls = list(sequence)
        record.source = RollSource.PHYSICAL
        if reason:
            record._change_reason = reason  # type: ignore[attr-defined]
        actor.stamp(record).save()
        stored[number] = record
    sequences = {n: list(stored[n].rolls) if n in stored else [] for n in drivers}
    system = {n for n in drivers if n not in stored or stored[n].source == RollSource.SYSTEM}
    outcome = scoring.resolve_draw(sequences, system=system)
    for number, sequence in outcome.rolls.items():
        record = stored.get(number)
        if record is None:
            record = DrawRoll(event=event, driver=drivers[number], source=RollSource.SYSTEM)
        if list(sequence) != list(record.rolls):
            record.rolls = list(sequence)
            actor.stamp(record).save()
    return outcome
