"""JSON API v1, Race (Formula Dé) (``/work/shared/API.md``): allocation, tables and grids,
swaps, referee links, race weather and table draws, stands, configurations, race sheets,
race results (draft, submitted, confirmed, reopened) and the day's results.

The services in ``races.services`` decide who may write and what is allowed; this module
translates HTTP into their calls and their objects back into the contract's JSON.
Mounted by ``tournament.api`` (which this module's helpers come from).

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
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext as _
from ninja import Router, Schema
from pydantic import BaseModel, Field, SkipValidation, StrictBool

from races import selectors, services
from races import weather as weather_rules
from races.models import (
    CarConfiguration,
    GridSlot,
    RaceResult,
    RaceTable,
    RaceWeather,
    ResultLine,
    ResultStatus,
    WeatherDraw,
)
from tournament.access import Actor
from tournament.api import (
    CURRENT_SERIALIZERS,
    ERRORS,
    INT32_MAX,
    DriverNumber,
    DriverOut,
    ErrorOut,
    Int,
    actor_of,
    driver_out,
    get_event,
    reads_as_anonymous,
    refuse_read,
    require_read,
    require_token,
)
from tournament.errors import Conflict, InvalidInput, NotAllowed, NotFound
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
    return actor.can_organise(event.championship)


def own_tables(actor: Actor, event: Event) -> QuerySet[RaceTable]:
    """The race tables of ``event`` that ``actor`` referees: its link's, or those its
    account is assigned to."""
    if isinstance(actor.table, RaceTable):
        return RaceTable.objects.filter(pk=actor.table.pk, event=event)
    if actor.table is None and actor.is_authenticated:
        return RaceTable.objects.filter(event=event, referee=actor.user)
    return RaceTable.objects.none()


def _require_own_or(actor: Actor, event: Event, *, published: bool) -> None:
    """Organisers, or ``published``, or a referee of one of the event's race tables (who
    then reads their own table only: the callers check the table)."""
    if published or _is_organiser(actor, event) or own_tables(actor, event).exists():
        return
    raise refuse_read(actor, event)


def _read_table(actor: Actor, event: Event, number: int) -> RaceTable:
    """One table for reading: its referee and organisers always, others once published."""
    _require_own_or(actor, event, published=event.published_allocation)
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
    referee_link: str | None = Field(None, description="Organisers only.")
    referee_token: str | None = Field(None, description="Organisers only.")
    weather: WeatherName | None = Field(description="The table's weather (null before the draw).")
    track: TrackName | None
    weather_fixed: bool
    result_status: Literal["empty", "draft", "submitted", "confirmed"]
    grid: list[GridLineOut]
    warnings: list[str] = Field(
        description="Team-mates the allocation could not part at this table, as sentences."
    )


def _link(table: RaceTable) -> str:
    # races.sheets needs the PDF module; only the URL is wanted here.
    from races.sheets import race_referee_link

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
        "referee_token": table.token if secrets else None,
        "weather": table.weather or None,
        "track": table.track or None,
        "weather_fixed": table.weather_fixed,
        "result_status": table.result_status,
        "grid": [grid_line_out(slot) for slot in grid],
        "warnings": _warning_sentences(table, grid, warnings),
    }


def _tables(actor: Actor, event: Event, *, only: RaceTable | None = None) -> list[dict[str, Any]]:
    """The tables ``actor`` may read (or just ``only``), table 1 first."""
    tables = selectors.tables_with_grids(event=event)
    organiser = _is_organiser(actor, event)
    if only is not None:
        tables = [t for t in tables if t.pk == only.pk]
    elif not (organiser or event.published_allocation):
        # A referee sees their own table only, until the organisers publish the allocation.
        own = {t.pk for t in tables if actor.can_referee(t)}
        tables = [t for t in tables if t.pk in own]
    # Team-mates together are no conflict when the event does not keep them apart (the
    # allocation records them all the same).
    keep_apart = tables and event.separate_teams
    warnings = selectors.allocation_warnings(event=event) if keep_apart else []
    return [table_out(t, secrets=organiser, warnings=warnings) for t in tables]


# ---------------------------------------------------------------------------
# Input helpers
# ---------------------------------------------------------------------------


def _driver_keys(mapping: Mapping[str, Any], field: str) -> dict[int, Any]:
    """``{"<number>": value}`` as ``{number: value}``; a 400 naming every other key."""
    values: dict[int, Any] = {}
    bad: list[str] = []
    for key, value in mapping.items():
        # isascii: "²" and "٣" are digits to str.isdigit() but not numbers to int().
        if not (key.isascii() and key.isdigit()) or not 1 <= int(key) <= INT32_MAX:
            bad.append(key)
            continue
        if int(key) in values:
            bad.append(key)  # "7" and "07": the same driver twice
            continue
        values[int(key)] = value
    if bad:
        raise InvalidInput(
            _("Drivers are given by their number: %(keys)s.")
            % {"keys": ", ".join(f"“{k}”" for k in bad)},
            {field: [_("“%(value)s” is not a driver number.") % {"value": k} for k in bad]},
        )
    return values


def _under(field: str, exc: InvalidInput) -> InvalidInput:
    """The service's refusal with its per-driver keys placed under the body's ``field``."""
    errors = {
        (key if key == "__all__" else f"{field}.{key}"): messages
        for key, messages in exc.errors.items()
    }
    return InvalidInput(exc.message, errors)


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


@router.get("/events/{event}/tables", response={200: list[TableOut], **ERRORS})
def table_list(request: HttpRequest, event: str) -> list[dict[str, Any]]:
    """The race tables with their grids (grid order = general classification).

    Organisers see everything, with the referee links and tokens; a table's referee sees
    their own table until the allocation is published, then every table; anonymous
    readers see them once the allocation is published.
    """
    actor = actor_of(request)
    found = get_event(event)
    _require_own_or(actor, found, published=found.published_allocation)
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
# Weather
# ---------------------------------------------------------------------------


class RollIn(Schema):
    roll: Int | None = Field(None, description="1..20; missing: the system rolls.")


class RaceWeatherOut(Schema):
    roll: int
    source: Literal["physical", "system"]
    weather: WeatherName
    track: TrackName = Field(description="Every table's track at the start of the race.")


def race_weather_out(race: RaceWeather, event: Event) -> dict[str, Any]:
    session = event.sessions.order_by("-number").first()
    start = weather_rules.race_start(
        race.weather,  # type: ignore[arg-type]
        session.weather if session else None,  # type: ignore[arg-type]
    )
    return {
        "roll": race.roll,
        "source": race.source,
        "weather": race.weather,
        "track": start.track,
    }


@router.post("/events/{event}/race-weather", response={200: RaceWeatherOut, **ERRORS})
def race_weather(request: HttpRequest, event: str, payload: RollIn | None = None) -> dict[str, Any]:
    """The overall pole's d20 for the race (§2-0-1, §3-2-1); sets every table's start.

    Variable weather starts dry, or wet after a rainy last qualifying session (§3-2-4).
    Drawing again is allowed until a table's weather has evolved or a result is entered.
    """
    actor = actor_of(request)
    require_token(actor)
    found = get_event(event)
    race = services.race_weather_draw(
        actor=actor, event=found, roll=payload.roll if payload else None
    )
    return race_weather_out(race, found)


class WeatherDrawOut(Schema):
    number: int = Field(description="The draw's number at this table (1, 2, …).")
    roll: int
    source: Literal["physical", "system"]
    weather: WeatherName
    track: TrackName
    fixed: bool = Field(description="True when weather and track hold for the rest of the race.")


def weather_draw_out(draw: WeatherDraw) -> dict[str, Any]:
    return {
        "number": draw.number,
        "roll": draw.roll,
        "source": draw.source,
        "weather": draw.weather,
        "track": draw.track,
        "fixed": draw.fixed,
    }


@router.post("/events/{event}/tables/{t}/weather-draws", response={200: WeatherDrawOut, **ERRORS})
def weather_draw(
    request: HttpRequest, event: str, t: int, payload: RollIn | None = None
) -> dict[str, Any]:
    """A weather draw at the table in a variable race (§3-2-4 … §3-2-6).

    Sun or rain twice in a row fixes the weather; 409 when the race weather is not
    variable or the table's weather is already fixed. The table's referee or an organiser.
    """
    actor = actor_of(request)
    require_token(actor)
    table = get_table(get_event(event), t)
    draw = services.table_weather_draw(
        actor=actor, table=table, roll=payload.roll if payload else None
    )
    return weather_draw_out(draw)


# ---------------------------------------------------------------------------
# Stands and configurations
# ---------------------------------------------------------------------------


class StandsIn(Schema):
    stands: dict[str, Int | None] = Field(
        description='{"<driver number>": stand number}; null frees the driver\'s stand.'
    )


@router.put("/events/{event}/tables/{t}/stands", response={200: TableOut, **ERRORS})
def stands(request: HttpRequest, event: str, t: int, payload: StandsIn) -> dict[str, Any]:
    """Record the stands chosen (§4-0-1): one per driver, each stand once per table.

    Drivers left out keep theirs. Answers the table. The table's referee or an organiser.
    """
    actor = actor_of(request)
    require_token(actor)
    found = get_event(event)
    table = get_table(found, t)
    chosen = _driver_keys(payload.stands, "stands")
    try:
        services.stands_set(actor=actor, table=table, stands=chosen)
    except InvalidInput as exc:
        raise _under("stands", exc) from exc
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

    Answers every configuration stored at the table, in grid order.
    """
    actor = actor_of(request)
    require_token(actor)
    table = get_table(get_event(event), t)
    sent = _driver_keys(payload.configurations, "configurations")
    not_objects = [n for n, values in sent.items() if not isinstance(values, dict)]
    if not_objects:
        raise InvalidInput(
            _("Send each configuration as a JSON object ({…})."),
            {f"configurations.{n}": [_("Send a JSON object ({…}) here.")] for n in not_objects},
        )
    try:
        services.configurations_set(actor=actor, table=table, configurations=sent)
    except InvalidInput as exc:
        raise _under("configurations", exc) from exc
    stored = CarConfiguration.objects.filter(slot__table=table).select_related(
        "slot", "slot__driver", "slot__driver__team"
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
    from races.pdf import RaceSheetRenderer
    from races.sheets import race_sheets

    actor = actor_of(request)
    found = get_event(event)
    table = _read_table(actor, found, t)
    (data,) = race_sheets(event=found, tables=[table])
    if not (_is_organiser(actor, found) or actor.can_referee(table)):
        # The QR code is the table's write token: only its referee and organisers get it.
        data = dataclasses.replace(data, referee_link=None)
    response = HttpResponse(RaceSheetRenderer().render(data), content_type="application/pdf")
    response["Content-Disposition"] = f'inline; filename="{found.slug}-table-{table.number}.pdf"'
    return response


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
    # Other games (API.md "Other games"), read by races.games_api.
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


class CannesMonacoResultOut(ResultOut):
    squares: dict[str, int | None]
    crossed: list[int]


class RacetrackRunOut(Schema):
    turns: int
    margin: int
    crashes: int
    finished: bool
    eliminated: bool


class RacetrackResultOut(ResultOut):
    runs: dict[str, RacetrackRunOut]


# Other games answer their own fields besides the common ones (API.md "Other games").
AnyResultOut = CannesMonacoResultOut | RacetrackResultOut | ResultOut


def result_out(table: RaceTable, result: RaceResult | None) -> dict[str, Any]:
    """A table's result as the contract returns it; ``version: 0`` while nothing is entered."""
    from races.game_services import game_fields

    if result is None:
        return {
            "version": 0,
            "status": table.result_status,
            "finish": [],
            "retired": [],
            "dns": [],
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
    _require_own_or(actor, event, published=event.published_results)
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
    409 when the version is stale or the result confirmed, with ``current``. The table's
    referee (link or account) or an organiser.
    """
    actor = actor_of(request)
    require_token(actor)
    table = get_table(get_event(event), t)
    if table.event.game in ("cannes_monaco", "racetrack"):
        from races.games_api import table_result_save

        try:
            table_result_save(request, table, payload)
        except Conflict as exc:
            raise _with_current(table, exc) from exc
        return StoredResult.of(table).out()
    try:
        services.result_save(
            actor=actor,
            table=table,
            version=payload.version,
            finish=payload.finish,
            retired=[r.as_service_input() for r in payload.retired],
            dns=payload.dns,
            submit=payload.submit,
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
        services.result_confirm(
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
        services.result_reopen(
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
    status: Literal["finished", "retired", "dns", "running", "eliminated"]
    cause: RetirementCauseName | None
    lap: int | None
    points: int


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
    return [day_line_out(line) for line in selectors.event_results(event=found)]
