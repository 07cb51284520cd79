"""Race weather (§2-0-1, §3-2) and the weather draws at a table of a variable race (§3-2-6).

Monaco's board: 1-4 rain, 5-8 variable, 9-20 sun.
"""

from __future__ import annotations

import pytest

from qualifying.models import Run
from races.models import RaceTable, RaceWeather, RaceWeatherDraw, WeatherDraw
from tests.api.conftest import make_event
from tests.api.test_race_tables import (
    ALLOCATION,
    TABLES,
    allocate,
    build_race_event,
    open_session,
    set_result_status,
    start_table,
    table_api,
)
from tournament.models import Entry, Event

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
def started(variable, organiser) -> Event:
    """The variable race under way at both tables (stands chosen, the referees' start)."""
    start_table(organiser, variable, 1)
    start_table(organiser, variable, 2)
    return variable


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
    body = response.json()
    (draw,) = body.pop("draws")
    assert body == {"roll": roll, "source": "physical", "weather": weather, "track": track}
    assert {k: draw[k] for k in ("number", "roll", "source", "weather", "who", "reason")} == {
        "number": 1,
        "roll": roll,
        "source": "physical",
        "weather": weather,
        "who": "alice (API)",
        "reason": "",
    }
    assert table_weather(organiser, 1) == table_weather(organiser, 2) == (weather, track, fixed)


def test_variable_race_starts_wet_after_a_rainy_last_session(organiser, allocated):
    open_session(allocated, 2, "rain")
    body = organiser.post(RACE_WEATHER, {"roll": 7}).json()
    assert (body["weather"], body["track"]) == ("variable", "wet")
    assert table_weather(organiser) == ("variable", "wet", False)


def test_system_rolls_when_no_roll_is_sent(organiser, allocated):
    response = organiser.post(RACE_WEATHER, None)
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["source"] == "system" and 1 <= body["roll"] <= 20
    assert body["weather"] == RaceWeather.objects.get().weather
    again = organiser.post(RACE_WEATHER, {"reason": "The die rolled off the table"})
    assert again.status_code == 200, again.content
    assert again.json()["source"] == "system"


def test_the_race_weather_is_drawn_once_a_second_draw_needs_a_reason(organiser, allocated):
    """§2-0-1, §3-2-1: the overall pole draws the race weather; six system draws in a row
    were accepted before. A second draw is a 409 saying why, unless a reason is given;
    every draw stays listed, with who, when and why."""
    assert organiser.post(RACE_WEATHER, {"roll": 2}).status_code == 200
    for body in ({}, None, {"roll": 12}, {"roll": 12, "reason": "   "}):
        refused = organiser.post(RACE_WEATHER, body)
        assert refused.status_code == 409, refused.content
        assert refused.json()["detail"] == (
            "The race weather is already drawn (Rain, d20 = 2): the overall pole draws it "
            "once (§2-0-1). To draw again, say why (a die off the table, a wrong scale)."
        )
        assert list(refused.json()["errors"]) == ["reason"]
    assert RaceWeather.objects.get().roll == 2
    again = organiser.post(RACE_WEATHER, {"roll": 12, "reason": "Wrong scale: Spa's board"})
    assert again.status_code == 200, again.content
    body = again.json()
    assert (body["roll"], body["weather"]) == (12, "sun")
    assert [(d["number"], d["roll"], d["weather"], d["reason"]) for d in body["draws"]] == [
        (1, 2, "rain", ""),
        (2, 12, "sun", "Wrong scale: Spa's board"),
    ]
    assert table_weather(organiser, 1) == ("sun", "dry", True)
    listed = organiser.get(RACE_WEATHER)
    assert listed.status_code == 200 and listed.json()["draws"] == body["draws"]
    assert RaceWeatherDraw.history.count() == 2


def test_race_weather_read_permissions(organiser, anon, outsider, allocated):
    assert organiser.get(RACE_WEATHER).status_code == 404  # not drawn yet
    organiser.post(RACE_WEATHER, {"roll": 7})
    assert table_api(allocated, 1).get(RACE_WEATHER).status_code == 200
    assert anon.get(RACE_WEATHER).status_code == 404
    assert outsider.get(RACE_WEATHER).status_code == 403
    Event.objects.filter(pk=allocated.pk).update(published_allocation=True)
    assert anon.get(RACE_WEATHER).status_code == 200


def test_no_second_race_weather_once_a_table_has_started(organiser, variable):
    assert organiser.post(f"{TABLES}/2/start").status_code == 409  # stands missing
    set_result_status(variable, 2, "draft")
    refused = organiser.post(RACE_WEATHER, {"roll": 12, "reason": "wrong scale"})
    assert refused.status_code == 409
    assert refused.json()["detail"] == (
        "The race has started at a table: its weather (Variable, d20 = 6) can no longer be "
        "drawn again."
    )


def test_race_weather_before_the_allocation_is_409(organiser, race_only):
    """§2-0-1 « dès que les essais sont finis »: qualifying is closed by the allocation;
    every run is in here, but the pole may still change until the tables are built."""
    refused = organiser.post(RACE_WEATHER, {"roll": 3})
    assert refused.status_code == 409
    assert refused.json() == {
        "detail": "Qualifying is not closed yet: the overall pole draws the race weather once "
        "the race tables are built on the classification (§2-0-1: « dès que les essais sont "
        "finis »).",
        "errors": {"allocation": ["Build the race tables first."]},
    }
    assert not RaceWeather.objects.exists()
    tables = allocate(organiser)
    assert {t["weather"] for t in tables} == {None}
    assert organiser.post(RACE_WEATHER, {"roll": 3}).status_code == 200
    assert {
        (t["weather"], t["track"], t["weather_fixed"]) for t in organiser.get(TABLES).json()
    } == {("rain", "wet", True)}


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


def test_race_weather_after_a_table_draw_is_409(organiser, started):
    assert organiser.post(DRAWS, {"roll": 6}).status_code == 200
    assert organiser.post(RACE_WEATHER, {"roll": 20}).status_code == 409
    assert organiser.post(RACE_WEATHER, {"roll": 20, "reason": "wrong"}).status_code == 409


# ---------------------------------------------------------------------------
# Weather draws at a table
# ---------------------------------------------------------------------------


def test_sun_twice_in_a_row_fixes_the_table(organiser, started):
    referee = table_api(started, 1)
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


def test_organiser_may_draw_and_the_system_rolls(organiser, started):
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


def test_a_new_allocation_clears_the_draws_once_the_table_is_unlocked(organiser, started):
    assert table_api(started, 1).post(DRAWS, {"roll": 12}).status_code == 200
    refused = organiser.post(ALLOCATION, {})
    assert refused.status_code == 409
    assert "table(s) 1, 2" in refused.json()["detail"]
    for number in (1, 2):
        unlocked = organiser.post(f"{TABLES}/{number}/unlock", {"reason": "Grids rebuilt"})
        assert unlocked.status_code == 200
    allocate(organiser)
    assert not WeatherDraw.objects.exists()
    assert table_weather(organiser, 1) == ("variable", "dry", False)


def test_draws_stay_possible_while_results_are_entered(organiser, started):
    # Weather evolves during the race, so a draft result does not stop the draws.
    set_result_status(started, 1, "draft")
    assert table_api(started, 1).post(DRAWS, {"roll": 12}).status_code == 200
    assert RaceTable.objects.get(event=started, number=1).weather == "sun"


# ---------------------------------------------------------------------------
# The race's order (§2-0-1, §3-0-1, §3-2-4; DOMAIN.md "What the day enforces, continued")
# ---------------------------------------------------------------------------


def test_a_table_draw_before_the_start_is_409_saying_to_start_first(organiser, variable):
    """§3-2-4: a table's draw comes « à la fin d'un tour de jeu », so the race must be on."""
    for caller in (table_api(variable, 1), organiser):
        refused = caller.post(DRAWS, {"roll": 12})
        assert refused.status_code == 409
        assert refused.json() == {
            "detail": "The race has not started at Table 1: start it first (stands and "
            "configurations), then draw the weather at the end of a game turn (§3-2-4).",
            "errors": {"start": ["Start the race at this table first."]},
        }
    table = RaceTable.objects.get(event=variable, number=1)
    assert (table.started_at, WeatherDraw.objects.count()) == (None, 0)  # nothing locked
    start_table(organiser, variable, 1)
    assert table_api(variable, 1).post(DRAWS, {"roll": 12}).status_code == 200


def test_race_weather_after_one_run_of_one_driver_is_409(organiser, championship, circuit, drivers):
    """The issue's replay: one run of one driver, and the race weather was drawn."""
    event = build_race_event(championship, circuit, drivers)
    first = Run.objects.filter(session__event=event).order_by("pk").first()
    Run.objects.filter(session__event=event).exclude(pk=first.pk).delete()
    refused = organiser.post(RACE_WEATHER, {"roll": 6})
    assert refused.status_code == 409
    assert refused.json()["errors"] == {"allocation": ["Build the race tables first."]}
    assert not RaceWeather.objects.exists()


def test_race_weather_after_the_d20_draw_waits_for_the_allocation(
    organiser, championship, circuit, drivers
):
    """§2-0-1 in mode ``draw``: the overall pole is known once the d20 draw is closed by
    the allocation."""
    event = make_event(championship, circuit, slug="gp-race", qualifying_mode="draw", laps=2)
    for driver in drivers.values():
        Entry.objects.create(event=event, driver=driver)
    assert organiser.post(RACE_WEATHER, {"roll": 6}).status_code == 409
    assert organiser.post("/events/gp-race/draw", {}).status_code == 200
    refused = organiser.post(RACE_WEATHER, {"roll": 6})
    assert refused.status_code == 409
    assert refused.json()["errors"] == {"allocation": ["Build the race tables first."]}
    allocate(organiser)
    assert organiser.post(RACE_WEATHER, {"roll": 6}).status_code == 200


def test_a_result_before_the_race_weather_is_409_and_the_draw_stays_possible(organiser, allocated):
    """A draft saved before the race weather used to start the table, and the race weather
    could then never be drawn: the save is a 409 instead, nothing stored."""
    referee = table_api(allocated, 1)
    grid = list(
        RaceTable.objects.get(event=allocated, number=1)
        .slots.order_by("position")
        .values_list("driver__number", flat=True)
    )
    sheet = {"version": 0, "finish": grid[:1], "retired": [], "dns": [], "submit": False}
    refused = referee._send("put", f"{TABLES}/1/result", sheet)
    assert refused.status_code == 409, refused.content
    body = refused.json()
    assert body["detail"].startswith("The race weather is not drawn yet")
    assert body["errors"] == {"race_weather": ["Race control draws the race weather first."]}
    table = RaceTable.objects.get(event=allocated, number=1)
    assert (table.result_status, table.started_at) == ("empty", None)
    assert organiser.post(RACE_WEATHER, {"roll": 6}).status_code == 200
    saved = referee._send("put", f"{TABLES}/1/result", sheet)
    assert saved.status_code == 200, saved.content
    assert RaceTable.objects.get(event=allocated, number=1).started_at is not None


def test_a_start_before_the_race_weather_is_409(organiser, allocated):
    """§3-0-1: the weather decides the car's configuration, so it comes before the start."""
    grid = RaceTable.objects.get(event=allocated, number=1).slots.order_by("position")
    stands = {str(slot.driver.number): stand for stand, slot in enumerate(grid, start=1)}
    referee = table_api(allocated, 1)
    assert referee._send("put", f"{TABLES}/1/stands", {"stands": stands}).status_code == 200
    refused = referee.post(f"{TABLES}/1/start")
    assert refused.status_code == 409
    assert refused.json() == {
        "detail": "The race weather is not drawn yet: the overall pole draws it (§2-0-1) "
        "before the race starts at Table 1.",
        "errors": {"race_weather": ["Race control draws the race weather first."]},
    }
    assert RaceTable.objects.get(event=allocated, number=1).started_at is None
    assert organiser.post(RACE_WEATHER, {"roll": 6}).status_code == 200
    assert referee.post(f"{TABLES}/1/start").status_code == 200
