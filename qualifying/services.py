"""Writes for qualifying: sessions and their weather, runs, the d20 draw (the qualifying
tables: ``qualifying.seating.services``).

Every write checks who acts, validates, saves in one transaction and leaves a history row
saying who did it (user or referee link), when, and the values before and after.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from qualifying import scoring
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
from qualifying.seating.services import entries_to_seat
from tournament.access import Actor, last_saved
from tournament.errors import Conflict, InvalidInput, NotAllowed, NotFound
from tournament.games.registry import require_step
from tournament.models import Driver, Entry, Event
from tournament.registration.services import require_desk, require_organiser

MAX_SESSIONS = 20

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
    require_step(event, "sessions")
    if event.qualifying_mode == Event.QualifyingMode.DRAW:
        raise Conflict(
            _("This event uses the d20 draw for the grid: it has no qualifying session.")
        )
    if not 1 <= number <= MAX_SESSIONS:
        raise InvalidInput(
            _("Sessions are numbered from 1 to %(max)s.") % {"max": MAX_SESSIONS},
            {"number": [_("1 to %(max)s.") % {"max": MAX_SESSIONS}]},
        )
    exists = _("Session %(number)s already exists.") % {"number": number}
    if QualifyingSession.objects.filter(event=event, number=number).exists():
        raise Conflict(exists)
    roll, source = roll_or_record(weather_roll)
    weather = event.weather_scale.weather_for(roll)
    session = QualifyingSession(
        event=event,
        number=number,
        roll=roll,
        source=source,
        weather=weather,
        track=scoring.qualifying_track(weather),
    )
    try:
        with transaction.atomic():
            actor.stamp(session).save()
    except IntegrityError:
        # Opened by another request between the check above and this insert.
        raise Conflict(exists) from None
    return session


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
    """Organisers and the desk write any run; a referee only those of the drivers at their
    table."""
    if actor.can_desk(event.championship):
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
    return [e.driver for e in entries_to_seat(event)]


@dataclass(frozen=True)
class DrawRecorded(scoring.DrawOutcome):
    """The draw's outcome, and what a roll after the allocation changed (DOMAIN.md, "Quick
    rules"): ``rewritten`` are drivers on a grid whose rolls changed (the grids no longer
    follow the draw), ``late`` drivers rolled now who are on no grid."""

    rewritten: list[Driver] = field(default_factory=list)
    late: list[Driver] = field(default_factory=list)

    @property
    def warning(self) -> str | None:
        """What the rolls after the allocation changed, in words (None: nothing)."""
        parts = []
        if self.rewritten:
            parts.append(
                _(
                    "Roll rewritten after the allocation (%(drivers)s): the grids no longer "
                    "follow the d20 draw."
                )
                % {"drivers": _names(self.rewritten)}
            )
        if self.late:
            parts.append(
                _("Rolled after the allocation, on no grid: %(drivers)s.")
                % {"drivers": _names(self.late)}
            )
        if not parts:
            return None
        advice = _("Allocate again while no table has started, or swap drivers with a reason.")
        return " ".join([*parts, advice])


def _names(drivers: Sequence[Driver]) -> str:
    return ", ".join(f"{d.number} {d.name}" for d in drivers)


@transaction.atomic
def draw_record(
    *,
    actor: Actor,
    event: Event,
    rolls: Mapping[int, Sequence[int]] | None = None,
    reason: str = "",
) -> DrawRecorded:
    """Quick rules §2 grid draw: record physical rolls, roll the rest, re-roll system ties.

    The allocation closes the rolls (the grids were built on them): any roll then, physical
    or by the system (a late driver's), is refused to a table's link, and race control
    makes one only with a ``reason`` (recorded); the answer says what it changed (a grid
    that no longer follows the draw, a driver on no grid). A call that rolls nothing reads
    the draw.
    """
    closed = qualifying_closed(event=event)
    table = getattr(actor.table, "event_id", None)
    if closed and bool(rolls) and table == event.pk:
        raise Conflict(
            _(
                "The d20 draw is closed: the race tables were built on it. Ask race control "
                "to correct a roll."
            ),
            {"rolls": [_("Closed by the allocation.")]},
        )
    # The desk types the rolls (a draw event's runs) while the draw is open; once the race
    # tables are built on it, race control alone corrects it.
    require_desk(actor, event.championship)
    if closed and (rolls or reason) and not actor.can_organise(event.championship):
        raise Conflict(
            _(
                "The d20 draw is closed: the race tables were built on it. Ask race control "
                "to correct a roll."
            ),
            {"rolls": [_("Closed by the allocation.")]},
        )
    if event.qualifying_mode != Event.QualifyingMode.DRAW:
        raise Conflict(_("This event's grid comes from qualifying, not from a d20 draw."))
    reason = _reason(reason or "")
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
    before = {number: list(record.rolls) for number, record in stored.items()}
    if closed and not reason and (rolls or set(drivers) - set(stored)):
        late = [drivers[n] for n in sorted(set(drivers) - set(stored) - set(rolls))]
        raise Conflict(
            _(
                "The race tables were built on this d20 draw: give a reason for any roll now "
                "(the grids will no longer follow the draw)."
            )
            + (
                " " + _("Not rolled yet, so on no grid: %(drivers)s.") % {"drivers": _names(late)}
                if late
                else ""
            ),
            {"reason": [_("Required once the race tables exist.")]},
        )
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
            if reason:
                record._change_reason = reason  # type: ignore[attr-defined]
            actor.stamp(record).save()
            stored[number] = record
    changed = [
        n for n in drivers if n in stored and (n not in before or before[n] != stored[n].rolls)
    ]
    seated = set()
    if closed and changed:
        seated = set(
            Driver.objects.filter(grid_slots__table__event=event).values_list("number", flat=True)
        )
    return DrawRecorded(
        order=outcome.order,
        rolls=outcome.rolls,
        pending_ties=outcome.pending_ties,
        rewritten=[drivers[n] for n in changed if closed and n in seated],
        late=[drivers[n] for n in changed if closed and n not in seated],
    )
