"""JSON API v1, Race (Formula Dé) (``API.md``): the race itself once the tables exist: its
weather drawn once by the overall pole once qualifying is closed by the allocation (every
draw listed), the weather draws at a started table and race control undoing a mistaken
one, the referee's start that writes stands and configurations in ink (§5-0-2), and race
control's unlock.

The services (``races.weather.services``, ``races.grid.start``) decide who may write
and what is allowed; this module translates HTTP into their calls and back.
"""

from __future__ import annotations

import datetime
from typing import Annotated, Any, Literal

from django.http import HttpRequest
from django.utils.translation import gettext as _
from ninja import Router, Schema
from pydantic import Field

from races.grid import start as stand_services
from races.grid.api import TrackName, WeatherName, get_table, require_own_or
from races.grid.state import last_session_weather
from races.models import RaceTable, RaceWeather, RaceWeatherDraw, WeatherDraw
from races.weather import rules as weather_rules
from races.weather import services as weather_services
from tournament.apikit import ERRORS, Int, actor_of, get_event, require_token
from tournament.errors import NotFound
from tournament.models import Event

router = Router(tags=["Race"])


class RollIn(Schema):
    roll: Int | None = Field(None, description="1..20; missing: the system rolls.")


class RaceWeatherIn(RollIn):
    reason: Annotated[str, Field(max_length=200)] = Field(
        "",
        description="Required to draw again (a die off the table, a wrong scale); never "
        "possible once a table has started.",
    )


class RaceWeatherDrawOut(Schema):
    number: int
    roll: int
    source: Literal["physical", "system"]
    weather: WeatherName
    who: str
    when: datetime.datetime
    reason: str


class RaceWeatherOut(Schema):
    roll: int
    source: Literal["physical", "system"]
    weather: WeatherName
    track: TrackName = Field(description="Every table's track at the start of the race.")
    draws: list[RaceWeatherDrawOut] = Field(
        description="Every draw of the race weather, the first (the race's) first."
    )


def race_weather_out(race: RaceWeather, event: Event) -> dict[str, Any]:
    start = weather_rules.race_start(
        race.weather,  # type: ignore[arg-type]
        last_session_weather(event),  # type: ignore[arg-type]
    )
    return {
        "roll": race.roll,
        "source": race.source,
        "weather": race.weather,
        "track": start.track,
        "draws": [
            {
                "number": draw.number,
                "roll": draw.roll,
                "source": draw.source,
                "weather": draw.weather,
                "who": draw.actor,
                "when": draw.created_at,
                "reason": draw.reason,
            }
            for draw in RaceWeatherDraw.objects.filter(event=event).order_by("number")
        ],
    }


@router.post("/events/{event}/race-weather", response={200: RaceWeatherOut, **ERRORS})
def race_weather(
    request: HttpRequest, event: str, payload: RaceWeatherIn | None = None
) -> dict[str, Any]:
    """The overall pole's d20 for the race (§2-0-1, §3-2-1); sets every table's start.

    Variable weather starts dry, or wet after a rainy last qualifying session (§3-2-4).
    The first draw is the race's: drawing again is a 409 unless an organiser gives a
    ``reason``, and a 409 whatever the reason once a table has started. Every draw is
    kept and listed in ``draws``. 409 until qualifying (in mode ``draw``, the d20 draw) is
    closed by the allocation (``errors.allocation``; §2-0-1 « dès que les essais sont
    finis »).
    """
    actor = actor_of(request)
    require_token(actor)
    found = get_event(event)
    race = weather_services.race_weather_draw(
        actor=actor,
        event=found,
        roll=payload.roll if payload else None,
        reason=payload.reason if payload else "",
    )
    return race_weather_out(race, found)


@router.get("/events/{event}/race-weather", response={200: RaceWeatherOut, **ERRORS})
def race_weather_detail(request: HttpRequest, event: str) -> dict[str, Any]:
    """The race weather and every draw of it: organisers, the tables' referees, anyone once
    the allocation is published. 404 before the first draw."""
    actor = actor_of(request)
    found = get_event(event)
    require_own_or(actor, found, published=found.published_allocation)
    race = RaceWeather.objects.filter(event=found).first()
    if race is None:
        raise NotFound(_("The race weather is not drawn yet."))
    return race_weather_out(race, found)


class WeatherDrawOut(Schema):
    number: int = Field(description="The draw's number at this table (1, 2, …).")
    roll: int
    source: Literal["physical", "system"]
    weather: WeatherName
    track: TrackName
    fixed: bool = Field(description="True when weather and track hold for the rest of the race.")


def weather_draw_out(draw: WeatherDraw) -> dict[str, Any]:
    return {
        "number": draw.number,
        "roll": draw.roll,
        "source": draw.source,
        "weather": draw.weather,
        "track": draw.track,
        "fixed": draw.fixed,
    }


@router.post("/events/{event}/tables/{t}/weather-draws", response={200: WeatherDrawOut, **ERRORS})
def weather_draw(
    request: HttpRequest, event: str, t: int, payload: RollIn | None = None
) -> dict[str, Any]:
    """A weather draw at the table in a variable race (§3-2-4 … §3-2-6).

    Sun or rain twice in a row fixes the weather; 409 when the race weather is not
    variable, the table's weather is already fixed, or the table has not started (a draw
    belongs to the race: the referee starts the table first, ``errors.start``). The
    table's referee or an organiser.
    """
    actor = actor_of(request)
    require_token(actor)
    table = get_table(get_event(event), t)
    draw = weather_services.table_weather_draw(
        actor=actor, table=table, roll=payload.roll if payload else None
    )
    return weather_draw_out(draw)


class ReasonIn(Schema):
    reason: Annotated[str, Field(max_length=200)]


class UndoneDrawOut(WeatherDrawOut):
    undone_by: str
    undone_at: datetime.datetime
    undo_reason: str
    table_weather: WeatherName
    table_track: TrackName
    table_fixed: bool


@router.delete(
    "/events/{event}/tables/{t}/weather-draws/last", response={200: UndoneDrawOut, **ERRORS}
)
def weather_draw_undo(
    request: HttpRequest, event: str, t: int, payload: ReasonIn
) -> dict[str, Any]:
    """Race control undoes the table's last weather draw, made by mistake, saying why.

    The draw stays in the table's history, marked undone; the table's weather and track
    are read again from the draws that remain. 409 without a draw to undo. Organisers only.
    """
    actor = actor_of(request)
    require_token(actor)
    table = get_table(get_event(event), t)
    draw = weather_services.table_weather_undo(actor=actor, table=table, reason=payload.reason)
    table = RaceTable.objects.get(pk=table.pk)
    return {
        **weather_draw_out(draw),
        "undone_by": draw.undone_by,
        "undone_at": draw.undone_at,
        "undo_reason": draw.undo_reason,
        "table_weather": table.weather,
        "table_track": table.track,
        "table_fixed": table.weather_fixed,
    }


class StartedOut(Schema):
    number: int
    started_at: datetime.datetime | None


@router.post("/events/{event}/tables/{t}/start", response={200: StartedOut, **ERRORS})
def table_start(request: HttpRequest, event: str, t: int) -> dict[str, Any]:
    """The referee starts the race at the table: its stands and configurations are then
    written in ink (§5-0-2). 409 naming what is missing: the race weather in a competition
    (``errors.race_weather``, §3-0-1), a stand (not under the quick rules), a configuration
    when the event records them. The table's referee or an organiser."""
    actor = actor_of(request)
    require_token(actor)
    table = stand_services.table_start(actor=actor, table=get_table(get_event(event), t))
    return {"number": table.number, "started_at": table.started_at}


@router.post("/events/{event}/tables/{t}/unlock", response={200: StartedOut, **ERRORS})
def table_unlock(request: HttpRequest, event: str, t: int, payload: ReasonIn) -> dict[str, Any]:
    """Race control unlocks a started table, saying why: stands and configurations may
    change again until the referee starts it anew. 409 when it has not started.
    Organisers only."""
    actor = actor_of(request)
    require_token(actor)
    table = stand_services.table_unlock(
        actor=actor, table=get_table(get_event(event), t), reason=payload.reason
    )
    return {"number": table.number, "started_at": table.started_at}
