"""Pages of registration: home, championship, drivers import, event page and organiser desk."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from tournament.access import Actor
from tournament.csv_import import decode
from tournament.errors import ServiceError
from tournament.forms import DriverImportForm, RegisterForm
from tournament.models import Championship, Driver, Entry, Event
from tournament.services import (
    drivers_import,
    entries_checkin,
    entries_register,
    event_publish,
)
from tournament.tables import DriverTable, sorted_or_exported


def actor_for(request: HttpRequest) -> Actor:
    return Actor(user=request.user) if request.user.is_authenticated else Actor.anonymous()


def organised_event(request: HttpRequest, slug: str) -> Event:
    """The event, if the user organises its championship; 404 / PermissionDenied otherwise."""
    event = get_object_or_404(Event.objects.select_related("championship", "circuit"), slug=slug)
    if not actor_for(request).can_organise(event.championship):
        if not request.user.is_authenticated:
            raise PermissionDenied(_("Log in as an organiser of this championship."))
        raise PermissionDenied(_("You are not an organiser of this championship."))
    return event


def home(request: HttpRequest) -> HttpResponse:
    championships = Championship.objects.prefetch_related("events").all()
    return render(request, "tournament/home.html", {"championships": championships})


def championship_detail(request: HttpRequest, slug: str) -> HttpResponse:
    championship = get_object_or_404(Championship, slug=slug)
    drivers = Driver.objects.filter(championship=championship).select_related("team")
    table = DriverTable(drivers)
    exported = sorted_or_exported(request, table, f"{championship.slug}-drivers")
    if exported:
        return exported
    table.paginate(page=request.GET.get("page", 1), per_page=100)
    return render(
        request,
        "tournament/championship.html",
        {
            "championship": championship,
            "table": table,
            "events": championship.events.select_related("circuit"),
            "is_organiser": actor_for(request).can_organise(championship),
        },
    )


@require_http_methods(["GET", "POST"])
def drivers_import_view(request: HttpRequest, slug: str) -> HttpResponse:
    championship = get_object_or_404(Championship, slug=slug)
    actor = actor_for(request)
    if not actor.can_organise(championship):
        raise PermissionDenied(_("Only the organisers of this championship may import drivers."))
    line_errors = []
    form = (
        DriverImportForm(request.POST, request.FILES)
        if request.method == "POST"
        else DriverImportForm()
    )
    if request.method == "POST" and form.is_valid():
        text = decode(form.cleaned_data["file"].read())
        try:
            report = drivers_import(actor=actor, championship=championship, text=text)
        except ServiceError as exc:
            line_errors = exc.current or []
            messages.error(request, exc.message)
        else:
            messages.success(
                request,
                _("%(created)s driver(s) created, %(updated)s updated.")
                % {"created": report.created, "updated": report.updated},
            )
            return redirect("championship", slug=championship.slug)
    return render(
        request,
        "tournament/import.html",
        {"championship": championship, "form": form, "line_errors": line_errors},
    )


def event_detail(request: HttpRequest, slug: str) -> HttpResponse:
    event = get_object_or_404(Event.objects.select_related("championship", "circuit"), slug=slug)
    is_organiser = actor_for(request).can_organise(event.championship)
    return render(
        request,
        "tournament/event.html",
        {
            "event": event,
            "is_organiser": is_organiser,
            "sessions": event.sessions.all(),
            "show_qualifying": is_organiser or event.published_qualifying,
            "entries": event.entries.count(),
        },
    )


def event_desk(request: HttpRequest, slug: str) -> HttpResponse:
    from qualifying.forms import AutoTablesForm, SessionForm
    from qualifying.selectors import qualifying_progress

    event = organised_event(request, slug)
    entries = list(
        Entry.objects.filter(event=event)
        .select_related("driver", "driver__team")
        .order_by("driver__number")
    )
    registered = {e.driver_id for e in entries}
    not_registered = Driver.objects.filter(championship=event.championship).exclude(
        pk__in=registered
    )
    sessions = list(event.sessions.all())
    next_session = (max((s.number for s in sessions), default=0)) + 1
    return render(
        request,
        "tournament/desk.html",
        {
            "event": event,
            "entries": entries,
            "checked_in": sum(1 for e in entries if e.checked_in),
            "not_registered_count": not_registered.count(),
            "register_form": RegisterForm(),
            "sessions": sessions,
            "session_form": SessionForm(initial={"number": next_session}),
            "auto_form": AutoTablesForm(initial={"table_size": event.table_size}),
            "progress": qualifying_progress(event=event),
        },
    )


@require_POST
def desk_register(request: HttpRequest, slug: str) -> HttpResponse:
    event = organised_event(request, slug)
    actor = actor_for(request)
    if request.POST.get("all"):
        numbers = list(
            Driver.objects.filter(championship=event.championship).values_list("number", flat=True)
        )
    else:
        form = RegisterForm(request.POST)
        if not form.is_valid():
            for errors in form.errors.values():
                for error in errors:
                    messages.error(request, error)
            return redirect("event-desk", slug=slug)
        numbers = form.cleaned_data["numbers"]
    arrived = request.POST.get("action") == "checkin"
    try:
        with transaction.atomic():
            entries = entries_register(actor=actor, event=event, numbers=numbers)
            if arrived:  # a driver at the door: registered if needed, and checked in
                entries_checkin(actor=actor, event=event, numbers=numbers)
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        if arrived:
            messages.success(
                request, _("%(count)s driver(s) checked in.") % {"count": len(entries)}
            )
        else:
            messages.success(
                request, _("%(count)s driver(s) registered.") % {"count": len(entries)}
            )
    return redirect(reverse("event-desk", args=[slug]) + "#entries")


@require_POST
def desk_checkin(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    event = organised_event(request, slug)
    checked_in = request.POST.get("checked_in") == "1"
    try:
        (entry,) = entries_checkin(
            actor=actor_for(request), event=event, numbers=[number], checked_in=checked_in
        )
    except ServiceError as exc:
        messages.error(request, exc.message)
        return redirect("event-desk", slug=slug)
    if request.htmx:  # type: ignore[attr-defined]
        return render(request, "tournament/_checkin.html", {"event": event, "entry": entry})
    # Without JavaScript the whole desk comes back: say what changed.
    if entry.checked_in:
        message = _("%(number)s %(name)s is checked in.")
    else:
        message = _("%(number)s %(name)s is no longer checked in.")
    messages.success(request, message % {"number": entry.driver.number, "name": entry.driver.name})
    return redirect("event-desk", slug=slug)


@require_POST
def desk_publish(request: HttpRequest, slug: str) -> HttpResponse:
    event = organised_event(request, slug)
    event_publish(
        actor=actor_for(request),
        event=event,
        qualifying=request.POST.get("qualifying") == "1",
        allocation=request.POST.get("allocation") == "1",
        results=request.POST.get("results") == "1",
    )
    messages.success(request, _("Publication settings saved."))
    return redirect("event-desk", slug=slug)
