"""Race weather (§2-0-1, §3-2) and the weather draws at a table of a variable race (§3-2-6).

Monaco's board: 1-4 rain, 5-8 variable, 9-20 sun.
"""

from __future__ import annotations

import pytest

from races.models import RaceTable, RaceWeather, WeatherDraw
from tests.api.test_race_tables import (
    TABLES,
    allocate,
    build_race_event,
    open_session,
    set_result_status,
    table_api,
)
from tournament.models import Event

pytestmark = pytest.mark.django_db

RACE_WEATHER = "/events/gp-race/race-weather"
DRAWS = f"{TABLES}/1/weather-draws"


@pytest.fixture
def allocated(championship, circuit, drivers, organiser) -> Event:
    event = build_race_event(championship, circuit, drivers)
    allocate(organiser)
    return event


@pytest.fixture
def variable(allocated, organiser) -> Event:
    response = organiser.post(RACE_WEATHER, {"roll": 6})
    assert response.status_code == 200, response.content
    return allocated


@pytest.fixture
def race_only(championship, circuit, drivers) -> Event:
    return build_race_event(championship, circuit, drivers)


def table_weather(organiser, number: int = 1) -> tuple:
    table = organiser.get(TABLES).json()[number - 1]
    return table["weather"], table["track"], table["weather_fixed"]


@pytest.mark.parametrize(
    ("roll", "weather", "track", "fixed"),
    [(2, "rain", "wet", True), (6, "variable", "dry", False), (20, "sun", "dry", True)],
)
def test_race_weather_sets_every_table(organiser, allocated, roll, weather, track, fixed):
    response = organiser.post(RACE_WEATHER, {"roll": roll})
    assert response.status_code == 200, response.content
    assert response.json() == {
        "roll": roll,
        "source": "physical",
        "weather": weather,
        "track": track,
    }
    assert table_weather(organiser, 1) == table_weather(organiser, 2) == (weather, track, fixed)


def test_variable_race_starts_wet_after_a_rainy_last_session(organiser, allocated):
    open_session(allocated, 2, "rain")
    body = organiser.post(RACE_WEATHER, {"roll": 7}).json()
    assert (body["weather"], body["track"]) == ("variable", "wet")
    assert table_weather(organiser) == ("variable", "wet", False)


def test_system_rolls_when_no_roll_is_sent(organiser, allocated):
    for body in ({}, None):
        response = organiser.post(RACE_WEATHER, body)
        assert response.status_code == 200, response.content
        body = response.json()
        assert body["source"] == "system" and 1 <= body["roll"] <= 20
        assert body["weather"] == RaceWeather.objects.get().weather


def test_race_weather_before_the_allocation_applies_to_the_tables_later(organiser, race_only):
    assert organiser.post(RACE_WEATHER, {"roll": 3}).status_code == 200
    tables = allocate(organiser)
    assert {(t["weather"], t["track"], t["weather_fixed"]) for t in tables} == {
        ("rain", "wet", True)
    }


@pytest.mark.parametrize("roll", [0, 21, -1, "12", 12.5, [12], 2**40])
def test_bad_roll_is_400(organiser, allocated, roll):
    response = organiser.post(RACE_WEATHER, {"roll": roll})
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["roll"]
    assert not RaceWeather.objects.exists()


def test_race_weather_permissions(anon, outsider, allocated):
    assert anon.post(RACE_WEATHER, {"roll": 6}).status_code == 401
    assert outsider.post(RACE_WEATHER, {"roll": 6}).status_code == 403
    assert table_api(allocated, 1).post(RACE_WEATHER, {"roll": 6}).status_code == 403
    assert not RaceWeather.objects.exists()


def test_race_weather_after_a_table_draw_is_409(organiser, variable):
    assert organiser.post(DRAWS, {"roll": 6}).status_code == 200
    assert organiser.post(RACE_WEATHER, {"roll": 20}).status_code == 409


# ---------------------------------------------------------------------------
# Weather draws at a table
# ---------------------------------------------------------------------------


def test_sun_twice_in_a_row_fixes_the_table(organiser, variable):
    referee = table_api(variable, 1)
    first = referee.post(DRAWS, {"roll": 12})
    assert first.status_code == 200, first.content
    assert first.json() == {
        "number": 1,
        "roll": 12,
        "source": "physical",
        "weather": "sun",
        "track": "dry",
        "fixed": False,
    }
    assert referee.post(DRAWS, {"roll": 6}).json()["weather"] == "variable"
    assert referee.post(DRAWS, {"roll": 2}).json() == {
        "number": 3,
        "roll": 2,
        "source": "physical",
        "weather": "rain",
        "track": "wet",
        "fixed": False,
    }
    fixed = referee.post(DRAWS, {"roll": 4}).json()
    assert (fixed["number"], fixed["weather"], fixed["track"], fixed["fixed"]) == (
        4,
        "rain",
        "wet",
        True,
    )
    assert table_weather(organiser, 1) == ("rain", "wet", True)
    assert table_weather(organiser, 2) == ("variable", "dry", False)  # each table its own

    again = referee.post(DRAWS, {"roll": 15})
    assert again.status_code == 409
    assert again.json()["detail"] == "The weather of this table is fixed for the rest of the race."
    assert WeatherDraw.objects.count() == 4


def test_organiser_may_draw_and_the_system_rolls(organiser, variable):
    response = organiser.post(f"{TABLES}/2/weather-draws", raw=b"")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["source"] == "system" and 1 <= body["roll"] <= 20
    assert WeatherDraw.objects.get().table.number == 2


@pytest.mark.parametrize("roll", [20, 2])
def test_draw_when_the_race_is_not_variable_is_409(organiser, allocated, roll):
    organiser.post(RACE_WEATHER, {"roll": roll})
    response = table_api(allocated, 1).post(DRAWS, {"roll": 12})
    assert response.status_code == 409
    assert response.json()["detail"] == "The weather evolves only in a variable race."


def test_draw_before_the_race_weather_is_409(allocated):
    assert table_api(allocated, 1).post(DRAWS, {"roll": 12}).status_code == 409


@pytest.mark.parametrize("roll", [0, 21, "5", 12.5, [12]])
def test_bad_draw_roll_is_400(variable, roll):
    response = table_api(variable, 1).post(DRAWS, {"roll": roll})
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["roll"]
    assert not WeatherDraw.objects.exists()


def test_draw_permissions(anon, outsider, referee, variable):
    assert anon.post(DRAWS, {"roll": 12}).status_code == 401
    assert outsider.post(DRAWS, {"roll": 12}).status_code == 403
    assert referee.post(DRAWS, {"roll": 12}).status_code == 403  # a qualifying table's link
    other_table = table_api(variable, 2).post(DRAWS, {"roll": 12})
    assert other_table.status_code == 403
    assert other_table.json()["detail"] == (
        "Only this table's referee or an organiser may draw its weather."
    )
    assert not WeatherDraw.objects.exists()


def test_draw_at_an_unknown_table_is_404(organiser, variable):
    assert organiser.post(f"{TABLES}/3/weather-draws", {"roll": 12}).status_code == 404
    assert organiser.post("/events/nope/tables/1/weather-draws", {}).status_code == 404


def test_a_new_allocation_clears_the_draws(organiser, variable):
    table_api(variable, 1).post(DRAWS, {"roll": 12})
    allocate(organiser)
    assert not WeatherDraw.objects.exists()
    assert table_weather(organiser, 1) == ("variable", "dry", False)


def test_draws_stay_possible_while_results_are_entered(organiser, variable):
    # Weather evolves during the race, so a draft result does not stop the draws.
    set_result_status(variable, 1, "draft")
    assert table_api(variable, 1).post(DRAWS, {"roll": 12}).status_code == 200
    assert RaceTable.objects.get(event=variable, number=1).weather == "sun"
