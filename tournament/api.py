"""JSON API v1 (``/work/shared/API.md``): the NinjaAPI, bearer tokens, error bodies, Setup.

The boundary: endpoints translate HTTP into calls of the same services the web pages use
(permissions and rules live there) and translate objects and ``ServiceError`` back into the
JSON of the contract. Every error answers ``{"detail": sentence, "errors": {field: [..]}}``.
The Qualifying endpoints live in ``qualifying/api.py``, mounted at the end of this module.
"""

from __future__ import annotations

import datetime
import json
import re
from collections.abc import Callable, Iterable
from typing import Annotated, Any, Literal

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from ninja import NinjaAPI, Router, Schema
from ninja.errors import HttpError
from ninja.errors import ValidationError as NinjaValidationError
from ninja.parser import Parser
from ninja.responses import Status
from ninja.security import HttpBearer
from pydantic import Field, StrictBool

from qualifying.models import QualifyingTable
from races.models import RaceTable, ReplacedLink
from tournament import ratelimit, services
from tournament.access import Actor
from tournament.csv_import import decode
from tournament.errors import (
    InvalidInput,
    NotAllowed,
    NotFound,
    ServiceError,
    invalid_from_validation_error,
)
from tournament.models import (
    DEFAULT_POINTS_SCALE,
    ApiToken,
    Championship,
    Circuit,
    Driver,
    Entry,
    Event,
)
from tournament.selectors import standings_for, team_standings_for

# ---------------------------------------------------------------------------
# Input types
# ---------------------------------------------------------------------------

INT32_MAX = 2**31 - 1
#: Any integer a client sends: strict (no "3", no true, no 3.0) and small enough for every
#: database column, so that a huge number is a 400 and never an overflow deep in a query.
Int = Annotated[int, Field(strict=True, ge=-INT32_MAX, le=INT32_MAX)]
#: A driver's number as organisers give it (§4-0-1); the model refuses 0.
DriverNumber = Annotated[int, Field(strict=True, ge=1, le=INT32_MAX)]
Game = Literal["formula_de", "rallyman", "cannes_monaco", "racetrack"]
_SLUG_RE = re.compile(r"^[a-z0-9-]{1,50}$")


class Unauthorized(ServiceError):
    """No token where one is needed, or a token nobody issued (401)."""

    status = 401


# ---------------------------------------------------------------------------
# Authentication
# ---------------------------------------------------------------------------


class BearerToken(HttpBearer):
    """``Authorization: Bearer <token>``: an organiser's API token or a table's link secret.

    No header at all is the anonymous reader; a header that is not understood is a 401,
    never a silent downgrade to anonymous.
    """

    def __call__(self, request: HttpRequest) -> Actor:
        header = request.headers.get(self.header, "")
        if not header.strip():
            return Actor.anonymous()
        scheme, _space, token = header.strip().partition(" ")
        if scheme.lower() != self.openapi_scheme or not token.strip():
            raise Unauthorized(_("Send the token as “Authorization: Bearer <token>”."))
        try:
            return self.authenticate(request, token.strip())
        except Unauthorized as exc:
            # Only unknown tokens count, and only they are limited (429 past the limit):
            # a valid token always works, and a replaced link is an honest mistake.
            if not getattr(exc, "replaced", False):
                ratelimit.check(request)
                ratelimit.record_failure(request)
            raise

    def authenticate(self, request: HttpRequest, token: str) -> Actor:
        if "\x00" not in token and len(token) <= 200:
            user = ApiToken.user_for(token)
            if user is not None:
                return Actor(user=user, via="API")
            table = (
                QualifyingTable.objects.select_related("event__championship")
                .filter(token=token)
                .first()
            )
            if table is not None:
                return Actor(table=table)
            race_table = (
                RaceTable.objects.select_related("event__championship", "event__circuit")
                .filter(token=token)
                .first()
            )
            if race_table is not None:
                return Actor(table=race_table)
            if ReplacedLink.objects.filter(token=token).exists():
                replaced = Unauthorized(
                    _("This link was replaced: ask race control for the new one.")
                )
                replaced.replaced = True  # type: ignore[attr-defined]
                raise replaced
        raise Unauthorized(_("Unknown or revoked token."))


def actor_of(request: HttpRequest) -> Actor:
    """The actor the bearer auth resolved for this request."""
    return request.auth  # type: ignore[attr-defined,no-any-return]


def is_anonymous(actor: Actor) -> bool:
    return actor.table is None and not actor.is_authenticated


def require_token(actor: Actor) -> None:
    """Writes need a token: without one the answer is 401, not 403."""
    if is_anonymous(actor):
        raise Unauthorized(_("This needs a token: send “Authorization: Bearer <token>”."))


def is_event_referee(actor: Actor, event: Event) -> bool:
    """True for a table link of ``event`` or a user refereeing one of its tables.

    Only a first gate for writes (the services then check the very table): it never opens
    a read, since a table's referee reads their own table and nothing else (API.md).
    """
    if actor.table is not None:
        return getattr(actor.table, "event_id", None) == event.pk
    if actor.is_authenticated:
        return (
            QualifyingTable.objects.filter(event=event, referee=actor.user).exists()
            or RaceTable.objects.filter(event=event, referee=actor.user).exists()
        )
    return False


def reads_as_anonymous(actor: Actor) -> bool:
    """Callers who are told nothing of what they may not read: a refusal is a ``404``.

    Anonymous readers, and table links, which read their own table and, beyond it, no more
    than an anonymous reader would (API.md, "table token").
    """
    return actor.table is not None or not actor.is_authenticated


def refuse_read(actor: Actor, event: Event, *, not_found: str | None = None) -> ServiceError:
    """The refusal of an unpublished read: ``404`` for anonymous callers and table links
    (the same as for an unknown event, unless ``not_found`` says better), ``403`` for a
    user's token."""
    if reads_as_anonymous(actor):
        return NotFound(not_found or _("Unknown event “%(slug)s”.") % {"slug": event.slug})
    return NotAllowed(_("The organisers have not published this yet."))


def require_read(actor: Actor, event: Event, *, published: bool) -> None:
    """Organisers read everything; everyone else only what is published.

    The event's referees are no exception for event-wide data: a table's referee (link or
    account) reads its own table through the endpoints that check the table. Anonymous
    readers and table links get the same 404 as for an unknown event, so nothing
    unpublished leaks.
    """
    if published or actor.can_organise(event.championship):
        return
    raise refuse_read(actor, event)


# ---------------------------------------------------------------------------
# Lookups
# ---------------------------------------------------------------------------


def _is_slug(value: str) -> bool:
    return bool(_SLUG_RE.match(value))


def get_championship(slug: str) -> Championship:
    championship = Championship.objects.filter(slug=slug).first() if _is_slug(slug) else None
    if championship is None:
        raise NotFound(_("Unknown championship “%(slug)s”.") % {"slug": slug})
    return championship


def get_event(slug: str) -> Event:
    event = (
        Event.objects.select_related("championship", "circuit").filter(slug=slug).first()
        if _is_slug(slug)
        else None
    )
    if event is None:
        raise NotFound(_("Unknown event “%(slug)s”.") % {"slug": slug})
    return event


def get_circuit(slug: str) -> Circuit:
    circuit = Circuit.objects.filter(slug=slug).first() if _is_slug(slug) else None
    if circuit is None:
        raise NotFound(_("Unknown circuit “%(slug)s”.") % {"slug": slug})
    return circuit


# ---------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------


class DriverOut(Schema):
    number: int
    name: str
    team: str | None


def driver_out(driver: Driver) -> dict[str, Any]:
    """A driver as the contract returns it: ``{number, name, team}``."""
    return {
        "number": driver.number,
        "name": driver.name,
        "team": driver.team.name if driver.team_id else None,
    }


class ErrorOut(Schema):
    detail: str
    errors: dict[str, list[str]] = {}
    current: Any = Field(None, description="409 on a versioned object: the stored object.")


#: Documented on every operation; the bodies themselves come from the handlers below.
ERRORS: dict[Any, type[Schema]] = {frozenset({400, 401, 403, 404, 409}): ErrorOut}

#: How the ``current`` object of a 409 is serialised, by type (apps register theirs).
CURRENT_SERIALIZERS: dict[type, Callable[[Any], Any]] = {}


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------

# Where Django already has a sentence for the same problem, its msgid is reused so the
# French catalogue of Django translates it today; the others are ours.
_PYDANTIC_MESSAGES: dict[str, Any] = {
    "missing": gettext_lazy("This field is required."),
    "int_type": gettext_lazy("Enter a whole number."),
    "int_parsing": gettext_lazy("Enter a whole number."),
    "int_from_float": gettext_lazy("Enter a whole number."),
    "bool_type": gettext_lazy("Use true or false."),
    "bool_parsing": gettext_lazy("Use true or false."),
    "string_type": gettext_lazy("Write this as text, in quotes."),
    "list_type": gettext_lazy("Enter a list of values."),
    "tuple_type": gettext_lazy("Enter a list of values."),
    "dict_type": gettext_lazy("Send a JSON object ({…}) here."),
    "model_type": gettext_lazy("Send a JSON object ({…}) here."),
    "model_attributes_type": gettext_lazy("Send a JSON object ({…}) here."),
    "greater_than_equal": gettext_lazy(
        "Ensure this value is greater than or equal to %(limit_value)s."
    ),
    "less_than_equal": gettext_lazy("Ensure this value is less than or equal to %(limit_value)s."),
    "literal_error": gettext_lazy("Use one of: %(choices)s."),
    "enum": gettext_lazy("Use one of: %(choices)s."),
    "too_short": gettext_lazy("At least %(count)s value(s)."),
    "too_long": gettext_lazy("At most %(count)s value(s)."),
    "string_too_long": gettext_lazy("At most %(count)s characters."),
    "string_too_short": gettext_lazy("At least %(count)s characters."),
}


def _pydantic_message(error: dict[str, Any]) -> str:
    kind = str(error.get("type", ""))
    ctx = error.get("ctx") or {}
    if kind.startswith("datetime_"):
        return _("Enter a valid date/time.")
    if kind.startswith("date_"):
        return _("Enter a valid date.")
    template = _PYDANTIC_MESSAGES.get(kind)
    if template is None:
        return _("Enter a valid value.")
    return str(template) % {
        "limit_value": ctx.get("ge", ctx.get("le", "")),
        "choices": ctx.get("expected", ""),
        "count": ctx.get("min_length", ctx.get("max_length", "")),
    }


def _field_of(loc: Iterable[Any]) -> str:
    parts = list(loc)
    # ("body", "payload", "name") for the single body parameter; ("path", "n") for a path.
    if parts and parts[0] == "body":
        parts = parts[2:]
    elif parts:
        parts = parts[1:]
    # Union members appear as "list[constrained-int]"-like steps: not a field a person knows.
    named = [str(p) for p in parts if not (isinstance(p, str) and ("[" in p or "-" in p))]
    return ".".join(named) or "__all__"


def invalid_fields(errors: dict[str, list[str]]) -> InvalidInput:
    """One refusal naming every field to fix."""
    return InvalidInput(
        _("Some fields are invalid: %(fields)s.") % {"fields": ", ".join(errors)}, errors
    )


def error_body(exc: ServiceError) -> dict[str, Any]:
    body: dict[str, Any] = {"detail": exc.message, "errors": exc.errors}
    if exc.current is not None:
        serializer = CURRENT_SERIALIZERS.get(type(exc.current))
        if serializer is not None:
            body["current"] = serializer(exc.current)
    return body


class JsonObjectParser(Parser):
    """JSON bodies only, and only objects: everything else is a 400 with a sentence."""

    def parse_body(self, request: HttpRequest) -> dict[str, Any]:
        content_type = request.content_type or ""
        if content_type != "application/json" and not content_type.endswith("+json"):
            raise InvalidInput(
                _("Send the body as JSON with the header “Content-Type: application/json”.")
            )
        try:
            data = json.loads(request.body)
        except (ValueError, RecursionError) as exc:
            raise InvalidInput(_("The body is not valid JSON.")) from exc
        if not isinstance(data, dict):
            raise InvalidInput(_("The body must be a JSON object ({…})."))
        if _contains_nul(data):
            # PostgreSQL refuses NUL in text; refuse it here rather than fail on save.
            raise InvalidInput(_("Text may not contain the NUL character."))
        return data


def _contains_nul(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if "\x00" in item:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


api = NinjaAPI(
    title="Paddock API",
    version="1",
    description=(
        "The referees' system of Formula Dé tournaments. Errors answer "
        '`{"detail": sentence, "errors": {field: [messages]}}`; a 409 on a versioned '
        "object also carries `current`."
    ),
    urls_namespace="api",
    openapi_url="/openapi.json",
    docs_url="/docs",
    auth=[BearerToken()],
    parser=JsonObjectParser(),
)


def _respond(request: HttpRequest, status: int, body: dict[str, Any]) -> HttpResponse:
    response = api.create_response(request, body, status=status)
    if status == 401:
        response["WWW-Authenticate"] = 'Bearer realm="paddock"'
    return response


@api.exception_handler(ServiceError)
def _on_service_error(request: HttpRequest, exc: ServiceError) -> HttpResponse:
    return _respond(request, exc.status, error_body(exc))


@api.exception_handler(NinjaValidationError)
def _on_validation_error(request: HttpRequest, exc: NinjaValidationError) -> HttpResponse:
    errors: dict[str, list[str]] = {}
    for error in exc.errors:
        errors.setdefault(_field_of(error.get("loc", ())), []).append(_pydantic_message(error))
    if list(errors) == ["__all__"]:
        # The body as a whole is wrong (missing or not an object): say it plainly.
        body = InvalidInput(_("The body must be a JSON object ({…})."), errors)
        return _on_service_error(request, body)
    return _on_service_error(request, invalid_fields(errors))


@api.exception_handler(HttpError)
def _on_http_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
    # The parser's own refusals arrive wrapped by ninja ("Cannot parse request body").
    if isinstance(exc.__cause__, ServiceError):
        return _on_service_error(request, exc.__cause__)
    if exc.status_code == 401:
        detail = _("Unknown or revoked token.")
    elif exc.status_code == 400:
        detail = _("The request could not be read.")
    else:
        detail = str(exc)
    return _respond(request, exc.status_code, {"detail": detail, "errors": {}})


@api.exception_handler(Http404)
def _on_http404(request: HttpRequest, exc: Http404) -> HttpResponse:
    return _respond(request, 404, {"detail": _("Nothing was found at this address."), "errors": {}})


@api.exception_handler(PermissionDenied)
def _on_permission_denied(request: HttpRequest, exc: PermissionDenied) -> HttpResponse:
    return _respond(request, 403, {"detail": _("You may not do this."), "errors": {}})


@api.exception_handler(DjangoValidationError)
def _on_django_validation_error(request: HttpRequest, exc: DjangoValidationError) -> HttpResponse:
    return _on_service_error(
        request, invalid_from_validation_error(exc, _("Some fields are invalid."))
    )


# ---------------------------------------------------------------------------
# Setup: championships, circuits, teams, drivers
# ---------------------------------------------------------------------------

setup = Router(tags=["Setup"])


class ChampionshipIn(Schema):
    slug: str
    name: str
    season: str
    points_scale: list[Int] = Field(default_factory=lambda: list(DEFAULT_POINTS_SCALE))
    points_mode: Literal["per_table", "overall"] = "per_table"
    best_results: Int | None = None


class ChampionshipOut(Schema):
    slug: str
    name: str
    season: str
    points_scale: list[int]
    points_mode: str
    best_results: int | None


def championship_out(championship: Championship) -> dict[str, Any]:
    return {
        "slug": championship.slug,
        "name": championship.name,
        "season": championship.season,
        "points_scale": list(championship.points_scale),
        "points_mode": championship.points_mode,
        "best_results": championship.best_results,
    }


@setup.post("/championships", response={201: ChampionshipOut, **ERRORS})
def championship_create(request: HttpRequest, payload: ChampionshipIn) -> Status[Any]:
    """Create a championship (superusers only)."""
    actor = actor_of(request)
    require_token(actor)
    championship = services.championship_create(actor=actor, **payload.model_dump())
    return Status(201, championship_out(championship))


@setup.get("/championships", response={200: list[ChampionshipOut], **ERRORS})
def championship_list(request: HttpRequest) -> list[dict[str, Any]]:
    """Every championship (names and points scales are public)."""
    return [championship_out(c) for c in Championship.objects.all()]


@setup.get("/championships/{slug}", response={200: ChampionshipOut, **ERRORS})
def championship_detail(request: HttpRequest, slug: str) -> dict[str, Any]:
    return championship_out(get_championship(slug))


class WeatherScaleIn(Schema):
    rain: tuple[Int, Int]
    variable: tuple[Int, Int]
    sun: tuple[Int, Int]


class CircuitIn(Schema):
    slug: str
    name: str
    laps: Int = 3
    weather_scale: WeatherScaleIn


class WeatherScaleOut(Schema):
    rain: tuple[int, int]
    variable: tuple[int, int]
    sun: tuple[int, int]


class CircuitOut(Schema):
    slug: str
    name: str
    laps: int
    weather_scale: WeatherScaleOut


def circuit_out(circuit: Circuit) -> dict[str, Any]:
    scale = circuit.weather_scale
    return {
        "slug": circuit.slug,
        "name": circuit.name,
        "laps": circuit.laps,
        "weather_scale": {
            "rain": list(scale.rain),
            "variable": list(scale.variable),
            "sun": list(scale.sun),
        },
    }


@setup.post("/circuits", response={201: CircuitOut, **ERRORS})
def circuit_create(request: HttpRequest, payload: CircuitIn) -> Status[Any]:
    """Create a circuit (superusers only); the d20 scale must cover 1..20 exactly once."""
    actor = actor_of(request)
    require_token(actor)
    scale = payload.weather_scale
    circuit = services.circuit_create(
        actor=actor,
        slug=payload.slug,
        name=payload.name,
        laps=payload.laps,
        weather_scale={"rain": scale.rain, "variable": scale.variable, "sun": scale.sun},
    )
    return Status(201, circuit_out(circuit))


@setup.get("/circuits", response={200: list[CircuitOut], **ERRORS})
def circuit_list(request: HttpRequest) -> list[dict[str, Any]]:
    return [circuit_out(c) for c in Circuit.objects.all()]


@setup.get("/circuits/{slug}", response={200: CircuitOut, **ERRORS})
def circuit_detail(request: HttpRequest, slug: str) -> dict[str, Any]:
    return circuit_out(get_circuit(slug))


class TeamIn(Schema):
    name: str


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
    first_name: str
    last_name: str
    team: str | None = None
    email: str = ""


class DriverDetailOut(Schema):
    number: int
    name: str
    team: str | None
    first_name: str
    last_name: str
    email: str | None = Field(None, description="Organisers only.")


def driver_detail_out(driver: Driver, *, with_email: bool) -> dict[str, Any]:
    return {
        **driver_out(driver),
        "first_name": driver.first_name,
        "last_name": driver.last_name,
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
    drivers = Driver.objects.filter(championship=championship).select_related("team")
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
    name: str
    date: datetime.date
    circuit: str
    game: Game = "formula_de"
    laps: Int | None = None
    table_size: Int = 10
    qualifying_mode: Literal["best", "sum", "draw"] = "best"
    minute_penalty: StrictBool = True
    allow_redo: StrictBool = False
    separate_teams: StrictBool = True
    # Other games (API.md): Racetrack's accident rules.
    crash_limit: Int = 1
    collisions: StrictBool = True


class PublishedOut(Schema):
    allocation: bool
    qualifying: bool
    results: bool


class EventOut(Schema):
    slug: str
    name: str
    date: datetime.date
    championship: str
    circuit: str
    game: str
    laps: int | None
    race_laps: int
    table_size: int
    qualifying_mode: str
    minute_penalty: bool
    allow_redo: bool
    separate_teams: bool
    crash_limit: int
    collisions: bool
    standard_configuration: dict[str, int] | None
    published: PublishedOut


def event_out(event: Event) -> dict[str, Any]:
    return {
        "slug": event.slug,
        "name": event.name,
        "date": event.date,
        "championship": event.championship.slug,
        "circuit": event.circuit.slug,
        "game": event.game,
        "laps": event.laps,
        "race_laps": event.race_laps,
        "table_size": event.table_size,
        "qualifying_mode": event.qualifying_mode,
        "minute_penalty": event.minute_penalty,
        "allow_redo": event.allow_redo,
        "separate_teams": event.separate_teams,
        "crash_limit": event.crash_limit,
        "collisions": event.collisions,
        "standard_configuration": event.standard_configuration,
        "published": {
            "allocation": event.published_allocation,
            "qualifying": event.published_qualifying,
            "results": event.published_results,
        },
    }


def _any_published(event: Event) -> bool:
    return event.published_allocation or event.published_qualifying or event.published_results


@setup.post("/championships/{slug}/events", response={201: EventOut, **ERRORS})
def event_create(request: HttpRequest, slug: str, payload: EventIn) -> Status[Any]:
    """Create an event of any game: Formula Dé (full or quick rules) or another racing game."""
    actor = actor_of(request)
    require_token(actor)
    championship = get_championship(slug)
    services.require_organiser(actor, championship)
    if payload.game not in Event.Game.values:
        raise InvalidInput(
            _("The game “%(game)s” is not available yet.") % {"game": payload.game},
            {"game": [_("Not available yet.")]},
        )
    circuit = Circuit.objects.filter(slug=payload.circuit).first()
    if circuit is None:
        raise InvalidInput(
            _("Unknown circuit “%(slug)s”.") % {"slug": payload.circuit},
            {"circuit": [_("Unknown circuit.")]},
        )
    fields = payload.model_dump(exclude={"circuit"})
    event = services.event_create(actor=actor, championship=championship, circuit=circuit, **fields)
    return Status(201, event_out(event))


@setup.get("/championships/{slug}/events", response={200: list[EventOut], **ERRORS})
def event_list(request: HttpRequest, slug: str) -> list[dict[str, Any]]:
    """The championship's events: all for its organisers, published ones for others."""
    championship = get_championship(slug)
    actor = actor_of(request)
    events = Event.objects.filter(championship=championship).select_related(
        "championship", "circuit"
    )
    if not actor.can_organise(championship):
        # A table's referee sees no more of unpublished events than anyone (API.md).
        events = [e for e in events if _any_published(e)]
    return [event_out(e) for e in events]


@setup.get("/events/{event}", response={200: EventOut, **ERRORS})
def event_detail(request: HttpRequest, event: str) -> dict[str, Any]:
    found = get_event(event)
    require_read(actor_of(request), found, published=_any_published(found))
    return event_out(found)


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
    entries = Entry.objects.filter(event=event).select_related("driver", "driver__team")
    return [entry_out(e) for e in entries]


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
    require_read(actor_of(request), found, published=_any_published(found))
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


@setup.post("/events/{event}/publish", response={200: EventOut, **ERRORS})
def event_publish(request: HttpRequest, event: str, payload: PublishIn) -> dict[str, Any]:
    """Choose what anonymous readers may see; fields left out keep their value."""
    actor = actor_of(request)
    require_token(actor)
    found = services.event_publish(actor=actor, event=get_event(event), **payload.model_dump())
    return event_out(found)


api.add_router("", setup)


# ---------------------------------------------------------------------------
# Standings
# ---------------------------------------------------------------------------

standings_router = Router(tags=["Standings"])


class StandingResultOut(Schema):
    event: str = Field(description="The event's slug.")
    position: int = Field(description="Place in the table classification.")
    status: Literal["finished", "retired", "dns", "running", "eliminated"]
    points: int
    counted: bool = Field(description="False for a result left out by “best K results”.")


class StandingOut(Schema):
    rank: int = Field(description="Shared on equal points and countback: 1, 2, 2, 4.")
    driver: DriverOut
    points: int
    results: list[StandingResultOut] = Field(description="One per counted event, by date.")
    countback: list[int] = Field(description="How many 1st, 2nd, 3rd… places at their table.")


class TeamStandingOut(Schema):
    rank: int
    team: str
    points: int


def _published_only(request: HttpRequest, championship: Championship) -> bool:
    """Organisers see every event with confirmed results; everyone else published ones."""
    return not actor_of(request).can_organise(championship)


@standings_router.get(
    "/championships/{slug}/standings", response={200: list[StandingOut], **ERRORS}
)
def standings(request: HttpRequest, slug: str) -> list[dict[str, Any]]:
    """The drivers' standings: every driver with an entry in a counted event, 0 points
    included; best K results when the championship says so; ties by countback, then a
    shared rank. Anonymous readers and other tokens see published events only."""
    championship = get_championship(slug)
    table = standings_for(
        championship=championship, published_only=_published_only(request, championship)
    )
    slugs = {event.pk: event.slug for event in table.events}
    return [
        {
            "rank": line.rank,
            "driver": driver_out(line.driver),
            "points": line.points,
            "results": [
                {
                    "event": slugs[event.pk],
                    "position": result.position,
                    "status": result.status,
                    "points": result.points,
                    "counted": event.pk in line.counted,
                }
                for event in table.events
                if (result := line.results.get(event.pk)) is not None
            ],
            "countback": list(line.countback),
        }
        for line in table.lines
    ]


@standings_router.get(
    "/championships/{slug}/team-standings", response={200: list[TeamStandingOut], **ERRORS}
)
def team_standings(request: HttpRequest, slug: str) -> list[dict[str, Any]]:
    """The teams' standings: the sum of their drivers' counted points; equal points share
    the rank. Same events as the drivers' standings."""
    championship = get_championship(slug)
    lines = team_standings_for(
        championship=championship, published_only=_published_only(request, championship)
    )
    return [{"rank": line.rank, "team": line.team.name, "points": line.points} for line in lines]


api.add_router("", standings_router)


def referee_link(token: str) -> str:
    """The URL printed as a QR code on a table's sheet."""
    return f"{settings.SITE_URL.rstrip('/')}/q/{token}/"


# The qualifying router imports the helpers above, hence this import at the very end.
from qualifying.api import router as qualifying_router  # noqa: E402

api.add_router("", qualifying_router)

# The race router imports the same helpers.
from races.api import router as races_router  # noqa: E402

api.add_router("", races_router)

from races.games_api import router as games_router  # noqa: E402

api.add_router("", games_router)
