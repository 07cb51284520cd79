"""Setup endpoints: championships, circuits, teams, drivers, events, entries, publication."""

from __future__ import annotations

import pytest

from tests.api.conftest import player_of
from tournament.models import Championship, Circuit, Driver, Entry, Event, Team

pytestmark = pytest.mark.django_db

SCALE = {"rain": [1, 4], "variable": [5, 8], "sun": [9, 20]}


def test_superuser_creates_a_championship(admin):
    response = admin.post(
        "/championships",
        {
            "slug": "cfd-2026",
            "name": "Coupe Formule Dé",
            "season": "2026",
            "points_scale": [25, 18, 15],
            "points_mode": "overall",
            "best_results": 5,
        },
    )
    assert response.status_code == 201, response.content
    assert response.json() == {
        "slug": "cfd-2026",
        "name": "Coupe Formule Dé",
        "season": "2026",
        "points_scale": [25, 18, 15],
        "points_mode": "overall",
        "best_results": 5,
        "club": None,
    }
    assert Championship.objects.get(slug="cfd-2026").best_results == 5


def test_get_a_championship(anon, championship):
    response = anon.get("/championships/cfd-2025")
    assert response.status_code == 200
    assert response.json()["points_scale"] == [10, 6, 4]
    assert response.json()["points_mode"] == "per_table"


def test_a_guest_organiser_creates_no_championship_nor_circuit(organiser):
    """A championship's guest organiser runs no club: only a club's owner or organiser
    creates championships and circuits (API.md "Clubs and their people")."""
    body = {"slug": "x", "name": "X", "season": "2026", "points_scale": [1]}
    assert organiser.post("/championships", body).status_code == 403
    circuit = {"slug": "spa", "name": "Spa", "laps": 3, "weather_scale": SCALE}
    assert organiser.post("/circuits", circuit).status_code == 403
    assert not Championship.objects.filter(slug="x").exists()


def test_duplicate_championship_is_409(admin, championship):
    body = {"slug": "cfd-2025", "name": "X", "season": "2025", "points_scale": [1]}
    assert admin.post("/championships", body).status_code == 409


def test_bad_championship_fields_are_400(admin):
    body = {"slug": "Not A Slug", "name": "X", "season": "2026", "points_scale": [3, -1]}
    response = admin.post("/championships", body)
    assert response.status_code == 400
    assert set(response.json()["errors"]) == {"slug", "points_scale"}


def test_superuser_creates_a_circuit(admin):
    response = admin.post(
        "/circuits", {"slug": "spa", "name": "Spa", "laps": 2, "weather_scale": SCALE}
    )
    assert response.status_code == 201, response.content
    assert response.json() == {
        "slug": "spa",
        "name": "Spa",
        "laps": 2,
        "weather_scale": SCALE,
        "club": None,
        "club_name": None,
    }
    assert Circuit.objects.get(slug="spa").sun_from == 9


def test_weather_scale_not_covering_1_to_20_is_400(admin):
    scale = {"rain": [1, 4], "variable": [4, 8], "sun": [10, 20]}
    response = admin.post("/circuits", {"slug": "spa", "name": "Spa", "weather_scale": scale})
    assert response.status_code == 400
    messages = response.json()["errors"]["weather_scale"]
    assert messages == [
        "The weather scale must cover every face from 1 to 20; missing: 9.",
        "A d20 face may belong to one weather only; in two ranges: 4.",
    ]
    assert not Circuit.objects.exists()


def test_weather_range_of_three_faces_is_400(admin):
    scale = {**SCALE, "rain": [1, 2, 4]}
    response = admin.post("/circuits", {"slug": "spa", "name": "Spa", "weather_scale": scale})
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["weather_scale.rain"]


def test_organiser_creates_a_team_and_a_duplicate_is_409(organiser, championship):
    response = organiser.post("/championships/cfd-2025/teams", {"name": "McLaren"})
    assert response.status_code == 201
    assert response.json() == {"name": "McLaren"}
    again = organiser.post("/championships/cfd-2025/teams", {"name": "mclaren"})
    assert again.status_code == 409
    assert Team.objects.filter(championship=championship).count() == 1


def test_team_with_empty_name_is_400(organiser, championship):
    response = organiser.post("/championships/cfd-2025/teams", {"name": "  "})
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["name"]


def test_organiser_registers_a_driver_with_a_new_team(organiser, championship):
    response = organiser.post(
        "/championships/cfd-2025/drivers",
        {
            "number": 44,
            "first_name": "Élodie",
            "last_name": "Lefèvre",
            "team": "Écurie Étoile",
            "email": "elodie@example.org",
        },
    )
    assert response.status_code == 201, response.content
    player = player_of(44)
    assert player is not None and player["name"] == "Élodie Lefèvre"
    assert response.json() == {
        "number": 44,
        "name": "Élodie Lefèvre",
        "team": "Écurie Étoile",
        "player": player,
        "first_name": "Élodie",
        "last_name": "Lefèvre",
        "email": "elodie@example.org",
    }
    assert Team.objects.filter(championship=championship, name="Écurie Étoile").exists()


def test_driver_without_team(organiser, championship):
    response = organiser.post(
        "/championships/cfd-2025/drivers", {"number": 8, "first_name": "A", "last_name": "B"}
    )
    assert response.status_code == 201
    assert response.json()["team"] is None


def test_existing_driver_number_is_409(organiser, drivers):
    response = organiser.post(
        "/championships/cfd-2025/drivers", {"number": 1, "first_name": "X", "last_name": "Y"}
    )
    assert response.status_code == 409
    assert list(response.json()["errors"]) == ["number"]
    assert Driver.objects.get(number=1).first_name == "Alice"


def test_driver_with_bad_email_is_400(organiser, championship):
    response = organiser.post(
        "/championships/cfd-2025/drivers",
        {"number": 9, "first_name": "A", "last_name": "B", "email": "not-an-email"},
    )
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["email"]


@pytest.mark.parametrize("text", ["20 s", "1:75", "x" * 30])
def test_an_unreadable_stopwatch_floor_is_refused(organiser, circuit, championship, text):
    response = organiser.post(
        "/championships/cfd-2025/events",
        {
            "slug": "spa",
            "name": "Spa",
            "date": "2025-06-14",
            "circuit": "monaco",
            "min_stopwatch": text,
        },
    )
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["min_stopwatch"]


def test_the_stopwatch_floor_defaults_to_twenty_seconds(organiser, circuit, championship):
    response = organiser.post(
        "/championships/cfd-2025/events",
        {"slug": "spa", "name": "Spa", "date": "2025-06-14", "circuit": "monaco"},
    )
    assert response.json()["min_stopwatch"] == "0:20.00"


def test_driver_list_hides_emails_from_non_organisers(organiser, anon, drivers):
    mine = organiser.get("/championships/cfd-2025/drivers").json()
    assert [d["number"] for d in mine] == [1, 2, 3, 4, 5, 6]
    assert mine[0] == {
        "number": 1,
        "name": "Alice Martin",
        "team": "Ferrari",
        "player": player_of(1),
        "first_name": "Alice",
        "last_name": "Martin",
        "email": "d1@example.org",
    }
    public = anon.get("/championships/cfd-2025/drivers").json()
    assert {d["email"] for d in public} == {None}
    assert public[2]["team"] is None


def test_organiser_creates_an_event(organiser, circuit, championship):
    response = organiser.post(
        "/championships/cfd-2025/events",
        {
            "slug": "spa-2025",
            "name": "Spa 2025",
            "date": "2025-06-14",
            "circuit": "monaco",
            "game": "formula_de",
            "laps": 3,
            "table_size": 8,
            "qualifying_mode": "sum",
            "minute_penalty": False,
            "allow_redo": True,
            "separate_teams": False,
            "min_stopwatch": "0:30",
        },
    )
    assert response.status_code == 201, response.content
    assert response.json() == {
        "slug": "spa-2025",
        "name": "Spa 2025",
        "date": "2025-06-14",
        "championship": "cfd-2025",
        "club": None,  # a championship of no club (a superuser's); else {slug, name}
        "circuit": "monaco",
        "game": "formula_de",
        "laps": 3,
        "race_laps": 3,
        "table_size": 8,
        "qualifying_mode": "sum",
        "minute_penalty": False,
        "allow_redo": True,
        "separate_teams": False,
        "min_stopwatch": "0:30.00",
        # Other games (API.md): Racetrack's accident rules, the quick rules' standard car.
        "crash_limit": 1,
        "collisions": True,
        "standard_configuration": None,
        "published": {
            "allocation": False,
            "qualifying": False,
            "results": False,
            "qualifying_tables": False,
        },
        # Every setting of the settings page (API.md, PATCH /events/{event}).
        "language": "fr",
        "stand_numbers": [],
        "use_configurations": False,
        "race_end": "second_to_last",
        # Issue 22: both off by default (the quick rules' d20 is the rule).
        "seed_by_rating": False,
        "show_favourites": False,
        # Sign-up (API.md): no announcement yet, registration closed.
        "place": "",
        "starts_at": None,
        "schedule": [],
        "fee": "",
        "capacity": None,
        "registration": {
            "opens_at": None,
            "closes_at": None,
            "edit_until": None,
            "approval": "first_come",
        },
    }


def test_event_defaults(organiser, circuit, championship):
    response = organiser.post(
        "/championships/cfd-2025/events",
        {"slug": "spa", "name": "Spa", "date": "2025-06-14", "circuit": "monaco"},
    )
    assert response.status_code == 201
    body = response.json()
    assert (body["game"], body["laps"], body["race_laps"], body["table_size"]) == (
        "formula_de",
        None,
        3,
        10,
    )
    assert (body["qualifying_mode"], body["minute_penalty"], body["allow_redo"]) == (
        "best",
        True,
        False,
    )
    assert body["separate_teams"] is True


@pytest.mark.parametrize("game", ["rallyman", "cannes_monaco", "racetrack"])
def test_other_games_are_available(organiser, circuit, championship, game):
    # Issue "other games": Rallyman, Cannes–Monaco and Racetrack events (API.md).
    response = organiser.post(
        "/championships/cfd-2025/events",
        {"slug": "spa", "name": "Spa", "date": "2025-06-14", "circuit": "monaco", "game": game},
    )
    assert response.status_code == 201, response.content
    assert response.json()["game"] == game
    assert Event.objects.get(slug="spa").game == game


def test_unknown_game_or_circuit_is_400(organiser, circuit, championship):
    base = {"slug": "spa", "name": "Spa", "date": "2025-06-14", "circuit": "monaco"}
    unknown_game = organiser.post("/championships/cfd-2025/events", {**base, "game": "chess"})
    assert unknown_game.status_code == 400
    assert list(unknown_game.json()["errors"]) == ["game"]
    unknown_circuit = organiser.post("/championships/cfd-2025/events", {**base, "circuit": "imola"})
    assert unknown_circuit.status_code == 400
    assert list(unknown_circuit.json()["errors"]) == ["circuit"]


def test_event_with_duplicate_slug_is_409(organiser, event):
    response = organiser.post(
        "/championships/cfd-2025/events",
        {"slug": "monaco-2025", "name": "Again", "date": "2025-06-14", "circuit": "monaco"},
    )
    assert response.status_code == 409


def test_event_table_size_out_of_range_is_400(organiser, circuit, championship):
    response = organiser.post(
        "/championships/cfd-2025/events",
        {"slug": "spa", "name": "Spa", "date": "2025-06-14", "circuit": "monaco", "table_size": 1},
    )
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["table_size"]


def test_event_list_shows_published_events_to_others(organiser, anon, event):
    assert [e["slug"] for e in organiser.get("/championships/cfd-2025/events").json()] == [
        "monaco-2025"
    ]
    assert anon.get("/championships/cfd-2025/events").json() == []


def test_entries_register_and_checkin(organiser, championship, circuit, drivers):
    event = Event.objects.create(
        championship=championship, slug="spa", name="Spa", date="2025-06-14", circuit=circuit
    )
    response = organiser.post("/events/spa/entries", {"numbers": [3, 1]})
    assert response.status_code == 200, response.content
    body = response.json()
    assert [(e["driver"], e["checked_in"]) for e in body] == [
        (
            {"number": 3, "name": "Chloé Durand", "team": None, "player": player_of(3)},
            False,
        ),
        (
            {
                "number": 1,
                "name": "Alice Martin",
                "team": "Ferrari",
                "player": player_of(1),
            },
            False,
        ),
    ]
    assert organiser.post("/events/spa/entries", {"numbers": [1]}).status_code == 200
    assert Entry.objects.filter(event=event).count() == 2

    checked = organiser.post("/events/spa/checkin", {"numbers": [1]})
    assert checked.status_code == 200
    assert {e["driver"]["number"]: e["checked_in"] for e in checked.json()} == {3: False, 1: True}
    out = organiser.post("/events/spa/checkin", {"numbers": [1], "checked_in": False})
    assert {e["driver"]["number"]: e["checked_in"] for e in out.json()} == {3: False, 1: False}


def test_entries_with_unknown_number_is_400(organiser, event):
    response = organiser.post("/events/monaco-2025/entries", {"numbers": [1, 99]})
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["numbers"]


def test_checkin_of_unregistered_driver_is_400(organiser, championship, circuit, drivers):
    Event.objects.create(
        championship=championship, slug="spa", name="Spa", date="2025-06-14", circuit=circuit
    )
    assert organiser.post("/events/spa/checkin", {"numbers": [2]}).status_code == 400


def test_entries_list_for_organiser(organiser, event):
    response = organiser.get("/events/monaco-2025/entries")
    assert response.status_code == 200
    assert [e["driver"]["number"] for e in response.json()] == [1, 2, 3, 4, 5, 6]


def test_publish_flags(organiser, anon, event):
    response = organiser.post("/events/monaco-2025/publish", {"allocation": True})
    assert response.status_code == 200
    assert response.json()["published"] == {
        "allocation": True,
        "qualifying": False,
        "results": False,
        "qualifying_tables": False,
    }
    response = organiser.post(
        "/events/monaco-2025/publish", {"qualifying": True, "allocation": False}
    )
    assert response.json()["published"] == {
        "allocation": False,
        "qualifying": True,
        "results": False,
        "qualifying_tables": False,
    }
    event.refresh_from_db()
    assert event.published_qualifying and not event.published_allocation


def test_publish_by_referee_or_outsider_is_403(referee, outsider, event):
    assert referee.post("/events/monaco-2025/publish", {"qualifying": True}).status_code == 403
    assert outsider.post("/events/monaco-2025/publish", {"qualifying": True}).status_code == 403
    event.refresh_from_db()
    assert not event.published_qualifying


def test_publish_with_non_boolean_is_400(organiser, event):
    response = organiser.post("/events/monaco-2025/publish", {"qualifying": "yes"})
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["qualifying"]
