"""A circuit's change stays in its club (DOMAIN.md "Many clubs on one server"; API.md: ``PATCH
/api/v1/circuits/{slug}`` never changes another club's event): another club's events keep the
laps and d20 scale they took, and their organisers still save them; the club's own events
dated today or later take the change, its past ones keep theirs; a circuit's name is one line;
the circuit's page says which events use it.

The world is tests/tournament/clubs/conftest.py's: club ``aix`` made the circuit ``monaco``
(3 laps; rain 1–4, variable 5–8, sun 9–20); ``rival`` owns the club ``nice``."""

from __future__ import annotations

import datetime
import importlib
from typing import Any

import pytest
from django.apps import apps
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from qualifying.services import session_create
from tests.security.conftest import english
from tests.tournament.clubs.conftest import Clubs
from tournament.access import Actor
from tournament.models import Championship, Circuit, Event

pytestmark = pytest.mark.django_db

CHANGE = {"laps": 1, "weather_scale": {"rain": [1, 1], "variable": [2, 8], "sun": [9, 20]}}
KEPT = {"rain": [1, 4], "variable": [5, 8], "sun": [9, 20]}
HOSTILE = '<img src=x onerror="alert(1)">'


def nice_event(clubs: Clubs, **fields: Any) -> Event:
    """The rival club's championship and its event on ``monaco``, made through the API."""
    Championship.objects.create(
        slug="nice-2026", name="Coupe de Nice", season="2026", points_scale=[10], club=clubs.rival
    )
    body = {"slug": "nice-gp", "name": "GP de Nice", "circuit": "monaco", **fields}
    made = clubs.api("rival").post("/championships/nice-2026/events", body)
    assert made.status_code == 201, made.json()
    return Event.objects.get(slug="nice-gp")


def test_another_club_s_event_keeps_its_laps_and_scale_and_is_still_saved(clubs):
    later = timezone.localdate() + datetime.timedelta(days=30)
    event = nice_event(clubs, date=later.isoformat())

    changed = clubs.api("orga").patch("/circuits/monaco", CHANGE)

    assert changed.status_code == 200 and changed.json()["laps"] == 1
    event.refresh_from_db()
    assert (event.race_laps, event.circuit_scale) == (3, KEPT)
    assert clubs.api("rival").get("/events/nice-gp").json()["race_laps"] == 3
    # Its later saves are still its own club's (a 1-lap competition was refused: 400).
    saved = clubs.api("rival").patch("/events/nice-gp", {"name": "GP de Nice, 2e édition"})
    assert saved.status_code == 200, saved.json()
    assert saved.json()["race_laps"] == 3
    # Its draws read the scale it took: 3 is rain there (variable on the circuit now).
    session = session_create(
        actor=Actor(user=clubs.users["rival"]), event=event, number=1, weather_roll=3
    )
    assert session.weather == "rain"


def test_the_club_s_own_events_to_come_take_the_change_its_past_ones_keep_theirs(clubs):
    """Decision: the club that changes its circuit means its own coming events (the circuit
    is theirs to set); an event already run keeps the race it was (its results and sheets)."""
    today = timezone.localdate()
    clubs.event.date = today - datetime.timedelta(days=1)
    clubs.event.save()
    coming = Event.objects.create(
        championship=clubs.championship, slug="aix-gp2", name="GP 2", date=today,
        circuit=clubs.circuit, qualifying_mode="draw", laps=None,
    )  # fmt: skip

    assert clubs.api("patronne").patch("/circuits/monaco", CHANGE).status_code == 200

    coming.refresh_from_db()
    past = Event.objects.get(pk=clubs.event.pk)
    assert (coming.race_laps, coming.weather_scale.rain) == (1, (1, 1))
    assert (past.race_laps, past.weather_scale.rain) == (3, (1, 4))


def test_an_event_moved_to_another_circuit_takes_that_circuit_s_terms(clubs):
    spa = Circuit.objects.create(
        slug="spa", name="Spa", laps=2, rain_from=1, rain_to=10, variable_from=11,
        variable_to=12, sun_from=13, sun_to=20, club=clubs.rival,
    )  # fmt: skip
    event = Event.objects.get(pk=clubs.event.pk)
    event.circuit = spa
    event.save()

    event = Event.objects.get(pk=event.pk)
    assert (event.circuit_laps, event.weather_scale.rain) == (2, (1, 10))


def test_the_migration_keeps_what_every_existing_event_reads(clubs):
    Event.objects.update(circuit_laps=None, circuit_scale=None)
    migration = importlib.import_module("tournament.migrations.0019_event_keeps_its_circuit_terms")

    migration.take_terms(apps, None)

    event = Event.objects.get(pk=clubs.event.pk)
    assert (event.circuit_laps, event.circuit_scale) == (3, KEPT)


@pytest.mark.parametrize("name", ["Monaco\nCliquez ici", "Monaco\r", "Monaco\u2028x"])
def test_a_circuit_s_name_is_one_line(clubs, name):
    response = clubs.api("orga").patch("/circuits/monaco", {"name": name, "laps": 2})

    assert response.status_code == 400 and response.json()["errors"]["name"]
    assert Circuit.objects.values_list("name", "laps").get(slug="monaco") == ("Monaco", 3)


def test_the_circuit_s_form_refuses_a_line_break(clubs):
    client = english(Client())
    client.force_login(clubs.users["orga"])
    data = {"name": "Monaco\nx", "laps": 2, "rain_from": 1, "rain_to": 4, "variable_from": 5}
    data |= {"variable_to": 8, "sun_from": 9, "sun_to": 20}

    response = client.post(reverse("circuit-edit", args=["monaco"]), data)

    assert response.status_code == 200 and b"One line only" in response.content
    assert Circuit.objects.values_list("name", "laps").get(slug="monaco") == ("Monaco", 3)


def test_the_circuit_s_page_lists_the_events_that_use_it(clubs):
    nice_event(clubs, date="2026-09-12", name=HOSTILE)
    Event.objects.filter(slug="nice-gp").update(published_results=True)
    clubs.rival.name = "Nice <b>club</b>"
    clubs.rival.save()
    page = english(Client()).get(reverse("circuit", args=["monaco"]))

    assert page.status_code == 200
    html = page.content.decode()
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in html and HOSTILE not in html
    assert "Nice &lt;b&gt;club&lt;/b&gt;" in html and 'datetime="2026-09-12"' in html
    # Aix's event has nothing published: its organisers see it, a stranger only counts it.
    assert "GP d’Aix" not in html and "And 1 event with nothing published yet." in html
    organiser = english(Client())
    organiser.force_login(clubs.users["orga"])
    for url in (reverse("circuit", args=["monaco"]), reverse("circuit-edit", args=["monaco"])):
        html = organiser.get(url).content.decode()
        assert "GP d’Aix" in html and "&lt;img src=x" in html
    catalogue = english(Client()).get(reverse("circuit-catalogue")).content.decode()
    assert reverse("circuit", args=["monaco"]) in catalogue
