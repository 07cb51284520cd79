"""A club with its people, and who calls (API.md "Clubs and their people").

The club ``aix`` owns the championship ``aix-2026`` and the circuit ``monaco``: its owner
``patronne``, organiser ``orga`` and desk ``guichet``; ``invitee`` belongs to no club. The
rival club ``nice`` has its owner ``rival``. Each has an API token (``Api`` of tests/api).
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from typing import Any

import pytest

from tests.api.conftest import PREFIX
from tests.api.conftest import Api as JsonApi
from tournament.models import (
    ApiToken,
    Championship,
    Circuit,
    Club,
    Driver,
    Entry,
    Event,
    Membership,
)

PEOPLE = {"patronne": "owner", "orga": "organiser", "guichet": "desk"}


class Api(JsonApi):
    """tests/api's JSON client, with the PUT and DELETE the clubs' API uses."""

    def put(self, path: str, data: Any = None, **kwargs: Any) -> Any:
        return self._send("put", path, data, **kwargs)

    def delete(self, path: str) -> Any:
        return self.client.delete(PREFIX + path)


@dataclass
class Clubs:
    club: Club
    rival: Club
    championship: Championship
    circuit: Circuit
    event: Event
    users: dict[str, Any]
    tokens: dict[str, str] = field(default_factory=dict)

    def api(self, username: str | None, *, language: str = "en") -> Api:
        return Api(self.tokens[username] if username else None, language=language)


@pytest.fixture
def clubs(django_user_model: Any) -> Clubs:
    users = {
        name: django_user_model.objects.create_user(name, password="pw", email=f"{name}@x.org")
        for name in (*PEOPLE, "invitee", "rival", "guest")
    }
    club = Club.objects.create(slug="aix", name="Club d’Aix")
    rival = Club.objects.create(slug="nice", name="Club de Nice")
    for name, role in PEOPLE.items():
        Membership.objects.create(club=club, user=users[name], role=role)
    Membership.objects.create(club=rival, user=users["rival"], role="owner")
    circuit = Circuit.objects.create(
        slug="monaco", name="Monaco", laps=3, rain_from=1, rain_to=4, variable_from=5,
        variable_to=8, sun_from=9, sun_to=20, club=club,
    )  # fmt: skip
    championship = Championship.objects.create(
        slug="aix-2026", name="Coupe d’Aix", season="2026", points_scale=[10, 6, 4], club=club
    )
    championship.organisers.add(users["guest"])  # a neighbouring club's referee
    event = Event.objects.create(
        championship=championship, slug="aix-gp", name="GP d’Aix",
        date=datetime.date(2026, 5, 1), circuit=circuit,
    )  # fmt: skip
    for number in (1, 2):
        driver = Driver.objects.create(
            championship=championship, number=number, first_name=f"P{number}", last_name="L"
        )
        Entry.objects.create(event=event, driver=driver)
    world = Clubs(club, rival, championship, circuit, event, users)
    for name, user in users.items():
        world.tokens[name] = ApiToken.issue(user)
    return world
