"""Pages of qualifying: the desk's session and table forms, a table's run entry, the
classifications, a run's history and the printed sheets."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from qualifying import scoring
from qualifying.forms import (
    AutoTablesForm,
    CancelRunForm,
    QualifyingTableForm,
    RunForm,
    SessionForm,
)
from qualifying.models import QualifyingSession, QualifyingTable, Run
from qualifying.pdf import QualifyingCardRenderer, TableSheetRenderer
from qualifying.selectors import (
    general_classification,
    run_history,
    session_classification,
    table_drivers,
    table_runs,
)
from qualifying.services import (
    qualifying_table_set,
    qualifying_tables_auto,
    run_cancel,
    run_record,
    run_update,
    session_create,
)
from qualifying.sheets import sheet_data
from qualifying.tables import ClassificationTable
from tournament.access import Actor
from tournament.errors import ServiceError
from tournament.models import Event
from tournament.tables import sorted_or_exported
from tournament.views import actor_for, organised_event


def referee_link(table: QualifyingTable) -> str:
    return settings.SITE_URL.rstrip("/") + reverse("qtable", args=[table.token])


# --- Organiser desk -----------------------------------------------------------------------


@require_POST
def desk_session_create(request: HttpRequest, slug: str) -> HttpResponse:
    event = organised_event(request, slug)
    form = SessionForm(request.POST)
    if form.is_valid():
        try:
            session = session_create(
                actor=actor_for(request),
                event=event,
                number=form.cleaned_data["number"],
                weather_roll=form.cleaned_data["weather_roll"],
            )
        except ServiceError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(
                request,
                _("Session %(number)s: d20 = %(roll)s, %(weather)s, %(track)s track.")
                % {
                    "number": session.number,
                    "roll": session.roll,
                    "weather": session.get_weather_display(),
                    "track": session.get_track_display().lower(),
                },
            )
    else:
        for errors in form.errors.values():
            for error in errors:
                messages.error(request, error)
    return redirect("event-desk", slug=slug)


@require_POST
def desk_tables_auto(request: HttpRequest, slug: str) -> HttpResponse:
    event = organised_event(request, slug)
    form = AutoTablesForm(request.POST)
    if form.is_valid():
        try:
            tables = qualifying_tables_auto(
                actor=actor_for(request), event=event, table_size=form.cleaned_data["table_size"]
            )
        except ServiceError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(
                request, _("%(count)s qualifying table(s) set.") % {"count": len(tables)}
            )
    else:
        messages.error(request, _("Give the number of drivers per table."))
    return redirect("event-desk", slug=slug)


def desk_table_edit(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    event = organised_event(request, slug)
    table = QualifyingTable.objects.filter(event=event, number=number).first()
    initial: dict[str, Any] = {"number": number}
    if table is not None:
        initial["referee_name"] = table.referee_name
        initial["drivers"] = " ".join(str(d.number) for d in table_drivers(table=table))
        initial["referee_account"] = table.referee.get_username() if table.referee_id else ""
    form = QualifyingTableForm(request.POST if request.method == "POST" else None, initial=initial)
    if request.method == "POST" and form.is_valid():
        from races.services import referee_account_set

        actor = actor_for(request)
        try:
            with transaction.atomic():  # the drivers and the account, or nothing
                saved = qualifying_table_set(
                    actor=actor,
                    event=event,
                    number=form.cleaned_data["number"],
                    drivers=form.cleaned_data["drivers"],
                    referee_name=form.cleaned_data["referee_name"],
                )
                referee_account_set(
                    actor=actor, table=saved, username=form.cleaned_data["referee_account"]
                )
        except ServiceError as exc:
            field = "referee_account" if "referee_account" in exc.errors else None
            form.add_error(field, exc.message)
        else:
            messages.success(request, _("Qualifying table %(number)s saved.") % {"number": number})
            return redirect("event-desk", slug=slug)
    return render(
        request,
        "qualifying/table_edit.html",
        {"event": event, "form": form, "table": table, "link": table and referee_link(table)},
    )


# --- A qualifying table, opened from its referee link --------------------------------------


def _table_and_actor(request: HttpRequest, token: str) -> tuple[QualifyingTable, Actor]:
    from races.views import replaced_or_404, table_actor

    table = (
        QualifyingTable.objects.select_related("event", "event__championship", "event__circuit")
        .filter(token=token)
        .first()
    )
    if table is None:
        replaced_or_404(token, request)
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


def _row_context(
    *,
    table: QualifyingTable,
    session: QualifyingSession,
    driver: Any,
    run: Run | None,
    form: RunForm | None = None,
    message: str = "",
    state: str = "",
) -> dict[str, Any]:
    if form is None:
        initial = {"tyres": "hard"}
        if run is not None:
            initial = {
                "tyres": run.tyres,
                "throws": run.throws,
                "placement_errors": run.placement_errors,
                "exit_squares": run.exit_squares,
                "stopwatch": run.stopwatch,
                "eliminated": run.eliminated,
            }
        form = RunForm(initial=initial, prefix=f"d{driver.number}")
    breakdown = run.breakdown() if run is not None else None
    return {
        "table": table,
        "session": session,
        "driver": driver,
        "run": run,
        "form": form,
        "breakdown": breakdown,
        "message": message,
        "state": state,
        "allow_redo": table.event.allow_redo,
    }


def qtable(request: HttpRequest, token: str) -> HttpResponse:
    table, _actor = _table_and_actor(request, token)
    session = _session_of(table, request.GET.get("session"))
    drivers = table_drivers(table=table)
    runs = table_runs(table=table, session=session) if session else {}
    rows = (
        [_row_context(table=table, session=session, driver=d, run=runs.get(d.pk)) for d in drivers]
        if session
        else []
    )
    return render(
        request,
        "qualifying/table.html",
        {
            "table": table,
            "event": table.event,
            "session": session,
            "sessions": table.event.sessions.all(),
            "rows": rows,
            "entered": len(runs),
            "link": referee_link(table),
        },
    )


def _driver_at_table(table: QualifyingTable, number: int) -> Any:
    for driver in table_drivers(table=table):
        if driver.number == number:
            return driver
    raise Http404(_("This driver does not sit at this table."))


@require_POST
def qtable_preview(request: HttpRequest, token: str, session: int, number: int) -> HttpResponse:
    """The absolute time and its breakdown for what is typed, before saving."""
    table, _actor = _table_and_actor(request, token)
    session_obj = _session_of(table, session)
    _driver_at_table(table, number)  # a link previews its own drivers only
    form = RunForm(request.POST, prefix=f"d{number}")
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
            "breakdown": breakdown,
            "form": form,
            "eliminated": form.data.get(f"d{number}-eliminated"),
        },
    )


@require_POST
def qtable_save(request: HttpRequest, token: str, session: int, number: int) -> HttpResponse:
    table, actor = _table_and_actor(request, token)
    session_obj = _session_of(table, session)
    if session_obj is None:
        raise Http404(_("No such session."))
    driver = _driver_at_table(table, number)
    form = RunForm(request.POST, prefix=f"d{number}")
    run = Run.objects.filter(session=session_obj, driver=driver, cancelled=False).first()
    message, state = "", "has-errors"
    if form.is_valid():
        try:
            if run is None:
                run = run_record(
                    actor=actor, session=session_obj, driver_number=number, data=form.cleaned_data
                )
            else:
                raw_version = request.POST.get("version", "")
                version = int(raw_version) if raw_version.isascii() and raw_version.isdigit() else 0
                run = run_update(actor=actor, run=run, version=version, data=form.cleaned_data)
        except ServiceError as exc:
            message = exc.message
            if exc.current is not None:
                run = exc.current
        else:
            message, state = _("Saved."), "saved"
            form = None  # show the stored values
    else:
        message = _("Not saved: check the highlighted fields.")
    context = _row_context(
        table=table,
        session=session_obj,
        driver=driver,
        run=run,
        form=form,
        message=message,
        state=state,
    )
    if request.htmx:  # type: ignore[attr-defined]
        return render(request, "qualifying/_run_row.html", context)
    if state == "saved":
        messages.success(request, f"{driver.number} {driver.name}: {message}")
    else:
        messages.error(request, f"{driver.number} {driver.name}: {message}")
    return redirect(reverse("qtable", args=[token]) + f"?session={session_obj.number}")


def qtable_cancel(request: HttpRequest, token: str, session: int, number: int) -> HttpResponse:
    table, actor = _table_and_actor(request, token)
    session_obj = _session_of(table, session)
    driver = _driver_at_table(table, number)
    run = get_object_or_404(Run, session=session_obj, driver=driver, cancelled=False)
    form = CancelRunForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        try:
            run_cancel(actor=actor, run=run, reason=form.cleaned_data["reason"])
        except ServiceError as exc:
            form.add_error(None, exc.message)
        else:
            messages.success(
                request,
                _("Run of %(name)s cancelled: they may run again.") % {"name": driver.name},
            )
            return redirect(reverse("qtable", args=[token]) + f"?session={session_obj.number}")
    return render(
        request,
        "qualifying/cancel.html",
        {"table": table, "run": run, "driver": driver, "session": session_obj, "form": form},
    )


def _history_lines(session: QualifyingSession, driver: Any) -> list[dict[str, Any]]:
    """Each recorded version of the driver's runs, with what changed in words."""
    records = run_history(session=session, driver=driver)
    lines = []
    for record in records:
        previous = record.prev_record
        changes = []
        if previous is not None:
            delta = record.diff_against(previous)
            for change in delta.changes:
                field = Run._meta.get_field(change.field)
                old, new = change.old, change.new
                if change.field == "stopwatch_cs":
                    old = scoring.format_stopwatch(old) if old is not None else "—"
                    new = scoring.format_stopwatch(new) if new is not None else "—"
                changes.append({"field": field.verbose_name, "old": old, "new": new})
        who = record.history_actor or (record.history_user and record.history_user.get_username())
        lines.append(
            {
                "record": record,
                "who": who or _("unknown"),
                "kind": record.get_history_type_display(),
                "changes": changes,
            }
        )
    return lines


def run_history_view(request: HttpRequest, token: str, session: int, number: int) -> HttpResponse:
    table, _actor = _table_and_actor(request, token)
    session_obj = _session_of(table, session)
    driver = _driver_at_table(table, number)
    return render(
        request,
        "qualifying/history.html",
        {
            "table": table,
            "session": session_obj,
            "driver": driver,
            "lines": _history_lines(session_obj, driver),
        },
    )


def qtable_pdf(request: HttpRequest, token: str, kind: str) -> HttpResponse:
    table, _actor = _table_and_actor(request, token)
    data = sheet_data(table=table, link=referee_link(table))
    if kind == "cards":
        pdf, name = QualifyingCardRenderer().render(data), f"fiches-table-{table.number}.pdf"
    else:
        pdf, name = TableSheetRenderer().render(data), f"feuille-table-{table.number}.pdf"
    response = HttpResponse(pdf, content_type="application/pdf")
    response["Content-Disposition"] = f'inline; filename="{table.event.slug}-{name}"'
    return response


# --- Classifications ------------------------------------------------------------------------


def _readable_event(request: HttpRequest, slug: str) -> Event:
    event = get_object_or_404(Event.objects.select_related("championship"), slug=slug)
    if not event.published_qualifying and not actor_for(request).can_organise(event.championship):
        raise Http404(_("The qualifying classification is not published yet."))
    return event


def _classification_page(
    request: HttpRequest, event: Event, lines: list, title: str, filename: str
) -> HttpResponse:
    table = ClassificationTable.from_lines(lines)
    exported = sorted_or_exported(request, table, filename)
    if exported:
        return exported
    return render(
        request,
        "qualifying/classification.html",
        {"event": event, "table": table, "title": title, "sessions": event.sessions.all()},
    )


def general_view(request: HttpRequest, slug: str) -> HttpResponse:
    event = _readable_event(request, slug)
    return _classification_page(
        request,
        event,
        general_classification(event=event),
        _("General qualifying classification"),
        f"{event.slug}-qualifying",
    )


def session_view(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    event = _readable_event(request, slug)
    session = get_object_or_404(QualifyingSession, event=event, number=number)
    return _classification_page(
        request,
        event,
        session_classification(session=session),
        _("Session %(number)s classification") % {"number": number},
        f"{event.slug}-session-{number}",
    )
