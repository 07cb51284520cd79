"""JSON API v1, Qualifying (``API.md``): sessions, tables, runs, classifications.

Runs are validated with the desk's ``RunForm`` so that the API and the web pages refuse the
same things with the same sentences; the services decide who may write and store it.
Mounted by ``paddock.api`` (which this module's helpers come from).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext as _
from ninja import Router, Schema
from ninja.responses import Status
from pydantic import Field, StrictBool

from qualifying import selectors, services
from qualifying.api.schemas import (
    RUN_FIELDS,
    BreakdownOut,
    CancelIn,
    RunIn,
    RunOut,
    RunPatchIn,
    breakdown_out,
    clean_run,
    form_errors,
    run_out,
    stored_values,
)
from qualifying.forms import CancelRunForm, SessionForm
from qualifying.models import QualifyingSeat, QualifyingSession, QualifyingTable, Run
from qualifying.seating import services as seating
from tournament.access import Actor
from tournament.apikit import (
    ERRORS,
    SEALED_LINK,
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
    with_players,
)
from tournament.errors import NotAllowed, NotFound
from tournament.models import Event

router = Router(tags=["Qualifying"])


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
    """Organisers, the desk and this event's referees may write runs (the service checks
    the table)."""
    require_token(actor)
    if not (actor.can_desk(event.championship) or is_event_referee(actor, event)):
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


def read_own(request: HttpRequest, event: str) -> tuple[Actor, Event, list[QualifyingTable] | None]:
    """Reads a table's referee may make of their own table before publication.

    Answers the caller, the event and ``None`` when everything may be read (organisers, the
    desk, or qualifying published), else the caller's own tables; anyone else is refused
    like an unpublished read (``404`` for anonymous callers and other tables' links).
    """
    actor = actor_of(request)
    found = get_event(event)
    if found.published_qualifying or actor.can_desk(found.championship):
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


@router.post("/events/{event}/sessions", response={201: SessionOut, **ERRORS})
def session_create(request: HttpRequest, event: str, payload: SessionIn) -> Status[Any]:
    """Open a session and draw its weather once for every table (§1-0-3, §3-1)."""
    actor = actor_of(request)
    require_token(actor)
    found = get_event(event)
    form = SessionForm(data=payload.model_dump())
    if not form.is_valid():
        raise invalid_fields(form_errors(form))
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
    _actor, found, _own = read_own(request, event)
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
    fast: StrictBool | None = Field(
        None,
        description="Reserved for the drivers running under a minute (§1-0-4); missing: unchanged.",
    )


class QualifyingTableOut(Schema):
    number: int
    drivers: list[DriverOut]
    referee: str
    fast: bool
    referee_link: str | None = Field(None, description=SEALED_LINK)
    referee_token: str | None = Field(None, description=SEALED_LINK)


def table_out(table: QualifyingTable, *, secrets: bool) -> dict[str, Any]:
    return {
        "number": table.number,
        "drivers": [driver_out(d) for d in with_players(selectors.table_drivers(table=table))],
        "referee": table.referee_name,
        "fast": table.fast,
        "referee_link": referee_link(token) if secrets and (token := table.token_or_none) else None,
        "referee_token": table.token_or_none if secrets else None,
    }


def _tables(actor: Actor, event: Event, own: list[QualifyingTable] | None) -> list[dict[str, Any]]:
    """Every table, or the caller's ``own`` ones; links and tokens for organisers and the
    desk (who print them on the sheets) only."""
    tables = QualifyingTable.objects.filter(event=event) if own is None else own
    organiser = actor.can_desk(event.championship)
    return [table_out(t, secrets=organiser) for t in tables]


@router.get("/events/{event}/qualifying-tables", response={200: list[QualifyingTableOut], **ERRORS})
def qualifying_table_list(request: HttpRequest, event: str) -> list[dict[str, Any]]:
    """The qualifying tables; referee links and tokens only for organisers.

    Once the tables or the qualifying are published, everyone sees every table. Before,
    a table's referee (link or account) sees their own table only; anyone else gets
    ``404`` (a user's token ``403``).
    """
    actor = actor_of(request)
    found = get_event(event)
    if found.published_qualifying_tables:  # players look for their table in the morning
        return _tables(actor, found, None)
    actor, found, own = read_own(request, event)
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
    seating.qualifying_table_set(
        actor=actor,
        event=found,
        number=payload.number,
        drivers=payload.drivers,
        referee_name=payload.referee,
        fast=payload.fast,
    )
    return _tables(actor, found, None)


class FastDriversIn(Schema):
    numbers: list[DriverNumber]
    fast: StrictBool = True


@router.get("/events/{event}/fast-drivers", response={200: list[DriverOut], **ERRORS})
def fast_driver_list(request: HttpRequest, event: str) -> list[dict[str, Any]]:
    """The drivers flagged as running under a minute (§1-0-4): organisers only."""
    actor = actor_of(request)
    require_token(actor)
    found = get_event(event)
    if not actor.can_organise(found.championship):
        raise NotAllowed(_("Only this event's organisers see its fast drivers."))
    return [
        driver_out(e.driver)
        for e in found.entries.filter(fast=True)
        .select_related("driver", "driver__team", "driver__player")
        .order_by("driver__number")
    ]


@router.post("/events/{event}/fast-drivers", response={200: list[DriverOut], **ERRORS})
def fast_drivers_set(
    request: HttpRequest, event: str, payload: FastDriversIn
) -> list[dict[str, Any]]:
    """Flag (``fast: true``) or unflag drivers running under a minute (§1-0-4): the
    automatic spread seats them at the qualifying tables marked ``fast``. Answers every
    flagged driver."""
    actor = actor_of(request)
    require_token(actor)
    found = get_event(event)
    entries = seating.fast_drivers_set(
        actor=actor, event=found, numbers=payload.numbers, fast=payload.fast
    )
    return [driver_out(e.driver) for e in entries]


# ---------------------------------------------------------------------------
# Runs
# ---------------------------------------------------------------------------


@router.get("/events/{event}/sessions/{n}/runs", response={200: list[RunOut], **ERRORS})
def run_list(request: HttpRequest, event: str, n: int) -> list[dict[str, Any]]:
    """The session's counted runs in the order they were performed.

    Before qualifying is published, a table's referee reads the runs of the drivers at
    their own table only.
    """
    _actor, found, own = read_own(request, event)
    session = get_session(found, n)
    runs = Run.objects.filter(session=session, cancelled=False).select_related(
        "session", "session__event", "driver", "driver__team", "driver__player"
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
    data = clean_run(sent, event=found)
    run = services.run_record(
        actor=actor,
        session=session,
        driver_number=payload.driver,
        data=data,
        reason=data["reason"],
    )
    return Status(201, run_out(run))


@router.get("/events/{event}/sessions/{n}/runs/{driver}", response={200: RunOut, **ERRORS})
def run_detail(request: HttpRequest, event: str, n: int, driver: int) -> dict[str, Any]:
    """One counted run; before publication, only of a driver at the caller's own table."""
    actor, found, own = read_own(request, event)
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
    data = stored_values(run)
    data.update(
        {name: getattr(payload, name) for name in RUN_FIELDS if name in payload.model_fields_set}
    )
    cleaned = clean_run(data, event=found, stored_cs=run.stopwatch_cs)
    updated = services.run_update(
        actor=actor, run=run, version=payload.version, data=cleaned, reason=cleaned["reason"]
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
        raise invalid_fields(form_errors(form))
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
    lines = selectors.session_classification(session=session)
    with_players(line.driver for line in lines)
    return [line_out(line) for line in lines]


@router.get("/events/{event}/qualifying", response={200: list[ClassificationLineOut], **ERRORS})
def general_classification(request: HttpRequest, event: str) -> list[dict[str, Any]]:
    """The event's general classification (mode best or sum; the draw order in mode draw)."""
    _actor, found = _read_qualifying(request, event)
    lines = selectors.general_classification(event=found)
    with_players(line.driver for line in lines)
    return [line_out(line) for line in lines]
