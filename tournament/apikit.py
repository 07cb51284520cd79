"""The API kit every router uses (ground floor): input types, bearer tokens and who may
read what, lookups by slug, the error body of the contract (``API.md``, the shared contract).

Routers live with what they serve (``tournament/registration/api.py``, ``qualifying/api/router.py``,
``races/grid/api.py``…); the API root (``paddock/api.py``) mounts them all.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Annotated, Any

from django.conf import settings
from django.db.models import prefetch_related_objects
from django.http import HttpRequest
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from ninja import Schema
from ninja.parser import Parser
from ninja.security import HttpBearer
from pydantic import Field
from pydantic_core import CoreSchema, PydanticCustomError, core_schema

from tournament.access import Actor, link_was_replaced, referees_a_table, table_for_link
from tournament.errors import (
    InvalidInput,
    NotAllowed,
    NotFound,
    ServiceError,
)
from tournament.games import registry
from tournament.models import (
    ApiToken,
    Championship,
    Circuit,
    Driver,
    Event,
)
from tournament.public.names import driver_player_name
from tournament.site import ratelimit

# ---------------------------------------------------------------------------
# Input types
# ---------------------------------------------------------------------------

INT32_MAX = 2**31 - 1
#: Any integer a client sends: strict (no "3", no true, no 3.0) and small enough for every
#: database column, so that a huge number is a 400 and never an overflow deep in a query.
Int = Annotated[int, Field(strict=True, ge=-INT32_MAX, le=INT32_MAX)]
#: A driver's number as organisers give it (§4-0-1); the model refuses 0.
DriverNumber = Annotated[int, Field(strict=True, ge=1, le=INT32_MAX)]


def expected(keys: list[str]) -> str:
    """The choices as pydantic words a literal's (``'a', 'b' or 'c'``)."""
    quoted = [repr(key) for key in keys]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"


def _known_game(value: Any) -> str:
    if not registry.is_known(value):
        keys = [spec.key for spec in registry.games()]
        raise PydanticCustomError(
            "literal_error", "Input should be {expected}", {"expected": expected(keys)}
        )
    return str(value)


class _GameKey:
    """A registered game's key (``Event.game``): read from the games' registry when a body
    is checked and when the API's document is drawn, so that the kit names no game."""

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> CoreSchema:
        return core_schema.no_info_plain_validator_function(
            _known_game, json_schema_input_schema=core_schema.str_schema()
        )

    @classmethod
    def __get_pydantic_json_schema__(cls, schema: CoreSchema, handler: Any) -> dict[str, Any]:
        return {"enum": [spec.key for spec in registry.games()], "type": "string"}


#: A game's key, as ``POST .../events`` takes it: one of the registered games.
Game = Annotated[str, _GameKey]
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
            table = table_for_link(token)
            if table is not None:
                return Actor(table=table)
            if link_was_replaced(token):
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
        return referees_a_table(actor.user, event)
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
    """Organisers and the desk read everything; everyone else only what is published.

    The event's referees are no exception for event-wide data: a table's referee (link or
    account) reads its own table through the endpoints that check the table. Anonymous
    readers and table links get the same 404 as for an unknown event, so nothing
    unpublished leaks.
    """
    if published or actor.can_desk(event.championship):
        return
    raise refuse_read(actor, event)


# ---------------------------------------------------------------------------
# Lookups
# ---------------------------------------------------------------------------


def _is_slug(value: str) -> bool:
    return bool(_SLUG_RE.match(value))


def get_championship(slug: str) -> Championship:
    championship = (
        Championship.objects.select_related("club").filter(slug=slug).first()
        if _is_slug(slug)
        else None
    )
    if championship is None:
        raise NotFound(_("Unknown championship “%(slug)s”.") % {"slug": slug})
    return championship


def get_event(slug: str) -> Event:
    event = (
        Event.objects.select_related("championship__club", "circuit").filter(slug=slug).first()
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


class PlayerRef(Schema):
    id: int
    name: str


class ClubRef(Schema):
    """The club that runs a championship and its events (named in public)."""

    slug: str
    name: str


def club_ref(championship: Championship) -> dict[str, str] | None:
    """``championship``'s club as ``ClubRef`` answers it; None for one of no club (made by
    the server's operator before clubs, or without one)."""
    club = championship.club if championship.club_id else None
    return {"slug": club.slug, "name": club.name} if club is not None else None


class DriverOut(Schema):
    number: int
    name: str
    team: str | None
    player: PlayerRef | None = Field(
        description="The player: the same person in every championship and season (null only "
        "for a driver written by code older than players)."
    )


def player_ref(driver: Driver) -> dict[str, Any] | None:
    """``{id, name}`` of the driver's player (select ``driver__player`` with the drivers),
    named as the driver chose to be shown."""
    if not driver.player_id:
        return None
    return {"id": driver.player_id, "name": driver_player_name(driver)}


def with_players(drivers: Iterable[Driver]) -> list[Driver]:
    """The drivers with their players read in one query (a list's ``player: {id, name}``)."""
    drivers = list(drivers)
    prefetch_related_objects(drivers, "player")
    return drivers


def driver_out(driver: Driver) -> dict[str, Any]:
    """A driver as the contract returns it: ``{number, name, team, player: {id, name}}``.
    The public name (DOMAIN.md "Corrections to 'Before the day'"): an answer of the API may
    be shown to anyone, as the check-in's answer is (API.md)."""
    return {
        "number": driver.number,
        "name": driver.public_name,
        "team": driver.team.name if driver.team_id else None,
        "player": player_ref(driver),
    }


class ErrorOut(Schema):
    detail: str
    errors: dict[str, list[str]] = {}
    current: Any = Field(None, description="409 on a versioned object: the stored object.")
    code: str | None = Field(
        None, description="A stable word for some refusals: not_in_this_game (409)."
    )


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


def pydantic_message(error: dict[str, Any]) -> str:
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


def field_of(loc: Iterable[Any]) -> str:
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
    if exc.code:
        body["code"] = exc.code
    if exc.current is not None:
        serializer = CURRENT_SERIALIZERS.get(type(exc.current))
        if serializer is not None:
            body["current"] = serializer(exc.current)
    return body


def driver_keys(mapping: Mapping[str, Any], field: str) -> dict[int, Any]:
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


def errors_under(field: str, exc: InvalidInput) -> InvalidInput:
    """The service's refusal with its per-driver keys placed under the body's ``field``."""
    errors = {
        (key if key == "__all__" else f"{field}.{key}"): messages
        for key, messages in exc.errors.items()
    }
    return InvalidInput(exc.message, errors)


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
        text = _texts(data)
        if any("\x00" in item for item in text):
            # PostgreSQL refuses NUL in text; refuse it here rather than fail on save.
            raise InvalidInput(_("Text may not contain the NUL character."))
        if not all(_is_unicode(item) for item in text):
            # JSON may escape half of a surrogate pair ("\ud800"): valid JSON, but no text
            # a database stores (the red team's bodies answered 500 on save).
            raise InvalidInput(_("Text must be valid Unicode."))
        return data


def _is_unicode(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _texts(value: Any) -> list[str]:
    """Every string of a parsed JSON document, keys included."""
    found = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


#: What a table's ``referee_link`` and ``referee_token`` say in the API's document.
SEALED_LINK = (
    "Organisers only. Null when no key of this server opens the link (a database restored "
    "without its SECRET_KEY): give the table a new link at the desk (a race table: POST "
    "/events/{event}/tables/{t}/referee-link)."
)


def referee_link(token: str) -> str:
    """The URL printed as a QR code on a table's sheet."""
    return f"{settings.SITE_URL.rstrip('/')}/q/{token}/"
