"""Pages of race results: a table's referee enters the race sheet (draft, then submitted to
race control), and race control follows every table on a desk, confirms and reopens.

Writes go through ``races.grid.services`` (``result_save``, ``result_confirm``,
``result_reopen``); these views fetch, parse the form, call the service, and redirect or
show the refusal with what was typed kept.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from races import variants
from races.models import (
    GridSlot,
    RaceResult,
    RaceTable,
    RaceWeather,
    RaceWeatherDraw,
    ResultLine,
    ResultStatus,
    SheetPhoto,
    WeatherDraw,
)
from races.photos.selectors import photos_by_table, photos_of
from races.results.forms import (
    ConfirmForm,
    ReopenForm,
    ResultForm,
    Sheet,
    driver_label,
    ordinal,
    outcome_text,
    retirement_details,
)
from races.results.services import result_confirm, result_reopen, result_save
from races.views import _race_table
from tournament.access import actor_for, desk_event, organised_event, referee_name, table_actor
from tournament.errors import ServiceError
from tournament.models import Event, Sanction

# --- What a sheet says, in words ------------------------------------------------------------


@dataclass
class Summary:
    """A sheet read aloud: "1st 3 Léa Morel, 2nd …; retired: 2 Théo (off track, lap 1)…"."""

    finish: list[tuple[str, str]] = field(default_factory=list)
    retired: list[str] = field(default_factory=list)
    dns: list[str] = field(default_factory=list)
    unwritten: list[str] = field(default_factory=list)
    gaps: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.finish or self.retired or self.dns)


def summarise(
    sheet: Sheet,
    grid: list[GridSlot],
    gaps: list[int] | None = None,
    places: dict[int, int] | None = None,
) -> Summary:
    """The sheet in words; ``places`` are the places as typed (else closed up, as stored)."""
    names = {s.driver.number: driver_label(s) for s in grid}
    places = places or {}
    return Summary(
        finish=[
            (ordinal(places.get(n, p)), names.get(n, str(n)))
            for p, n in enumerate(sheet.finish, start=1)
        ],
        retired=[
            f"{names.get(r['driver'], str(r['driver']))} ({retirement_details(r)})"
            for r in sheet.retired
        ],
        dns=[names.get(n, str(n)) for n in sheet.dns],
        unwritten=[names.get(n, str(n)) for n in sheet.unwritten],
        gaps=[ordinal(p, feminine=True) for p in gaps or []],  # "la 1re place"
    )


@dataclass(frozen=True)
class Change:
    driver: str
    stored: str
    typed: str


def changes(typed: Sheet, stored: Sheet, grid: list[GridSlot]) -> list[Change]:
    """Drivers whose line differs between what the referee typed and what is stored."""
    found = []
    for slot in grid:
        number = slot.driver.number
        mine, theirs = outcome_text(typed, number), outcome_text(stored, number)
        if mine != theirs:
            found.append(Change(driver_label(slot), theirs, mine))
    return found


@dataclass(frozen=True)
class LastChange:
    when: datetime
    by: str


def last_changes(tables: list[RaceTable]) -> dict[int, LastChange]:
    """The latest recorded change of each table's result (save, confirm, reopen)."""
    latest: dict[int, LastChange] = {}
    records = RaceResult.history.filter(table_id__in=[t.pk for t in tables]).order_by(
        "-history_date"
    )
    for record in records.select_related("history_user"):
        if record.table_id not in latest:
            by = record.history_actor or (
                record.history_user.get_username() if record.history_user else ""
            )
            latest[record.table_id] = LastChange(record.history_date, by)
    return latest


# --- The referee's result entry ---------------------------------------------------------------


def _grid(table: RaceTable) -> list[GridSlot]:
    return list(table.slots.select_related("driver", "driver__team").order_by("position"))


def _result(table: RaceTable) -> RaceResult | None:
    return RaceResult.objects.filter(table=table).first()


def _entry(
    request: HttpRequest,
    table: RaceTable,
    grid: list[GridSlot],
    form: ResultForm,
    result: RaceResult | None,
    *,
    status: int = 200,
    errors: list[str] | None = None,
    driver_errors: dict[str, list[str]] | None = None,
    stale: list[Change] | None = None,
    note: str = "",
) -> HttpResponse:
    """The entry page, from stored values (GET) or from what was just typed (a refusal)."""
    sheet = form.sheet()
    rows = form.rows(driver_errors)
    refused = bool(errors or stale is not None or any(r.errors for r in rows))
    if table.result_status == ResultStatus.CONFIRMED:
        focus = ""
    elif refused:
        first = next((r for r in rows if r.errors), None)
        focus = first.outcome.html_name if first else ""
    elif table.result_status == ResultStatus.DRAFT and sheet.complete and not note:
        focus = "submit"  # The draft is whole: one more Enter sends it to race control.
    else:
        first = next((r for r in rows if not r.state), None)
        focus = first.outcome.html_name if first else ""
    history = last_changes([table]).get(table.pk)
    return render(
        request,
        "results/entry.html",
        {
            "table": table,
            "event": table.event,
            "form": form,
            "rows": rows,
            "version": result.version if result else 0,
            "result": result,
            "summary": summarise(sheet, grid, form.gaps, form.places()),
            "complete": sheet.complete,
            "errors": errors or [],
            "stale": stale,
            "last_change": history,
            "note": note,
            "focus": focus,
            "laps": table.event.race_laps,
            "photos": photos_of(table),
            "needs_race_weather": table.event.draws_race_weather
            and not RaceWeather.objects.filter(event=table.event).exists(),
            # A phone that came straight here is asked its referee's name too.
            "link_holder": table_actor(request, table).table is not None,
            "referee_name": referee_name(request, table),
        },
        status=status,
    )


def _confirmed(
    request: HttpRequest,
    table: RaceTable,
    grid: list[GridSlot],
    result: RaceResult | None,
    *,
    status: int = 200,
    typed: Sheet | None = None,
) -> HttpResponse:
    """The read-only page of a confirmed result; ``typed`` is a sheet that could not be saved."""
    lines = ResultLine.objects.filter(table=table).select_related("driver").order_by("position")
    return render(
        request,
        "results/confirmed.html",
        {
            "table": table,
            "event": table.event,
            "result": result,
            "lines": lines,
            "summary": summarise(Sheet.of(result, grid), grid),
            "typed": summarise(typed, grid) if typed else None,
            "photos": photos_of(table),
        },
        status=status,
    )


def _moved(request: HttpRequest, form: ResultForm) -> ResultForm | None:
    """The form again with a finisher moved up or down (the no-JavaScript buttons)."""
    number, _sep, direction = request.POST.get("move", "").partition(":")
    if not number.isdigit() or direction not in ("up", "down"):
        return None
    moved = form.sheet().moved(int(number), -1 if direction == "up" else 1)
    initial = {**moved.initial(), "version": form.cleaned_data["version"]}
    return ResultForm(initial=initial, grid=form.grid, laps=form.laps)


@require_http_methods(["GET", "POST"])
def result_entry(request: HttpRequest, token: str) -> HttpResponse:
    table, actor = _race_table(request, token)
    game_page = variants.variant_of(table.event.game).result_page
    if game_page is not None:  # the game's own sheet
        return redirect(game_page, token=token)
    grid = _grid(table)
    result = _result(table)
    laps = table.event.race_laps
    if request.method == "GET":
        if table.result_status == ResultStatus.CONFIRMED:
            return _confirmed(request, table, grid, result)
        initial = {**Sheet.of(result, grid).initial(), "version": result.version if result else 0}
        form = ResultForm(initial=initial, grid=grid, laps=laps)
        return _entry(request, table, grid, form, result)

    form = ResultForm(request.POST, grid=grid, laps=laps)
    valid = form.is_valid()
    if valid and "move" in request.POST:  # ▲/▼ without JavaScript: show, save nothing
        moved = _moved(request, form)
        if moved is None:  # not one of the page's ▲/▼ buttons
            errors = [_("This move is not possible: the order did not change.")]
            return _entry(request, table, grid, form, result, status=400, errors=errors)
        return _entry(request, table, grid, moved, result, note=_("Order changed: not saved yet."))
    sent = form.cleaned_data.get("version") if valid else None
    if valid:
        sheet = form.sheet()
        if result is None and not (sheet.finish or sheet.retired or sheet.dns):
            # An empty first save would still lock the allocation (every table must be
            # empty to re-allocate or swap): there is nothing to keep yet.
            messages.info(request, _("Nothing written yet: nothing saved."))
            return redirect("result-entry", token=token)
        try:
            saved = result_save(
                actor=actor,
                table=table,
                version=sent,
                finish=sheet.finish,
                retired=sheet.retired,
                dns=sheet.dns,
                submit=request.POST.get("action") == "submit",
                notes=sheet.notes,
            )
        except ServiceError as exc:
            return _refused(request, table, grid, form, sent, exc)
        if saved.submitted_at:
            messages.success(
                request,
                _("Result sent to race control (version %(version)s).")
                % {"version": saved.version},
            )
        else:
            messages.success(
                request, _("Draft saved (version %(version)s).") % {"version": saved.version}
            )
        return redirect("result-entry", token=token)
    return _refused(request, table, grid, form, sent, None)


def _refused(
    request: HttpRequest,
    table: RaceTable,
    grid: list[GridSlot],
    form: ResultForm,
    sent: int | None,
    exc: ServiceError | None,
) -> HttpResponse:
    """Show why a save was refused, keeping every value typed.

    When the stored result moved on meanwhile, say what differs and carry its version, so
    the next save (after checking) goes through.
    """
    table.refresh_from_db(fields=["result_status"])
    current = _result(table)
    if table.result_status == ResultStatus.CONFIRMED:
        if exc is not None:
            messages.error(request, exc.message)
        typed = form.sheet() if hasattr(form, "cleaned_data") else None
        return _confirmed(request, table, grid, current, status=409, typed=typed)
    errors: list[str] = []
    if exc is not None:
        errors.append(exc.message)
        errors += [m for msgs in exc.errors.values() for m in msgs if m not in errors]
    for messages_ in form.errors.values():
        errors += [str(m) for m in messages_ if str(m) not in errors]
    stale = None
    stored_version = current.version if current else 0
    if sent is not None and sent != stored_version:
        stale = changes(form.sheet(), Sheet.of(current, grid), grid)
    status = exc.status if exc is not None else 400
    if stale is not None:
        status = 409
    return _entry(
        request,
        table,
        grid,
        form,
        current,
        status=status,
        errors=errors,
        driver_errors=exc.errors if exc is not None else None,
        stale=stale,
    )


@require_POST
def result_summary(request: HttpRequest, token: str) -> HttpResponse:
    """The summary of what is typed so far, for htmx as the referee types (saves nothing)."""
    table, _actor = _race_table(request, token)
    grid = _grid(table)
    form = ResultForm(request.POST, grid=grid, laps=table.event.race_laps)
    form.is_valid()
    return render(
        request,
        "results/_summary.html",
        {
            "summary": summarise(form.sheet(), grid, form.gaps, form.places()),
            "problems": [str(m) for msgs in form.errors.values() for m in msgs],
        },
    )


# --- Race control's desk -----------------------------------------------------------------------


@dataclass
class DeskRow:
    table: RaceTable
    result: RaceResult | None
    summary: Summary
    last_change: LastChange | None
    referee: str
    drivers: int = 0
    #: The photos of the signed sheet still in force (``races.photos``).
    photos: list[SheetPhoto] = field(default_factory=list)
    #: The table's weather draws in force (§3-2-4), in order: race control sees them beside
    #: the result, as on the table's page.
    weather: list[WeatherDraw] = field(default_factory=list)

    @property
    def missing_photo(self) -> bool:
        """True for a confirmed table whose signed sheet nobody photographed."""
        return self.table.result_status == ResultStatus.CONFIRMED and not self.photos


def desk_rows(event: Event) -> list[DeskRow]:
    tables = list(RaceTable.objects.filter(event=event).select_related("referee"))
    results = {r.table_id: r for r in RaceResult.objects.filter(table__in=tables)}
    slots: dict[int, list[GridSlot]] = {}
    for slot in (
        GridSlot.objects.filter(table__in=tables).select_related("driver").order_by("position")
    ):
        slots.setdefault(slot.table_id, []).append(slot)
    latest = last_changes(tables)
    photos = photos_by_table(tables)
    weather: dict[int, list[WeatherDraw]] = {}
    for draw in WeatherDraw.objects.filter(table__in=tables, undone_at__isnull=True).order_by(
        "number"
    ):
        weather.setdefault(draw.table_id, []).append(draw)
    rows = []
    for table in tables:
        grid = slots.get(table.pk, [])
        result = results.get(table.pk)
        referee = table.referee_name or (table.referee.get_username() if table.referee else "")
        summary = summarise(Sheet.of(result, grid), grid)
        rows.append(
            DeskRow(
                table,
                result,
                summary,
                latest.get(table.pk),
                referee,
                len(grid),
                photos.get(table.pk, []),
                weather.get(table.pk, []),
            )
        )
    return rows


def results_desk(request: HttpRequest, slug: str) -> HttpResponse:
    """The results desk: the desk enters and confirms; reopening is race control's."""
    event = desk_event(request, slug)
    rows = desk_rows(event)
    context: dict[str, Any] = {
        "event": event,
        "can_organise": actor_for(request).can_organise(event.championship),
        "rows": rows,
        "confirmed": sum(1 for r in rows if r.table.result_status == ResultStatus.CONFIRMED),
        "missing_photos": sum(1 for r in rows if r.missing_photo),
        "now": timezone.now(),
    }
    if request.htmx and request.GET.get("part") == "status":  # type: ignore[attr-defined]
        return render(request, "results/_desk_status.html", context)
    reopen = request.GET.get("reopen", "")
    context.update(
        {
            "reopen_rows": [
                r
                for r in rows
                if r.table.result_status == ResultStatus.CONFIRMED or str(r.table.number) == reopen
            ],
            "reopen_focus": reopen,
            "standings_url": reverse("standings", args=[event.championship.slug]),
            "race_draws": RaceWeatherDraw.objects.filter(event=event).order_by("number"),
            "sanctions": Sanction.objects.filter(event=event).select_related("driver"),
        }
    )
    return render(request, "results/desk.html", context)


def _desk(slug: str, anchor: str = "", query: str = "") -> HttpResponse:
    return redirect(reverse("results-desk", args=[slug]) + query + anchor)


@require_POST
def desk_confirm(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    event = desk_event(request, slug)
    table = get_object_or_404(RaceTable, event=event, number=number)
    form = ConfirmForm(request.POST)
    version = form.cleaned_data["version"] if form.is_valid() else None
    try:
        result_confirm(actor=actor_for(request), table=table, version=version)
    except ServiceError as exc:
        messages.error(request, f"{table}: {exc.message}")
    else:
        messages.success(request, _("%(table)s: result confirmed.") % {"table": table})
    return _desk(slug, f"#table-{number}")


@require_POST
def desk_reopen(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    event = organised_event(request, slug)
    table = get_object_or_404(RaceTable, event=event, number=number)
    form = ReopenForm(request.POST)
    form.is_valid()
    data = form.cleaned_data
    try:
        result_reopen(
            actor=actor_for(request),
            table=table,
            reason=data.get("reason") or "",
            version=data.get("version"),
        )
    except ServiceError as exc:
        messages.error(request, f"{table}: {exc.message}")
        return _desk(slug, f"#reopen-{number}", f"?reopen={number}")
    messages.success(
        request,
        _("%(table)s: result reopened; it waits for confirmation again.") % {"table": table},
    )
    return _desk(slug, f"#table-{number}")
