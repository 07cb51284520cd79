"""Where race day stands, for the services that write it: have results begun, has a table
started, what does the race weather give a table at the start. No writes of their own
but the small recorded deletions and the table's start the services share."""

from __future__ import annotations

from typing import Any

from django.db import connection
from django.utils import timezone
from django.utils.translation import gettext as _

from races.models import RaceTable, RaceWeather, ResultStatus, WeatherDraw
from races.weather import rules as weather_rules
from tournament.access import Actor
from tournament.errors import Conflict, InvalidInput
from tournament.models import Event


def results_started(event: Event) -> bool:
    """True once any race table of ``event`` has a result that is no longer empty."""
    return RaceTable.objects.filter(event=event).exclude(result_status=ResultStatus.EMPTY).exists()


def started_tables(event: Event) -> list[int]:
    """The numbers of the tables where the race started (stands and configurations in
    ink, §5-0-2), or whose result is no longer empty."""
    return sorted(
        RaceTable.objects.filter(event=event)
        .exclude(started_at__isnull=True, result_status=ResultStatus.EMPTY)
        .values_list("number", flat=True)
    )


def race_under_way(event: Event) -> bool:
    """True once a table started, drew its weather or wrote a result: the race weather
    can no longer be drawn again (§2-0-1)."""
    return bool(started_tables(event)) or (
        WeatherDraw.objects.filter(table__event=event, undone_at__isnull=True).exists()
    )


def require_tables_not_started(event: Event) -> None:
    """Refuse to move drivers or clear stands once a table's race started."""
    if results_started(event):
        raise Conflict(_("Results are already being entered: the tables can no longer change."))
    started = started_tables(event)
    if started:
        raise Conflict(
            _(
                "The race has started at table(s) %(tables)s: their stands and "
                "configurations are written in ink (§5-0-2). Race control unlocks a table "
                "(with a reason) before the tables can change."
            )
            % {"tables": ", ".join(str(n) for n in started)}
        )


def require_not_started(table: RaceTable, *, confirmed: str, started: str) -> None:
    """Refuse a change of stands or configurations once the race started at ``table``
    (§5-0-2) or its result is confirmed: ``confirmed`` and ``started`` say which."""
    if table.result_status == ResultStatus.CONFIRMED:
        raise Conflict(confirmed)
    if table.started:
        raise Conflict(started)


def locked_for_start(table: RaceTable) -> RaceTable:
    """Inside the caller's transaction: ``table`` again, its row locked (FOR NO KEY UPDATE)
    and its event read, for a write that may start it (its start, its result).

    Such a write checks the race weather, whose draw checks that no table started
    (DOMAIN.md, "The race's order"): the event's row is held FOR SHARE first, so that the
    draw (which locks it for its writers) and the start wait for each other, while the
    tables starting or saving their results at the same moment do not. The event first,
    then the table, as the draw takes them (no deadlock). The table's other writes lock
    its row only (``races.grid.start.stands_set``)."""
    if connection.features.has_select_for_update:
        event_id = RaceTable.objects.values_list("event_id", flat=True).get(pk=table.pk)
        with connection.cursor() as cursor:
            cursor.execute(
                f'SELECT 1 FROM "{Event._meta.db_table}" WHERE "id" = %s FOR SHARE', [event_id]
            )
    locked = RaceTable.objects.select_for_update(no_key=True, of=("self",))
    return locked.select_related("event").get(pk=table.pk)


def mark_started(actor: Actor, table: RaceTable) -> None:
    """Inside the caller's transaction, on a locked ``table``: the race starts there now
    if it had not (its first result save, without the start's checks: the race was run)."""
    if table.started_at is None:
        table.started_at = timezone.now()
        table.started_by = actor.label
        actor.stamp(table).save(update_fields=["started_at", "started_by"])


def checked_reason(reason: str, *, required: bool = False, message: str = "") -> str:
    """A reason as stored: trimmed, refused (not cut) beyond the 200 characters kept;
    refused when empty if ``required`` (with ``message``, a sentence saying what for)."""
    reason = (reason or "").strip()
    if required and not reason:
        text = message or _("Give a reason.")
        raise InvalidInput(text, {"reason": [_("A reason is required.")]})
    if len(reason) > 200:
        text = _("The reason is too long (200 characters at most).")
        raise InvalidInput(text, {"reason": [text]})
    return reason


def last_session_weather(event: Event) -> str | None:
    session = event.sessions.order_by("-number").first()
    return session.weather if session else None


def start_weather(table: RaceTable, race: RaceWeather | None, event: Event) -> None:
    """Set a table's weather as the race starts (§3-2-2 … §3-2-4)."""
    if race is None:
        table.weather, table.track, table.weather_fixed, table.last_draw = "", "", False, ""
        return
    state = table_start_state(race, event)
    table.weather, table.track = state.weather, state.track
    table.weather_fixed, table.last_draw = state.fixed, state.last_draw or ""


def table_start_state(race: RaceWeather, event: Event) -> weather_rules.TableWeather:
    return weather_rules.race_start(race.weather, last_session_weather(event))  # type: ignore[arg-type]


def delete_recorded(actor: Actor, rows: Any) -> None:
    """Delete ``rows`` one by one, so that each leaves a history row naming ``actor``
    (a queryset's ``delete()`` records the rows without saying who)."""
    for row in rows.order_by("pk"):
        actor.stamp(row).delete()
