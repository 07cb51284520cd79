"""A database or Redis outage answered with a 503 (tournament.site.unavailable): JSON on the
API, a page elsewhere, in the user's language, with Retry-After; anything else stays a 500.

Each case raises the real exception and hands it to the code under test as Django does
(``process_exception`` for a view's, ``handler500`` while it is being handled for a
middleware's). The outage itself, a PostgreSQL and a Redis stopped under a running
gunicorn, is tests/faults/test_services_restarted.py.
"""

from __future__ import annotations

import json

import pytest
from django.db import InterfaceError, OperationalError
from django.test import RequestFactory
from django.utils import translation
from redis.exceptions import ConnectionError as RedisConnectionError

from tournament.site.unavailable import ServiceUnavailableMiddleware, server_error

OUTAGES = [
    OperationalError("connection to server failed"),
    InterfaceError("connection already closed"),
    RedisConnectionError("Error 111 connecting"),
]


@pytest.mark.parametrize("outage", OUTAGES, ids=lambda e: type(e).__name__)
def test_a_views_outage_is_a_503_json_on_the_api(outage: Exception) -> None:
    request = RequestFactory().put("/api/v1/events/gp/tables/1/result")
    middleware = ServiceUnavailableMiddleware(lambda request: None)  # type: ignore[arg-type,return-value]
    with translation.override("en"):
        response = middleware.process_exception(request, outage)
    assert response is not None and response.status_code == 503
    assert response.headers["Retry-After"] == "5"
    assert response.headers["Cache-Control"] == "no-store"
    assert json.loads(response.content) == {
        "detail": "The server cannot reach its database right now: try again in a few seconds. "
        "What was saved before is kept.",
        "errors": {},
    }


def test_a_middlewares_outage_is_a_503_page_in_french() -> None:
    request = RequestFactory().get("/e/gp/desk/")
    with translation.override("fr"):
        try:
            raise OperationalError("the database system is shutting down")
        except OperationalError:
            response = server_error(request)
    page = response.content.decode()
    assert response.status_code == 503 and response.headers["Retry-After"] == "5"
    assert '<html lang="fr">' in page and "Réessayez dans un instant" in page
    assert "Le serveur ne joint pas sa base de données" in page
    assert "rechargée dans 5 secondes" in page
    assert "shutting down" not in page  # nothing of the exception itself


def test_any_other_error_stays_a_500_and_other_exceptions_pass_through() -> None:
    request = RequestFactory().get("/")
    try:
        raise ValueError("a bug")
    except ValueError:
        response = server_error(request)
    assert response.status_code == 500
    middleware = ServiceUnavailableMiddleware(lambda request: None)  # type: ignore[arg-type,return-value]
    assert middleware.process_exception(request, ValueError("a bug")) is None
