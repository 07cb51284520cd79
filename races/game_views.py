"""Pages of the other racing games.

- Cannes–Monaco and Racetrack: the referee's result entry (through the table's link), in
  the spirit of ``results/entry.html``, with the game's fields; the table sheet PDF.
- Rallyman: the organiser's rally page (stages, stage-1 start order), the times of a stage
  (one row per driver), the classifications (stage scratch, re-classification, final;
  public once the results are published) and the race-control sheet PDF.

Writes go through ``races.game_services``; views fetch, parse, call, redirect or show the
refusal with what was typed kept.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from races import game_services
from races.games import rallyman
from races.models import GridSlot, RaceResult, RaceTable, ResultLine, ResultStatus, Stage
from races.views import _race_table
from tournament.errors import InvalidInput, ServiceError
from tournament.models import Event
from tournament.views import actor_for, organised_event

# --- Cannes–Monaco and Racetrack: the referee's sheet ---------------------------------------

RACETRACK_NUMBERS = ("turns", "margin", "crashes")
RACETRACK_FLAGS = ("finished", "eliminated")


@dataclass
class Row:
    slot: GridSlot
    values: dict[str, Any]
    errors: list[str] = field(default_factory=list)


def _grid(table: RaceTable) -> list[GridSlot]:
    return list(table.slots.select_related("driver", "driver__team").order_by("position"))


def _stored_values(game: str, result: RaceResult | None, number: int) -> dict[str, Any]:
    data = (result.game_data if result else None) or {}
    if game == "cannes_monaco":
        square = (data.get("squares") or {}).get(str(number))
        return {
            "square": "" if square is None else square,
            "crossed": number in (data.get("crossed") or []),
        }
    run = (data.get("runs") or {}).get(str(number))
    if run is None:
        return {"turns": "", "margin": "", "crashes": "", "finished": False, "eliminated": False}
    return dict(run)


def _parse(
    game: str, post: Any, grid: list[GridSlot]
) -> tuple[dict[str, Any], list[Row], list[str]]:
    """The sheet typed on the page, its rows as typed, and the typing errors (per driver)."""
    rows, errors = [], []
    squares: dict[int, int | None] = {}
    crossed: list[int] = []
    runs: dict[int, dict[str, Any]] = {}
    for slot in grid:
        n = slot.driver.number
        who = f"{n} {slot.driver.name}"
        row = Row(slot, {})
        if game == "cannes_monaco":
            text = (post.get(f"square-{n}") or "").strip()
            row.values = {"square": text, "crossed": bool(post.get(f"crossed-{n}"))}
            if row.values["crossed"]:
                crossed.append(n)
            if text:
                if text.isascii() and text.isdigit():
                    squares[n] = int(text)
                else:
                    row.errors.append(
                        _("%(driver)s: the square must be a whole number from 0 to 36.")
                        % {"driver": who}
                    )
        else:
            values: dict[str, Any] = {}
            row.values = {
                name: (post.get(f"{name}-{n}") or "").strip() for name in RACETRACK_NUMBERS
            }
            row.values.update({name: bool(post.get(f"{name}-{n}")) for name in RACETRACK_FLAGS})
            typed = any(row.values[name] for name in RACETRACK_NUMBERS) or any(
                row.values[name] for name in RACETRACK_FLAGS
            )
            for name in RACETRACK_NUMBERS:
                text = row.values[name]
                if not text:
                    values[name] = 0
                elif text.isascii() and text.isdigit() and len(text) < 6:
                    values[name] = int(text)
                else:
                    row.errors.append(
                        _("%(driver)s: %(field)s must be a whole number, 0 or more.")
                        % {"driver": who, "field": _(name)}
                    )
            values.update({name: row.values[name] for name in RACETRACK_FLAGS})
            if typed:
                runs[n] = values
        errors += row.errors
        rows.append(row)
    data: dict[str, Any] = (
        {"squares": squares, "crossed": crossed} if game == "cannes_monaco" else {"runs": runs}
    )
    return data, rows, errors


def _game_table(request: HttpRequest, token: str) -> tuple[RaceTable, Any]:
    table, actor = _race_table(request, token)
    if table.event.game not in game_services.GAME_FIELDS:
        raise Http404(_("This table's game has no sheet of this kind."))
    return table, actor


def _entry_page(
    request: HttpRequest,
    table: RaceTable,
    rows: list[Row],
    result: RaceResult | None,
    *,
    version: int,
    errors: list[str] | None = None,
    stale: bool = False,
    status: int = 200,
) -> HttpResponse:
    lines = []
    if table.result_status == ResultStatus.CONFIRMED:
        lines = list(
            ResultLine.objects.filter(table=table).select_related("driver").order_by("position")
        )
    return render(
        request,
        "games/table_entry.html",
        {
            "table": table,
            "event": table.event,
            "game": table.event.game,
            "rows": rows,
            "result": result,
            "version": version,
            "errors": errors or [],
            "stale": stale,
            "lines": lines,
        },
        status=status,
    )


@require_http_methods(["GET", "POST"])
def table_entry(request: HttpRequest, token: str) -> HttpResponse:
    """The referee's Cannes–Monaco or Racetrack sheet: draft, then sent to race control."""
    table, actor = _game_table(request, token)
    game = table.event.game
    grid = _grid(table)
    result = RaceResult.objects.filter(table=table).first()
    stored_version = result.version if result else 0
    if request.method == "GET":
        rows = [Row(slot, _stored_values(game, result, slot.driver.number)) for slot in grid]
        return _entry_page(request, table, rows, result, version=stored_version)
    data, rows, typing = _parse(game, request.POST, grid)
    sent_text = request.POST.get("version", "")
    sent = (
        int(sent_text)
        if sent_text.isascii() and sent_text.isdigit() and len(sent_text) < 10
        else -1
    )
    if typing:
        return _entry_page(request, table, rows, result, version=sent, errors=typing, status=400)
    try:
        saved = game_services.game_result_save(
            actor=actor,
            table=table,
            version=sent,
            data=data,
            submit=request.POST.get("action") == "submit",
        )
    except ServiceError as exc:
        table.refresh_from_db(fields=["result_status"])
        current = RaceResult.objects.filter(table=table).first()
        found = [exc.message] + [
            m for msgs in exc.errors.values() for m in msgs if m != exc.message
        ]
        for row in rows:
            row.errors = exc.errors.get(str(row.slot.driver.number), [])
        stale = exc.status == 409 and table.result_status != ResultStatus.CONFIRMED
        # After a stale save the page carries the stored version: checking and saving again
        # replaces it, nothing typed is lost.
        version = current.version if (stale and current) else sent
        return _entry_page(
            request,
            table,
            rows,
            current,
            version=version,
            errors=found,
            stale=stale,
            status=exc.status,
        )
    if saved.submitted_at:
        messages.success(
            request,
            _("Result sent to race control (version %(version)s).") % {"version": saved.version},
        )
    else:
        messages.success(
            request, _("Draft saved (version %(version)s).") % {"version": saved.version}
        )
    return redirect("game-table-entry", token=token)


def table_sheet(request: HttpRequest, token: str) -> HttpResponse:
    """The printed sheet of a Cannes–Monaco or Racetrack table."""
    from races.game_pdf import TableGameSheet

    table, _actor = _game_table(request, token)
    pdf = TableGameSheet().render(game_services.table_sheet_data(table=table))
    response = HttpResponse(pdf, content_type="application/pdf")
    response["Content-Disposition"] = (
        f'inline; filename="{table.event.slug}-table-{table.number}.pdf"'
    )
    return response


# --- Rallyman ---------------------------------------------------------------------------------


def _rally_event(request: HttpRequest, slug: str) -> Event:
    event = organised_event(request, slug)
    if event.game != Event.Game.RALLYMAN:
        raise Http404(_("This event is not a rally."))
    return event


def rally_context(event: Event) -> dict[str, Any]:
    """Stages with their scratch, the re-classification after each, and the final."""
    drivers = {d.number: d for d in game_services.rally_drivers(event)}
    stages = []
    for stage in game_services.stages_of(event):
        records = {t.driver.number: t for t in stage.times.select_related("driver")}
        scratch = [
            {
                "rank": line.rank,
                "driver": drivers.get(line.driver),  # type: ignore[call-overload]
                "chrono": rallyman.format_chrono(records[line.driver].chrono),  # type: ignore[index]
                "held": records[line.driver].seconds_held,  # type: ignore[index]
                "time": rallyman.format_chrono(line.time),
                "retired": line.retired,
            }
            for line in rallyman.stage_scratch(game_services._entries_of(stage))
        ]
        after = [
            {
                "rank": line.rank,
                "driver": drivers.get(line.driver),  # type: ignore[call-overload]
                "total": rallyman.format_chrono(line.total),
                "retired_in": line.retired_in,
            }
            for line in game_services.rally_after(event, stage.number)
        ]
        stages.append(
            {
                "stage": stage,
                "zones": rallyman.route_zones(stage.route),
                "start_order": [
                    drivers.get(n) for n in game_services.start_order_of(stage) if n in drivers
                ],
                "scratch": scratch,
                "after": after,
                "complete": game_services.stage_complete(stage),
            }
        )
    return {"event": event, "stages": stages, "drivers": list(drivers.values())}


@require_http_methods(["GET", "POST"])
def rally_desk(request: HttpRequest, slug: str) -> HttpResponse:
    """The organiser's rally page: add stages, set or draw the stage-1 start order."""
    event = _rally_event(request, slug)
    actor = actor_for(request)
    errors: list[str] = []
    status = 200
    if request.method == "POST":
        action = request.POST.get("action")
        try:
            if action == "stage":
                number_text = request.POST.get("number", "")
                if not (number_text.isascii() and number_text.isdigit() and len(number_text) < 3):
                    raise InvalidInput(_("Stages are numbered 1 to 99."))
                game_services.stage_create(
                    actor=actor,
                    event=event,
                    number=int(number_text),
                    route=request.POST.get("route", ""),
                    service_after=bool(request.POST.get("service_after")),
                )
                messages.success(request, _("Stage added."))
            elif action in ("order", "draw"):
                stage = Stage.objects.filter(event=event, number=1).first()
                if stage is None:
                    raise InvalidInput(_("Add stage 1 first."))
                order = []
                for token in request.POST.get("order", "").replace(",", " ").split():
                    if not (token.isascii() and token.isdigit() and len(token) < 7):
                        raise InvalidInput(
                            _("“%(value)s” is not a driver number.") % {"value": token}
                        )
                    order.append(int(token))
                game_services.start_order_set(
                    actor=actor, stage=stage, order=order, draw=action == "draw"
                )
                messages.success(request, _("Start order of stage 1 saved."))
            else:  # a form of this page always says which; nothing to do otherwise
                raise InvalidInput(_("Add a stage or set the start order: nothing was saved."))
            return redirect("rally-desk", slug=slug)
        except ServiceError as exc:
            errors = [exc.message] + [
                m for msgs in exc.errors.values() for m in msgs if m != exc.message
            ]
            status = exc.status
    context = rally_context(event)
    first = Stage.objects.filter(event=event, number=1).first()
    context.update(
        {
            "errors": errors,
            "next_number": len(context["stages"]) + 1,
            "order_text": request.POST.get("order")
            if errors
            else " ".join(str(n) for n in (first.start_order if first else [])),
            "posted": request.POST if errors else {},
        }
    )
    return render(request, "games/rally_desk.html", context, status=status)


@require_http_methods(["GET", "POST"])
def stage_times(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    """One row per starter: chrono mm:ss, seconds tokens held, retired, intermediate times."""
    event = _rally_event(request, slug)
    stage = get_object_or_404(Stage, event=event, number=number)
    drivers = {d.number: d for d in game_services.rally_drivers(event)}
    starters = [n for n in game_services.start_order_of(stage) if n in drivers]
    records = {t.driver.number: t for t in stage.times.all().select_related("driver")}
    errors: list[str] = []
    row_errors: dict[str, list[str]] = {}
    status = 200
    if request.method == "POST":
        times = {}
        for n in starters:
            chrono = (request.POST.get(f"chrono-{n}") or "").strip()
            held = (request.POST.get(f"held-{n}") or "").strip()
            retired = bool(request.POST.get(f"retired-{n}"))
            # Intermediate times typed as "02:10 04:05" (commas or semicolons too).
            splits = (request.POST.get(f"splits-{n}") or "").replace(",", " ").replace(";", " ")
            if not (chrono or retired):
                continue
            held_value: Any = 0
            if held:
                held_value = (
                    int(held) if held.isascii() and held.isdigit() and len(held) < 6 else -1
                )
            times[n] = {
                "chrono": chrono,
                "seconds_held": held_value,
                "retired": retired,
                "splits": splits.split()[:50],
            }
        try:
            game_services.stage_times_set(actor=actor_for(request), stage=stage, times=times)
        except ServiceError as exc:
            errors = [exc.message] + [
                m for msgs in exc.errors.values() for m in msgs if m != exc.message
            ]
            row_errors = exc.errors
            status = exc.status
        else:
            messages.success(
                request, _("Times of stage %(number)s saved.") % {"number": stage.number}
            )
            return redirect("rally-stage-times", slug=slug, number=number)
    rows = []
    for position, n in enumerate(starters, start=1):
        record = records.get(n)
        if request.method == "POST":
            values = {
                "chrono": request.POST.get(f"chrono-{n}", ""),
                "held": request.POST.get(f"held-{n}", ""),
                "retired": bool(request.POST.get(f"retired-{n}")),
                "splits": request.POST.get(f"splits-{n}", ""),
            }
        else:
            values = {
                "chrono": rallyman.format_chrono(record.chrono) if record else "",
                "held": record.seconds_held if record and record.seconds_held else "",
                "retired": bool(record and record.retired),
                "splits": " ".join(rallyman.format_chrono(t) for t in record.splits or [])
                if record
                else "",
            }
        rows.append(
            {
                "position": position,
                "driver": drivers[n],
                "values": values,
                "errors": row_errors.get(str(n), []),
            }
        )
    return render(
        request,
        "games/stage_times.html",
        {"event": event, "stage": stage, "rows": rows, "errors": errors},
        status=status,
    )


def rally_classification(request: HttpRequest, slug: str) -> HttpResponse:
    """Stage scratches, re-classifications and the final: public once results are published."""
    event = get_object_or_404(Event.objects.select_related("championship", "circuit"), slug=slug)
    if event.game != Event.Game.RALLYMAN:
        raise Http404(_("This event is not a rally."))
    if not (event.published_results or actor_for(request).can_organise(event.championship)):
        raise Http404(_("The organisers have not published the results yet."))
    return render(request, "games/rally_classification.html", rally_context(event))


def rally_sheet(request: HttpRequest, slug: str) -> HttpResponse:
    """The race-control sheet, FEUILLE P.C. COURSE (organisers; everyone once published)."""
    from races.game_pdf import RallySheet

    event = get_object_or_404(Event.objects.select_related("championship", "circuit"), slug=slug)
    if event.game != Event.Game.RALLYMAN:
        raise Http404(_("This event is not a rally."))
    if not (event.published_results or actor_for(request).can_organise(event.championship)):
        raise Http404(_("The organisers have not published the results yet."))
    pdf = RallySheet().render(game_services.rally_sheet_data(event=event))
    response = HttpResponse(pdf, content_type="application/pdf")
    response["Content-Disposition"] = f'inline; filename="{event.slug}-pc-course.pdf"'
    return response
