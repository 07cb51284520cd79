"""JSON API v1, Other games (``API.md`` "Other games"): Rallyman stages, times, start
orders and classifications; the Cannes–Monaco and Racetrack table sheets.

The table sheets go through ``PUT /events/{event}/tables/{t}/result`` of ``races.api``,
which hands the game's body to :func:`table_result_save` here. Mounted by
``paddock.api`` like ``races.api``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from django.http import HttpRequest
from django.utils.translation import gettext as _
from ninja import Router, Schema
from ninja.responses import Status
from pydantic import BaseModel, Field, SkipValidation, StrictBool

from races.games.rallyman import rules as rallyman
from races.games.rallyman import services as game_services
from races.models import Stage
from tournament.apikit import (
    ERRORS,
    INT32_MAX,
    DriverNumber,
    DriverOut,
    actor_of,
    driver_keys,
    driver_out,
    errors_under,
    get_event,
    require_read,
    require_token,
)
from tournament.errors import InvalidInput, NotFound
from tournament.models import Event

router = Router(tags=["Other games"])


# ---------------------------------------------------------------------------
# Rallyman
# ---------------------------------------------------------------------------


def _rally(slug: str) -> Event:
    event = get_event(slug)
    if event.game != Event.Game.RALLYMAN:
        raise NotFound(_("“%(slug)s” is not a Rallyman event.") % {"slug": slug})
    return event


def _stage(event: Event, number: int) -> Stage:
    stage = (
        Stage.objects.filter(event=event, number=number).first() if 1 <= number <= 32767 else None
    )
    if stage is None:
        raise NotFound(_("Stage %(number)s does not exist for this event.") % {"number": number})
    stage.event = event
    return stage


def _read(request: HttpRequest, event: Event) -> None:
    actor = actor_of(request)
    # Event-wide: a table's referee reads no more of it than anyone (API.md, "table token").
    require_read(actor, event, published=event.published_results)


class StageIn(Schema):
    number: Annotated[int, Field(strict=True, ge=1, le=99)]
    route: Annotated[str, Field(max_length=200)] = Field(
        description="Zones, e.g. “C8 C3-J6-J5-C4 C5” (ART.2)."
    )
    service_after: StrictBool = False


class StageOut(Schema):
    number: int
    route: str
    service_after: bool
    start_order: list[int]
    complete: bool
    snow: list[bool] | None = Field(
        None,
        description="Règlement+ snow draw: one entry per zone of the route, true = snowy; "
        "null before the draw.",
    )
    snowy_zones: list[str] = Field(default_factory=list, description="The snowy zones.")
    snow_source: Literal["physical", "system"] | None = None
    tyre_choice: bool = Field(
        True,
        description="Drivers choose their tyres before this stage (first, or after a "
        "service park).",
    )


def stage_out(stage: Stage) -> dict[str, Any]:
    return {
        "number": stage.number,
        "route": stage.route,
        "service_after": stage.service_after,
        "start_order": game_services.start_order_of(stage),
        "complete": game_services.stage_complete(stage),
        "snow": list(stage.snow) if stage.snow else None,
        "snowy_zones": game_services.snowy_zones(stage),
        "snow_source": stage.snow_source or None,
        "tyre_choice": game_services.tyre_choice(stage)[0],
    }


class SnowIn(Schema):
    snow: list[StrictBool] | None = Field(
        None,
        max_length=50,
        description="The dice rolled: one entry per zone of the route, true when the die "
        "shows the snow symbol. Missing: the system rolls.",
    )
    reason: str = Field(
        "",
        max_length=100,
        description="Why the snow is drawn again (a second draw needs one; 409 without).",
    )


@router.put("/events/{event}/stages/{n}/snow", response={200: StageOut, **ERRORS})
def stage_snow(
    request: HttpRequest, event: str, n: int, payload: SnowIn | None = None
) -> dict[str, Any]:
    """The race director's snow draw before the stage (Règlement+): one die per zone, each
    zone snowy for every game when its die shows the symbol. A second draw needs a
    ``reason`` (409 without); 409 whatever the reason once the stage has times.
    Organisers only."""
    actor = actor_of(request)
    require_token(actor)
    stage = _stage(_rally(event), n)
    stage = game_services.stage_snow_set(
        actor=actor,
        stage=stage,
        snow=payload.snow if payload else None,
        reason=payload.reason if payload else "",
    )
    return stage_out(stage)


@router.post("/events/{event}/stages", response={201: StageOut, **ERRORS})
def stage_create(request: HttpRequest, event: str, payload: StageIn) -> Status[Any]:
    """Add a special stage (ART.2) to a Rallyman event; 409 if its number exists."""
    actor = actor_of(request)
    require_token(actor)
    stage = game_services.stage_create(
        actor=actor,
        event=_rally(event),
        number=payload.number,
        route=payload.route,
        service_after=payload.service_after,
    )
    return Status(201, stage_out(stage))


@router.get("/events/{event}/stages", response={200: list[StageOut], **ERRORS})
def stage_list(request: HttpRequest, event: str) -> list[dict[str, Any]]:
    """The rally's special stages with their start orders."""
    found = _rally(event)
    _read(request, found)
    return [stage_out(s) for s in game_services.stages_of(found)]


class TimeIn(BaseModel):
    chrono: Annotated[str, Field(max_length=12)] | None = Field(
        None, description="Sum of the speed cards, mm:ss (minutes may exceed 59)."
    )
    seconds_held: Annotated[int, Field(strict=True, ge=0, le=INT32_MAX)] = 0
    retired: StrictBool = False
    splits: list[Annotated[str, Field(max_length=12)]] | None = Field(
        None,
        max_length=50,
        description="Optional intermediate times, mm:ss, in the order of the points; "
        "left out: the ones written before stay, []: none.",
    )
    tyres: SkipValidation[Literal["asphalt", "snow"]] | None = Field(
        None,
        description="asphalt or snow (Règlement+), chosen before the first stage and after "
        "a service park; otherwise the tyres of the stage before.",
    )


class TimesIn(Schema):
    times: dict[str, TimeIn]


class StageLineOut(Schema):
    rank: int
    driver: DriverOut
    chrono: str | None
    seconds_held: int
    time: str | None = Field(description="Stage time: chrono minus seconds held, mm:ss.")
    retired: bool
    splits: list[str] = Field(description="Intermediate times (speed-card pile), mm:ss.")
    tyres: Literal["asphalt", "snow"] | None = None


def _scratch(stage: Stage) -> list[dict[str, Any]]:
    records = {
        t.driver.number: t
        for t in stage.times.select_related("driver", "driver__team", "driver__player")
    }
    entries = game_services._entries_of(stage)
    out = []
    for line in rallyman.stage_scratch(entries):
        record = records[line.driver]  # type: ignore[index]
        out.append(
            {
                "rank": line.rank,
                "driver": driver_out(record.driver),
                "chrono": rallyman.format_chrono(record.chrono) or None,
                "seconds_held": record.seconds_held,
                "time": rallyman.format_chrono(line.time) or None,
                "retired": line.retired,
                "splits": [rallyman.format_chrono(s) for s in record.splits or []],
                "tyres": record.tyres or None,
            }
        )
    return out


@router.put("/events/{event}/stages/{n}/times", response={200: list[StageLineOut], **ERRORS})
def stage_times(request: HttpRequest, event: str, n: int, payload: TimesIn) -> list[dict[str, Any]]:
    """Record times on a stage: ``{times: {"<number>": {chrono: "mm:ss", seconds_held,
    retired, splits: ["mm:ss", ...]}}}``; answers the stage scratch. 400 names each
    driver's problem."""
    actor = actor_of(request)
    require_token(actor)
    stage = _stage(_rally(event), n)
    times = driver_keys({k: v.model_dump() for k, v in payload.times.items()}, "times")
    try:
        game_services.stage_times_set(actor=actor, stage=stage, times=times)
    except InvalidInput as exc:
        raise errors_under("times", exc) from exc
    return _scratch(stage)


@router.get(
    "/events/{event}/stages/{n}/classification", response={200: list[StageLineOut], **ERRORS}
)
def stage_classification(request: HttpRequest, event: str, n: int) -> list[dict[str, Any]]:
    """The stage scratch (ART.11): by stage time, equal times sharing the rank."""
    found = _rally(event)
    _read(request, found)
    return _scratch(_stage(found, n))


class StartLineOut(Schema):
    position: int
    driver: DriverOut


class StartOrderIn(Schema):
    order: list[DriverNumber] | None = None
    draw: StrictBool = False


def _start_order(stage: Stage) -> list[dict[str, Any]]:
    drivers = {d.number: d for d in game_services.rally_drivers(stage.event)}
    return [
        {"position": i, "driver": driver_out(drivers[n])}
        for i, n in enumerate(game_services.start_order_of(stage), start=1)
        if n in drivers
    ]


@router.get("/events/{event}/stages/{n}/start-order", response={200: list[StartLineOut], **ERRORS})
def start_order(request: HttpRequest, event: str, n: int) -> list[dict[str, Any]]:
    """The stage's start order (ART.4-2): stage 1 as set by the organisers, the next ones
    by the classification after the previous stage (ties keep the previous order)."""
    found = _rally(event)
    _read(request, found)
    return _start_order(_stage(found, n))


@router.put("/events/{event}/stages/{n}/start-order", response={200: list[StartLineOut], **ERRORS})
def start_order_set(
    request: HttpRequest, event: str, n: int, payload: StartOrderIn
) -> list[dict[str, Any]]:
    """Set stage 1's start order (``order``: every driver once) or draw it (``draw: true``)."""
    actor = actor_of(request)
    require_token(actor)
    stage = _stage(_rally(event), n)
    if not payload.draw and payload.order is None:
        raise InvalidInput(_("Send the order, or draw: true."), {"order": [_("Required.")]})
    game_services.start_order_set(actor=actor, stage=stage, order=payload.order, draw=payload.draw)
    return _start_order(stage)


class RallyLineOut(Schema):
    rank: int
    driver: DriverOut
    total: str = Field(description="Sum of the stage times driven, mm:ss.")
    stages: list[str | None] = Field(description="Each stage time, null from a retirement.")
    retired_in: int | None


@router.get("/events/{event}/rally", response={200: list[RallyLineOut], **ERRORS})
def rally(request: HttpRequest, event: str, after: int | None = None) -> list[dict[str, Any]]:
    """The cumulative classification after stage ``after`` (default: every stage, the
    final scratch); equal totals share the rank, retired drivers come last."""
    found = _rally(event)
    _read(request, found)
    if after is not None and not 1 <= after <= 99:
        raise InvalidInput(_("after is a stage number."), {"after": [_("1 to 99.")]})
    drivers = {d.number: d for d in game_services.rally_drivers(found)}
    return [
        {
            "rank": line.rank,
            "driver": driver_out(drivers[line.driver]),  # type: ignore[index]
            "total": rallyman.format_chrono(line.total),
            "stages": [rallyman.format_chrono(t) or None for t in line.stages],
            "retired_in": line.retired_in,
        }
        for line in game_services.rally_after(found, after)
    ]
