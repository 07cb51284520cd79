"""History pages of a table, in words, and race control's "restore this version".

A qualifying table's history lists the table's own changes (created, referee, link), who
was seated at it or moved away, and the changes of its drivers' runs; a race table's lists
its grid, stands, configurations, weather draws, swaps, link and result changes, e.g.
"12:03 referee link of Race table 2 changed the result: 3 Léa Morel: 3rd → Retired (Engine,
lap 2)". The rows come from django-simple-history (who, when, before/after) and from the
manual swaps, which are records of their own.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.db import models
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import formats, timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST, require_safe

from qualifying.models import QualifyingSeat, QualifyingTable, Run
from qualifying.referee.views import table_and_actor
from qualifying.referee.words import changed_values, run_values
from qualifying.selectors import table_drivers
from races.models import (
    CarConfiguration,
    GridSlot,
    ManualSwap,
    RaceResult,
    RaceTable,
    ResultStatus,
    SheetPhoto,
    WeatherDraw,
)
from races.results.forms import Sheet, outcome_text, retirement_details
from races.results.services import result_restore
from races.views import _race_table
from tournament.access import label_in_language
from tournament.errors import ServiceError
from tournament.models import Driver


@dataclass
class Line:
    """One change, told in words: when, who, what (and the details)."""

    when: datetime
    who: str
    what: str
    details: list[str] = field(default_factory=list)
    #: For result versions: the history row race control may restore.
    restorable: Any = None
    link: str = ""


def who_of(record: Any, table: Any = None) -> str:
    """Who made a recorded change: the actor label the service stamped (a referee link's
    said again in the page's language), else the user."""
    if getattr(record, "history_actor", ""):
        return label_in_language(record.history_actor, [table] if table is not None else [])
    user = getattr(record, "history_user", None)
    return user.get_username() if user is not None else _("unknown")


def shown(model: type[models.Model], name: str, value: Any) -> str:
    """A stored value as a person reads it (choice labels, — for nothing)."""
    if value is None or value == "":
        return "—"
    try:
        model_field = model._meta.get_field(name)
    except Exception:  # noqa: BLE001 - a history-only column has no model field
        return str(value)
    if model_field.choices:
        return str(dict(model_field.flatchoices).get(value, value))
    if model_field.is_relation and model_field.related_model is not None:
        related = model_field.related_model._default_manager.filter(pk=value).first()
        return str(related) if related is not None else str(value)
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    return str(value)


def field_changes(
    model: type[models.Model],
    record: Any,
    previous: Any,
    *,
    skip: set[str] | frozenset = frozenset(),
) -> list[str]:
    """ "label: before → after" for each field that changed between two history rows."""
    if previous is None:
        return []
    lines = []
    for change in record.diff_against(previous).changes:
        if change.field in skip:
            continue
        try:
            label = str(model._meta.get_field(change.field).verbose_name)
        except Exception:  # noqa: BLE001
            label = change.field
        lines.append(
            f"{label}{_(':')} {shown(model, change.field, change.old)} → "
            f"{shown(model, change.field, change.new)}"
        )
    return lines


# --- A qualifying table ------------------------------------------------------------------------


def qualifying_lines(table: Any) -> list[Line]:
    drivers = {d.pk: d for d in table_drivers(table=table)}
    records = list(
        Run.history.filter(session__event=table.event_id, driver_id__in=list(drivers))
        .select_related("history_user")
        .order_by("history_date", "history_id")
    )
    sessions = {s.pk: s for s in table.event.sessions.all()}
    previous: dict[int, Any] = {}
    lines = []
    for record in records:
        driver = drivers[record.driver_id]
        session = sessions.get(record.session_id)
        who = f"{driver.number} {driver.name}"
        where = f"S{session.number}" if session else ""
        before = previous.get(record.id)
        if record.history_type == "+":
            what = _("recorded the run of %(driver)s (%(session)s)") % {
                "driver": who,
                "session": where,
            }
            details = [run_values(record)]
        elif record.history_type == "-":
            what = _("deleted the run of %(driver)s (%(session)s)") % {
                "driver": who,
                "session": where,
            }
            details = []
        elif record.cancelled and (before is None or not before.cancelled):
            what = _("cancelled the run of %(driver)s (%(session)s)") % {
                "driver": who,
                "session": where,
            }
            details = [record.cancel_reason] if record.cancel_reason else []
        else:
            what = _("changed the run of %(driver)s (%(session)s)") % {
                "driver": who,
                "session": where,
            }
            details = changed_values(record, before) if before is not None else []
            if not details and not record.reason:
                previous[record.id] = record
                continue  # saved without a change: nothing to tell
        link = (
            reverse("run-history", args=[table.token, session.number, driver.number])
            if session
            else ""
        )
        if record.reason and record.history_type == "~" and not record.cancelled:
            details.append(_("Reason: “%(reason)s”") % {"reason": record.reason})
        lines.append(Line(record.history_date, who_of(record, table), what, details, link=link))
        previous[record.id] = record
    lines.reverse()
    return lines


#: A race table's weather as a draw sets it: told once, by the draw's own line.
WEATHER_FIELDS = frozenset({"weather", "track", "weather_fixed"})


def _start_line(record: Any, previous: Any, table: Any) -> Line | None:
    """A race table's start ("started the race at 14:05", local time) or unlock."""
    before, after = getattr(previous, "started_at", None), getattr(record, "started_at", None)
    if before == after:
        return None
    who = who_of(record, table)
    if after is not None:
        time = formats.time_format(timezone.localtime(after), "H:i")
        return Line(record.history_date, who, _("started the race at %(time)s") % {"time": time})
    reason = getattr(record, "unlock_reason", "")
    return Line(record.history_date, who, _("unlocked the table"), [reason] if reason else [])


def _own_changes(
    model: type[models.Model], table: Any, draws_at: tuple[datetime, ...] = ()
) -> list[Line]:
    """A table's own rows (qualifying or race): created, new referee link, its start and
    unlock, other changes; the weather a draw (made at ``draws_at``) set is told by the
    draw's own line."""
    records = list(
        model.history.filter(id=table.pk)  # type: ignore[attr-defined]
        .select_related("history_user")
        .order_by("history_date", "history_id")
    )
    lines = []
    previous = None
    for index, record in enumerate(records):
        if previous is None:
            who = who_of(record, table)
            if not (record.history_actor or record.history_user_id) and len(records) > 1:
                who = who_of(records[index + 1], table)  # created, then saved by the allocation
            what = _("created the table") if record.history_type == "+" else _("saved the table")
            lines.append(Line(record.history_date, who, what))
        else:
            if record.token_digest != previous.token_digest:
                lines.append(
                    Line(
                        record.history_date,
                        who_of(record, table),
                        _("gave the table a new referee link"),
                    )
                )
            if started := _start_line(record, previous, table):
                lines.append(started)
            skip = {"token_digest", "result_status", "last_draw", "started_by", "started_at"}
            skip |= {"unlock_reason"}
            if any(_during(record.history_date, when) for when in draws_at):
                skip |= WEATHER_FIELDS
            details = field_changes(model, record, previous, skip=skip)
            if details:
                lines.append(
                    Line(
                        record.history_date, who_of(record, table), _("changed the table"), details
                    )
                )
        previous = record
    return lines


def _places_at(model: type[models.Model], table: models.Model) -> Iterator[tuple[Any, Any]]:
    """History rows of the places (qualifying seats, grid slots) that were ever at ``table``,
    oldest first, each with the place's state before it; only the rows that concern this
    table (a place moved between two other tables is not its business)."""
    ids = set(model.history.filter(table_id=table.pk).values_list("id", flat=True).distinct())
    records = (
        model.history.filter(id__in=ids)
        .select_related("history_user")
        .order_by("history_date", "history_id")
    )
    previous: dict[int, Any] = {}
    for record in records:
        before = previous.get(record.id)
        previous[record.id] = record
        if record.table_id == table.pk or (before is not None and before.table_id == table.pk):
            yield record, before


def _moved(driver: str, before: Any, record: Any, tables: dict[int, str]) -> str | None:
    """The line for a place moved between tables, or None when it stayed at its table."""
    if before is None or before.table_id == record.table_id:
        return None
    return _("moved %(driver)s from %(old)s to %(new)s") % {
        "driver": driver,
        "old": tables.get(before.table_id, "?"),
        "new": tables.get(record.table_id, "?"),
    }


def seat_lines(table: QualifyingTable, names_by_driver: dict[int, str]) -> list[Line]:
    """Who was seated at the qualifying table, moved to or from it, or unseated."""
    tables = {t.pk: str(t) for t in QualifyingTable.objects.filter(event=table.event_id)}
    lines = []
    for record, before in _places_at(QualifyingSeat, table):
        driver = names_by_driver.get(record.driver_id, str(record.driver_id))
        if record.history_type == "+":
            what = _("seated %(driver)s at the table") % {"driver": driver}
        elif record.history_type == "-":
            what = _("took %(driver)s off the table") % {"driver": driver}
        elif moved := _moved(driver, before, record, tables):
            what = moved
        elif before is not None and before.order != record.order:
            what = _("changed the order of %(driver)s at the table") % {"driver": driver}
        else:
            continue  # saved without a change: nothing to tell
        lines.append(Line(record.history_date, who_of(record, table), what))
    return lines


def qualifying_table_lines(table: QualifyingTable) -> list[Line]:
    """Everything of a qualifying table: its own changes, its seats, its drivers' runs."""
    drivers = {
        d.pk: f"{d.number} {d.name}"
        for d in Driver.objects.filter(championship=table.event.championship_id)
    }
    lines = _own_changes(QualifyingTable, table) + seat_lines(table, drivers)
    lines += qualifying_lines(table)
    lines.sort(key=lambda line: line.when, reverse=True)
    return lines


@require_safe
def qualifying_table_history(request: HttpRequest, token: str) -> HttpResponse:
    table, actor = table_and_actor(request, token)
    return render(
        request,
        "history/table.html",
        {
            "table": table,
            "event": table.event,
            "lines": qualifying_table_lines(table),
            "back": reverse("qtable", args=[table.token]),
            "is_organiser": actor.can_organise(table.event.championship),
        },
    )


# --- A race table --------------------------------------------------------------------------


def _sheet_words(sheet: Sheet, names: dict[int, str]) -> list[str]:
    words = [f"{outcome_text(sheet, n)} {names.get(n, n)}" for n in sheet.finish]
    words += [
        _("retired: %(driver)s (%(details)s)")
        % {"driver": names.get(r["driver"], r["driver"]), "details": retirement_details(r)}
        for r in sheet.retired
    ]
    words += [_("did not start: %(driver)s") % {"driver": names.get(n, n)} for n in sheet.dns]
    return words


def result_lines(table: RaceTable, names: dict[int, str], grid: list[GridSlot]) -> list[Line]:
    records = list(
        RaceResult.history.filter(table_id=table.pk)
        .select_related("history_user")
        .order_by("history_date", "history_id")
    )
    lines = []
    previous = None
    for record in records:
        sheet = Sheet.of(record, grid)
        details: list[str] = []
        if previous is None or record.history_type == "+":
            what = _("wrote the result (version %(version)s)") % {"version": record.version}
            details = _sheet_words(sheet, names)
        elif record.confirmed_at and not previous.confirmed_at:
            what = _("confirmed the result (version %(version)s)") % {"version": record.version}
        elif previous.confirmed_at and not record.confirmed_at:
            what = _("reopened the result (version %(version)s)") % {"version": record.version}
            details = [record.reopen_reason] if record.reopen_reason else []
        else:
            before = Sheet.of(previous, grid)
            what = _("changed the result (version %(version)s)") % {"version": record.version}
            if record.history_change_reason:
                what = f"{what}: {record.history_change_reason}"
            for slot in grid:
                number = slot.driver.number
                old, new = outcome_text(before, number), outcome_text(sheet, number)
                if old != new:
                    details.append(f"{names[number]}: {old} → {new}")
            if record.submitted_at and not previous.submitted_at:
                details.append(_("sent to race control"))
        lines.append(
            Line(record.history_date, who_of(record, table), what, details, restorable=record)
        )
        previous = record
    return lines


def grid_lines(table: RaceTable, names_by_driver: dict[int, str]) -> list[Line]:
    tables = {t.pk: str(t) for t in RaceTable.objects.filter(event=table.event_id)}
    lines = []
    for record, before in _places_at(GridSlot, table):
        driver = names_by_driver.get(record.driver_id, str(record.driver_id))
        if record.history_type == "+":
            what = _("placed %(driver)s on the grid, position %(position)s") % {
                "driver": driver,
                "position": record.position,
            }
            details = []
        elif record.history_type == "-":
            what = _("removed %(driver)s from the grid") % {"driver": driver}
            details = []
        elif moved := _moved(driver, before, record, tables):
            what = moved
            details = field_changes(GridSlot, record, before, skip={"table", "event"})
        else:
            what = _("changed the grid place of %(driver)s") % {"driver": driver}
            details = field_changes(GridSlot, record, before)
            if not details:
                continue  # saved without a change: nothing to tell
            if before is not None and before.stand != record.stand and record.stand:
                what = _("gave stand %(stand)s to %(driver)s") % {
                    "stand": record.stand,
                    "driver": driver,
                }
        lines.append(Line(record.history_date, who_of(record, table), what, details))
    return lines


def configuration_lines(table: RaceTable, names_by_slot: dict[int, str]) -> list[Line]:
    records = list(
        CarConfiguration.history.filter(slot_id__in=list(names_by_slot))
        .select_related("history_user")
        .order_by("history_date", "history_id")
    )
    previous: dict[int, Any] = {}
    lines = []
    for record in records:
        before = previous.get(record.id)
        previous[record.id] = record
        driver = names_by_slot.get(record.slot_id, "?")
        if before is None:
            what = _("set the configuration of %(driver)s") % {"driver": driver}
            details = [
                ", ".join(
                    f"{CarConfiguration._meta.get_field(name).verbose_name} {getattr(record, name)}"
                    for name in (
                        "tyres",
                        "brakes",
                        "gearbox",
                        "body",
                        "engine",
                        "road_holding",
                        "stand_points",
                    )
                )
            ]
        else:
            what = _("changed the configuration of %(driver)s") % {"driver": driver}
            details = field_changes(CarConfiguration, record, before)
        lines.append(Line(record.history_date, who_of(record, table), what, details))
    return lines


def table_lines(table: RaceTable) -> list[Line]:
    """Changes of the table itself: start and unlock, weather, new referee link, referee."""
    draws_at = tuple(
        WeatherDraw.history.filter(table_id=table.pk).values_list("history_date", flat=True)
    )
    return _own_changes(RaceTable, table, draws_at)


def _draw_words(draw: Any) -> str:
    return _("drew the weather: d20 = %(roll)s, %(weather)s, track %(track)s%(fixed)s") % {
        "roll": draw.roll,
        "weather": shown(WeatherDraw, "drawn", draw.drawn),
        "track": shown(WeatherDraw, "track", draw.track).lower(),
        "fixed": _(", fixed for the rest of the race") if draw.fixed else "",
    }


def weather_lines(table: RaceTable) -> list[Line]:
    """The table's weather draws, and their clearing when the allocation ran again."""
    records = list(
        WeatherDraw.history.filter(table_id=table.pk)
        .select_related("history_user")
        .order_by("history_date", "history_id")
    )
    lines = []
    for record in records:
        who = who_of(record, table) if (record.history_actor or record.history_user_id) else ""
        if record.history_type == "+":
            lines.append(
                Line(
                    record.history_date,
                    who or label_in_language(record.actor, [table]) or _("unknown"),
                    _draw_words(record),
                )
            )
        elif record.history_type == "~" and record.undone_at:
            what = _("undid weather draw %(number)s (d20 = %(roll)s)") % {
                "number": record.number,
                "roll": record.roll,
            }
            lines.append(Line(record.history_date, who or _("unknown"), what, [record.undo_reason]))
        elif record.history_type == "-":
            what = _("cleared weather draw %(number)s (d20 = %(roll)s)") % {
                "number": record.number,
                "roll": record.roll,
            }
            lines.append(Line(record.history_date, who or _("unknown"), what))
    # Draws stored before their history was kept: told from the draw itself.
    recorded = {record.id for record in records}
    for draw in table.weather_draws.exclude(pk__in=recorded):
        who = label_in_language(draw.actor, [table]) or _("unknown")
        lines.append(Line(draw.created_at, who, _draw_words(draw)))
    return lines


def _during(when: datetime, swap_at: datetime) -> bool:
    """True for a change made by the swap recorded at ``swap_at`` (same transaction)."""
    return swap_at - timedelta(seconds=5) <= when <= swap_at + timedelta(seconds=1)


def photo_lines(table: RaceTable) -> list[Line]:
    """The photos of the signed sheet: each sent or given to the table, each replaced (a
    replaced photo stays: its row is never deleted)."""
    records = SheetPhoto.history.filter(table_id=table.pk).select_related("history_user")
    lines = []
    for record in records.order_by("history_date", "history_id"):
        if record.history_type == "+":
            what = _("sent photo %(id)s of the signed sheet (%(how)s)")
        elif record.replaced_by_id:
            what = _("replaced photo %(id)s by photo %(new)s")
        else:
            what = _("gave photo %(id)s to this table (%(how)s)")
        words = {"id": record.id, "new": record.replaced_by_id, "how": record.get_source_display()}
        lines.append(Line(record.history_date, who_of(record, table), what % words))
    return lines


def race_lines(table: RaceTable) -> list[Line]:
    grid = list(table.slots.select_related("driver").order_by("position"))
    names = {s.driver.number: f"{s.driver.number} {s.driver.name}" for s in grid}
    drivers = {
        d.pk: f"{d.number} {d.name}"
        for d in Driver.objects.filter(championship=table.event.championship_id)
    }
    swaps = [
        swap
        for swap in ManualSwap.objects.filter(event=table.event_id).select_related(
            "driver_a", "driver_b"
        )
        if table.number in (swap.table_a, swap.table_b)
    ]
    lines = table_lines(table)
    # A swap moves two grid places and renumbers both grids: it reads as its one line below,
    # not as the grid's moves through the parking positions it uses.
    lines += [
        line
        for line in grid_lines(table, drivers)
        if not any(_during(line.when, swap.created_at) for swap in swaps)
    ]
    lines += configuration_lines(table, {s.pk: names[s.driver.number] for s in grid})
    lines += weather_lines(table)
    for swap in swaps:
        lines.append(
            Line(
                swap.created_at,
                label_in_language(swap.actor, [table])
                or (swap.user.get_username() if swap.user_id else _("unknown")),
                _("swapped %(a)s (table %(ta)s) and %(b)s (table %(tb)s)")
                % {
                    "a": f"{swap.driver_a.number} {swap.driver_a.name}",
                    "ta": swap.table_a,
                    "b": f"{swap.driver_b.number} {swap.driver_b.name}",
                    "tb": swap.table_b,
                },
                [swap.reason] if swap.reason else [],
            )
        )
    lines += result_lines(table, names, grid)
    lines += photo_lines(table)
    lines.sort(key=lambda line: line.when, reverse=True)
    return lines


@require_safe
def race_table_history(request: HttpRequest, token: str) -> HttpResponse:
    table, actor = _race_table(request, token)
    result = RaceResult.objects.filter(table=table).first()
    is_organiser = actor.can_organise(table.event.championship)
    return render(
        request,
        "history/table.html",
        {
            "table": table,
            "event": table.event,
            "lines": race_lines(table),
            "back": reverse("rtable", args=[table.token]),
            "is_organiser": is_organiser,
            "result": result,
            "can_restore": is_organiser
            and result is not None
            and table.result_status != ResultStatus.CONFIRMED,
            "confirmed": table.result_status == ResultStatus.CONFIRMED,
        },
    )


@require_POST
def result_restore_view(request: HttpRequest, token: str) -> HttpResponse:
    """Race control restores an earlier version of the result (a new version is recorded)."""
    table, actor = _race_table(request, token)
    if not actor.can_organise(table.event.championship):
        raise PermissionDenied(_("Only race control may restore a version of the result."))
    raw_id, raw_version = request.POST.get("history_id", ""), request.POST.get("version", "")
    if not (raw_id.isascii() and raw_id.isdigit()) or len(raw_id) > 12:
        messages.error(request, _("Choose a version to restore."))
        return redirect("rtable-history", token=token)
    version = int(raw_version) if raw_version.isascii() and raw_version.isdigit() else None
    try:
        restored = result_restore(actor=actor, table=table, history_id=int(raw_id), version=version)
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(
            request,
            _("Earlier version restored: the result is now version %(version)s.")
            % {"version": restored.version},
        )
    return redirect("rtable-history", token=token)
