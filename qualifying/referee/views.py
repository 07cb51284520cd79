"""Pages of a qualifying table, opened from its referee link: run entry row by row (with
the absolute time and the stopwatch in words as they type), the live count of runs, the
closed page once the race tables exist, the referee's name for the trail, a run's history,
cancelling for a redo and the printed sheets.

Writes go through ``qualifying.services``; once the race tables exist the link only reads
(DOMAIN.md, "Qualifying is closed by the allocation") and race control corrects with a
reason, told whose ranks moved.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from qualifying import scoring
from qualifying.closure import RankMove, qualifying_closed
from qualifying.forms import CancelRunForm, RefereeNameForm, RunForm
from qualifying.links import referee_link
from qualifying.models import QualifyingSession, QualifyingTable, Run
from qualifying.referee.words import history_lines, rank_moves_text
from qualifying.selectors import previous_tyres, table_drivers, table_runs
from qualifying.services import run_cancel, run_record, run_update
from qualifying.sheets.card import QualifyingCardRenderer
from qualifying.sheets.selectors import sheet_data
from qualifying.sheets.table_sheet import TableSheetRenderer
from tournament.access import (
    Actor,
    referee_name,
    replaced_or_404,
    table_actor,
)
from tournament.errors import ServiceError
from tournament.sealing import link_digest


def table_and_actor(request: HttpRequest, token: str) -> tuple[QualifyingTable, Actor]:
    """The table of the link and who acts on it (404, or "replaced" for an old link)."""
    table = (
        QualifyingTable.objects.select_related("event", "event__championship", "event__circuit")
        .filter(token_digest=link_digest(token))
        .first()
    )
    if table is None:
        replaced_or_404(token, request)
    table.opened_with(token)  # type: ignore[union-attr]  # its pages link by this address
    # An organiser or the table's referee account acts under their own name; anyone else
    # holding the link acts as the link.
    return table, table_actor(request, table)


def _session_of(table: QualifyingTable, number: str | int | None) -> QualifyingSession | None:
    sessions = list(table.event.sessions.all())
    if not sessions:
        return None
    if number is not None:
        for session in sessions:
            if str(session.number) == str(number):
                return session
        raise Http404(_("No such session."))
    return sessions[-1]


def _driver_at_table(table: QualifyingTable, number: int) -> Any:
    for driver in table_drivers(table=table):
        if driver.number == number:
            return driver
    raise Http404(_("This driver does not sit at this table."))


def _stored_initial(run: Run) -> dict[str, Any]:
    return {
        "tyres": run.tyres,
        "throws": run.throws,
        "placement_errors": run.placement_errors,
        "exit_squares": run.exit_squares,
        "stopwatch": run.stopwatch,
        "eliminated": run.eliminated,
    }


def _row_context(
    *,
    table: QualifyingTable,
    session: QualifyingSession,
    driver: Any,
    run: Run | None,
    correcting: bool,
    form: RunForm | None = None,
    message: str = "",
    state: str = "",
    offered: tuple[str, int] | None = None,
) -> dict[str, Any]:
    """One driver's row. ``form`` None shows the stored run (or an empty row, the tyres of
    the previous session ``offered`` and marked as such); ``correcting``: race control after
    the allocation, a reason asked for every change."""
    typed = form is not None
    if form is None:
        initial: dict[str, Any] = _stored_initial(run) if run is not None else {}
        if run is None and offered is not None:
            initial["tyres"] = offered[0]
        form = RunForm(initial=initial, prefix=f"d{driver.number}")
    return {
        **form.stopwatch_words(),
        "table": table,
        "session": session,
        "driver": driver,
        "run": run,
        "form": form,
        "breakdown": run.breakdown() if run is not None and not typed else None,
        "message": message,
        "state": state,
        # What the boxes show: the stored run, values typed but not saved, or nothing yet.
        "shows": "typed" if typed else "stored" if run is not None else "empty",
        "offered": offered if run is None and not typed else None,
        "correcting": correcting,
        "allow_redo": table.event.allow_redo,
    }


def _progress(table: QualifyingTable, session: QualifyingSession | None) -> dict[str, Any]:
    drivers = table_drivers(table=table)
    runs = table_runs(table=table, session=session) if session else {}
    return {"entered": len(runs), "total": len(drivers), "table": table, "session": session}


def _closed(request: HttpRequest, table: QualifyingTable, *, status: int) -> HttpResponse:
    """What a referee link shows once the race tables exist: the runs, read only."""
    sessions = list(table.event.sessions.all())
    drivers = table_drivers(table=table)
    runs = {session: table_runs(table=table, session=session) for session in sessions}
    rows = [
        {"driver": driver, "runs": [runs[session].get(driver.pk) for session in sessions]}
        for driver in drivers
    ]
    return render(
        request,
        "qualifying/closed.html",
        {
            "table": table,
            "event": table.event,
            "sessions": sessions,
            "rows": rows,
            # Only a refused save has something typed that was not saved.
            "refused": request.method == "POST",
        },
        status=status,
    )


def qtable(request: HttpRequest, token: str) -> HttpResponse:
    table, actor = table_and_actor(request, token)
    correcting = qualifying_closed(event=table.event)
    if correcting and not actor.can_organise(table.event.championship):
        return _closed(request, table, status=200)
    session = _session_of(table, request.GET.get("session"))
    drivers = table_drivers(table=table)
    runs = table_runs(table=table, session=session) if session else {}
    offered = previous_tyres(table=table, session=session) if session else {}
    rows = [
        _row_context(
            table=table,
            session=session,
            driver=driver,
            run=runs.get(driver.pk),
            correcting=correcting,
            offered=offered.get(driver.pk),
        )
        for driver in drivers
        if session is not None
    ]
    return render(
        request,
        "qualifying/table.html",
        {
            "table": table,
            "event": table.event,
            "session": session,
            "sessions": table.event.sessions.all(),
            "rows": rows,
            "progress": _progress(table, session),
            "link": referee_link(table),
            "correcting": correcting,
            "link_holder": actor.table is not None,
            "referee_name": referee_name(request, table) if actor.table is not None else "",
            "name_form": RefereeNameForm(initial={"name": referee_name(request, table)}),
        },
    )


def qtable_count(request: HttpRequest, token: str) -> HttpResponse:
    """The "n of m runs entered" line, which the page refreshes by itself."""
    table, _actor = table_and_actor(request, token)
    session = _session_of(table, request.GET.get("session"))
    return render(request, "qualifying/_entered.html", {"progress": _progress(table, session)})


@require_POST
def qtable_name(request: HttpRequest, token: str) -> HttpResponse:
    """The referee holding the link gives a name once; the history then says who acted."""
    table, _actor = table_and_actor(request, token)
    RefereeNameForm.remember_posted(request, table)
    back = reverse("qtable", args=[token])
    session = request.POST.get("session", "")
    return redirect(back + (f"?session={session}" if session.isdigit() else ""))


@require_POST
def qtable_preview(request: HttpRequest, token: str, session: int, number: int) -> HttpResponse:
    """What is typed, read back before saving: the stopwatch in words (both readings when it
    is implausibly short) and the absolute time with its breakdown."""
    table, _actor = table_and_actor(request, token)
    session_obj = _session_of(table, session)
    driver = _driver_at_table(table, number)  # a link previews its own drivers only
    run = Run.objects.filter(session=session_obj, driver=driver, cancelled=False).first()
    form = RunForm(
        request.POST,
        prefix=f"d{number}",
        min_stopwatch_cs=table.event.min_stopwatch_cs,
        stored_cs=run.stopwatch_cs if run is not None else None,
    )
    breakdown = None
    if session_obj is not None and form.is_valid() and not form.cleaned_data["eliminated"]:
        data = form.cleaned_data
        breakdown = scoring.absolute_time(
            throws=data["throws"],
            placement_errors=data["placement_errors"],
            exit_squares=data["exit_squares"],
            tyres=data["tyres"],
            track=session_obj.track,  # type: ignore[arg-type]
            stopwatch_cs=data["stopwatch"],
            minute_penalty=table.event.minute_penalty,
        )
    return render(
        request,
        "qualifying/_preview.html",
        {
            **form.stopwatch_words(),
            "breakdown": breakdown,
            "form": form,
            "driver": driver,
            "eliminated": form.data.get(f"d{number}-eliminated"),
        },
    )


def _save_message(run: Run) -> tuple[str, str]:
    """The row's message after a save: "Saved.", and once the race tables exist, whose
    general rank the change moved."""
    moves: list[RankMove] | None = run.rank_moves
    if moves is None:
        return _("Saved."), ""
    if not moves:
        return _("Saved. The general classification did not change."), ""
    return _("Saved."), rank_moves_text(moves)


@require_POST
def qtable_save(request: HttpRequest, token: str, session: int, number: int) -> HttpResponse:
    table, actor = table_and_actor(request, token)
    session_obj = _session_of(table, session)
    if session_obj is None:
        raise Http404(_("No such session."))
    driver = _driver_at_table(table, number)
    correcting = qualifying_closed(event=table.event)
    organiser = actor.can_organise(table.event.championship)
    if correcting and not organiser and not request.htmx:  # type: ignore[attr-defined]
        return _closed(request, table, status=409)
    run = Run.objects.filter(session=session_obj, driver=driver, cancelled=False).first()
    form = RunForm(
        request.POST,
        prefix=f"d{number}",
        min_stopwatch_cs=table.event.min_stopwatch_cs,
        stored_cs=run.stopwatch_cs if run is not None else None,
    )
    message, state, warning, status = "", "has-errors", "", 200
    if form.is_valid():
        data = form.cleaned_data
        try:
            if run is None:
                run = run_record(
                    actor=actor,
                    session=session_obj,
                    driver_number=number,
                    data=data,
                    reason=data["reason"],
                )
            else:
                raw_version = request.POST.get("version", "")
                version = int(raw_version) if raw_version.isascii() and raw_version.isdigit() else 0
                run = run_update(
                    actor=actor, run=run, version=version, data=data, reason=data["reason"]
                )
        except ServiceError as exc:
            message = exc.message
            for field, errors in exc.errors.items():
                for error in errors:
                    if field in form.fields and error != message:
                        form.add_error(field, error)
            if exc.status == 409 and exc.current is None:
                state, status = "closed", 409
            if exc.current is not None:
                run = exc.current
        else:
            (message, warning), state = _save_message(run), "saved"
            form = None  # show the stored values
    else:
        message = _("Not saved: check the highlighted fields.")
    context = _row_context(
        table=table,
        session=session_obj,
        driver=driver,
        run=run,
        correcting=correcting,
        form=form,
        message=message,
        state=state,
    )
    context.update({"warning": warning, "progress": _progress(table, session_obj), "oob": True})
    if request.htmx:  # type: ignore[attr-defined]
        return render(request, "qualifying/_run_row.html", {"row": context}, status=status)
    if status == 409:
        return _closed(request, table, status=409)
    if state == "saved":
        messages.success(request, f"{driver.number} {driver.name}: {message} {warning}".strip())
    else:
        messages.error(request, f"{driver.number} {driver.name}: {message}")
    return redirect(reverse("qtable", args=[token]) + f"?session={session_obj.number}")


def qtable_cancel(request: HttpRequest, token: str, session: int, number: int) -> HttpResponse:
    table, actor = table_and_actor(request, token)
    session_obj = _session_of(table, session)
    driver = _driver_at_table(table, number)
    run = get_object_or_404(Run, session=session_obj, driver=driver, cancelled=False)
    if qualifying_closed(event=table.event) and not actor.can_organise(table.event.championship):
        return _closed(request, table, status=409 if request.method == "POST" else 200)
    form = CancelRunForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        try:
            cancelled = run_cancel(actor=actor, run=run, reason=form.cleaned_data["reason"])
        except ServiceError as exc:
            form.add_error(None, exc.message)
        else:
            messages.success(
                request,
                _("Run of %(name)s cancelled: they may run again.") % {"name": driver.name},
            )
            if cancelled.rank_moves:
                messages.warning(request, rank_moves_text(cancelled.rank_moves))
            return redirect(reverse("qtable", args=[token]) + f"?session={session_obj.number}")
    return render(
        request,
        "qualifying/cancel.html",
        {"table": table, "run": run, "driver": driver, "session": session_obj, "form": form},
    )


def run_history_view(request: HttpRequest, token: str, session: int, number: int) -> HttpResponse:
    table, _actor = table_and_actor(request, token)
    session_obj = _session_of(table, session)
    driver = _driver_at_table(table, number)
    return render(
        request,
        "qualifying/history.html",
        {
            "table": table,
            "session": session_obj,
            "driver": driver,
            "lines": history_lines(table, session_obj, driver),
        },
    )


def qtable_pdf(request: HttpRequest, token: str, kind: str) -> HttpResponse:
    table, _actor = table_and_actor(request, token)
    data = sheet_data(table=table, link=referee_link(table))
    if kind == "cards":
        pdf, name = QualifyingCardRenderer().render(data), f"fiches-table-{table.number}.pdf"
    else:
        pdf, name = TableSheetRenderer().render(data), f"feuille-table-{table.number}.pdf"
    response = HttpResponse(pdf, content_type="application/pdf")
    response["Content-Disposition"] = f'inline; filename="{table.event.slug}-{name}"'
    return response
