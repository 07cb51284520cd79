"""Pages of qualifying at race control: the desk's sessions, qualifying tables (fast tables
and drivers of §1-0-4 included) and their live progress, and the classifications. A table's
own pages (its referee link) are ``qualifying.referee.views``."""

from __future__ import annotations

from typing import Any, NamedTuple

from django.contrib import messages
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from qualifying.desk import day_steps
from qualifying.forms import (
    AutoTablesForm,
    FastDriversForm,
    QualifyingTableForm,
    SessionForm,
)
from qualifying.links import referee_link
from qualifying.models import QualifyingSession, QualifyingTable, Run
from qualifying.seating.services import (
    SpreadMove,
    fast_drivers_set,
    fast_tables_set,
    qualifying_spread_moves,
    qualifying_table_set,
    qualifying_tables_auto,
    qualifying_tables_join,
)
from qualifying.selectors import (
    general_classification,
    qualifying_progress,
    session_classification,
    table_drivers,
)
from qualifying.services import session_create
from qualifying.tables import ClassificationTable
from tournament.access import actor_for, desk_event, organised_event
from tournament.errors import ServiceError
from tournament.games.registry import spec_of
from tournament.models import Driver, Entry, Event
from tournament.public.cache import fragment, public_page
from tournament.registration.forms import RegisterForm
from tournament.registration.services import referee_account_set
from tournament.registration.tables import sorted_or_exported
from tournament.site import backup_state
from tournament.site.confirm import confirm_page, confirmed

# --- Organiser desk -----------------------------------------------------------------------


class EntryState(NamedTuple):
    """What the desk counts of an entry (the entries table shows the rest)."""

    number: int
    checked_in: bool
    absent: bool
    fast: bool


def event_desk(request: HttpRequest, slug: str) -> HttpResponse:
    """Race control's desk: the desk's counter (entries, check-in, the tables' progress)
    opens it too; the organisers' forms show to the organisers only."""
    event = desk_event(request, slug)
    organiser = actor_for(request).can_organise(event.championship)
    sessions = list(event.sessions.all())
    if request.htmx and request.GET.get("part") == "progress":  # type: ignore[attr-defined]
        # The qualifying progress refreshes by itself while the tables enter runs.
        progress = qualifying_progress(event=event, sessions=sessions)
        return render(
            request,
            "qualifying/_progress.html",
            {
                "event": event,
                "sessions": sessions,
                "progress": progress,
                "can_organise": organiser,
            },
        )
    # Plain rows: the entries' models (a thousand at 300 drivers, with their drivers and
    # teams) are read only when the entries table is built again (``_entries_table``).
    entries = [
        EntryState(*row)
        for row in Entry.objects.filter(event=event)
        .order_by("driver__number")
        .values_list("driver__number", "checked_in", "absent", "fast")
    ]
    # A subquery, not the list of the registered drivers' ids: turning 300 ids into SQL
    # parameters cost the desk more than the rest of its queries together.
    not_registered = Driver.objects.filter(championship=event.championship).exclude(
        entries__event=event
    )
    next_session = (max((s.number for s in sessions), default=0)) + 1
    fast = [e.number for e in entries if e.fast]
    progress = qualifying_progress(event=event, sessions=sessions)
    steps = day_steps(
        event=event, entries=entries, progress=progress, sessions=len(sessions), organiser=organiser
    )
    ran = Run.objects.filter(session__event=event).exists()
    return render(
        request,
        "tournament/desk.html",
        {
            "fast_form": FastDriversForm(
                initial={
                    "numbers": " ".join(str(n) for n in fast),
                    # The tables of the progress: every qualifying table, by number.
                    "tables": " ".join(str(p.table.number) for p in progress if p.table.fast),
                }
            ),
            "event": event,
            "game_pages": spec_of(event.game).desk_pages,
            "steps": steps,
            "steps_done": sum(1 for step in steps if step.done),
            "entries": entries,
            "entries_table": _entries_table(request, event),
            "checked_in": sum(1 for e in entries if e.checked_in),
            "not_registered_count": not_registered.count(),
            "register_form": RegisterForm.for_desk(request.session),
            "sessions": sessions,
            "session_form": _session_form(request, next_session),
            "auto_form": AutoTablesForm(initial={"table_size": event.table_size}),
            "progress": progress,
            "ran": ran,
            # The sheets the desk prints (the race tables' and, for a game that qualifies,
            # the qualifying tables'): its own buttons, the allocation being the organisers'.
            "race_tables": event.race_tables.exists(),
            "batches": {b.kind: b for b in event.sheet_batches.defer("pdf")},
            "backup_failure": backup_state.last_failure(),
            "can_organise": organiser,
        },
    )


#: What the desk's entries table shows: the entries, their drivers and teams, the event.
ENTRIES_TABLE = ("tournament.Entry", "tournament.Driver", "tournament.Team", "tournament.Event")
#: Where each visitor's own CSRF token goes in the shared entries table.
CSRF_SLOT = "csrf-token-of-this-visitor"


def _entries_table(request: HttpRequest, event: Event) -> SafeString:
    """The entries and their check-in buttons, built once per version of what they show
    (half the desk's time at 300 drivers, reloaded all day unchanged but for a check-in),
    each form then given this visitor's CSRF token."""

    def build() -> str:
        entries = (
            Entry.objects.filter(event=event)
            .select_related("driver", "driver__team")
            .order_by("driver__number")
        )
        context = {"event": event, "entries": entries, "csrf_token": CSRF_SLOT}
        return render_to_string("tournament/_desk_entries.html", context)

    html = fragment("desk-entries", ENTRIES_TABLE, build, event.pk)
    # Escaped by the template engine when built; a token is letters and digits.
    return mark_safe(html.replace(CSRF_SLOT, get_token(request)))  # noqa: S308


#: The session key of a refused session form: what was typed, shown again with its errors.
SESSION_TYPED = "desk-session-typed"


def _session_form(request: HttpRequest, next_session: int) -> SessionForm:
    """The desk's session form: the next number, or what a refusal kept, errors beside."""
    typed = request.session.pop(SESSION_TYPED, None)
    if typed is None:
        return SessionForm(initial={"number": next_session})
    form = SessionForm(typed)
    form.is_valid()  # the errors show beside their fields
    return form


def _session_confirm(request: HttpRequest, event: Event, data: dict[str, Any]) -> HttpResponse:
    """The confirmation of a session's opening: its weather is drawn once, for good."""
    roll = data["weather_roll"]
    undoes = []
    if event.race_tables.exists():
        undoes.append(
            _(
                "the race tables' grids as built: a new session's runs move the general "
                "classification the grids came from"
            )
        )
    note = (
        _(
            "Session %(number)s opens with the d20 typed, %(roll)s: its weather applies to every "
            "table (§1-0-3) and cannot be drawn again."
        )
        if roll is not None
        else _(
            "Session %(number)s opens with a d20 rolled by the system now: its weather "
            "applies to every table (§1-0-3) and cannot be drawn again."
        )
    ) % {"number": data["number"], "roll": roll}
    return confirm_page(
        request,
        title=_("Open session %(number)s?") % {"number": data["number"]},
        undoes=undoes,
        note=note,
        confirm_label=_("Open the session"),
        cancel=reverse("event-desk", args=[event.slug]),
        fields={"number": data["number"], "weather_roll": "" if roll is None else roll},
    )


@require_POST
def desk_session_create(request: HttpRequest, slug: str) -> HttpResponse:
    event = organised_event(request, slug)
    form = SessionForm(request.POST)
    if form.is_valid() and not confirmed(request):
        return _session_confirm(request, event, form.cleaned_data)
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
        request.session[SESSION_TYPED] = {
            name: request.POST.get(name, "")[:20] for name in ("number", "weather_roll")
        }
    return redirect(reverse("event-desk", args=[slug]) + "#sessions")


def _spread_confirm(
    request: HttpRequest, event: Event, table_size: int, moves: list[SpreadMove]
) -> HttpResponse:
    """The confirmation of a spread that moves drivers once runs are entered: each named,
    whether they ran or not (a card may be printed already), those who ran said so."""
    undoes = [
        (
            _("No. %(number)s %(name)s: table %(before)s → table %(after)s")
            if move.after
            else _("No. %(number)s %(name)s: table %(before)s → no table")
        )
        % {
            "number": move.driver.number,
            "name": move.driver.name,
            "before": move.before,
            "after": move.after,
        }
        + (" · " + _("already ran") if move.ran else "")
        for move in moves
    ]
    return confirm_page(
        request,
        title=_("Spread every driver again?"),
        undoes=undoes,
        note=ngettext(
            "%(count)s driver would change tables (%(ran)s of them already ran): the table "
            "sheets and cards handed out no longer match. To seat late arrivals only, go back "
            "and use “Seat the late arrivals”.",
            "%(count)s drivers would change tables (%(ran)s of them already ran): the table "
            "sheets and cards handed out no longer match. To seat late arrivals only, go back "
            "and use “Seat the late arrivals”.",
            len(moves),
        )
        % {"count": len(moves), "ran": sum(move.ran for move in moves)},
        confirm_label=_("Spread again and move them"),
        cancel=reverse("event-desk", args=[event.slug]) + "#tables",
        fields={"table_size": table_size, "mode": "all"},
    )


@require_POST
def desk_tables_auto(request: HttpRequest, slug: str) -> HttpResponse:
    """Spread the drivers over qualifying tables. Once a run exists, the plain button
    seats the late arrivals only (``mode=late``); a new spread that moves any driver then
    asks first, naming each move (a driver yet to run may hold a printed card)."""
    event = organised_event(request, slug)
    form = AutoTablesForm(request.POST)
    back = redirect(reverse("event-desk", args=[slug]) + "#tables")
    if not form.is_valid():
        messages.error(request, _("Give the number of drivers per table."))
        return back
    size = form.cleaned_data["table_size"]
    actor = actor_for(request)
    try:
        if request.POST.get("mode") == "late":
            placed = qualifying_tables_join(actor=actor, event=event, table_size=size)
            if not placed:
                messages.info(request, _("Every driver already has a seat: nobody moved."))
            else:
                messages.success(
                    request,
                    _("Seated, nobody else moved: %(seats)s.")
                    % {
                        "seats": ", ".join(
                            _("No. %(number)s at table %(table)s")
                            % {"number": driver.number, "table": table.number}
                            for driver, table in placed
                        )
                    },
                )
            return back
        moves = qualifying_spread_moves(event=event, table_size=size)
        asks = moves and Run.objects.filter(session__event=event).exists()
        if asks and not confirmed(request):
            return _spread_confirm(request, event, size, moves)
        tables = qualifying_tables_auto(actor=actor, event=event, table_size=size, move_runs=True)
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(
            request,
            ngettext(
                "%(count)s qualifying table set.", "%(count)s qualifying tables set.", len(tables)
            )
            % {"count": len(tables)},
        )
    return back


@require_POST
def desk_fast_drivers(request: HttpRequest, slug: str) -> HttpResponse:
    """Race control lists the drivers running under a minute (§1-0-4)."""
    event = organised_event(request, slug)
    form = FastDriversForm(request.POST)
    if form.is_valid():
        try:
            with transaction.atomic():  # the drivers and their tables, or nothing
                flagged = fast_drivers_set(
                    actor=actor_for(request),
                    event=event,
                    numbers=form.cleaned_data["numbers"],
                    only=True,
                )
                tables = fast_tables_set(
                    actor=actor_for(request), event=event, numbers=form.cleaned_data["tables"]
                )
        except ServiceError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(
                request,
                ngettext(
                    "%(count)s driver runs under a minute.",
                    "%(count)s drivers run under a minute.",
                    len(flagged),
                )
                % {"count": len(flagged)}
                + " "
                + (
                    ngettext(
                        "Table reserved for them: %(tables)s.",
                        "Tables reserved for them: %(tables)s.",
                        len(tables),
                    )
                    % {"tables": ", ".join(str(n) for n in tables)}
                    if tables
                    else _("No table is reserved for them.")
                ),
            )
    else:
        for errors in form.errors.values():
            for error in errors:
                messages.error(request, error)
    return redirect(reverse("event-desk", args=[slug]) + "#tables")


def desk_table_edit(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    event = organised_event(request, slug)
    table = QualifyingTable.objects.filter(event=event, number=number).first()
    initial: dict[str, Any] = {"number": number}
    if table is not None:
        initial["referee_name"] = table.referee_name
        initial["drivers"] = " ".join(str(d.number) for d in table_drivers(table=table))
        initial["referee_account"] = table.referee.get_username() if table.referee_id else ""
        initial["fast"] = table.fast
    form = QualifyingTableForm(request.POST if request.method == "POST" else None, initial=initial)
    if request.method == "POST" and form.is_valid():
        actor = actor_for(request)
        try:
            with transaction.atomic():  # the drivers and the account, or nothing
                saved = qualifying_table_set(
                    actor=actor,
                    event=event,
                    number=form.cleaned_data["number"],
                    drivers=form.cleaned_data["drivers"],
                    referee_name=form.cleaned_data["referee_name"],
                    fast=form.cleaned_data["fast"],
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


# --- Classifications ------------------------------------------------------------------------


def _readable_event(request: HttpRequest, slug: str) -> Event:
    event = get_object_or_404(Event.objects.select_related("championship"), slug=slug)
    if not event.published_qualifying and not actor_for(request).can_desk(event.championship):
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


# What the classification pages read: once published, the whole room opens them at once.
CLASSIFICATION_READS = (
    "tournament.Event",
    "tournament.Championship",
    "tournament.Driver",
    "tournament.Team",
    "tournament.Entry",
    "tournament.Sanction",
    "qualifying.QualifyingSession",
    "qualifying.Run",
    "qualifying.DrawRoll",
)


@public_page(*CLASSIFICATION_READS, params=("sort",))
def general_view(request: HttpRequest, slug: str) -> HttpResponse:
    event = _readable_event(request, slug)
    return _classification_page(
        request,
        event,
        general_classification(event=event),
        _("General qualifying classification"),
        f"{event.slug}-qualifying",
    )


@public_page(*CLASSIFICATION_READS, params=("sort",))
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
