"""JSON API v1, Race (Formula Dé) (``API.md``): allocation, tables and grids, swaps,
referee links, stands (in grid order), configurations and race sheets. The race weather,
the table draws and a table's start and unlock are in ``races/grid/race_api.py``; the results
of the tables in ``races/results/api.py``.

The services in ``races.grid.services`` decide who may write and what is allowed; this module
translates HTTP into their calls and their objects back into the contract's JSON.
Mounted by the API root ``paddock.api``; the shared helpers come from ``tournament.apikit``.

Who reads the tables (``GET /events/{event}/tables`` and a table's ``sheet.pdf``):
organisers everything, with the referee links and tokens; a table's referee (its link
token, or the account set as its referee) their own table, and every table of the event
once the allocation is published; anyone else only once the allocation is published
(anonymous readers and other tables' links get ``404`` before that, users' tokens
``403``). Links and tokens are only ever shown to organisers.

Results: a table's result is read by organisers and the table's referee at any time, by
anyone else once the event's results are published and that table's result confirmed
(before publication anonymous readers and other tables' links get ``404``, users' tokens
``403``). The day's results are event-wide: organisers, else once published, whoever
refereed a table. ``current`` of a ``409`` follows the same shape as ``GET .../result``.
"""

from __future__ import annotations

import dataclasses
import datetime
from typing import Annotated, Any, Literal

from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext as _
from ninja import Router, Schema
from ninja.responses import Status
from pydantic import Field, SkipValidation

from races import selectors, variants
from races.grid import services
from races.grid import start as stand_services
from races.models import (
    CarConfiguration,
    GridSlot,
    RaceTable,
)
from races.sheets.pdf import RaceSheetRenderer
from races.sheets.selectors import race_referee_link, race_sheets
from tournament.access import Actor
from tournament.apikit import (
    ERRORS,
    SEALED_LINK,
    DriverNumber,
    DriverOut,
    ErrorOut,
    Int,
    actor_of,
    driver_keys,
    driver_out,
    errors_under,
    get_event,
    refuse_read,
    require_token,
    with_players,
)
from tournament.errors import InvalidInput, NotFound
from tournament.models import Event

router = Router(tags=["Race"])

WeatherName = Literal["sun", "variable", "rain"]
TrackName = Literal["dry", "wet"]
RetirementCauseName = Literal["off_track", "blocked", "body", "engine", "road_holding", "other"]
CONFIGURATION_FIELDS = (
    "tyres",
    "brakes",
    "gearbox",
    "body",
    "engine",
    "road_holding",
    "stand_points",
)


# ---------------------------------------------------------------------------
# Lookups and permissions
# ---------------------------------------------------------------------------


def get_table(event: Event, number: int) -> RaceTable:
    table = (
        RaceTable.objects.filter(event=event, number=number).first()
        if 1 <= number <= 32767
        else None
    )
    if table is None:
        raise NotFound(_("Table %(number)s does not exist for this event.") % {"number": number})
    table.event = event  # already loaded with its championship and circuit
    return table


def _is_organiser(actor: Actor, event: Event) -> bool:
    """Reads the whole day (links and sheets too): its organisers and its desk."""
    return actor.can_desk(event.championship)


def own_tables(actor: Actor, event: Event) -> QuerySet[RaceTable]:
    """The race tables of ``event`` that ``actor`` referees: its link's, or those its
    account is assigned to."""
    if isinstance(actor.table, RaceTable):
        return RaceTable.objects.filter(pk=actor.table.pk, event=event)
    if actor.table is None and actor.is_authenticated:
        return RaceTable.objects.filter(event=event, referee=actor.user)
    return RaceTable.objects.none()


def require_own_or(actor: Actor, event: Event, *, published: bool) -> None:
    """Organisers, or ``published``, or a referee of one of the event's race tables (who
    then reads their own table only: the callers check the table)."""
    if published or _is_organiser(actor, event) or own_tables(actor, event).exists():
        return
    raise refuse_read(actor, event)


def _read_table(actor: Actor, event: Event, number: int) -> RaceTable:
    """One table for reading: its referee and organisers always, others once published."""
    require_own_or(actor, event, published=event.published_allocation)
    table = get_table(event, number)
    if not (event.published_allocation or actor.can_referee(table)):
        raise refuse_read(
            actor,
            event,
            not_found=_("Table %(number)s is not your table.") % {"number": table.number},
        )
    return table


# ---------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------


class ConfigurationOut(Schema):
    tyres: int
    brakes: int
    gearbox: int
    body: int
    engine: int
    road_holding: int
    stand_points: int


class GridLineOut(Schema):
    position: int
    driver: DriverOut
    stand: int | None
    rank: int = Field(description="General qualifying rank.")
    swapped: bool = Field(description="Moved by the allocation to keep team-mates apart.")
    configuration: ConfigurationOut | None = Field(description="Wear points (§5), if recorded.")


class TableOut(Schema):
    number: int
    referee: str
    referee_link: str | None = Field(None, description=SEALED_LINK)
    referee_token: str | None = Field(None, description=SEALED_LINK)
    weather: WeatherName | None = Field(description="The table's weather (null before the draw).")
    track: TrackName | None
    weather_fixed: bool
    result_status: Literal["empty", "draft", "submitted", "confirmed"]
    grid: list[GridLineOut]
    warnings: list[str] = Field(
        description="Team-mates the allocation could not part at this table, as sentences."
    )
    started_at: datetime.datetime | None = Field(
        None,
        description="When the race started at the table (stands and configurations then "
        "locked, §5-0-2); null before.",
    )
    next_to_choose: DriverOut | None = Field(
        None, description="The driver who chooses a stand now (grid order, §4-0-1)."
    )


def _link(table: RaceTable) -> str | None:
    return race_referee_link(table)


def _configuration(slot: GridSlot) -> dict[str, int] | None:
    config: CarConfiguration | None = getattr(slot, "configuration", None)
    return config.values() if config is not None else None


def grid_line_out(slot: GridSlot) -> dict[str, Any]:
    return {
        "position": slot.position,
        "driver": driver_out(slot.driver),
        "stand": slot.stand,
        "rank": slot.rank,
        "swapped": slot.swapped,
        "configuration": _configuration(slot),
    }


def _warning_sentences(
    table: RaceTable, grid: list[GridSlot], warnings: list[dict[str, Any]]
) -> list[str]:
    """The allocation's unresolved conflicts at ``table`` still true of its grid now.

    A manual swap may have parted team-mates since the allocation: a driver who left the
    table is no longer part of its warning, and a warning left with one driver is gone.
    """
    seated = {slot.driver.number for slot in grid}
    sentences = []
    for warning in warnings:
        if warning["table"] != table.number:
            continue
        drivers = [d for d in warning["drivers"] if d.number in seated]
        if len(drivers) < 2:
            continue
        sentences.append(
            _("Team-mates at the same table: %(drivers)s.")
            % {"drivers": ", ".join(f"{d.number} {d.name}" for d in drivers)}
        )
    return sentences


def table_out(table: RaceTable, *, secrets: bool, warnings: list[dict[str, Any]]) -> dict[str, Any]:
    grid: list[GridSlot] = table.grid  # type: ignore[attr-defined]
    return {
        "number": table.number,
        "referee": table.referee_name,
        "referee_link": _link(table) if secrets else None,
        "referee_token": table.token_or_none if secrets else None,
        "weather": table.weather or None,
        "track": table.track or None,
        "weather_fixed": table.weather_fixed,
        "result_status": table.result_status,
        "grid": [grid_line_out(slot) for slot in grid],
        "warnings": _warning_sentences(table, grid, warnings),
        "started_at": table.started_at,
        "next_to_choose": next((driver_out(s.driver) for s in grid if s.stand is None), None),
    }


def _tables(actor: Actor, event: Event, *, only: RaceTable | None = None) -> list[dict[str, Any]]:
    """The tables ``actor`` may read (or just ``only``), table 1 first."""
    # One table's answer reads that table only (a stand written at one of twelve tables read
    # all twelve grids: half of what a stand cost the server when the outboxes came back).
    tables = selectors.tables_with_grids(event=event, only=only)
    organiser = _is_organiser(actor, event)
    if only is None and not (organiser or event.published_allocation):
        # A referee sees their own table only, until the organisers publish the allocation.
        own = {t.pk for t in tables if actor.can_referee(t)}
        tables = [t for t in tables if t.pk in own]
    # Team-mates together are no conflict when the event does not keep them apart (the
    # allocation records them all the same).
    keep_apart = tables and event.separate_teams
    warnings = selectors.allocation_warnings(event=event, only=only) if keep_apart else []
    with_players(slot.driver for table in tables for slot in table.grid)
    return [table_out(t, secrets=organiser, warnings=warnings) for t in tables]


# ---------------------------------------------------------------------------
# Input helpers
# ---------------------------------------------------------------------------


# ---------------------------------------------------------------------------
# Allocation, tables, swaps, referee links
# ---------------------------------------------------------------------------


class AllocationIn(Schema):
    table_size: Int | None = Field(
        None, description="Drivers per table, 2 to 20; missing: the event's table size."
    )


@router.post("/events/{event}/allocation", response={200: list[TableOut], **ERRORS})
def allocation(
    request: HttpRequest, event: str, payload: AllocationIn | None = None
) -> list[dict[str, Any]]:
    """Allocate the drivers to race tables by general classification (§1-3-2, §1-3-3).

    Allowed until the first result is entered (then 409); a new allocation clears stands,
    configurations and table weather draws. Answers the tables like ``GET tables``.
    """
    actor = actor_of(request)
    require_token(actor)
    found = get_event(event)
    size = payload.table_size if payload else None
    if size is not None and not 2 <= size <= 20:
        # The service reads a missing size as 0: check the range before it does.
        raise InvalidInput(_("A table seats 2 to 20 drivers."), {"table_size": [_("2 to 20.")]})
    services.allocation_run(actor=actor, event=found, table_size=size)
    return _tables(actor, found)


@router.delete("/events/{event}/allocation", response={204: None, **ERRORS})
def allocation_undo(request: HttpRequest, event: str) -> Status[None]:
    """Undo the race tables (organisers): their grids, links and the allocation's record.

    Allowed while no race table has started (no weather drawn at a table, no stand, no
    configuration, no result); else 409 naming the tables, which stay.
    """
    actor = actor_of(request)
    require_token(actor)
    services.allocation_undo(actor=actor, event=get_event(event))
    return Status(204, None)


@router.get("/events/{event}/tables", response={200: list[TableOut], **ERRORS})
def table_list(request: HttpRequest, event: str) -> list[dict[str, Any]]:
    """The race tables with their grids (grid order = general classification).

    Organisers see everything, with the referee links and tokens; a table's referee sees
    their own table until the allocation is published, then every table; anonymous
    readers see them once the allocation is published.
    """
    actor = actor_of(request)
    found = get_event(event)
    require_own_or(actor, found, published=found.published_allocation)
    return _tables(actor, found)


class SwapIn(Schema):
    a: DriverNumber
    b: DriverNumber
    reason: Annotated[str, Field(max_length=200)] = ""


@router.post("/events/{event}/tables/swap", response={200: list[TableOut], **ERRORS})
def swap(request: HttpRequest, event: str, payload: SwapIn) -> list[dict[str, Any]]:
    """Exchange two drivers' tables by hand (recorded with who, when and why).

    Both grids stay in qualifying order; the two drivers choose their stand again.
    Answers every table; 409 once a result is entered.
    """
    actor = actor_of(request)
    require_token(actor)
    found = get_event(event)
    services.swap_drivers(actor=actor, event=found, a=payload.a, b=payload.b, reason=payload.reason)
    return _tables(actor, found)


class RefereeLinkOut(Schema):
    number: int
    referee_link: str
    referee_token: str


@router.post("/events/{event}/tables/{t}/referee-link", response={200: RefereeLinkOut, **ERRORS})
def referee_link_regenerate(request: HttpRequest, event: str, t: int) -> dict[str, Any]:
    """Give the table a new referee link; the old token then answers 401 "replaced"."""
    actor = actor_of(request)
    require_token(actor)
    table = get_table(get_event(event), t)
    table = services.referee_link_regenerate(actor=actor, table=table)
    return {"number": table.number, "referee_link": _link(table), "referee_token": table.token}


# ---------------------------------------------------------------------------
# Stands and configurations
# ---------------------------------------------------------------------------


class StandsIn(Schema):
    stands: dict[str, Int | None] = Field(
        description='{"<driver number>": stand number}; null frees the driver\'s stand.'
    )


@router.put("/events/{event}/tables/{t}/stands", response={200: TableOut, **ERRORS})
def stands(request: HttpRequest, event: str, t: int, payload: StandsIn) -> dict[str, Any]:
    """Record the stands chosen (§4-0-1): in grid order, pole first, each stand once per
    table. The drivers with a stand must be the first k of the grid (else 400 naming who
    chooses first); a stand may be corrected, or freed with null, until the race starts at
    the table (then 409). Drivers left out keep theirs. Answers the table. The table's
    referee or an organiser.
    """
    actor = actor_of(request)
    require_token(actor)
    found = get_event(event)
    table = get_table(found, t)
    chosen = driver_keys(payload.stands, "stands")
    try:
        stand_services.stands_set(actor=actor, table=table, stands=chosen)
    except InvalidInput as exc:
        raise errors_under("stands", exc) from exc
    (out,) = _tables(actor, found, only=table)
    return out


class ConfigurationIn(Schema):
    tyres: int
    brakes: int
    gearbox: int
    body: int
    engine: int
    road_holding: int
    stand_points: int = Field(description="0 to 2 points kept at the stand (§5-3).")


class ConfigurationsIn(Schema):
    # The service judges the values (part, rule); the type documents the contract.
    configurations: dict[str, SkipValidation[ConfigurationIn]] = Field(
        description='{"<driver number>": wear points}; six parts ≥ 1, parts + stand '
        "points = 22 (§5-0-2)."
    )


class ConfigurationLineOut(ConfigurationOut):
    driver: DriverOut


@router.put(
    "/events/{event}/tables/{t}/configurations",
    response={200: list[ConfigurationLineOut], **ERRORS},
)
def configurations(
    request: HttpRequest, event: str, t: int, payload: ConfigurationsIn
) -> list[dict[str, Any]]:
    """Record car configurations (§5), all or nothing; refusals name the part and the rule.

    409 once the race started at the table (§5-0-2: in ink). Answers every configuration
    stored at the table, in grid order.
    """
    actor = actor_of(request)
    require_token(actor)
    table = get_table(get_event(event), t)
    sent = driver_keys(payload.configurations, "configurations")
    not_objects = [n for n, values in sent.items() if not isinstance(values, dict)]
    if not_objects:
        raise InvalidInput(
            _("Send each configuration as a JSON object ({…})."),
            {f"configurations.{n}": [_("Send a JSON object ({…}) here.")] for n in not_objects},
        )
    try:
        stand_services.configurations_set(actor=actor, table=table, configurations=sent)
    except InvalidInput as exc:
        raise errors_under("configurations", exc) from exc
    stored = CarConfiguration.objects.filter(slot__table=table).select_related(
        "slot", "slot__driver", "slot__driver__team", "slot__driver__player"
    )
    return [
        {"driver": driver_out(c.slot.driver), **c.values()}
        for c in sorted(stored, key=lambda c: c.slot.position)
    ]


# ---------------------------------------------------------------------------
# The race sheet
# ---------------------------------------------------------------------------


@router.get(
    "/events/{event}/tables/{t}/sheet.pdf",
    response={frozenset({400, 401, 403, 404}): ErrorOut},
    openapi_extra={
        "responses": {
            200: {
                "description": "The table's race sheet (PDF): grid, stands, configurations, "
                "weather, and the referee link as a QR code.",
                "content": {"application/pdf": {"schema": {"type": "string", "format": "binary"}}},
            }
        }
    },
)
def sheet(request: HttpRequest, event: str, t: int) -> HttpResponse:
    """The race sheet of one table (§2-0-3): organisers, the table's referee, or anyone
    once the allocation is published (then without the referee link's QR code)."""
    actor = actor_of(request)
    found = get_event(event)
    table = _read_table(actor, found, t)
    trusted = _is_organiser(actor, found) or actor.can_referee(table)
    game_sheets = variants.variant_of(found.game).sheets
    if game_sheets is not None:
        # The game's own sheet (every game without Formula Dé's circuit and weather).
        pdf = game_sheets(
            event=found, tables=[table], language=found.language, referee_link=trusted
        )
    else:
        (data,) = race_sheets(event=found, tables=[table])
        if not trusted:
            # The QR code is the table's write token: only its referee and organisers get it.
            data = dataclasses.replace(data, referee_link=None)
        pdf = RaceSheetRenderer().render(data)
    response = HttpResponse(pdf, content_type="application/pdf")
    response["Content-Disposition"] = f'inline; filename="{found.slug}-table-{table.number}.pdf"'
    return response
