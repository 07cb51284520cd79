"""Race weather (races/weather/rules.py) against the competition rules.

Article numbers refer to rules/formule-de-competition-rules.fr.txt (§2-0-1, §3-2).
No database: these are plain functions.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from races.weather.rules import (
    TableWeather,
    Track,
    Weather,
    WeatherFixed,
    apply_draw,
    race_redraw_refusal,
    race_start,
    replay,
)

WEATHERS: list[Weather] = ["sun", "variable", "rain"]


def temporary(weather: Weather, track: Track, last_draw: Weather | None) -> TableWeather:
    return TableWeather(weather=weather, track=track, fixed=False, last_draw=last_draw)


START_DRY = temporary("variable", "dry", None)
START_WET = temporary("variable", "wet", None)


# ---------------------------------------------------------------------------
# Race start (§3-2-1 … §3-2-4)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("last_session", [*WEATHERS, None])
def test_race_start_sun_is_dry_and_fixed_for_the_whole_race_3_2_2(
    last_session: Weather | None,
) -> None:
    assert race_start("sun", last_session) == TableWeather("sun", "dry", True, None)


@pytest.mark.parametrize("last_session", [*WEATHERS, None])
def test_race_start_rain_is_wet_and_fixed_for_the_whole_race_3_2_3(
    last_session: Weather | None,
) -> None:
    assert race_start("rain", last_session) == TableWeather("rain", "wet", True, None)


@pytest.mark.parametrize(
    ("last_session", "track"), [("sun", "dry"), ("variable", "dry"), ("rain", "wet")]
)
def test_race_start_variable_track_follows_the_last_qualifying_session_3_2_4(
    last_session: Weather, track: Track
) -> None:
    """§3-2-4: dry after a sunny or variable session, wet after a rainy one."""
    assert race_start("variable", last_session) == temporary("variable", track, None)


def test_race_start_variable_without_qualifying_starts_dry() -> None:
    """Quick-rules draw, no qualifying session: dry (product choice, the text is silent)."""
    assert race_start("variable", None) == START_DRY


@pytest.mark.parametrize(
    ("race", "last_session"), [("snow", "sun"), ("sun", "snow"), (None, "sun"), ("Sun", None)]
)
def test_race_start_refuses_an_unknown_weather(race: object, last_session: object) -> None:
    with pytest.raises(ValueError, match="unknown"):
        race_start(race, last_session)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------
# Evolution at a table (§3-2-6)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("start", [START_DRY, START_WET])
def test_apply_draw_sun_is_temporary_and_dries_the_track_3_2_6_1(start: TableWeather) -> None:
    assert apply_draw(start, "sun") == temporary("sun", "dry", "sun")


@pytest.mark.parametrize("start", [START_DRY, START_WET])
def test_apply_draw_rain_is_temporary_and_wets_the_track_3_2_6_2(start: TableWeather) -> None:
    """§3-2-6 2) and 5): rain on a dry track makes it wet."""
    assert apply_draw(start, "rain") == temporary("rain", "wet", "rain")


def test_apply_draw_sun_after_temporary_rain_dries_the_track_3_2_6_5() -> None:
    """§3-2-6 5): "et vice versa", a wet track becomes dry under sun."""
    state = apply_draw(START_DRY, "rain")
    assert apply_draw(state, "sun") == temporary("sun", "dry", "sun")


@pytest.mark.parametrize("track", ["dry", "wet"])
def test_apply_draw_variable_keeps_the_track_3_2_6_3(track: Track) -> None:
    start = temporary("variable", track, None)
    assert apply_draw(start, "variable") == temporary("variable", track, "variable")


def test_apply_draw_variable_after_temporary_sun_keeps_the_dry_track_3_2_6_3() -> None:
    state = apply_draw(START_WET, "sun")
    assert apply_draw(state, "variable") == temporary("variable", "dry", "variable")


def test_apply_draw_variable_after_temporary_rain_keeps_the_wet_track_3_2_6_3() -> None:
    state = apply_draw(START_DRY, "rain")
    assert apply_draw(state, "variable") == temporary("variable", "wet", "variable")


def test_apply_draw_sun_twice_in_a_row_is_fixed_3_2_6_4() -> None:
    state = apply_draw(apply_draw(START_WET, "sun"), "sun")
    assert state == TableWeather("sun", "dry", True, "sun")


def test_apply_draw_rain_twice_in_a_row_is_fixed_3_2_6_4() -> None:
    state = apply_draw(apply_draw(START_DRY, "rain"), "rain")
    assert state == TableWeather("rain", "wet", True, "rain")


def test_apply_draw_variable_twice_in_a_row_fixes_nothing_3_2_6_4() -> None:
    """§3-2-6 4) only names sun and rain."""
    state = apply_draw(apply_draw(START_DRY, "variable"), "variable")
    assert state == temporary("variable", "dry", "variable")


@pytest.mark.parametrize(
    "draws", [("sun", "variable", "sun"), ("rain", "variable", "rain"), ("sun", "rain", "sun")]
)
def test_apply_draw_not_in_a_row_fixes_nothing_3_2_6_4(draws: tuple[Weather, ...]) -> None:
    state = START_DRY
    for drawn in draws:
        state = apply_draw(state, drawn)
    assert not state.fixed
    assert state.weather == draws[-1]


@pytest.mark.parametrize("drawn", WEATHERS)
@pytest.mark.parametrize(
    "fixed",
    [
        TableWeather("sun", "dry", True, None),
        TableWeather("rain", "wet", True, None),
        TableWeather("sun", "dry", True, "sun"),
        TableWeather("rain", "wet", True, "rain"),
    ],
)
def test_apply_draw_refuses_a_draw_once_the_weather_is_fixed_3_2_6_4(
    fixed: TableWeather, drawn: Weather
) -> None:
    """§3-2-2, §3-2-3 and §3-2-6 4): fixed "pour le reste de la course"."""
    with pytest.raises(WeatherFixed):
        apply_draw(fixed, drawn)


@pytest.mark.parametrize("drawn", ["snow", None, "Sun"])
def test_apply_draw_refuses_an_unknown_weather(drawn: object) -> None:
    with pytest.raises(ValueError, match="unknown"):
        apply_draw(START_DRY, drawn)  # type: ignore[arg-type]


@given(
    st.sampled_from(["sun", "variable", "rain"]),
    st.lists(st.sampled_from(WEATHERS), max_size=30),
)
def test_apply_draw_sequence_follows_3_2_6(last_session: Weather, draws: list[Weather]) -> None:
    """§3-2-6 replayed on any sequence of draws until the weather is fixed."""
    state = race_start("variable", last_session)
    previous: Weather | None = None
    for drawn in draws:
        if state.fixed:
            with pytest.raises(WeatherFixed):
                apply_draw(state, drawn)
            break
        track = state.track
        state = apply_draw(state, drawn)
        assert state.weather == drawn
        assert state.last_draw == drawn
        assert state.track == {"sun": "dry", "rain": "wet", "variable": track}[drawn]
        assert state.fixed == (drawn != "variable" and drawn == previous)
        previous = drawn


# ---------------------------------------------------------------------------
# Drawn once (§2-0-1, §3-2-1); a table's mistaken draw undone
# ---------------------------------------------------------------------------


def test_race_weather_is_drawn_once_by_the_overall_pole_2_0_1():
    """§2-0-1, §3-2-1: the overall pole draws the race weather. The first draw is always
    allowed; a second needs the organisers' reason; none once a table has started."""
    assert race_redraw_refusal(drawn_before=0, started=False, reason="") is None
    assert race_redraw_refusal(drawn_before=0, started=True, reason="") is None
    assert race_redraw_refusal(drawn_before=1, started=False, reason="  ") == "reason_required"
    assert race_redraw_refusal(drawn_before=1, started=False, reason="die off the table") is None
    assert race_redraw_refusal(drawn_before=2, started=True, reason="wrong scale") == "started"


def test_undoing_a_draw_reads_the_table_again_from_the_remaining_draws_3_2_6():
    """A sun then a rain draw: undoing the rain leaves temporary sun, dry; the "twice in a
    row" of §3-2-6 4) is read from what remains (sun, sun fixes; sun, rain, sun does not)."""
    assert replay(START_WET, ["sun"]) == temporary("sun", "dry", "sun")
    assert replay(START_WET, ["sun", "rain"]) == temporary("rain", "wet", "rain")
    assert replay(START_DRY, ["sun", "sun"]).fixed
    assert not replay(START_DRY, ["sun", "rain", "sun"]).fixed
    assert replay(START_DRY, []) == START_DRY


@given(st.lists(st.sampled_from(WEATHERS), max_size=8))
def test_replay_is_the_draws_applied_one_by_one(draws: list[Weather]) -> None:
    state = START_DRY
    try:
        for drawn in draws:
            state = apply_draw(state, drawn)
    except WeatherFixed:
        with pytest.raises(WeatherFixed):
            replay(START_DRY, draws)
    else:
        assert replay(START_DRY, draws) == state
