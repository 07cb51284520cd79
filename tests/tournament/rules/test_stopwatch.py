"""The stopwatch's plausible floor and its echo in words: pure, no database.

A qualifying lap is a whole lap of the circuit with dice and gear changes (§1-0-1), timed
from the start of the stopwatch to its stop (§1-1-6, §1-1-8), and every full minute is one
more throw (§1-1-13). "1,48" typed for 1:48 reads 1.48 s and drops that minute: below the
event's floor (DOMAIN.md, default 0:20) both readings are given back.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournament.rules.stopwatch import (
    DEFAULT_MIN_STOPWATCH_CS,
    ShortReading,
    StopwatchError,
    format_stopwatch,
    full_minutes,
    parse_stopwatch,
    short_reading,
    stopwatch_parts,
)


def test_the_default_floor_is_twenty_seconds() -> None:
    assert parse_stopwatch("0:20") == DEFAULT_MIN_STOPWATCH_CS


@pytest.mark.parametrize(
    ("text", "read", "meant"),
    [
        ("1,48", 148, 10800),  # the French decimal habit
        ("1.48", 148, 10800),  # the phone's number pad
        ("2,05", 205, 12500),
        ("0,59", 59, 5900),
        ("12.30", 1230, 75000),
    ],
)
def test_a_minutes_habit_below_the_floor_gives_both_readings_1_1_13(
    text: str, read: int, meant: int
) -> None:
    """The full minute of 1:48 is one throw (§1-1-13): 1.48 s would lose it."""
    assert short_reading(text, floor_cs=DEFAULT_MIN_STOPWATCH_CS) == ShortReading(read, meant)
    assert full_minutes(read) == 0
    assert full_minutes(meant) == meant // 6000


@pytest.mark.parametrize("text", ["5", "0:12", "1.5", "0,07"])
def test_a_short_reading_without_another_likely_reading(text: str) -> None:
    found = short_reading(text, floor_cs=DEFAULT_MIN_STOPWATCH_CS)
    assert found is not None and found.meant_cs is None
    assert found.read_cs == parse_stopwatch(text)


@pytest.mark.parametrize("text", ["0:20", "20", "1:48", "1.48.20", "45,20", "0:59.99"])
def test_a_reading_at_or_above_the_floor_is_plausible(text: str) -> None:
    assert short_reading(text, floor_cs=DEFAULT_MIN_STOPWATCH_CS) is None


def test_the_floor_is_the_event_s() -> None:
    assert short_reading("0:45", floor_cs=6000) == ShortReading(4500, None)
    assert short_reading("0:45", floor_cs=0) is None


def test_the_other_reading_is_offered_only_when_it_is_plausible_itself() -> None:
    # 1,48 meant as 1:48 is still under a floor of 2 minutes: no suggestion.
    assert short_reading("1,48", floor_cs=12000) == ShortReading(148, None)


def test_short_reading_refuses_what_parse_stopwatch_refuses() -> None:
    with pytest.raises(StopwatchError):
        short_reading("1:75", floor_cs=DEFAULT_MIN_STOPWATCH_CS)


@given(st.integers(0, 200 * 6000), st.integers(0, 10 * 6000))
def test_short_reading_is_none_exactly_at_or_above_the_floor(centiseconds: int, floor: int) -> None:
    found = short_reading(format_stopwatch(centiseconds), floor_cs=floor)
    assert (found is None) == (centiseconds >= floor)
    if found is not None:
        assert found.read_cs == centiseconds
        assert found.meant_cs is None or found.meant_cs >= floor


@given(st.integers(0, 59), st.integers(0, 59))
def test_a_decimal_mark_for_a_colon_is_offered_back_as_minutes(minutes: int, seconds: int) -> None:
    meant = (minutes * 60 + seconds) * 100
    found = short_reading(f"{minutes},{seconds:02d}", floor_cs=DEFAULT_MIN_STOPWATCH_CS)
    if minutes * 100 + seconds >= DEFAULT_MIN_STOPWATCH_CS:
        assert found is None  # 20,05 is 20.05 s: plausible as typed
    else:
        assert found is not None
        assert found.meant_cs == (meant if meant >= DEFAULT_MIN_STOPWATCH_CS else None)


@pytest.mark.parametrize(
    ("centiseconds", "parts"), [(10800, (1, 48, 0)), (10820, (1, 48, 20)), (148, (0, 1, 48))]
)
def test_stopwatch_parts_say_minutes_seconds_hundredths(
    centiseconds: int, parts: tuple[int, int, int]
) -> None:
    assert stopwatch_parts(centiseconds) == parts


@given(st.integers(0, 200 * 6000))
def test_stopwatch_parts_add_back_up(centiseconds: int) -> None:
    minutes, seconds, hundredths = stopwatch_parts(centiseconds)
    assert (minutes * 60 + seconds) * 100 + hundredths == centiseconds
    assert 0 <= seconds < 60 and 0 <= hundredths < 100


@given(st.integers(0, 200), st.integers(0, 59), st.integers(0, 99), st.sampled_from(".,  "))
def test_three_groups_read_as_minutes_seconds_hundredths(
    m: int, s: int, c: int, separator: str
) -> None:
    text = f"{m}{separator}{s:02d}{separator}{c:02d}"
    assert parse_stopwatch(text) == (m * 60 + s) * 100 + c
