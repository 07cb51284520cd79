"""Every registered game's every route of an event answers below 500 in every state of its
evening (issue "Every game's evening"): the operations under ``/events/{event}/`` of the
OpenAPI document, each sent by the organiser in a savepoint rolled back after it, at an
event created, checked in, with its tables, with a result saved, published."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import pytest
from django.db import transaction

from paddock.api import api
from tests.api.conftest import PREFIX, Api
from tests.games.conftest import put, table_api
from tournament.games import registry
from tournament.models import Event

pytestmark = pytest.mark.django_db

#: Bodies that reach past the parser: the routes that were 500s for a game without them.
BODIES = {
    "/sessions": {"number": 1, "weather_roll": 12},
    "/qualifying-tables": {"number": 1, "drivers": [1, 2]},
    "/race-weather": {"roll": 12},
    "/checkin": {"numbers": [1, 2, 3]},
    "/draw": {},
    "/allocation": {"table_size": 4},
    "/stands": {"stands": {"1": 1}},
    "/weather-draws": {"roll": 5},
    "/result": {"version": 0, "finish": [1, 2, 3], "submit": False},
}
PARAMETERS = {"{event}": "", "{t}": "1", "{n}": "1", "{driver}": "1", "{id}": "1"}


def _operations() -> list[tuple[str, str]]:
    paths = api.get_openapi_schema(path_prefix="")["paths"]
    return [
        (method, path)
        for path, operations in paths.items()
        if path.startswith("/events/{event}")
        for method in operations
    ]


def _send(org: Api, method: str, path: str, slug: str) -> int:
    for name, value in PARAMETERS.items():
        path = path.replace(name, value or slug)
    body = next((b for end, b in BODIES.items() if path.endswith(end)), {})
    with transaction.atomic():
        if method == "get":
            status = org.get(path).status_code
        elif method == "delete":
            status = org.client.delete(PREFIX + path).status_code
        else:
            status = org._send(method, path, body).status_code
        transaction.set_rollback(True)
    return status


def _states(event: Event, org: Api) -> list[tuple[str, Callable[[], Any]]]:
    slug = event.slug

    def result() -> None:
        referee = table_api(event, 1)
        put(referee, f"/events/{slug}/tables/1/result", BODIES["/result"])

    return [
        ("created", lambda: None),
        ("checked in", lambda: org.post(f"/events/{slug}/checkin", BODIES["/checkin"])),
        ("tables", lambda: org.post(f"/events/{slug}/allocation", BODIES["/allocation"])),
        ("result saved", result),
        (
            "published",
            lambda: org.post(f"/events/{slug}/publish", {"allocation": True, "results": True}),
        ),
    ]


def test_every_route_of_every_game_answers_below_500_in_every_state(make_event, org_api, caplog):
    caplog.set_level(logging.ERROR, logger="django.request")  # 4xx by the thousand: unlogged
    operations = _operations()
    org_api.client.raise_request_exception = False  # a 500 is an answer to count here
    assert len(operations) > 50
    failures: list[str] = []
    sent = 0
    for number, spec in enumerate(registry.games()):
        fields: dict[str, Any] = {"slug": f"g{number}", "game": spec.key}
        if spec.named:
            fields["game_name"] = "Flamme Rouge"
        event = make_event(3, **fields)
        if not spec.circuit:
            event.circuit = None
            event.save(update_fields=["circuit"])
        for state, reach in _states(event, org_api):
            reach()
            for method, path in operations:
                status = _send(org_api, method, path, event.slug)
                sent += 1
                if status >= 500:
                    failures.append(f"{spec.key} · {state} · {method.upper()} {path}: {status}")
    assert failures == []
    # Every game, every state, every operation (the report's count).
    assert sent == len(registry.games()) * 5 * len(operations)
