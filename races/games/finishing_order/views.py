"""The referee's page of a finishing-order table, opened from the table's link (the race
floor's table page and result link lead here: ``races.variants``' ``table_page`` and
``result_page``): the crossing order (tap the drivers in order, or type each one's place),
the retirements with their lap and a free note, the non-starters; a draft, then sent to
race control. The table's sheet PDF.

Writes go through ``services.result_save``; a refusal shows the page again with what was
typed, each reason beside its driver, in the reader's language. Every form posts to the
table link's own address, so the tables' outbox keeps it when the phone is offline.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from races.games.finishing_order import selectors, services
from races.models import GridSlot, RaceResult, RaceTable, ResultStatus
from races.selectors import confirmed_lines
from races.variants import variant_of
from races.views import _race_table
from tournament.access import referee_name
from tournament.errors import ServiceError

#: A driver's state beside the crossing order: still to write (or finished), out.
OUT = ("", "retired", "dns")
NOTE_MAX = 200


@dataclass
class Row:
    """One grid driver's line of the page, as stored or as typed."""

    slot: GridSlot
    place: str = ""
    out: str = ""
    lap: str = ""
    note: str = ""
    errors: list[str] = field(default_factory=list)

    @property
    def number(self) -> int:
        return self.slot.driver.number

    @property
    def who(self) -> str:
        return f"{self.slot.driver.number} {self.slot.driver.name}"


@dataclass
class Typed:
    """What the page sent, read: the service's arguments, and the typing errors."""

    finish: list[int]
    retired: list[dict[str, Any]]
    dns: list[int]
    errors: list[str]


def _grid(table: RaceTable) -> list[GridSlot]:
    return list(table.slots.select_related("driver", "driver__team").order_by("position"))


def _stored_rows(grid: list[GridSlot], result: RaceResult | None) -> list[Row]:
    finish = list(result.finish or []) if result else []
    retired = {r.get("driver"): r for r in (result.retired or [])} if result else {}
    dns = set(result.dns or []) if result else set()
    rows = []
    for slot in grid:
        n = slot.driver.number
        row = Row(slot)
        if n in finish:
            row.place = str(finish.index(n) + 1)
        if n in retired:
            lap = retired[n].get("lap")
            row.out, row.lap, row.note = "retired", "" if lap is None else str(lap), ""
            row.note = str(retired[n].get("note") or "")
        elif n in dns:
            row.out = "dns"
        rows.append(row)
    return rows


def _numbers(text: str) -> list[int]:
    """The driver numbers of the page's retirement order (``12,4,7``), the others dropped."""
    return [int(n) for n in text.split(",") if n.isascii() and n.isdigit() and len(n) < 10]


def _lap_key(row: Row) -> int:
    return int(row.lap) if row.lap.isascii() and row.lap.isdigit() and len(row.lap) < 10 else 0


def _moved(order: list[Row], move: str) -> list[Row]:
    """``order`` with one retirement moved up (``up-12``) or down (``down-12``) past its
    neighbour of the same lap: the referee says who went out first on one lap."""
    way, _dash, number = move.partition("-")
    at = next((i for i, row in enumerate(order) if str(row.number) == number), None)
    if at is None or way not in ("up", "down"):
        return order
    other = at - 1 if way == "up" else at + 1
    if 0 <= other < len(order) and _lap_key(order[other]) == _lap_key(order[at]):
        order = list(order)
        order[at], order[other] = order[other], order[at]
    return order


def _whole(text: str, *, most: int) -> int | None:
    return int(text) if text.isascii() and text.isdigit() and 0 < int(text) <= most else None


def _read(post: Any, grid: list[GridSlot], stored: RaceResult | None) -> tuple[list[Row], Typed]:
    """The rows as typed and what they say. The finishers come by their place; the retired
    in the order they went out (the earliest lap first; on one lap, as the page ordered
    them, else as stored, then grid order), as the rules read them
    (``rules.classification``: the latest retirement ranks first). A move button
    (``move``) moves a retirement past its neighbour of the same lap."""
    rows, errors = [], []
    places: dict[int, list[Row]] = {}
    for slot in grid:
        n = slot.driver.number
        row = Row(
            slot,
            place=(post.get(f"place-{n}") or "").strip(),
            out=(post.get(f"out-{n}") or "").strip(),
            lap=(post.get(f"lap-{n}") or "").strip(),
            note=" ".join((post.get(f"note-{n}") or "").split()),
        )
        if row.out not in OUT:
            row.out = ""
        if row.place:
            place = _whole(row.place, most=len(grid))
            if place is None:
                row.errors.append(
                    _("%(driver)s: the crossing order is 1 for the winner, 2, 3…")
                    % {"driver": row.who}
                )
            else:
                places.setdefault(place, []).append(row)
        if row.lap and _whole(row.lap, most=999) is None:
            row.errors.append(
                _("%(driver)s: the lap is a whole number from 1 to the race's laps.")
                % {"driver": row.who}
            )
        if row.out != "retired" and (row.lap or row.note):
            row.errors.append(
                _(
                    "%(driver)s: a lap and a note are for a retirement: choose “retired” or "
                    "clear them."
                )
                % {"driver": row.who}
            )
        if len(row.note) > NOTE_MAX:
            row.errors.append(
                _("%(driver)s: the note is %(max)s characters at most.")
                % {"driver": row.who, "max": NOTE_MAX}
            )
        errors += row.errors
        rows.append(row)
    for place, holders in sorted(places.items()):
        if len(holders) > 1:
            message = _(
                "Drivers %(drivers)s are all written as crossing %(order)s: one car a place."
            ) % {"drivers": ", ".join(r.who for r in holders), "order": place}
            errors.append(message)
            for row in holders:
                row.errors.append(message)
    for expected, place in enumerate(sorted(places), start=1):
        if place != expected:
            errors.append(
                _("Place %(place)s is missing: the crossing order runs 1, 2, 3… without a gap.")
                % {"place": expected}
            )
            break
    sent_order = _numbers(post.get("retired-order") or "")
    stored_order = [r.get("driver") for r in (stored.retired or [])] if stored else []

    def before(row: Row) -> tuple[int, int]:
        if row.number in sent_order:
            return (0, sent_order.index(row.number))
        if row.number in stored_order:
            return (1, stored_order.index(row.number))
        return (2, 0)

    out = sorted((r for r in rows if r.out == "retired"), key=before)
    out.sort(key=_lap_key)
    out = _moved(out, str(post.get("move") or ""))
    typed = Typed(
        finish=[row.number for _place, holders in sorted(places.items()) for row in holders],
        retired=[
            {
                "driver": r.number,
                "cause": "other",
                "lap": int(r.lap) if r.lap.isascii() and r.lap.isdigit() else None,
                "note": r.note,
            }
            for r in out
        ],
        dns=[r.number for r in rows if r.out == "dns"],
        errors=errors,
    )
    return rows, typed


def _game_table(request: HttpRequest, token: str) -> tuple[RaceTable, Any]:
    table, actor = _race_table(request, token)
    # The game's own tables, and those of a crossing-order game without rules of its own.
    if variant_of(table.event.game).result_page != "finishing-order-entry":
        raise Http404(_("This table's game has no sheet of this kind."))
    return table, actor


def _page(
    request: HttpRequest,
    table: RaceTable,
    actor: Any,
    rows: list[Row],
    result: RaceResult | None,
    *,
    version: int,
    errors: list[str] | None = None,
    stale: bool = False,
    status: int = 200,
    order: list[int] | None = None,
) -> HttpResponse:
    lines = confirmed_lines(table)
    if order is None:
        order = [r.get("driver") for r in (result.retired or [])] if result else []
    by_number = {row.number: row for row in rows if row.out == "retired"}
    retirements = [by_number[n] for n in order if n in by_number]
    retirements += [row for n, row in by_number.items() if n not in order]
    return render(
        request,
        "games/finishing_order/entry.html",
        {
            "table": table,
            "event": table.event,
            "rows": rows,
            "retirements": retirements,
            "retired_order": ",".join(str(row.number) for row in retirements),
            "result": result,
            "version": version,
            "errors": errors or [],
            "stale": stale,
            "lines": lines,
            "link_holder": actor.table is not None,
            "referee_name": referee_name(request, table) if actor.table is not None else "",
            "back": "result",
        },
        status=status,
    )


@require_http_methods(["GET", "POST"])
def table_entry(request: HttpRequest, token: str) -> HttpResponse:
    """The referee's crossing order: a draft, then sent to race control."""
    table, actor = _game_table(request, token)
    grid = _grid(table)
    result = RaceResult.objects.filter(table=table).first()
    if request.method == "GET":
        rows = _stored_rows(grid, result)
        return _page(request, table, actor, rows, result, version=result.version if result else 0)
    rows, typed = _read(request.POST, grid, result)
    sent_text = request.POST.get("version", "")
    sent = (
        int(sent_text)
        if sent_text.isascii() and sent_text.isdigit() and len(sent_text) < 10
        else -1
    )
    order = [r["driver"] for r in typed.retired]
    if typed.errors:
        return _page(
            request, table, actor, rows, result, version=sent, errors=typed.errors, status=400,
            order=order,
        )  # fmt: skip
    if request.POST.get("move"):  # the retirements reordered: nothing saved, all kept
        return _page(request, table, actor, rows, result, version=sent, order=order)
    if result is None and not (typed.finish or typed.retired or typed.dns):
        # An empty first save would still lock the allocation: nothing to keep yet.
        messages.info(request, _("Nothing written yet: nothing saved."))
        return redirect("finishing-order-entry", token=token)
    try:
        saved = services.result_save(
            actor=actor,
            table=table,
            version=sent,
            finish=typed.finish,
            retired=typed.retired,
            dns=typed.dns,
            submit=request.POST.get("action") == "submit",
        )
    except ServiceError as exc:
        table.refresh_from_db(fields=["result_status"])
        current = RaceResult.objects.filter(table=table).first()
        found = [exc.message] + [
            m for msgs in exc.errors.values() for m in msgs if m != exc.message
        ]
        for row in rows:
            row.errors = exc.errors.get(str(row.number), [])
        stale = exc.status == 409 and table.result_status != ResultStatus.CONFIRMED
        # After a stale save the page carries the stored version: checking and saving again
        # replaces it; nothing typed is lost.
        version = current.version if (stale and current) else sent
        return _page(
            request, table, actor, rows, current, version=version, errors=found, stale=stale,
            status=exc.status, order=order,
        )  # fmt: skip
    if saved.submitted_at:
        messages.success(
            request,
            _("Result sent to race control (version %(version)s).") % {"version": saved.version},
        )
    else:
        messages.success(
            request, _("Draft saved (version %(version)s).") % {"version": saved.version}
        )
    return redirect("finishing-order-entry", token=token)


def table_sheet(request: HttpRequest, token: str) -> HttpResponse:
    """The printed sheet of one finishing-order table."""
    table, _actor = _game_table(request, token)
    pdf = selectors.sheets_pdf(event=table.event, tables=[table])
    response = HttpResponse(pdf, content_type="application/pdf")
    response["Content-Disposition"] = (
        f'inline; filename="{table.event.slug}-table-{table.number}.pdf"'
    )
    return response
