"""Race weather of Formula Dé competitions, table by table: no database here.

Everything in this module is pure: plain values in, plain values out. Article numbers
in comments (``§3-2-6``) refer to ``rules/formule-de-competition-rules.fr.txt``.

The overall pole draws the race weather (§2-0-1, §3-2-1). Sun or rain hold for the
whole race at every table (§3-2-2, §3-2-3); variable weather evolves at each table on
its own (§3-2-4), by draws at the end of a game turn (§3-2-5) following §3-2-6.

Exception messages are plain English on purpose: callers translate them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, get_args

Weather = Literal["sun", "variable", "rain"]
Track = Literal["dry", "wet"]

_WEATHERS: tuple[str, ...] = get_args(Weather)


@dataclass(frozen=True)
class TableWeather:
    """A table's weather and track during the race.

    ``fixed`` is true when nothing can change them any more (§3-2-2, §3-2-3, or
    §3-2-6 4); otherwise sun and rain are temporary until the next draw.
    """

    weather: Weather
    track: Track
    fixed: bool
    last_draw: Weather | None


class WeatherFixed(Exception):
    """A weather draw at a table whose weather is fixed for the rest of the race."""


def _check_weather(name: str, value: object) -> None:
    if value not in _WEATHERS:
        raise ValueError(f"unknown {name}: {value!r}")


def race_start(race_weather: Weather, last_session_weather: Weather | None) -> TableWeather:
    """Weather and track of every table at the start of the race (§3-2-1 … §3-2-4).

    ``last_session_weather`` is the weather of the qualifying session just before the
    race, or ``None`` without qualifying (quick-rules draw): a variable race then
    starts dry (product choice, the text is silent).
    """
    _check_weather("race weather", race_weather)
    if last_session_weather is not None:
        _check_weather("qualifying weather", last_session_weather)
    if race_weather == "sun":
        # §3-2-2: fine weather for the whole race at every table, dry track.
        return TableWeather(weather="sun", track="dry", fixed=True, last_draw=None)
    if race_weather == "rain":
        # §3-2-3: rain for the whole race at every table, wet track.
        return TableWeather(weather="rain", track="wet", fixed=True, last_draw=None)
    # §3-2-4: variable; dry after a sunny or variable session, wet after rain.
    track: Track = "wet" if last_session_weather == "rain" else "dry"
    return TableWeather(weather="variable", track=track, fixed=False, last_draw=None)


def apply_draw(state: TableWeather, drawn: Weather) -> TableWeather:
    """The table's weather after a draw at the end of a game turn (§3-2-5, §3-2-6).

    Raises :class:`WeatherFixed` when the table's weather is already fixed.
    """
    if state.fixed:
        raise WeatherFixed(f"the weather is fixed for the rest of the race ({state.weather})")
    _check_weather("drawn weather", drawn)
    if drawn == "variable":
        # §3-2-6 3): variable again, the track stays as it was.
        return TableWeather(weather="variable", track=state.track, fixed=False, last_draw=drawn)
    # §3-2-6 1), 2) and 5): temporary sun dries the track, temporary rain wets it;
    # 4) the same one twice in a row fixes weather and track for the rest of the race.
    track: Track = "dry" if drawn == "sun" else "wet"
    return TableWeather(weather=drawn, track=track, fixed=drawn == state.last_draw, last_draw=drawn)


def replay(start: TableWeather, draws: Sequence[Weather]) -> TableWeather:
    """A table's weather after ``draws`` in the order they were made, from ``start``.

    Undoing a mistaken draw (race control, with a reason) is replaying the draws that
    remain: the weather, the track and "twice in a row" then read as if it was never made.
    Raises :class:`WeatherFixed` when a draw follows a fixed weather.
    """
    state = start
    for drawn in draws:
        state = apply_draw(state, drawn)
    return state


RedrawRefusal = Literal["reason_required", "started"]


def race_redraw_refusal(*, drawn_before: int, started: bool, reason: str) -> RedrawRefusal | None:
    """Why the race weather may not be drawn now, None when it may (§2-0-1, §3-2-1).

    The overall pole draws the race weather once, and every table races under it. A second
    draw is the organisers' decision (a die off the table, a wrong scale), so it needs a
    reason; once a table has started (the referee's start, stands and configurations
    locked, a result written) the race is under way and its weather can no longer change.
    The first draw is always allowed: until then no table has any weather.
    """
    if drawn_before == 0:
        return None
    if started:
        return "started"
    if not (reason or "").strip():
        return "reason_required"
    return None
