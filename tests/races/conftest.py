"""Fixtures of the race-day page tests: an event of six drivers classified 4, 2, 5, 1, 6, 3
(no team), its tables of 3, and who calls: the organiser (logged in), an outsider, a
referee's or player's phone (anonymous)."""

from __future__ import annotations

import pytest
from django.test import Client

from qualifying.models import Run
from qualifying.services import session_create
from races.grid.services import allocation_run
from tournament.access import Actor
from tournament.models import Driver

# Six drivers, classified 4, 2, 5, 1, 6, 3 (no team); tables of 3: [4, 2, 5] and [1, 6, 3].
NAMES = {
    1: ("Élodie", "Lefèvre"),
    2: ("Théo", "Marchand"),
    3: ("Léa", "Morel"),
    4: ("Hugo", "Moreau"),
    5: ("Zoé", "Girard"),
    6: ("Jules", "Fournier"),
}
ORDER = [4, 2, 5, 1, 6, 3]
VALID = {
    "tyres": 4,
    "brakes": 3,
    "gearbox": 4,
    "body": 3,
    "engine": 3,
    "road_holding": 3,
    "stand_points": 2,
}


@pytest.fixture
def actor(organiser):
    return Actor(user=organiser)


@pytest.fixture
def event(make_event, actor):
    event = make_event(n_drivers=6)
    for number, (first, last) in NAMES.items():
        Driver.objects.filter(championship=event.championship, number=number).update(
            first_name=first, last_name=last, team=None
        )
    session = session_create(actor=actor, event=event, number=1, weather_roll=15)
    for index, number in enumerate(ORDER):
        Run.objects.create(
            session=session,
            driver=Driver.objects.get(championship=event.championship, number=number),
            tyres="hard",
            throws=10 + index,
            stopwatch_cs=5000,
        )
    return event


@pytest.fixture
def allocated(event, actor):
    allocation_run(actor=actor, event=event, table_size=3)
    return event


def english(client: Client) -> Client:
    client.cookies["django_language"] = "en"
    return client


@pytest.fixture
def as_organiser(client, organiser):
    client.force_login(organiser)
    return english(client)


@pytest.fixture
def as_outsider(django_user_model):
    client = Client()
    client.force_login(django_user_model.objects.create_user("curieux"))
    return english(client)


@pytest.fixture
def phone():
    """A referee's or a player's phone: nobody logged in."""
    return english(Client())
