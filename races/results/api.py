"""API v1, race results: a table's result (draft → submitted → confirmed), confirm, reopen,
and the event's day classification."""

from __future__ import annotations

import dataclasses
from typing import Any, Literal, Union

from django.apps import apps
from django.core.exceptions import ImproperlyConfigured
from django.http import HttpRequest
from django.utils.translation import gettext as _
from ninja import Router, Schema
from pydantic import Field, create_model

from races import selectors, variants
from races.grid.api import RetirementCauseName, get_table, require_own_or
from races.models import (
    RaceResult,
    RaceTable,
    ResultLine,
    ResultStatus,
)
from races.results import services as result_services
from races.results.schemas import (  # noqa: F401  (the kit's names, read from here too)
    ReopenIn,
    ResultInBase,
    ResultOut,
    ResultStatusName,
    RetirementIn,
    RetirementOut,
    Version,
    VersionIn,
)
from tournament.access import Actor
from tournament.apikit import (
    CURRENT_SERIALIZERS,
    ERRORS,
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

# The games' own fields, read from their variants (``races.variants``), registered at
# start-up: this router is built once every app is ready (the API root imports it).
if not apps.ready:
    raise ImproperlyConfigured(
        "races.results.api is built from the games' registry: import it once Django is set up"
    )

ResultIn = create_model(
    "ResultIn",
    __base__=ResultInBase,
    __doc__=None,
    **variants.result_in_fields(),
)
# Other games answer their own fields besides the common ones (API.md "Other games").
AnyResultOut = Union[*variants.result_outs(), ResultOut]  # noqa: UP007 (built from a list)


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
    if game_save is not None:  # a game's own sheet
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
