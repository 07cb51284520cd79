"""A database or Redis that does not answer: a 503 saying so, never a 500 or a traceback.

PostgreSQL restarting, SQLite's lock held past its timeout, Redis gone where it is not
already bypassed (the public cache, the token limiter and the task queue go on without it):
the request could not be served *now*, and trying again in a few seconds will do. The
answer says so in the user's language, with ``Retry-After``: the API's JSON error shape on
``/api/``, a page elsewhere. The refused request's transaction rolled back, or committed
before the failure, and then a retry is told so by the result's version (a 409 with it).

Two ways in, because Django turns an exception into a response at every middleware: the
middleware's ``process_exception`` catches what a view raises (with ``DEBUG`` on as well),
and ``server_error`` (``handler500``) what a middleware raises (the session, the user).
The page is rendered without the request's context: the header's context processors would
ask the database that just failed.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.utils.translation import gettext as _
from django.views import defaults
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

#: The failures of a service that comes back by itself (a restart, a lock let go).
OUTAGES: tuple[type[BaseException], ...] = (
    OperationalError,
    InterfaceError,
    RedisConnectionError,
    RedisTimeoutError,
)
#: Seconds a client should wait before trying again (a PostgreSQL restart takes a few).
RETRY_AFTER = 5


def is_outage(exception: BaseException | None) -> bool:
    return isinstance(exception, OUTAGES)


def unavailable(request: HttpRequest) -> HttpResponse:
    """The 503 of a service that does not answer: JSON on the API, a page elsewhere."""
    detail = _(
        "The server cannot reach its database right now: try again in a few seconds. "
        "What was saved before is kept."
    )
    response: HttpResponse
    if request.path.startswith("/api/"):
        response = JsonResponse({"detail": detail, "errors": {}}, status=503)
    else:
        response = HttpResponse(
            render_to_string("503.html", {"message": detail, "retry_after": RETRY_AFTER}),
            status=503,
        )
    response.headers["Retry-After"] = str(RETRY_AFTER)
    response.headers["Cache-Control"] = "no-store"
    return response


class ServiceUnavailableMiddleware:
    """A view's database or Redis outage answered with :func:`unavailable`."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        return unavailable(request) if is_outage(exception) else None


def server_error(request: HttpRequest) -> HttpResponse:
    """``handler500``: an outage raised outside a view is a 503 too; anything else is
    Django's 500 page (templates/500.html)."""
    if is_outage(sys.exc_info()[1]):
        return unavailable(request)
    return defaults.server_error(request)
