"""Pages of the table sheet (Cannes–Monaco and Racetrack): the referee's result entry
(through the table's link), in the spirit of ``results/entry.html``, with the game's
fields; the table sheet PDF.

Writes go through ``races.games.table_sheet.services``; views fetch, parse, call, redirect
or show the refusal with what was typed kept.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from races.games.table_sheet import services as game_services
from races.games.table_sheet.pdf import TableGameSheet
from races.models import GridSlot, RaceResult, RaceTable, ResultStatus
from races.selectors import confirmed_lines
from races.views import _race_table
from tournament.errors import ServiceError

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
        crossed = list(data.get("crossed") or [])
        return {
            "square": "" if square is None else square,
            # The crossing order (1 = the winner), blank when the car did not cross.
            "crossed": crossed.index(number) + 1 if number in crossed else "",
        }
    run = (data.get("runs") or {}).get(str(number))
    if run is None:
        return {
            "turns": "",
            "margin": "",
            "crashes": "",
            "finished": False,
            "eliminated": False,
            "place": "",
        }
    return {**run, "place": "" if run.get("place") is None else run["place"]}


def _small_number(text: str) -> int | None:
    return int(text) if text.isascii() and text.isdigit() and len(text) < 4 else None


def _parse(
    game: str, post: Any, grid: list[GridSlot]
) -> tuple[dict[str, Any], list[Row], list[str]]:
    """The sheet typed on the page, its rows as typed, and the typing errors (per driver)."""
    rows, errors = [], []
    squares: dict[int, int | None] = {}
    crossing: dict[int, list[int]] = {}  # crossing order → drivers written there
    runs: dict[int, dict[str, Any]] = {}
    for slot in grid:
        n = slot.driver.number
        who = f"{n} {slot.driver.name}"
        row = Row(slot, {})
        if game == "cannes_monaco":
            text = (post.get(f"square-{n}") or "").strip()
            order = (post.get(f"crossed-{n}") or "").strip()
            row.values = {"square": text, "crossed": order}
            if order:
                if _small_number(order) and _small_number(order) <= len(grid):  # type: ignore[operator]
                    crossing.setdefault(int(order), []).append(n)
                else:
                    row.errors.append(
                        _(
                            "%(driver)s: the crossing order is 1 for the winner, 2, 3… (blank: "
                            "did not cross)."
                        )
                        % {"driver": who}
                    )
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
            place = (post.get(f"place-{n}") or "").strip()
            row.values["place"] = place
            if place:
                if _small_number(place):
                    values["place"] = int(place)
                else:
                    row.errors.append(
                        _("%(driver)s: the place of a car still running is 1, 2, 3…")
                        % {"driver": who}
                    )
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
    for order, drivers in sorted(crossing.items()):
        if len(drivers) > 1:
            errors.append(
                _("Drivers %(drivers)s are all written as crossing %(order)s: one car a place.")
                % {"drivers": ", ".join(str(d) for d in drivers), "order": order}
            )
    crossed = [d for _order, drivers in sorted(crossing.items()) for d in drivers]
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
    lines = confirmed_lines(table)
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
    table, _actor = _game_table(request, token)
    pdf = TableGameSheet().render(game_services.table_sheet_data(table=table))
    response = HttpResponse(pdf, content_type="application/pdf")
    response["Content-Disposition"] = (
        f'inline; filename="{table.event.slug}-table-{table.number}.pdf"'
    )
    return response
