"""POST|GET /events/{event}/sessions: the session's weather drawn on the circuit's scale."""

from __future__ import annotations

import pytest

from qualifying.models import QualifyingSession
from tests.api.conftest import make_event

pytestmark = pytest.mark.django_db

SESSIONS = "/events/monaco-2025/sessions"


@pytest.mark.parametrize(
    ("roll", "weather", "track"),
    [(1, "rain", "wet"), (4, "rain", "wet"), (5, "variable", "dry"), (9, "sun", "dry")],
)
def test_physical_roll_maps_through_the_circuit_scale(organiser, event, roll, weather, track):
    response = organiser.post(SESSIONS, {"number": 1, "weather_roll": roll})
    assert response.status_code == 201, response.content
    assert response.json() == {
        "number": 1,
        "roll": roll,
        "source": "physical",
        "weather": weather,
        "track": track,
    }
    assert QualifyingSession.objects.get(event=event, number=1).weather == weather


def test_missing_roll_is_rolled_by_the_system(organiser, event):
    response = organiser.post(SESSIONS, {"number": 1})
    assert response.status_code == 201
    body = response.json()
    assert body["source"] == "system"
    assert 1 <= body["roll"] <= 20
    expected = "rain" if body["roll"] <= 4 else "variable" if body["roll"] <= 8 else "sun"
    assert body["weather"] == expected
    assert body["track"] == ("wet" if expected == "rain" else "dry")


def test_sessions_are_listed(organiser, referee, event):
    organiser.post(SESSIONS, {"number": 2, "weather_roll": 2})
    organiser.post(SESSIONS, {"number": 1, "weather_roll": 12})
    listed = referee.get(SESSIONS)
    assert listed.status_code == 200
    assert [(s["number"], s["weather"]) for s in listed.json()] == [(1, "sun"), (2, "rain")]


def test_duplicate_session_is_409(organiser, event):
    assert organiser.post(SESSIONS, {"number": 1, "weather_roll": 3}).status_code == 201
    assert organiser.post(SESSIONS, {"number": 1, "weather_roll": 3}).status_code == 409


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"number": 1, "weather_roll": 21}, "weather_roll"),
        ({"number": 1, "weather_roll": 0}, "weather_roll"),
        ({"number": 0}, "number"),
        ({"number": 40000}, "number"),
        ({"number": "one"}, "number"),
        ({}, "number"),
    ],
)
def test_invalid_session_is_400(organiser, event, body, field):
    response = organiser.post(SESSIONS, body)
    assert response.status_code == 400
    assert list(response.json()["errors"]) == [field]
    assert not QualifyingSession.objects.exists()


def test_draw_event_has_no_session(organiser, championship, circuit):
    make_event(championship, circuit, slug="quick", qualifying_mode="draw")
    assert organiser.post("/events/quick/sessions", {"number": 1}).status_code == 409


def test_only_organisers_open_sessions(referee, outsider, anon, event):
    assert referee.post(SESSIONS, {"number": 1}).status_code == 403
    assert outsider.post(SESSIONS, {"number": 1}).status_code == 403
    assert anon.post(SESSIONS, {"number": 1}).status_code == 401
    assert not QualifyingSession.objects.exists()


def test_unknown_event_is_404(organiser):
    assert organiser.post("/events/nowhere/sessions", {"number": 1}).status_code == 404
