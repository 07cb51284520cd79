"""JSON API v1, Qualifying (``/work/shared/API.md``): sessions, tables, runs, classifications.

Runs are validated with the desk's ``RunForm`` so that the API and the web pages refuse the
same things with the same sentences; the services decide who may write and store it.
Mounted by ``tournament.api`` (which this module's helpers come from).
"""

from __future__ import annotations

import datetime
from typing import Annotated, Any, Literal

from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext as _
from ninja import Router, Schema
from ninja.responses import Status
from pydantic import BeforeValidator, Field, SkipValidation, StrictBool

from qualifying import selectors, services
from qualifying.forms import CancelRunForm, RunForm, SessionForm, StopwatchField
from qualifying.models import DrawRoll, QualifyingSeat, QualifyingSession, QualifyingTable, Run
from tournament.access import Actor
from tournament.api import (
    CURRENT_SERIALIZERS,
    ERRORS,
    DriverNumber,
    DriverOut,
    Int,
    actor_of,
    driver_out,
    get_event,
    invalid_fields,
    is_event_referee,
    referee_link,
    refuse_read,
    require_read,
    require_token,
)
from tournament.errors import InvalidInput, NotAllowed, NotFound
from tournament.models import Event

router = Router(tags=["Qualifying"])

Roll = Annotated[int, Field(strict=True, ge=1, le=20)]


def _one_roll_as_list(value: Any) -> Any:
    return value if isinstance(value, list) else [value]


#: ``roll`` or ``[roll, re-roll, ...]``, always a list once validated (no union: a union's
#: member names would leak into the error's field name).
Rolls = Annotated[
    list[Roll],
    BeforeValidator(_one_roll_as_list, json_schema_input_type=Roll | list[Roll]),
]
TyresName = Literal["hard", "soft", "rain"]


# ---------------------------------------------------------------------------
# Lookups and permissions
# ---------------------------------------------------------------------------


def get_session(event: Event, number: int) -> QualifyingSession:
    session = (
        QualifyingSession.objects.select_related("event").filter(event=event, number=number).first()
        if 1 <= number <= 32767
        else None
    )
    if session is None:
        raise NotFound(_("Session %(number)s does not exist for this event.") % {"number": number})
    return session


def _counted_run(session: QualifyingSession, driver: int) -> Run:
    if not 1 <= driver <= 2**31 - 1:
        raise NotFound(
            _("Driver %(number)s has no run in session %(session)s.")
            % {"number": driver, "session": session.number}
        )
    return services.counted_run(session=session, driver_number=driver)


def require_run_writer(actor: Actor, event: Event) -> None:
    """Organisers and this event's referees may write runs (the service checks the table)."""
    require_token(actor)
    if not (actor.can_organise(event.championship) or is_event_referee(actor, event)):
        raise NotAllowed(_("Only this event's organisers and referees may enter runs."))


def _read_qualifying(request: HttpRequest, event: str) -> tuple[Actor, Event]:
    """Event-wide qualifying data (classifications): organisers, else once published."""
    actor = actor_of(request)
    found = get_event(event)
    require_read(actor, found, published=found.published_qualifying)
    return actor, found


def own_tables(actor: Actor, event: Event) -> QuerySet[QualifyingTable]:
    """The qualifying tables of ``event`` that ``actor`` referees: its link's, or those
    its account is assigned to."""
    if isinstance(actor.table, QualifyingTable):
        return QualifyingTable.objects.filter(pk=actor.table.pk, event=event)
    if actor.table is None and actor.is_authenticated:
        return QualifyingTable.objects.filter(event=event, referee=actor.user)
    return QualifyingTable.objects.none()


def _read_own(
    request: HttpRequest, event: str
) -> tuple[Actor, Event, list[QualifyingTable] | None]:
    """Reads a table's referee may make of their own table before publication.

    Answers the caller, the event and ``None`` when everything may be read (organisers, or
    qualifying published), else the caller's own tables; anyone else is refused like an
    unpublished read (``404`` for anonymous callers and other tables' links).
    """
    actor = actor_of(request)
    found = get_event(event)
    if found.published_qualifying or actor.can_organise(found.championship):
        return actor, found, None
    tables = list(own_tables(actor, found))
    if not tables:
        raise refuse_read(actor, found)
    return actor, found, tables


# ---------------------------------------------------------------------------
# Sessions
# ---------------------------------------------------------------------------


class SessionIn(Schema):
    number: Int
    weather_roll: Int | None = Field(None, description="1..20; missing: the system rolls.")


class SessionOut(Schema):
    number: int
    roll: int
    source: Literal["physical", "system"]
    weather: Literal["sun", "variable", "rain"]
    track: Literal["dry", "wet"]


def session_out(session: QualifyingSession) -> dict[str, Any]:
    return {
        "number": session.number,
        "roll": session.roll,
        "source": session.source,
        "weather": session.weather,
        "track": session.track,
    }


def _form_errors(form: Any) -> dict[str, list[str]]:
    return {field: [str(m) for m in messages] for field, messages in form.errors.items()}


@router.post("/events/{event}/sessions", response={201: SessionOut, **ERRORS})
def session_create(request: HttpRequest, event: str, payload: SessionIn) -> Status[Any]:
    """Open a session and draw its weather once for every table (§1-0-3, §3-1)."""
    actor = actor_of(request)
    require_token(actor)
    found = get_event(event)
    form = SessionForm(data=payload.model_dump())
    if not form.is_valid():
        raise invalid_fields(_form_errors(form))
    session = services.session_create(
        actor=actor,
        event=found,
        number=form.cleaned_data["number"],
        weather_roll=form.cleaned_data["weather_roll"],
    )
    return Status(201, session_out(session))


@router.get("/events/{event}/sessions", response={200: list[SessionOut], **ERRORS})
def session_list(request: HttpRequest, event: str) -> list[dict[str, Any]]:
    """The sessions and their weather (the same at every table, so a qualifying table's
    referee reads them for their table)."""
    _actor, found, _own = _read_own(request, event)
    return [session_out(s) for s in QualifyingSession.objects.filter(event=found)]


# ---------------------------------------------------------------------------
# Qualifying tables
# ---------------------------------------------------------------------------


class QualifyingTableIn(Schema):
    number: Annotated[int, Field(strict=True, ge=1, le=200)]
    drivers: list[DriverNumber]
    referee: Annotated[str, Field(max_length=120)] | None = Field(
        None, description="The referee's name as printed on the sheet."
    )


class QualifyingTableOut(Schema):
    number: int
    drivers: list[DriverOut]
    referee: str
    referee_link: str | None = Field(None, description="Organisers only.")
    referee_token: str | None = Field(None, description="Organisers only.")


def table_out(table: QualifyingTable, *, secrets: bool) -> dict[str, Any]:
    return {
        "number": table.number,
        "drivers": [driver_out(d) for d in selectors.table_drivers(table=table)],
        "referee": table.referee_name,
        "referee_link": referee_link(table.token) if secrets else None,
        "referee_token": table.token if secrets else None,
    }


def _tables(actor: Actor, event: Event, own: list[QualifyingTable] | None) -> list[dict[str, Any]]:
    """Every table, or the caller's ``own`` ones; links and tokens for organisers only."""
    tables = QualifyingTable.objects.filter(event=event) if own is None else own
    organiser = actor.can_organise(event.championship)
    return [table_out(t, secrets=organiser) for t in tables]


@router.get("/events/{event}/qualifying-tables", response={200: list[QualifyingTableOut], **ERRORS})
def qualifying_table_list(request: HttpRequest, event: str) -> list[dict[str, Any]]:
    """The qualifying tables; referee links and tokens only for organisers.

    Before qualifying is published, a table's referee (link or account) sees their own
    table only; anyone else gets ``404`` (a user's token ``403``).
    """
    actor, found, own = _read_own(request, event)
    return _tables(actor, found, own)


@router.post(
    "/events/{event}/qualifying-tables", response={200: list[QualifyingTableOut], **ERRORS}
)
def qualifying_table_set(
    request: HttpRequest, event: str, payload: QualifyingTableIn
) -> list[dict[str, Any]]:
    """Create or replace a table's drivers (they leave any other table); answers every table."""
    actor = actor_of(request)
    require_token(actor)
    found = get_event(event)
    services.qualifying_table_set(
        actor=actor,
        event=found,
        number=payload.number,
        drivers=payload.drivers,
        referee_name=payload.referee,
    )
    return _tables(actor, found, None)


# ---------------------------------------------------------------------------
# Runs
# ---------------------------------------------------------------------------

RUN_FIELDS = (
    "tyres",
    "throws",
    "placement_errors",
    "exit_squares",
    "stopwatch",
    "eliminated",
    "performed_at",
)


# The types below document the contract; RunForm does the validation (SkipValidation), so
# that a typo is refused with the very sentence the referee's page shows.
class RunFields(Schema):
    tyres: SkipValidation[TyresName]
    throws: SkipValidation[int | None] = Field(None, description="Optional when eliminated.")
    placement_errors: SkipValidation[int] = 0
    exit_squares: SkipValidation[int] = 0
    stopwatch: SkipValidation[str | None] = Field(
        None, description="m:ss, m:ss.cc or 1'45\"20; optional when eliminated."
    )
    eliminated: StrictBool = False
    performed_at: SkipValidation[datetime.datetime | None] = Field(
        None, description="When the lap was run (ISO); orders the runs. Default: now."
    )


class RunIn(RunFields):
    driver: DriverNumber


class RunPatchIn(Schema):
    version: Int
    tyres: SkipValidation[TyresName | None] = None
    throws: SkipValidation[int | None] = None
    placement_errors: SkipValidation[int | None] = None
    exit_squares: SkipValidation[int | None] = None
    stopwatch: SkipValidation[str | None] = None
    eliminated: StrictBool | None = None
    performed_at: SkipValidation[datetime.datetime | None] = None


class CancelIn(Schema):
    reason: str


class BreakdownOut(Schema):
    throws: int
    placement: int
    corner_exits: int
    minutes: int


class RunOut(Schema):
    driver: DriverOut
    session: int
    version: int
    tyres: TyresName
    throws: int | None
    placement_errors: int
    exit_squares: int
    stopwatch: str | None
    eliminated: bool
    absolute_time: int | None
    breakdown: BreakdownOut | None
    performed_at: datetime.datetime
    cancelled: bool
    cancel_reason: str


def breakdown_out(breakdown: Any) -> dict[str, int] | None:
    if breakdown is None:
        return None
    return {
        "throws": breakdown.throws,
        "placement": breakdown.placement,
        "corner_exits": breakdown.corner_exits,
        "minutes": breakdown.minutes,
    }


def run_out(run: Run) -> dict[str, Any]:
    breakdown = run.breakdown()
    return {
        "driver": driver_out(run.driver),
        "session": run.session.number,
        "version": run.version,
        "tyres": run.tyres,
        "throws": run.throws,
        "placement_errors": run.placement_errors,
        "exit_squares": run.exit_squares,
        "stopwatch": run.stopwatch,
        "eliminated": run.eliminated,
        "absolute_time": breakdown.total if breakdown else None,
        "breakdown": breakdown_out(breakdown),
        "performed_at": run.performed_at,
        "cancelled": run.cancelled,
        "cancel_reason": run.cancel_reason,
    }


CURRENT_SERIALIZERS[Run] = run_out


def _clean_run(data: dict[str, Any]) -> dict[str, Any]:
    """RunForm's cleaned data, or a 400 naming every field RunForm refused."""
    stopwatch = data.get("stopwatch")
    if stopwatch is not None and not isinstance(stopwatch, str):
        # RunForm reads a bare integer as centiseconds (its own callers' shortcut); a JSON
        # client must write the time as text like on paper.
        raise invalid_fields({"stopwatch": [str(StopwatchField.default_error_messages["invalid"])]})
    form = RunForm(data=data)
    if not form.is_valid():
        raise invalid_fields(_form_errors(form))
    cleaned = dict(form.cleaned_data)
    performed_at = cleaned.get("performed_at")
    if performed_at is not None and not 1900 <= performed_at.year <= 9000:
        # Far dates overflow when converted to UTC on save.
        raise invalid_fields({"performed_at": [_("Enter a valid date/time.")]})
    return cleaned


def _stored_values(run: Run) -> dict[str, Any]:
    """A run's values as a client would send them, for merging a partial correction."""
    return {
        "tyres": run.tyres,
        "throws": run.throws,
        "placement_errors": run.placement_errors,
        "exit_squares": run.exit_squares,
        "stopwatch": run.stopwatch,
        "eliminated": run.eliminated,
        "performed_at": run.performed_at.isoformat(),
    }


@router.get("/events/{event}/sessions/{n}/runs", response={200: list[RunOut], **ERRORS})
def run_list(request: HttpRequest, event: str, n: int) -> list[dict[str, Any]]:
    """The session's counted runs in the order they were performed.

    Before qualifying is published, a table's referee reads the runs of the drivers at
    their own table only.
    """
    _actor, found, own = _read_own(request, event)
    session = get_session(found, n)
    runs = Run.objects.filter(session=session, cancelled=False).select_related(
        "session", "session__event", "driver", "driver__team"
    )
    if own is not None:
        runs = runs.filter(driver__qualifying_seats__table__in=own)
    return [run_out(r) for r in runs]


@router.post("/events/{event}/sessions/{n}/runs", response={201: RunOut, **ERRORS})
def run_record(request: HttpRequest, event: str, n: int, payload: RunIn) -> Status[Any]:
    """Record a driver's run; a second counted run for the same session answers 409."""
    actor = actor_of(request)
    found = get_event(event)
    session = get_session(found, n)
    require_run_writer(actor, found)
    sent = {name: getattr(payload, name) for name in RUN_FIELDS if name in payload.model_fields_set}
    run = services.run_record(
        actor=actor, session=session, driver_number=payload.driver, data=_clean_run(sent)
    )
    return Status(201, run_out(run))


@router.get("/events/{event}/sessions/{n}/runs/{driver}", response={200: RunOut, **ERRORS})
def run_detail(request: HttpRequest, event: str, n: int, driver: int) -> dict[str, Any]:
    """One counted run; before publication, only of a driver at the caller's own table."""
    actor, found, own = _read_own(request, event)
    if own is not None and not (
        1 <= driver <= 2**31 - 1
        and QualifyingSeat.objects.filter(table__in=own, driver__number=driver).exists()
    ):
        raise refuse_read(
            actor,
            found,
            not_found=_("Driver %(number)s does not sit at your qualifying table.")
            % {"number": driver},
        )
    return run_out(_counted_run(get_session(found, n), driver))


@router.patch("/events/{event}/sessions/{n}/runs/{driver}", response={200: RunOut, **ERRORS})
def run_update(
    request: HttpRequest, event: str, n: int, driver: int, payload: RunPatchIn
) -> dict[str, Any]:
    """Correct a run: send the ``version`` you read and the fields to change (409 if stale)."""
    actor = actor_of(request)
    found = get_event(event)
    session = get_session(found, n)
    require_run_writer(actor, found)
    run = _counted_run(session, driver)
    data = _stored_values(run)
    data.update(
        {name: getattr(payload, name) for name in RUN_FIELDS if name in payload.model_fields_set}
    )
    updated = services.run_update(
        actor=actor, run=run, version=payload.version, data=_clean_run(data)
    )
    return run_out(updated)


@router.post("/events/{event}/sessions/{n}/runs/{driver}/cancel", response={200: RunOut, **ERRORS})
def run_cancel(
    request: HttpRequest, event: str, n: int, driver: int, payload: CancelIn
) -> dict[str, Any]:
    """Cancel a run where the event allows a redo; the driver may then run again."""
    actor = actor_of(request)
    found = get_event(event)
    session = get_session(found, n)
    require_run_writer(actor, found)
    run = _counted_run(session, driver)
    form = CancelRunForm(data={"reason": payload.reason})
    if not form.is_valid():
        raise invalid_fields(_form_errors(form))
    return run_out(services.run_cancel(actor=actor, run=run, reason=form.cleaned_data["reason"]))


# ---------------------------------------------------------------------------
# Classifications
# ---------------------------------------------------------------------------


class ClassificationLineOut(Schema):
    rank: int
    driver: DriverOut
    status: Literal["ok", "eliminated", "incomplete", "no_run"]
    absolute_time: int | None
    stopwatch: str | None
    session: int | None
    breakdown: BreakdownOut | None


def line_out(line: selectors.ClassifiedLine) -> dict[str, Any]:
    return {
        "rank": line.rank,
        "driver": driver_out(line.driver),
        "status": line.status,
        "absolute_time": line.absolute_time,
        "stopwatch": line.stopwatch,
        "session": line.session,
        "breakdown": breakdown_out(line.breakdown),
    }


@router.get(
    "/events/{event}/sessions/{n}/classification",
    response={200: list[ClassificationLineOut], **ERRORS},
)
def session_classification(request: HttpRequest, event: str, n: int) -> list[dict[str, Any]]:
    """One session (§1-3-2): absolute time, then stopwatch, then order run; eliminated last."""
    _actor, found = _read_qualifying(request, event)
    session = get_session(found, n)
    return [line_out(line) for line in selectors.session_classification(session=session)]


@router.get("/events/{event}/qualifying", response={200: list[ClassificationLineOut], **ERRORS})
def general_classification(request: HttpRequest, event: str) -> list[dict[str, Any]]:
    """The event's general classification (mode best or sum; the draw order in mode draw)."""
    _actor, found = _read_qualifying(request, event)
    return [line_out(line) for line in selectors.general_classification(event=found)]


# ---------------------------------------------------------------------------
# Quick rules: the d20 draw
# ---------------------------------------------------------------------------


class DrawIn(Schema):
    rolls: dict[str, Rolls] | None = Field(
        None,
        description='{"<number>": roll or [roll, re-roll, ...]}; drivers left out are '
        "rolled by the system.",
    )


class DrawLineOut(Schema):
    rank: int
    driver: DriverOut
    rolls: list[int]
    source: Literal["physical", "system"] | None


class DrawOut(Schema):
    order: list[DrawLineOut]
    pending_ties: list[list[DriverOut]]


def _draw_rolls(payload: DrawIn | None) -> dict[int, list[int]]:
    rolls: dict[int, list[int]] = {}
    bad: list[str] = []
    for key, value in ((payload.rolls if payload else None) or {}).items():
        if not (key.strip().isascii() and key.strip().isdigit()) or len(key.strip()) > 9:
            bad.append(key)
            continue
        rolls[int(key)] = list(value)
    if bad:
        raise InvalidInput(
            _("Rolls are given by driver number: %(keys)s.") % {"keys": ", ".join(bad)},
            {"rolls": [_("“%(value)s” is not a driver number.") % {"value": k} for k in bad]},
        )
    return rolls


@router.post("/events/{event}/draw", response={200: DrawOut, **ERRORS})
def draw(request: HttpRequest, event: str, payload: DrawIn | None = None) -> dict[str, Any]:
    """Quick rules §2: record physical rolls, roll the rest; lowest roll takes pole."""
    actor = actor_of(request)
    require_token(actor)
    found = get_event(event)
    outcome = services.draw_record(actor=actor, event=found, rolls=_draw_rolls(payload))
    records = {
        r.driver.number: r
        for r in DrawRoll.objects.filter(event=found).select_related("driver", "driver__team")
    }
    drivers = {number: record.driver for number, record in records.items()}
    missing = [n for n in outcome.order if n not in drivers]
    if missing:  # physical drivers who have not rolled yet have no record
        for entry in found.entries.filter(driver__number__in=missing).select_related(
            "driver", "driver__team"
        ):
            drivers[entry.driver.number] = entry.driver
    return {
        "order": [
            {
                "rank": rank,
                "driver": driver_out(drivers[number]),
                "rolls": list(outcome.rolls.get(number, ())),
                "source": records[number].source if number in records else None,
            }
            for rank, number in enumerate(outcome.order, start=1)
        ],
        "pending_ties": [[driver_out(drivers[n]) for n in group] for group in outcome.pending_ties],
    }
