"""API v1, race results: a table's result (draft → submitted → confirmed), confirm, reopen,
and the event's day classification."""

from __future__ import annotations

import dataclasses
from typing import Annotated, Any, Literal

from django.http import HttpRequest
from django.utils.translation import gettext as _
from ninja import Router, Schema
from pydantic import BaseModel, Field, SkipValidation, StrictBool

from races import selectors, variants
from races.grid.api import RetirementCauseName, get_table, require_own_or
from races.models import (
    RaceResult,
    RaceTable,
    ResultLine,
    ResultStatus,
)
from races.results import services as result_services
from tournament.access import Actor
from tournament.apikit import (
    CURRENT_SERIALIZERS,
    ERRORS,
    INT32_MAX,
    DriverNumber,
    DriverOut,
    actor_of,
    driver_keys,
    driver_out,
    get_event,
    reads_as_anonymous,
    require_read,
    require_token,
    with_players,
)
from tournament.errors import Conflict, NotAllowed, NotFound
from tournament.models import Event

router = Router(tags=["Race"])

# ---------------------------------------------------------------------------
# Race results: draft → submitted (referee) → confirmed (race control)
# ---------------------------------------------------------------------------

ResultStatusName = Literal["empty", "draft", "submitted", "confirmed"]
#: A stored version as a client sends it back: 0 for a table with nothing entered yet.
Version = Annotated[int, Field(strict=True, ge=0, le=INT32_MAX)]


class RetirementIn(BaseModel):
    # A BaseModel, not a ninja Schema: a Schema reads the attributes of anything, so a
    # bare 7 would be "driver missing, cause missing" instead of "send an object".
    driver: DriverNumber
    # The service judges cause and lap so that its refusal names the driver (the types
    # document the contract; a wrong value is a 400 "7 Gaëlle Roux: unknown retirement cause.").
    cause: SkipValidation[RetirementCauseName] = Field(
        description="off_track, blocked, body, engine, road_holding or other (with a note)."
    )
    lap: SkipValidation[int | None] = Field(
        None, description="The lap it happened in, 1 to the race's laps; may wait in a draft."
    )
    note: Annotated[str, Field(max_length=200)] | None = Field(
        None, description="Required with the cause “other” (disqualification, withdrawal…)."
    )

    def as_service_input(self) -> dict[str, Any]:
        return {"driver": self.driver, "cause": self.cause, "lap": self.lap, "note": self.note}


class ResultIn(Schema):
    version: Version = Field(description="The version you read (0 for an empty table).")
    finish: list[DriverNumber] = Field(
        default_factory=list, description="Drivers in the order they crossed the line."
    )
    retired: list[RetirementIn] = Field(
        default_factory=list, description="Retirements in the order they happened."
    )
    dns: list[DriverNumber] = Field(default_factory=list, description="Drivers who did not start.")
    submit: StrictBool = Field(
        False, description="true: hand the result to race control (every grid driver once)."
    )
    notes: dict[str, Annotated[str, Field(max_length=200)]] | None = Field(
        None,
        description="Finishers' notes by driver number (e.g. an engine broken on the last "
        "lap, kept as a finisher under §16-0-6).",
    )
    # Other games (API.md "Other games"), read by the game's variant (races.games).
    squares: dict[str, Any] | None = Field(
        None, description="Cannes–Monaco: each car's square, 0 to 36."
    )
    crossed: list[DriverNumber] | None = Field(
        None, description="Cannes–Monaco: the cars over the finish line."
    )
    runs: dict[str, Any] | None = Field(
        None, description="Racetrack: {turns, margin, crashes, finished, eliminated} per driver."
    )


class VersionIn(Schema):
    version: Version | None = Field(None, description="The version you read; 409 if stale.")


class ReopenIn(VersionIn):
    reason: Annotated[str, Field(max_length=200)]


class RetirementOut(Schema):
    driver: int
    cause: str
    lap: int | None
    note: str


class ResultOut(Schema):
    version: int
    status: ResultStatusName
    finish: list[int]
    retired: list[RetirementOut]
    dns: list[int]
    notes: dict[str, str] = Field(default_factory=dict, description="Finishers' notes.")


class CannesMonacoResultOut(ResultOut):
    squares: dict[str, int | None]
    crossed: list[int] = Field(description="The cars over the finish line, in crossing order.")
    winner: int | None = Field(None, description="The first car over the line.")


class RacetrackRunOut(Schema):
    turns: int
    margin: int
    crashes: int
    finished: bool
    eliminated: bool
    place: int | None = Field(
        None, description="A car still running when the race stopped at the winner: its place."
    )


class RacetrackResultOut(ResultOut):
    runs: dict[str, RacetrackRunOut]


# Other games answer their own fields besides the common ones (API.md "Other games").
AnyResultOut = CannesMonacoResultOut | RacetrackResultOut | ResultOut


def result_out(table: RaceTable, result: RaceResult | None) -> dict[str, Any]:
    """A table's result as the contract returns it; ``version: 0`` while nothing is entered."""
    fields = variants.variant_of(table.event.game).result_fields
    game_fields = fields if fields is not None else (lambda table, result: {})
    if result is None:
        return {
            "version": 0,
            "status": table.result_status,
            "finish": [],
            "retired": [],
            "dns": [],
            "notes": {},
            **game_fields(table, None),
        }
    return {
        **game_fields(table, result),
        "version": result.version,
        "status": table.result_status,
        "finish": list(result.finish),
        "retired": [
            {
                "driver": r.get("driver"),
                "cause": r.get("cause"),
                "lap": r.get("lap"),
                "note": r.get("note") or "",
            }
            for r in result.retired
        ],
        "dns": list(result.dns),
        "notes": {str(n): note for n, note in result_services.finisher_notes(result).items()},
    }


@dataclasses.dataclass(frozen=True)
class StoredResult:
    """A table's result as stored now (status included), for the ``current`` of a 409."""

    table: RaceTable
    result: RaceResult | None

    @classmethod
    def of(cls, table: RaceTable) -> StoredResult:
        fresh = RaceTable.objects.get(pk=table.pk)
        return cls(fresh, RaceResult.objects.filter(table=fresh).first())

    def out(self) -> dict[str, Any]:
        return result_out(self.table, self.result)


CURRENT_SERIALIZERS[StoredResult] = StoredResult.out
# The services' own 409s carry the RaceResult (None while the table is empty).
CURRENT_SERIALIZERS[RaceResult] = lambda result: result_out(result.table, result)


def _with_current(table: RaceTable, exc: Conflict) -> Conflict:
    """The service's 409 with ``current`` = the stored result, even for an empty table."""
    return Conflict(exc.message, exc.errors, current=StoredResult.of(table))


def _read_result(actor: Actor, event: Event, number: int) -> RaceTable:
    """A table for reading its result: organisers and the table's referee always; anyone
    else once the event's results are published and the table's result confirmed."""
    require_own_or(actor, event, published=event.published_results)
    table = get_table(event, number)
    if actor.can_referee(table):
        return table
    if event.published_results and table.result_status == ResultStatus.CONFIRMED:
        return table
    if event.published_results or reads_as_anonymous(actor):
        raise NotFound(
            _("Table %(number)s has no published result yet.") % {"number": table.number}
        )
    raise NotAllowed(_("The organisers have not published the results yet."))


@router.get("/events/{event}/tables/{t}/result", response={200: AnyResultOut, **ERRORS})
def result_detail(request: HttpRequest, event: str, t: int) -> dict[str, Any]:
    """A table's race result: finishing order, retirements, non-starters, and its status.

    Organisers and the table's referee read it at any time; anyone else once the event's
    results are published and this table's result is confirmed.
    """
    actor = actor_of(request)
    table = _read_result(actor, get_event(event), t)
    return StoredResult.of(table).out()


@router.put("/events/{event}/tables/{t}/result", response={200: AnyResultOut, **ERRORS})
def result_save(request: HttpRequest, event: str, t: int, payload: ResultIn) -> dict[str, Any]:
    """Save the race sheet (§2-0-3): a draft, or ``submit: true`` for race control.

    Send the ``version`` you read (0 for an empty table); answers the stored result with
    version + 1. A draft may be incomplete; a submitted result names every grid driver
    exactly once and gives each retirement's lap. 400 lists the problems under each
    driver's number (``errors: {"7": ["7 Gaëlle Roux is written more than once."]}``);
    409 when the version is stale or the result confirmed, with ``current``, and while the
    event's race weather is not drawn where the event draws one (``errors.race_weather``:
    the first save starts the table). The table's referee (link or account) or an
    organiser.
    """
    actor = actor_of(request)
    require_token(actor)
    table = get_table(get_event(event), t)
    game_save = variants.variant_of(table.event.game).api_result_save
    if game_save is not None:  # Cannes–Monaco, Racetrack: the game's own sheet
        try:
            game_save(request, table, payload)
        except Conflict as exc:
            raise _with_current(table, exc) from exc
        return StoredResult.of(table).out()
    try:
        result_services.result_save(
            actor=actor,
            table=table,
            version=payload.version,
            finish=payload.finish,
            retired=[r.as_service_input() for r in payload.retired],
            dns=payload.dns,
            submit=payload.submit,
            notes=driver_keys(payload.notes or {}, "notes"),
        )
    except Conflict as exc:
        raise _with_current(table, exc) from exc
    return StoredResult.of(table).out()


@router.post("/events/{event}/tables/{t}/confirm", response={200: AnyResultOut, **ERRORS})
def result_confirm(
    request: HttpRequest, event: str, t: int, payload: VersionIn | None = None
) -> dict[str, Any]:
    """Race control confirms a submitted result: its places and points then count.

    409 unless the result is submitted (or when ``version`` is stale). Organisers only.
    """
    actor = actor_of(request)
    require_token(actor)
    table = get_table(get_event(event), t)
    try:
        result_services.result_confirm(
            actor=actor, table=table, version=payload.version if payload else None
        )
    except Conflict as exc:
        raise _with_current(table, exc) from exc
    return StoredResult.of(table).out()


@router.post("/events/{event}/tables/{t}/reopen", response={200: AnyResultOut, **ERRORS})
def result_reopen(request: HttpRequest, event: str, t: int, payload: ReopenIn) -> dict[str, Any]:
    """Race control reopens a confirmed result, saying why: it is submitted again and its
    places no longer count until confirmed anew. Organisers only; 409 unless confirmed."""
    actor = actor_of(request)
    require_token(actor)
    table = get_table(get_event(event), t)
    try:
        result_services.result_reopen(
            actor=actor, table=table, reason=payload.reason, version=payload.version
        )
    except Conflict as exc:
        raise _with_current(table, exc) from exc
    return StoredResult.of(table).out()


class DayLineOut(Schema):
    rank: int = Field(description="Place in the day classification (table 1 first).")
    table: int
    position: int = Field(description="Place in the table classification.")
    driver: DriverOut
    status: Literal["finished", "retired", "dns", "running", "eliminated", "dsq"] = Field(
        description="dsq: disqualified by the organisers (§1-2-3), classed last of the event."
    )
    cause: RetirementCauseName | None
    lap: int | None
    points: int = Field(description="After any points a sanction removed.")
    points_removed: int = Field(0, description="Championship points a sanction removed.")
    note: str = Field("", description="The referee's note: a retirement's, or a finisher's.")


def day_line_out(line: ResultLine) -> dict[str, Any]:
    return {
        "rank": line.rank,
        "table": line.table.number,
        "position": line.position,
        "driver": driver_out(line.driver),
        "status": line.status,
        "cause": line.cause or None,
        "lap": line.lap,
        "points": line.points,
        "points_removed": line.points_removed,
        "note": line.note,
    }


@router.get("/events/{event}/results", response={200: list[DayLineOut], **ERRORS})
def event_results(request: HttpRequest, event: str) -> list[dict[str, Any]]:
    """The day classification of the confirmed tables, by rank (DOMAIN.md).

    Only finishers score (§21-1-2). Organisers; everyone else, tables' referees included,
    once the results are published.
    """
    actor = actor_of(request)
    found = get_event(event)
    require_read(actor, found, published=found.published_results)
    lines = selectors.event_results(event=found)
    with_players(line.driver for line in lines)
    return [day_line_out(line) for line in lines]
