"""The API root (top floor): the NinjaAPI of ``/api/v1/`` (``API.md``, the shared contract), its
error handlers, and every router mounted in the contract's order.

Endpoints translate HTTP into calls of the same services the web pages use and answer
``{"detail": sentence, "errors": {field: [..]}}`` on every error (the kit:
``tournament/apikit.py``). Operation ids are part of the contract: they are frozen below,
whatever module now holds an endpoint.
"""

from __future__ import annotations

import copy
from typing import Any, ClassVar

from django.core.exceptions import PermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.http.multipartparser import MultiPartParserError
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from ninja import NinjaAPI, Router
from ninja.errors import HttpError
from ninja.errors import ValidationError as NinjaValidationError

from paddock.away.api import router as away_router
from qualifying.api.checklist import router as checklist_router
from qualifying.api.draw import router as draw_router
from qualifying.api.router import router as qualifying_router
from races import variants
from races.grid.api import router as tables_router
from races.grid.race_api import router as race_router
from races.photos.api import router as photos_router
from races.results.api import router as results_router
from races.sanctions.api import router as sanctions_router
from standings.api import standings_router
from standings.careers.api import players_router
from standings.leagues.api import router as leagues_router
from standings.leagues.match_api import league_matches_router
from standings.ratings.api import ratings_router
from tournament.apikit import (
    BearerToken,
    JsonObjectParser,
    error_body,
    field_of,
    invalid_fields,
    pydantic_message,
)
from tournament.clubs.api import router as clubs_router
from tournament.errors import InvalidInput, ServiceError, invalid_from_validation_error
from tournament.games.api import router as games_router
from tournament.players.change_api import player_changes_router
from tournament.registration.api import setup
from tournament.registration.circuit_api import circuits as circuits_router
from tournament.registration.season_api import next_season_router
from tournament.signup.api import router as signup_router
from tournament.site.accounts.api import router as accounts_router


class PaddockAPI(NinjaAPI):
    """Ninja's API, whose OpenAPI document keys its responses by string ("200"), as the
    served JSON does: a validator given the document as a dict (openapi-spec-validator, the
    contract's checks) refuses integer keys."""

    #: The documents built, by prefix, path parameters and language (a handful per process).
    _openapi_documents: ClassVar[dict[tuple[Any, ...], Any]] = {}

    def get_openapi_schema(
        self, *, path_prefix: str | None = None, path_params: dict[str, Any] | None = None
    ) -> Any:
        # Built once per process, prefix and language (about a second of CPU each time: a
        # document asked for again and again must not cost the server that); each caller
        # gets a copy of its own to change.
        key = (path_prefix, tuple(sorted((path_params or {}).items())), get_language())
        built = self._openapi_documents.get(key)
        if built is None:
            built = super().get_openapi_schema(path_prefix=path_prefix, path_params=path_params)
            for operations in built.get("paths", {}).values():
                for operation in operations.values():
                    if isinstance(operation, dict) and "responses" in operation:
                        operation["responses"] = {
                            str(status): answer for status, answer in operation["responses"].items()
                        }
            self._openapi_documents[key] = built
        return copy.deepcopy(built)


api = PaddockAPI(
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
    response = _respond(request, exc.status, error_body(exc))
    retry_after = getattr(exc, "retry_after", None)  # a budget spent (tournament.site.ratelimit)
    if retry_after:
        response["Retry-After"] = str(retry_after)
    return response


@api.exception_handler(NinjaValidationError)
def _on_validation_error(request: HttpRequest, exc: NinjaValidationError) -> HttpResponse:
    errors: dict[str, list[str]] = {}
    for error in exc.errors:
        errors.setdefault(field_of(error.get("loc", ())), []).append(pydantic_message(error))
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


@api.exception_handler(MultiPartParserError)
def _on_unreadable_multipart(request: HttpRequest, exc: MultiPartParserError) -> HttpResponse:
    # Raised where a route first reads a form or its files (a photo upload): no boundary, a
    # boundary Django does not take, a part that breaks. Without this, ninja let it through:
    # Django's HTML 400 page, or a 500 with DEBUG on (issue 49).
    detail = _(
        "The multipart body could not be read: send “Content-Type: multipart/form-data; "
        "boundary=…” and a body made of parts separated by that boundary."
    )
    return _respond(request, 400, {"detail": detail, "errors": {}})


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


def _mount(router: Router, operation_prefix: str) -> None:
    """Mount ``router``; its operations keep the ids clients generated code from (the v1
    contract named them after the module that first held them), whatever module holds
    them now."""
    for path_view in router.path_operations.values():
        for operation in path_view.operations:
            if operation.operation_id is None:
                operation.operation_id = f"{operation_prefix}_{operation.view_func.__name__}"
    api.add_router("", router)


_mount(setup, "tournament_api")
_mount(circuits_router, "tournament_api")
_mount(next_season_router, "tournament_api")
_mount(player_changes_router, "tournament_players_api")
_mount(standings_router, "tournament_api")
_mount(players_router, "tournament_careers_api")
_mount(qualifying_router, "qualifying_api")
_mount(draw_router, "qualifying_api")
_mount(checklist_router, "qualifying_api")
_mount(tables_router, "races_api")
_mount(race_router, "races_api")
_mount(results_router, "races_api")
_mount(sanctions_router, "races_api")
_mount(photos_router, "races_photos_api")
for game_router, prefix in variants.api_routers():  # each game's own, from its package
    _mount(game_router, prefix)
_mount(ratings_router, "tournament_ratings_api")
_mount(away_router, "tournament_away_api")
_mount(signup_router, "tournament_signup_api")
_mount(clubs_router, "tournament_clubs_api")
_mount(accounts_router, "tournament_accounts_api")
_mount(games_router, "tournament_games_api")
_mount(leagues_router, "standings_leagues_api")
_mount(league_matches_router, "standings_leagues_api")
