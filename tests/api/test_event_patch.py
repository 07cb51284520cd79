"""PATCH /api/v1/events/{event} (API.md, Setup): every field of the creation body and
every setting of the settings page; the answer shows them all; a change the event's state
forbids is a 409 saying why."""

from __future__ import annotations

import pytest

from qualifying.models import QualifyingSession
from races.models import RaceTable
from tests.api.conftest import make_event
from tests.api.test_race_stands import GOOD
from tests.api.test_race_tables import allocate, build_race_event, put, table_api
from tournament.models import Event

pytestmark = pytest.mark.django_db

EVENT = "/events/monaco-2025"


def test_the_event_answer_shows_every_setting(organiser, event):
    body = organiser.get(EVENT).json()
    assert {
        k: body[k] for k in ("language", "stand_numbers", "use_configurations", "race_end")
    } == {
        "language": "fr",
        "stand_numbers": [],
        "use_configurations": False,
        "race_end": "second_to_last",
    }


def test_patch_changes_every_setting_sent_and_keeps_the_others(organiser, event):
    response = organiser.patch(
        EVENT,
        {
            "name": "Monaco by night",
            "use_configurations": True,
            "stand_numbers": [3, 5, 7, 9],
            "language": "en",
            "table_size": 8,
            "standard_configuration": GOOD,
            "laps": 3,
            "crash_limit": 3,
        },
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["name"], body["use_configurations"], body["stand_numbers"]) == (
        "Monaco by night",
        True,
        [3, 5, 7, 9],
    )
    assert (body["language"], body["table_size"], body["laps"], body["crash_limit"]) == (
        "en",
        8,
        3,
        3,
    )
    assert body["standard_configuration"] == GOOD
    assert body["allow_redo"] is True  # not sent: kept
    back = organiser.patch(EVENT, {"laps": None, "standard_configuration": None})
    assert (back.json()["laps"], back.json()["standard_configuration"]) == (None, None)
    assert Event.objects.get(slug="monaco-2025").name == "Monaco by night"


def test_configurations_on_through_the_api_lets_the_tables_record_them(
    organiser, championship, circuit, drivers
):
    """Before: PUT .../configurations answered 409 on a new event and nothing could switch
    it on."""
    build_race_event(championship, circuit, drivers)
    allocate(organiser)
    event = Event.objects.get(slug="gp-race")
    path = "/events/gp-race/tables/1/configurations"
    body = {"configurations": {"5": GOOD}}
    assert put(table_api(event, 1), path, body).status_code == 409
    assert organiser.patch("/events/gp-race", {"use_configurations": True}).status_code == 200
    assert put(table_api(event, 1), path, body).status_code == 200


@pytest.mark.parametrize(
    ("body", "field", "detail"),
    [
        (
            {"game": "rallyman"},
            "game",
            "The game cannot change once drivers are registered: its tables, sheets and "
            "results depend on it.",
        ),
        (
            {"slug": "monaco-2026"},
            "slug",
            "The event's address cannot change once drivers are registered: printed links "
            "and QR codes use it.",
        ),
    ],
)
def test_a_change_the_state_forbids_is_409_saying_why(organiser, event, body, field, detail):
    response = organiser.patch(EVENT, body)
    assert response.status_code == 409
    assert response.json()["detail"] == detail
    assert list(response.json()["errors"]) == [field]


def test_the_qualifying_mode_stays_once_a_session_is_open(organiser, event):
    assert organiser.patch(EVENT, {"qualifying_mode": "sum"}).status_code == 200
    QualifyingSession.objects.create(
        event=event, number=1, roll=12, source="physical", weather="sun", track="dry"
    )
    response = organiser.patch(EVENT, {"qualifying_mode": "best"})
    assert response.status_code == 409
    assert "qualifying mode cannot change" in response.json()["detail"]
    assert organiser.patch(EVENT, {"qualifying_mode": "sum"}).status_code == 200  # unchanged


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"stand_numbers": [1, 1]}, "stand_numbers"),
        ({"stand_numbers": [0, 2]}, "stand_numbers"),
        ({"circuit": "nowhere"}, "circuit"),
        ({"race_end": "never"}, "race_end"),
        ({"language": "de"}, "language"),
        ({"table_size": 1}, "table_size"),
        ({"use_configurations": "yes"}, "use_configurations"),
        ({"standard_configuration": {**GOOD, "tyres": 9}}, "standard_configuration"),
        ({"name": ""}, "name"),
    ],
)
def test_bad_settings_are_400_naming_the_field(organiser, event, body, field):
    response = organiser.patch(EVENT, body)
    assert response.status_code == 400, response.content
    assert field in response.json()["errors"], response.json()
    assert Event.objects.get(slug="monaco-2025").table_size == 10


def test_a_new_event_slug_while_nobody_is_registered(organiser, championship, circuit):
    make_event(championship, circuit, slug="empty", name="Empty")
    response = organiser.patch("/events/empty", {"slug": "empty-2"})
    assert response.status_code == 200, response.content
    assert response.json()["slug"] == "empty-2"
    assert organiser.patch("/events/empty-2", {"slug": "Bad Slug"}).status_code == 400


def test_patch_permissions(anon, outsider, referee, event):
    assert anon.patch(EVENT, {"name": "x"}).status_code == 401
    assert outsider.patch(EVENT, {"name": "x"}).status_code == 403
    assert referee.patch(EVENT, {"name": "x"}).status_code == 403
    assert Event.objects.get(slug="monaco-2025").name == "Monaco 2025"
    assert not RaceTable.objects.exists()


def test_the_stopwatch_floor_is_a_setting_of_the_patch_too(organiser, event):
    """Issue 12's floor (min_stopwatch, m:ss) is changed like every other setting; a
    reading that is no stopwatch time is a 400 naming the field, and nothing changes."""
    response = organiser.patch(EVENT, {"min_stopwatch": "0:45"})
    assert response.status_code == 200, response.json()
    assert response.json()["min_stopwatch"] == "0:45.00"
    assert Event.objects.get(slug="monaco-2025").min_stopwatch_cs == 4500
    refused = organiser.patch(EVENT, {"min_stopwatch": "soon"})
    assert refused.status_code == 400
    assert "min_stopwatch" in refused.json()["errors"]
    assert organiser.get(EVENT).json()["min_stopwatch"] == "0:45.00"


@pytest.mark.parametrize("laps", [1, 2, 4, 7])
def test_a_competition_race_of_other_than_3_laps_is_400(organiser, event, laps):
    """§2-0-3 « La course se déroule sur trois tours de circuit » (and §0-0-1)."""
    response = organiser.patch(EVENT, {"laps": laps})
    assert response.status_code == 400
    assert response.json() == {
        "detail": "A competition race is 3 laps (§2-0-3).",
        "errors": {"laps": ["A competition race is 3 laps (§2-0-3)."]},
    }
    event.refresh_from_db()
    assert event.laps is None
    assert organiser.patch(EVENT, {"laps": 3}).status_code == 200
