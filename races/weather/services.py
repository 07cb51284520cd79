"""Writes of the race weather (§2-0-1, §3-2): the overall pole's draw, drawn once (a new
draw only with an organiser's reason, never once a table started), every draw kept; the
draws at a table of a variable race, and race control undoing a mistaken one.

The rules live in ``races.weather.rules``; here we check who acts, validate, save, and record.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext as _

from qualifying.closure import qualifying_closed
from qualifying.services import roll_or_record
from races.grid.state import (
    checked_reason,
    race_under_way,
    results_started,
    start_weather,
    table_start_state,
)
from races.models import RaceTable, RaceWeather, RaceWeatherDraw, ResultStatus, WeatherDraw
from races.weather import rules as weather_rules
from tournament.access import Actor
from tournament.errors import Conflict, NotAllowed
from tournament.games.registry import require_step
from tournament.models import Event
from tournament.registration.services import require_organiser


def race_weather_draw(
    *, actor: Actor, event: Event, roll: int | None = None, reason: str = ""
) -> RaceWeather:
    """The overall pole's d20 for the race (§2-0-1, §3-2-1); sets every table's start.

    Refused until qualifying is closed by the allocation (§2-0-1: « dès que les essais
    sont finis »). The first draw is the race's. Drawing again needs the organiser's
    ``reason`` (a die off the table, a wrong scale) and is refused once a table has started;
    every draw is kept (``event.race_weather_draws``). Answers the race weather now.
    """
    require_organiser(actor, event.championship)
    require_step(event, "race_weather")
    reason = checked_reason(reason)
    _require_grid_known(event)
    value, source = roll_or_record(roll)
    weather = event.weather_scale.weather_for(value)
    with transaction.atomic():
        # One draw at a time (races.grid.start.stands_set says why NO KEY).
        Event.objects.select_for_update(no_key=True).filter(pk=event.pk).first()
        race = RaceWeather.objects.filter(event=event).first()
        drawn_before = RaceWeatherDraw.objects.filter(event=event).count()
        if race is not None and drawn_before == 0:
            drawn_before = 1  # drawn before the draws were listed
        if drawn_before == 0 and results_started(event):
            raise Conflict(
                _("Results are already being entered: the race weather can no longer be drawn.")
            )
        refusal = weather_rules.race_redraw_refusal(
            drawn_before=drawn_before, started=race_under_way(event), reason=reason
        )
        if refusal == "started":
            raise Conflict(
                _(
                    "The race has started at a table: its weather (%(weather)s, d20 = "
                    "%(roll)s) can no longer be drawn again."
                )
                % {"weather": race.get_weather_display(), "roll": race.roll}  # type: ignore[union-attr]
            )
        if refusal == "reason_required":
            raise Conflict(
                _(
                    "The race weather is already drawn (%(weather)s, d20 = %(roll)s): the "
                    "overall pole draws it once (§2-0-1). To draw again, say why (a die off "
                    "the table, a wrong scale)."
                )
                % {"weather": race.get_weather_display(), "roll": race.roll},  # type: ignore[union-attr]
                {"reason": [_("A reason is required to draw the race weather again.")]},
            )
        race = race or RaceWeather(event=event)
        race.roll, race.source, race.weather = value, source, weather
        actor.stamp(race).save()
        draw = RaceWeatherDraw(
            event=event,
            number=drawn_before + 1,
            roll=value,
            source=source,
            weather=weather,
            reason=reason,
            actor=actor.label,
        )
        actor.stamp(draw).save()
        for table in RaceTable.objects.filter(event=event):
            start_weather(table, race, event)
            actor.stamp(table).save()
    return race


def _require_grid_known(event: Event) -> None:
    """The overall pole draws the race weather « dès que les essais sont finis » (§2-0-1):
    once qualifying (or, in mode ``draw``, the d20 draw) is closed by the allocation, never
    before; until then the pole is not known for good."""
    if not qualifying_closed(event=event):
        raise Conflict(
            _(
                "Qualifying is not closed yet: the overall pole draws the race weather once "
                "the race tables are built on the classification (§2-0-1: « dès que les "
                "essais sont finis »)."
            ),
            {"allocation": [_("Build the race tables first.")]},
        )


def _table_state(table: RaceTable) -> weather_rules.TableWeather:
    return weather_rules.TableWeather(
        weather=table.weather,  # type: ignore[arg-type]
        track=table.track,  # type: ignore[arg-type]
        fixed=table.weather_fixed,
        last_draw=table.last_draw or None,  # type: ignore[arg-type]
    )


def _set_state(table: RaceTable, state: weather_rules.TableWeather) -> None:
    table.weather, table.track = state.weather, state.track
    table.weather_fixed, table.last_draw = state.fixed, state.last_draw or ""


def table_weather_draw(*, actor: Actor, table: RaceTable, roll: int | None = None) -> WeatherDraw:
    """A weather draw at one table of a variable race (§3-2-4 … §3-2-6).

    ``roll`` is the die the referee rolled; None lets the system roll (the pages ask for
    it explicitly). A draw belongs to the race (§3-2-4: at the end of a game turn): it is
    refused before the referee started the table (stands and configurations first).
    """
    if not actor.can_referee(table):
        raise NotAllowed(_("Only this table's referee or an organiser may draw its weather."))
    event = table.event
    require_step(event, "race_weather")
    value, source = roll_or_record(roll)
    drawn = event.weather_scale.weather_for(value)
    with transaction.atomic():
        table = RaceTable.objects.select_for_update(no_key=True).get(pk=table.pk)
        race = RaceWeather.objects.filter(event=event).first()
        if race is None or race.weather != "variable":
            raise Conflict(_("The weather evolves only in a variable race."))
        if not table.started:
            raise Conflict(
                _(
                    "The race has not started at %(table)s: start it first (stands and "
                    "configurations), then draw the weather at the end of a game turn "
                    "(§3-2-4)."
                )
                % {"table": table},
                {"start": [_("Start the race at this table first.")]},
            )
        try:
            after = weather_rules.apply_draw(_table_state(table), drawn)  # type: ignore[arg-type]
        except weather_rules.WeatherFixed as exc:
            raise Conflict(
                _("The weather of this table is fixed for the rest of the race.")
            ) from exc
        _set_state(table, after)
        actor.stamp(table).save()
        last = table.weather_draws.aggregate(last=Max("number"))["last"] or 0
        draw = WeatherDraw(
            table=table,
            number=last + 1,
            roll=value,
            source=source,
            drawn=drawn,
            weather=after.weather,
            track=after.track,
            fixed=after.fixed,
            actor=actor.label,
        )
        actor.stamp(draw).save()
        return draw


def table_weather_undo(*, actor: Actor, table: RaceTable, reason: str) -> WeatherDraw:
    """Race control undoes the last weather draw of a table, made by mistake (a reason is
    required). The draw stays listed, marked undone; the table's weather and track are
    those of the draws that remain (§3-2-6 read again from the race's start)."""
    require_organiser(actor, table.event.championship)
    reason = checked_reason(
        reason, required=True, message=_("Say why this weather draw is undone.")
    )
    event = table.event
    with transaction.atomic():
        table = RaceTable.objects.select_for_update(no_key=True).get(pk=table.pk)
        if table.result_status == ResultStatus.CONFIRMED:
            raise Conflict(
                _("This table's result is confirmed: reopen it before changing its weather.")
            )
        kept = list(table.weather_draws.filter(undone_at__isnull=True).order_by("number"))
        race = RaceWeather.objects.filter(event=event).first()
        if not kept or race is None:
            raise Conflict(_("%(table)s has no weather draw to undo.") % {"table": table})
        draw = kept.pop()
        draw.undone_at = timezone.now()
        draw.undone_by = actor.label
        draw.undo_reason = reason
        actor.stamp(draw).save(update_fields=["undone_at", "undone_by", "undo_reason"])
        state = weather_rules.replay(
            table_start_state(race, event),
            [d.drawn for d in kept],  # type: ignore[misc]
        )
        _set_state(table, state)
        table._change_reason = reason  # type: ignore[attr-defined]
        actor.stamp(table).save()
    return draw
