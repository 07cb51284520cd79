"""Fuzz the JSON API from its own OpenAPI document (schemathesis), in-process over WSGI.

Every operation gets a bounded number of generated requests, as the organiser and as an
anonymous caller, against a real event (path parameters point at it so that bodies reach
the validation and the services, not a 404). Whatever is sent: never a 5xx, and every
4xx is JSON with a sentence under ``detail`` (API.md, Conventions).

The organiser's fuzz runs again with every name of the championship hostile (markup and
formulas, issue 14); names sent as such through the API come back exactly as sent, and
the site's pages show them escaped.
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import pytest
import schemathesis
from django.test import Client
from django.urls import reverse
from hypothesis import HealthCheck, Phase, settings

from tests.security.conftest import World, logged_in
from tests.security.hostile import HOSTILE_NAMES, give_hostile_names, unescaped

#: Requests per operation: the organiser reaches the services, anonymous mostly the doors.
ORGANISER_EXAMPLES = 8
#: Anonymous: most operations refuse it before reading anything sent (401); the open ones
#: (sign-up, public reads) are fuzzed as the organiser's too. Hostile names: 4 each.
ANONYMOUS_EXAMPLES = 2
HOSTILE_EXAMPLES = 4


def _load_schema() -> Any:
    # Fetched through the app itself, as a client would (no database needed for it).
    from paddock.wsgi import application

    return schemathesis.openapi.from_wsgi("/api/v1/openapi.json", application)


schema = _load_schema()


def _fuzz(examples: int) -> Any:
    return settings(
        max_examples=examples,
        deadline=None,
        derandomize=True,  # the same requests on every run: a failure can be replayed
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )


def _aim(case: Any, world: World) -> None:
    """Point the path at the real event, championship, session, table and driver."""
    real = {
        "slug": world.championship.slug,
        "event": world.event.slug,
        "n": 1,
        "t": 1,
        "driver": 1,  # seated at qualifying table 1 and on race table 1's grid
    }
    for name in list(case.path_parameters or {}):
        if name in real:
            case.path_parameters[name] = real[name]


def _judge(case: Any, response: Any) -> None:
    where = f"{case.method} {case.formatted_path} {case.body!r:.300}"
    assert response.status_code < 500, f"{response.status_code} for {where}"
    if response.status_code == 405:
        # A method the document does not declare (schemathesis tries TRACE, ...): answered
        # by django-ninja itself, in plain text, before any Paddock code runs.
        assert response.content, f"405 without a word for {where}"
        return
    if 400 <= response.status_code < 500:
        try:
            body = json.loads(response.content)
        except ValueError:
            pytest.fail(f"{response.status_code} without JSON for {where}: {response.content!r}")
        detail = body.get("detail") if isinstance(body, dict) else None
        assert isinstance(detail, str) and detail.strip(), f"no message in {body} for {where}"


def _call(case: Any, world: World, token: str | None) -> None:
    _aim(case, world)
    headers = {"Accept-Language": "en"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    _judge(case, case.call(headers=headers))


@pytest.mark.django_db
@schema.parametrize()
@_fuzz(ORGANISER_EXAMPLES)
def test_api_as_organiser(case: Any, world: World) -> None:
    _call(case, world, world.api_tokens["organiser"])


@pytest.mark.django_db
@schema.parametrize()
@_fuzz(ANONYMOUS_EXAMPLES)
def test_api_as_anonymous(case: Any, world: World) -> None:
    _call(case, world, None)


@pytest.mark.django_db
@schema.parametrize()
@_fuzz(HOSTILE_EXAMPLES)
def test_api_as_organiser_with_hostile_names(case: Any, world: World) -> None:
    give_hostile_names(world)
    _call(case, world, world.api_tokens["organiser"])


@pytest.mark.parametrize("hostile", HOSTILE_NAMES)
@pytest.mark.django_db
def test_hostile_names_sent_to_the_api_come_back_as_sent(world: World, hostile: str) -> None:
    api = Client(HTTP_AUTHORIZATION=f"Bearer {world.api_tokens['organiser']}")
    slug, event = world.championship.slug, world.event.slug

    def send(path: str, body: Any) -> Any:
        response = api.post(f"/api/v1{path}", json.dumps(body), content_type="application/json")
        assert response.status_code in (200, 201), (path, response.content)
        return response.json()

    assert send(f"/championships/{slug}/teams", {"name": hostile})["name"] == hostile
    driver = send(
        f"/championships/{slug}/drivers",
        {"number": 77, "first_name": hostile, "last_name": hostile, "team": hostile},
    )
    assert (driver["first_name"], driver["last_name"]) == (hostile, hostile)
    line = io.StringIO()
    csv.writer(line, lineterminator="\n").writerow(["78", hostile, hostile, hostile, ""])
    imported = api.post(
        f"/api/v1/championships/{slug}/drivers/import",
        "number,first_name,last_name,team,email\n" + line.getvalue(),
        content_type="text/csv",
    )
    assert imported.status_code == 200, imported.content
    created = send(
        f"/championships/{slug}/events",
        {"slug": "hostile", "name": hostile, "date": "2026-10-04", "circuit": "monza"},
    )
    assert created["name"] == hostile
    tables = send(
        f"/events/{event}/qualifying-tables", {"number": 3, "drivers": [], "referee": hostile}
    )
    assert 3 in [t["number"] for t in tables]

    listed = api.get(f"/api/v1/championships/{slug}/drivers").json()
    mine = [d for d in listed if d["number"] in (77, 78)]
    assert [(d["first_name"], d["last_name"], d["team"]) for d in mine] == [
        (hostile, hostile, hostile)
    ] * 2
    organiser = logged_in(world.users["organiser"])
    for url in (
        reverse("championship", args=[slug]),
        reverse("event", args=["hostile"]),
        reverse("event-desk", args=[event]),
    ):
        page = organiser.get(url)
        assert page.status_code == 200 and unescaped(page.content.decode()) == [], url
