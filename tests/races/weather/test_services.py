"""Race weather services against the database (races/weather/services.py): the race's
order (§2-0-1, §3-0-1, §3-2-4; DOMAIN.md "What the day enforces, continued") and race
control undoing a mistaken table draw, with a reason.

Fixtures (tests/races/conftest.py): six drivers qualified in one session, tables of 3:
[4, 2, 5] and [1, 6, 3]. The circuit's scale: rain 1-4, variable 5-8, sun 9-20.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from qualifying.models import Run
from qualifying.services import draw_record
from races.grid.services import allocation_run
from races.grid.start import stands_set, table_start
from races.models import RaceTable, RaceWeather, WeatherDraw
from races.results.services import result_save
from races.weather.services import race_weather_draw, table_weather_draw, table_weather_undo
from tournament.access import Actor
from tournament.errors import Conflict, InvalidInput

pytestmark = [pytest.mark.django_db, pytest.mark.keeps_context]

VARIABLE, RAIN = 6, 2


def table(event, number: int) -> RaceTable:
    return RaceTable.objects.get(event=event, number=number)


def start(actor: Actor, event, number: int) -> None:
    t = table(event, number)
    grid = t.slots.order_by("position").values_list("driver__number", flat=True)
    stands_set(actor=actor, table=t, stands={n: stand for stand, n in enumerate(grid, 1)})
    table_start(actor=actor, table=t)


@pytest.fixture
def under_way(allocated, actor):
    """A variable race started at table 1, with one draw there (rain)."""
    race_weather_draw(actor=actor, event=allocated, roll=VARIABLE)
    start(actor, allocated, 1)
    table_weather_draw(actor=actor, table=table(allocated, 1), roll=RAIN)
    return allocated


# --- The race's order ------------------------------------------------------------------------


def test_a_table_draw_before_the_start_is_refused_and_locks_nothing(allocated, actor):
    """§3-2-4: a draw is made « à la fin d'un tour de jeu »: the race must be on."""
    race_weather_draw(actor=actor, event=allocated, roll=VARIABLE)
    referee = Actor(table=table(allocated, 1))

    with pytest.raises(Conflict) as refused:
        table_weather_draw(actor=referee, table=table(allocated, 1), roll=RAIN)

    assert refused.value.errors == {"start": ["Start the race at this table first."]}
    assert table(allocated, 1).started_at is None
    assert not WeatherDraw.objects.exists()


def test_the_race_weather_waits_for_the_allocation(event, actor):
    """§2-0-1: « dès que les essais sont finis, l'auteur du meilleur "temps absolu" tire la
    météo »: every run is in, but until the allocation closes qualifying the pole may still
    change (a late run, a correction), so the draw is refused."""
    with pytest.raises(Conflict) as refused:
        race_weather_draw(actor=actor, event=event, roll=VARIABLE)

    assert refused.value.errors == {"allocation": ["Build the race tables first."]}
    assert "Qualifying is not closed yet" in refused.value.message
    assert not RaceWeather.objects.exists()
    allocation_run(actor=actor, event=event, table_size=3)

    assert race_weather_draw(actor=actor, event=event, roll=VARIABLE).weather == "variable"


def test_after_one_run_of_one_driver_the_race_weather_is_refused(event, actor):
    """The issue's replay: one run recorded, qualifying still open."""
    Run.objects.filter(session__event=event).exclude(driver__number=4).delete()

    with pytest.raises(Conflict):
        race_weather_draw(actor=actor, event=event, roll=VARIABLE)
    assert not RaceWeather.objects.exists()


def test_in_mode_draw_the_race_weather_waits_for_the_allocation(make_event, actor):
    """§2-0-1 with the quick rules' grid (point 2): the pole is known once the d20 draw is
    closed by the allocation."""
    event = make_event(n_drivers=4, qualifying_mode="draw", laps=2)
    with pytest.raises(Conflict):
        race_weather_draw(actor=actor, event=event, roll=VARIABLE)
    draw_record(actor=actor, event=event, rolls={1: [17], 2: [3], 3: [11], 4: [8]})
    with pytest.raises(Conflict):
        race_weather_draw(actor=actor, event=event, roll=VARIABLE)
    allocation_run(actor=actor, event=event, table_size=4)

    assert race_weather_draw(actor=actor, event=event, roll=VARIABLE).weather == "variable"


def test_the_first_result_save_still_starts_a_table_that_never_started(allocated, actor):
    """DOMAIN.md: a result saved means the race was played; the table is then in ink."""
    race_weather_draw(actor=actor, event=allocated, roll=VARIABLE)
    t = table(allocated, 2)
    result_save(actor=actor, table=t, version=0, finish=[1], retired=[], dns=[], submit=False)

    assert table(allocated, 2).started_at is not None


def test_a_table_draw_leaves_one_trail_line(under_way, as_organiser):
    """Each draw is told once in the table's history, by its own line."""
    html = as_organiser.get(reverse("rtable-history", args=[table(under_way, 1).token]))
    text = html.content.decode()
    assert text.count("drew the weather: d20 = 2, Rain, track wet") == 1
    assert "Weather: Variable → Rain" not in text and "weather: Variable → Rain" not in text


def test_the_page_draws_no_race_weather_before_the_allocation(event, as_organiser):
    """The allocation page says when the overall pole draws, and a draw sent anyway is
    refused with the reason (§2-0-1)."""
    url = reverse("allocation", args=[event.slug])
    html = as_organiser.get(url).content.decode()
    assert 'id="race-weather-closed"' in html and 'id="race-weather-record"' not in html

    response = as_organiser.post(
        reverse("race-weather", args=[event.slug]), {"roll": "6"}, follow=True
    )

    messages = [str(m) for m in response.context["messages"]]
    assert len(messages) == 1 and messages[0].startswith("Qualifying is not closed yet")
    assert not RaceWeather.objects.exists()


# --- A mistaken table draw, undone by race control ----------------------------------------------


@pytest.mark.parametrize("reason", ["", " ", "\t\n "])
def test_undoing_a_draw_without_a_reason_is_refused(under_way, actor, reason):
    """DOMAIN.md: « so do every undo … after the fact »: a reason, never an empty one."""
    with pytest.raises(InvalidInput) as refused:
        table_weather_undo(actor=actor, table=table(under_way, 1), reason=reason)

    assert refused.value.status == 400
    assert refused.value.errors == {"reason": ["A reason is required."]}
    assert WeatherDraw.objects.get().undone_at is None
    assert table(under_way, 1).weather == "rain"


def test_undoing_a_draw_with_a_reason_is_recorded(under_way, actor):
    draw = table_weather_undo(actor=actor, table=table(under_way, 1), reason="Nobody rolled 20")

    assert (draw.undo_reason, draw.undone_by) == ("Nobody rolled 20", "pc")
    assert (table(under_way, 1).weather, table(under_way, 1).track) == ("variable", "dry")


@pytest.mark.parametrize("reason", ["", "   "])
def test_the_page_says_why_an_undo_without_a_reason_is_refused(under_way, as_organiser, reason):
    url = reverse("race-weather-undo", args=[under_way.slug, 1])
    response = as_organiser.post(url, {"reason": reason, "back": "table"}, follow=True)

    assert [str(m) for m in response.context["messages"]] == [
        "Say why this weather draw is undone."
    ]
    assert WeatherDraw.objects.get().undone_at is None
