"""Fixtures of the JSON API tests: one championship with an event, and who calls.

Callers (STYLE.md: organiser, referee of this table, outsider): ``admin`` (superuser token),
``organiser`` (organiser of the championship), ``outsider`` (organiser of another
championship), ``referee`` (the link token of qualifying table 1), ``other_referee`` (table 2)
and ``anon`` (no header).
"""

from __future__ import annotations

import datetime
import json
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from qualifying.models import QualifyingSeat, QualifyingTable
from tournament.models import ApiToken, Championship, Circuit, Driver, Entry, Event, Team
from tournament.players.identity import new_player

PREFIX = "/api/v1"


class Api:
    """A test client speaking JSON to ``/api/v1`` with (or without) a bearer token."""

    def __init__(self, token: str | None = None, *, language: str = "en") -> None:
        headers: dict[str, str] = {"HTTP_ACCEPT_LANGUAGE": language}
        if token is not None:
            headers["HTTP_AUTHORIZATION"] = f"Bearer {token}"
        self.client = Client(**headers)

    def get(self, path: str) -> Any:
        return self.client.get(PREFIX + path)

    def post(self, path: str, data: Any = None, **kwargs: Any) -> Any:
        return self._send("post", path, data, **kwargs)

    def patch(self, path: str, data: Any = None, **kwargs: Any) -> Any:
        return self._send("patch", path, data, **kwargs)

    def _send(
        self,
        method: str,
        path: str,
        data: Any,
        *,
        raw: bytes | str | None = None,
        content_type: str = "application/json",
    ) -> Any:
        body = raw if raw is not None else ("" if data is None else json.dumps(data))
        return getattr(self.client, method)(PREFIX + path, body, content_type=content_type)


def make_user(username: str, **fields: Any) -> Any:
    return get_user_model().objects.create_user(username=username, password="x", **fields)


@pytest.fixture
def circuit(db: None) -> Circuit:
    # Monaco's board: 1-4 rain, 5-8 variable, 9-20 sun.
    return Circuit.objects.create(
        slug="monaco",
        name="Monaco",
        laps=3,
        rain_from=1,
        rain_to=4,
        variable_from=5,
        variable_to=8,
        sun_from=9,
        sun_to=20,
    )


@pytest.fixture
def championship(db: None) -> Championship:
    return Championship.objects.create(
        slug="cfd-2025", name="Coupe Formule Dé", season="2025", points_scale=[10, 6, 4]
    )


def player_of(number: int, championship: str = "cfd-2025") -> dict[str, object] | None:
    """The ``player: {id, name}`` the API answers in a driver's shape (API.md)."""
    driver = Driver.objects.select_related("player").get(
        championship__slug=championship, number=number
    )
    return {"id": driver.player_id, "name": driver.player.name} if driver.player_id else None


@pytest.fixture
def drivers(championship: Championship) -> dict[int, Driver]:
    """Drivers 1-6; 1 and 2 are team-mates at Ferrari."""
    ferrari = Team.objects.create(championship=championship, name="Ferrari")
    names = {
        1: ("Alice", "Martin"),
        2: ("Bruno", "Petit"),
        3: ("Chloé", "Durand"),
        4: ("David", "Leroy"),
        5: ("Emma", "Moreau"),
        6: ("Félix", "Simon"),
    }
    return {
        number: Driver.objects.create(
            championship=championship,
            number=number,
            first_name=first,
            last_name=last,
            team=ferrari if number in (1, 2) else None,
            email=f"d{number}@example.org",
            player=new_player(first, last),
        )
        for number, (first, last) in names.items()
    }


def make_event(championship: Championship, circuit: Circuit, **fields: Any) -> Event:
    values: dict[str, Any] = {
        "slug": "monaco-2025",
        "name": "Monaco 2025",
        "date": datetime.date(2025, 5, 24),
        "circuit": circuit,
    }
    values.update(fields)
    return Event.objects.create(championship=championship, **values)


@pytest.fixture
def event(championship: Championship, circuit: Circuit, drivers: dict[int, Driver]) -> Event:
    """Monaco 2025 with drivers 1-6 registered; qualifying tables 1 (1-3) and 2 (4-6)."""
    event = make_event(championship, circuit, allow_redo=True)
    for driver in drivers.values():
        Entry.objects.create(event=event, driver=driver)
    for number, seated in ((1, (1, 2, 3)), (2, (4, 5, 6))):
        table = QualifyingTable.objects.create(event=event, number=number)
        for order, driver_number in enumerate(seated):
            QualifyingSeat.objects.create(
                event=event, table=table, driver=drivers[driver_number], order=order
            )
    return event


@pytest.fixture
def admin(db: None) -> Api:
    user = make_user("root", is_superuser=True, is_staff=True)
    return Api(ApiToken.issue(user))


@pytest.fixture
def organiser(championship: Championship) -> Api:
    user = make_user("alice")
    championship.organisers.add(user)
    return Api(ApiToken.issue(user))


@pytest.fixture
def outsider(db: None) -> Api:
    """The organiser of another championship: a valid token, no rights here."""
    other = Championship.objects.create(slug="other", name="Other league", season="2025")
    user = make_user("charlie")
    other.organisers.add(user)
    return Api(ApiToken.issue(user))


@pytest.fixture
def referee(event: Event) -> Api:
    """The referee link of qualifying table 1 (drivers 1, 2, 3)."""
    return Api(QualifyingTable.objects.get(event=event, number=1).token)


@pytest.fixture
def other_referee(event: Event) -> Api:
    """The referee link of qualifying table 2 (drivers 4, 5, 6)."""
    return Api(QualifyingTable.objects.get(event=event, number=2).token)


@pytest.fixture
def anon(db: None) -> Api:
    return Api()
