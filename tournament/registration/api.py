"""API v1, Setup: championships, circuits, teams, drivers (and their CSV import), events,
entries, check-in and publication (ground floor, beside the kit it uses)."""

from __future__ import annotations

import datetime
import re
from typing import Annotated, Any, Literal

from django.http import HttpRequest
from django.utils.translation import gettext as _
from ninja import Router, Schema
from ninja.responses import Status
from pydantic import Field, StrictBool, field_validator, model_validator

from tournament.apikit import (
    ERRORS,
    ClubRef,
    DriverNumber,
    DriverOut,
    ErrorOut,
    Game,
    Int,
    PlayerRef,
    actor_of,
    club_ref,
    driver_out,
    get_championship,
    get_event,
    invalid_fields,
    require_read,
    require_token,
)
from tournament.clubs.services import club_for_new
from tournament.errors import InvalidInput
from tournament.games import registry
from tournament.games.events import GridName, circuit_checked, named_fields, refuse_foreign_settings
from tournament.games.registry import MAIN_GAME
from tournament.models import (
    DEFAULT_POINTS_SCALE,
    Championship,
    Circuit,
    Driver,
    Entry,
    Event,
)
from tournament.public.names import shown_names
from tournament.registration import services
from tournament.registration.csv_import import decode
from tournament.rules.stopwatch import parse_stopwatch
from tournament.signup import announcement as signup

# ---------------------------------------------------------------------------
# Setup: championships, circuits, teams, drivers
# ---------------------------------------------------------------------------

setup = Router(tags=["Setup"])


class ChampionshipIn(Schema):
    slug: str
    name: signup.OneLine
    season: signup.OneLine
    points_scale: list[Int] = Field(default_factory=lambda: list(DEFAULT_POINTS_SCALE))
    points_mode: Literal["per_table", "overall"] = "per_table"
    best_results: Int | None = None
    club: str | None = Field(
        None, description="The slug of the club it belongs to: required unless superuser."
    )

    @field_validator("season", mode="before")
    @classmethod
    def _season_as_text(cls, value: Any) -> Any:
        """``season`` is text or a whole number (API.md): 2026 is kept as "2026"."""
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        return value


class ChampionshipOut(Schema):
    slug: str
    name: str
    season: str
    points_scale: list[int]
    points_mode: str
    best_results: int | None
    club: ClubRef | None = Field(None, description="The club that runs it.")


def championship_out(championship: Championship) -> dict[str, Any]:
    return {
        "slug": championship.slug,
        "name": championship.name,
        "season": championship.season,
        "points_scale": list(championship.points_scale),
        "points_mode": championship.points_mode,
        "best_results": championship.best_results,
        "club": club_ref(championship),
    }


@setup.post("/championships", response={201: ChampionshipOut, **ERRORS})
def championship_create(request: HttpRequest, payload: ChampionshipIn) -> Status[Any]:
    """Create a championship of a club (its owners and organisers; a superuser may leave
    ``club`` out); ``season`` is text or a whole number."""
    actor = actor_of(request)
    require_token(actor)
    club = club_for_new(actor=actor, slug=payload.club)
    fields = payload.model_dump(exclude={"club"})
    championship = services.championship_create(actor=actor, club=club, **fields)
    return Status(201, championship_out(championship))


@setup.get("/championships", response={200: list[ChampionshipOut], **ERRORS})
def championship_list(request: HttpRequest) -> list[dict[str, Any]]:
    """Every championship (names and points scales are public)."""
    return [championship_out(c) for c in Championship.objects.select_related("club")]


@setup.get("/championships/{slug}", response={200: ChampionshipOut, **ERRORS})
def championship_detail(request: HttpRequest, slug: str) -> dict[str, Any]:
    return championship_out(get_championship(slug))


class WeatherScaleIn(Schema):
    rain: tuple[Int, Int]
    variable: tuple[Int, Int]
    sun: tuple[Int, Int]


class CircuitIn(Schema):
    slug: str
    name: signup.OneLine
    laps: Int = 3
    weather_scale: WeatherScaleIn
    club: str | None = Field(
        None, description="The slug of the club that makes it: required unless superuser."
    )


class TeamIn(Schema):
    name: signup.OneLine


class TeamOut(Schema):
    name: str


@setup.post("/championships/{slug}/teams", response={201: TeamOut, **ERRORS})
def team_create(request: HttpRequest, slug: str, payload: TeamIn) -> Status[Any]:
    """Create a team; names are unique per championship (409)."""
    actor = actor_of(request)
    require_token(actor)
    team = services.team_create(actor=actor, championship=get_championship(slug), name=payload.name)
    return Status(201, {"name": team.name})


class DriverIn(Schema):
    number: DriverNumber
    first_name: signup.OneLine
    last_name: signup.OneLine
    team: signup.OneLine | None = None
    email: str = ""
    licence: str | None = Field(None, description="The federation's: finds the player.")


class DriverDetailOut(Schema):
    number: int
    name: str
    team: str | None
    player: PlayerRef | None
    first_name: str
    last_name: str
    email: str | None = Field(None, description="Organisers only.")


def driver_detail_out(driver: Driver, *, with_email: bool) -> dict[str, Any]:
    return {
        **driver_out(driver),
        **shown_names(driver, full=with_email),  # "L." for a short name, but to organisers
        "email": driver.email if with_email else None,
    }


@setup.post("/championships/{slug}/drivers", response={201: DriverDetailOut, **ERRORS})
def driver_create(request: HttpRequest, slug: str, payload: DriverIn) -> Status[Any]:
    """Register a driver; an unknown team name is created, a taken number answers 409."""
    actor = actor_of(request)
    require_token(actor)
    driver = services.driver_create(
        actor=actor, championship=get_championship(slug), **payload.model_dump()
    )
    return Status(201, driver_detail_out(driver, with_email=True))


@setup.get("/championships/{slug}/drivers", response={200: list[DriverDetailOut], **ERRORS})
def driver_list(request: HttpRequest, slug: str) -> list[dict[str, Any]]:
    """The championship's drivers by number; e-mail addresses only for its organisers."""
    championship = get_championship(slug)
    with_email = actor_of(request).can_organise(championship)
    drivers = Driver.objects.filter(championship=championship).select_related("team", "player")
    return [driver_detail_out(d, with_email=with_email) for d in drivers]


class LineErrorOut(Schema):
    line: int
    message: str


class ImportOut(Schema):
    created: int
    updated: int
    errors: list[LineErrorOut]


class ImportErrorOut(Schema):
    """API.md fixes this endpoint's ``errors`` as the list of bad lines, not a field dict."""

    detail: str
    created: int = 0
    updated: int = 0
    errors: list[LineErrorOut]


_CSV_TYPES = {"text/csv", "text/plain", "application/csv", "application/vnd.ms-excel"}
_CSV_EXAMPLE = "number;first_name;last_name;team;email\n7;Élodie;Lefèvre;Écurie Étoile;\n"


@setup.post(
    "/championships/{slug}/drivers/import",
    response={200: ImportOut, 400: ImportErrorOut, frozenset({401, 403, 404}): ErrorOut},
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"text/csv": {"schema": {"type": "string"}, "example": _CSV_EXAMPLE}},
        }
    },
)
def driver_import(request: HttpRequest, slug: str) -> Any:
    """Create or update drivers by number from a CSV (``,`` or ``;``); all or nothing."""
    actor = actor_of(request)
    require_token(actor)
    championship = get_championship(slug)
    services.require_organiser(actor, championship)
    if request.content_type not in _CSV_TYPES:
        raise InvalidInput(_("Send the file with the header “Content-Type: text/csv”."))
    text = decode(request.body)
    if "\x00" in text:
        raise InvalidInput(_("This is not a text file."))
    try:
        report = services.drivers_import(actor=actor, championship=championship, text=text)
    except InvalidInput as exc:
        if not isinstance(exc.current, list):
            raise
        lines = [{"line": e.line, "message": str(e.message)} for e in exc.current]
        return Status(400, {"detail": exc.message, "created": 0, "updated": 0, "errors": lines})
    return {"created": report.created, "updated": report.updated, "errors": []}


# ---------------------------------------------------------------------------
# Setup: events, entries, check-in, publication
# ---------------------------------------------------------------------------


class EventIn(Schema):
    slug: str
    name: signup.OneLine
    date: datetime.date
    circuit: str | None = Field(
        None, description="Required but for a game raced on its own tracks (GET /games)."
    )
    game: Game = MAIN_GAME
    game_name: Annotated[signup.OneLine, Field(max_length=100)] = Field(
        "", description="A named game's name, shown wherever the game's is."
    )
    grid: GridName = "draw"
    laps: Int | None = None
    table_size: Int = 10
    qualifying_mode: Literal["best", "sum", "draw"] = "best"
    minute_penalty: StrictBool = True
    allow_redo: StrictBool = False
    separate_teams: StrictBool = True
    min_stopwatch: str = Field(
        "0:20",
        description="The plausible stopwatch floor (m:ss): below it a run needs confirm_short.",
    )
    # Other games' settings (GET /api/v1/games says whose).
    crash_limit: Int = 1
    collisions: StrictBool = True

    @model_validator(mode="wrap")
    @classmethod
    def _circuit_where_needed(cls, data: Any, handler: Any) -> Any:
        return circuit_checked(cls.__name__, data, handler)


class PublishedOut(Schema):
    allocation: bool
    qualifying: bool
    results: bool
    qualifying_tables: bool = Field(
        description="Who sits at which qualifying table, shown to players before qualifying."
    )


class EventOut(signup.AnnouncementOut):
    slug: str
    name: str
    date: datetime.date
    championship: str
    club: ClubRef | None = Field(None, description="The club that runs it: its championship's.")
    circuit: str | None
    game: str
    laps: int | None
    race_laps: int
    table_size: int
    qualifying_mode: str
    minute_penalty: bool
    allow_redo: bool
    separate_teams: bool
    min_stopwatch: str
    crash_limit: int
    collisions: bool
    standard_configuration: dict[str, int] | None
    published: PublishedOut
    language: str = Field("fr", description="The language of the printed sheets.")
    stand_numbers: list[int] = Field(
        default_factory=list, description="Stand numbers; empty: 1 to the table size."
    )
    use_configurations: bool = Field(False, description="Car configurations are recorded (§5).")
    race_end: Literal["second_to_last", "winner"] = Field(
        "second_to_last",
        description="“Fin du jeu”: the race stops at the winner or runs to the second-to-last.",
    )
    seed_by_rating: bool = Field(
        False,
        description="Quick rules: the race tables seeded by rating (best-rated at table 1), "
        "the d20 giving each grid; a club's choice, off by default (the rule is the d20).",
    )
    show_favourites: bool = Field(
        False, description="The event page and projector show each table's favourites."
    )


class NamedEventOut(EventOut):
    """An event of a game the organisers name (``GET /api/v1/games``): its name and grid."""

    game_name: str = Field(description="The game's name, shown wherever the game's is.")
    grid: GridName = Field(description="A random draw per table, or by rating.")


#: An event as answered: a named game's carries its name and grid too.
AnyEventOut = NamedEventOut | EventOut


def event_out(event: Event) -> dict[str, Any]:
    return {
        **named_fields(event),
        **signup.announcement_out(event),
        "slug": event.slug,
        "name": event.name,
        "date": event.date,
        "championship": event.championship.slug,
        "club": club_ref(event.championship),
        "circuit": event.circuit.slug if event.circuit else None,
        "game": event.game,
        "laps": event.laps,
        "race_laps": event.race_laps,
        "table_size": event.table_size,
        "qualifying_mode": event.qualifying_mode,
        "minute_penalty": event.minute_penalty,
        "allow_redo": event.allow_redo,
        "separate_teams": event.separate_teams,
        "min_stopwatch": event.min_stopwatch,
        "crash_limit": event.crash_limit,
        "collisions": event.collisions,
        "standard_configuration": event.standard_configuration,
        "language": event.language,
        "stand_numbers": list(event.stand_numbers),
        "use_configurations": event.use_configurations,
        "race_end": event.race_end,
        "seed_by_rating": event.seed_by_rating,
        "show_favourites": event.show_favourites,
        "published": {
            "allocation": event.published_allocation,
            "qualifying": event.published_qualifying,
            "results": event.published_results,
            "qualifying_tables": event.published_qualifying_tables,
        },
    }


def _stopwatch_floor(text: str) -> int:
    """The event's plausible stopwatch floor, read like a referee's stopwatch."""
    try:
        if len(text) > 20:
            raise ValueError(text)
        return parse_stopwatch(text)
    except ValueError:
        raise invalid_fields(
            {"min_stopwatch": [_("Write the floor as a stopwatch time, e.g. 0:20.")]}
        ) from None


@setup.post("/championships/{slug}/events", response={201: AnyEventOut, **ERRORS})
def event_create(request: HttpRequest, slug: str, payload: EventIn) -> Status[Any]:
    """Create an event of any game: Formula Dé (full or quick rules) or another racing game."""
    actor = actor_of(request)
    require_token(actor)
    championship = get_championship(slug)
    services.require_organiser(actor, championship)
    if not registry.is_known(payload.game):
        raise InvalidInput(
            _("The game “%(game)s” is not available yet.") % {"game": payload.game},
            {"game": [_("Not available yet.")]},
        )
    refuse_foreign_settings(payload.game, payload.model_fields_set)
    circuit = None
    if payload.circuit is not None:
        circuit = Circuit.objects.filter(slug=payload.circuit).first()
        if circuit is None:
            raise InvalidInput(
                _("Unknown circuit “%(slug)s”.") % {"slug": payload.circuit},
                {"circuit": [_("Unknown circuit.")]},
            )
    fields = payload.model_dump(exclude={"circuit", "min_stopwatch"})
    fields["min_stopwatch_cs"] = _stopwatch_floor(payload.min_stopwatch)
    event = services.event_create(actor=actor, championship=championship, circuit=circuit, **fields)
    return Status(201, event_out(event))


@setup.get("/championships/{slug}/events", response={200: list[AnyEventOut], **ERRORS})
def event_list(request: HttpRequest, slug: str) -> list[dict[str, Any]]:
    """The championship's events: all for its organisers and desk, published ones for
    others."""
    championship = get_championship(slug)
    actor = actor_of(request)
    events = Event.objects.filter(championship=championship).select_related(
        "championship__club", "circuit"
    )
    if not actor.can_desk(championship):
        # A table's referee sees no more of unpublished events than anyone (API.md).
        events = [e for e in events if e.is_public()]
    return [event_out(e) for e in events]


@setup.get("/events/{event}", response={200: AnyEventOut, **ERRORS})
def event_detail(request: HttpRequest, event: str) -> dict[str, Any]:
    found = get_event(event)
    require_read(actor_of(request), found, published=found.is_public())
    return event_out(found)


class EventPatchIn(signup.AnnouncementPatch):
    """Any field of the event's creation body, and every setting of its settings page."""

    slug: str | None = None
    name: Annotated[signup.OneLine, Field(min_length=1, max_length=200)] | None = None
    date: datetime.date | None = None
    circuit: str | None = None
    game: Game | None = None
    game_name: Annotated[signup.OneLine, Field(max_length=100)] | None = None
    grid: GridName | None = None
    laps: Int | None = None
    table_size: Int | None = None
    qualifying_mode: Literal["best", "sum", "draw"] | None = None
    minute_penalty: StrictBool | None = None
    allow_redo: StrictBool | None = None
    separate_teams: StrictBool | None = None
    min_stopwatch: str | None = Field(
        None,
        description="The plausible stopwatch floor (m:ss): below it a run needs confirm_short.",
    )
    crash_limit: Int | None = None
    collisions: StrictBool | None = None
    race_end: Literal["second_to_last", "winner"] | None = None
    language: Literal["fr", "en"] | None = None
    stand_numbers: list[Int] | None = Field(
        None, description="Stand numbers, each once; []: 1 to the table size."
    )
    use_configurations: StrictBool | None = None
    seed_by_rating: StrictBool | None = None
    show_favourites: StrictBool | None = None
    standard_configuration: dict[str, Int] | None = Field(
        None, description="Quick rules: one configuration every driver uses (null: none)."
    )


#: Fields a PATCH may set to null (the others: null means "not sent").
NULLABLE = ("laps", "standard_configuration")


@setup.patch("/events/{event}", response={200: AnyEventOut, **ERRORS})
def event_update(request: HttpRequest, event: str, payload: EventPatchIn) -> dict[str, Any]:
    """Change any of the event's settings; fields left out keep their value. Answers the
    event with every setting. A change the event's state forbids (``game`` or ``slug``
    once drivers are registered, ``qualifying_mode`` once a session is open) is a 409
    that says why. Organisers only."""
    actor = actor_of(request)
    require_token(actor)
    found = get_event(event)
    sent = payload.model_dump(exclude_unset=True)
    announced = signup.take(sent)  # the announcement's fields (sign-up), stored apart
    changes = {k: v for k, v in sent.items() if v is not None or k in NULLABLE}
    refuse_foreign_settings(str(changes.get("game") or found.game), set(changes))
    if "circuit" in changes:
        circuit = Circuit.objects.filter(slug=changes["circuit"]).first()
        if circuit is None:
            raise InvalidInput(
                _("Unknown circuit “%(slug)s”.") % {"slug": changes["circuit"]},
                {"circuit": [_("Unknown circuit.")]},
            )
        changes["circuit"] = circuit
    if "stand_numbers" in changes:
        numbers = changes["stand_numbers"]
        if len(set(numbers)) != len(numbers) or any(n < 1 for n in numbers):
            message = _("Stand numbers are whole numbers from 1, each listed once.")
            raise InvalidInput(message, {"stand_numbers": [message]})
    if "min_stopwatch" in changes:
        changes["min_stopwatch_cs"] = _stopwatch_floor(changes.pop("min_stopwatch"))
    if "slug" in changes and not re.fullmatch(r"[a-z0-9-]+", changes["slug"] or ""):
        message = _("Use only lowercase letters, digits and hyphens (a-z, 0-9, -).")
        raise InvalidInput(message, {"slug": [message]})
    updated = services.event_update(actor=actor, event=found, **changes)
    signup.announcement_update(actor=actor, event=found, **announced)
    return event_out(get_event(updated.slug))


class NumbersIn(Schema):
    numbers: list[DriverNumber]


class CheckinIn(NumbersIn):
    checked_in: StrictBool = True


class EntryOut(Schema):
    driver: DriverOut
    checked_in: bool
    registered_at: datetime.datetime


def entry_out(entry: Entry) -> dict[str, Any]:
    return {
        "driver": driver_out(entry.driver),
        "checked_in": entry.checked_in,
        "registered_at": entry.registered_at,
    }


def _entries(event: Event) -> list[dict[str, Any]]:
    rows = Entry.objects.filter(event=event).select_related("driver__team", "driver__player")
    return [entry_out(e) for e in rows]


@setup.post("/events/{event}/entries", response={200: list[EntryOut], **ERRORS})
def entries_register(request: HttpRequest, event: str, payload: NumbersIn) -> list[Any]:
    """Register drivers for the event (registering twice keeps the first); answers them all."""
    actor = actor_of(request)
    require_token(actor)
    found = get_event(event)
    services.entries_register(actor=actor, event=found, numbers=payload.numbers)
    return _entries(found)


@setup.get("/events/{event}/entries", response={200: list[EntryOut], **ERRORS})
def entries_list(request: HttpRequest, event: str) -> list[Any]:
    found = get_event(event)
    require_read(actor_of(request), found, published=found.is_public())
    return _entries(found)


@setup.post("/events/{event}/checkin", response={200: list[EntryOut], **ERRORS})
def entries_checkin(request: HttpRequest, event: str, payload: CheckinIn) -> list[Any]:
    """Check drivers in (or out with ``checked_in: false``); answers every entry."""
    actor = actor_of(request)
    require_token(actor)
    found = get_event(event)
    services.entries_checkin(
        actor=actor, event=found, numbers=payload.numbers, checked_in=payload.checked_in
    )
    return _entries(found)


class PublishIn(Schema):
    allocation: StrictBool | None = None
    qualifying: StrictBool | None = None
    results: StrictBool | None = None
    qualifying_tables: StrictBool | None = Field(
        None, description="The qualifying tables (drivers only, never the referee links)."
    )


@setup.post("/events/{event}/publish", response={200: AnyEventOut, **ERRORS})
def event_publish(request: HttpRequest, event: str, payload: PublishIn) -> dict[str, Any]:
    """Choose what anonymous readers may see; fields left out keep their value."""
    actor = actor_of(request)
    require_token(actor)
    found = services.event_publish(actor=actor, event=get_event(event), **payload.model_dump())
    return event_out(found)
