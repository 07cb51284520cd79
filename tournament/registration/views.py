"""Pages of registration: home, championship, drivers import, event page and organiser desk."""

from __future__ import annotations

import re
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from tournament.access import actor_for, desk_event, organised_event
from tournament.away.arrival import next_door_number
from tournament.errors import ServiceError
from tournament.games.selectors import families_named
from tournament.models import Announcement, Championship, Driver, Event
from tournament.players.matching import proposals
from tournament.players.odds import event_favourites
from tournament.public.cache import public_page
from tournament.public.players import remembered_number
from tournament.registration.csv_import import decode
from tournament.registration.forms import (
    DriverForm,
    DriverImportForm,
    NextSeasonForm,
    RegisterForm,
    apply_errors,
)
from tournament.registration.seasons import championship_next_season as next_season_create
from tournament.registration.seasons import (
    may_start_next_season,
    next_season_defaults,
    season_following,
)
from tournament.registration.services import (
    driver_create,
    drivers_import,
    entries_checkin,
    entries_register,
    entry_absent_set,
    event_publish,
)
from tournament.registration.tables import DriverTable, sorted_or_exported
from tournament.signup import selectors as signup_selectors


def _shown_events(request: HttpRequest, championship: Championship, events: Any) -> list[Event]:
    """The events a visitor sees: those with something published, and every one for the
    championship's organisers and desk (``Event.is_public``; the API shows the same)."""
    events = list(events)
    if all(event.is_public() for event in events):
        return events
    if actor_for(request).can_desk(championship):
        return events
    return [event for event in events if event.is_public()]


@require_safe
def language_switch(request: HttpRequest, code: str) -> HttpResponse:
    """The language menu is a pair of links (FR, EN), not a form: a page that shows it
    carries no CSRF token, and so can be cached for everyone and compressed safely
    (tournament.public.cache). Choosing a language is no action anyone could abuse."""
    if code not in dict(settings.LANGUAGES):
        raise Http404(_("This language is not offered."))
    target = request.GET.get("next", "")
    if not target.startswith("/") or not url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        target = reverse("home")
    response = HttpResponseRedirect(target)
    response.set_cookie(
        settings.LANGUAGE_COOKIE_NAME,
        code,
        max_age=settings.LANGUAGE_COOKIE_AGE or 365 * 24 * 3600,
        samesite="Lax",
    )
    return response


#: What an address's ``<slug:...>`` holds (``django.urls.converters.SlugConverter``).
ADDRESSABLE = re.compile(r"[-a-zA-Z0-9_]+")


@public_page(
    "tournament.Championship",
    "tournament.Event",
    "tournament.Announcement",
    "tournament.Registration",
)
def home(request: HttpRequest) -> HttpResponse:
    # A slug no address can hold (written around the validators: an import of before, a
    # hand-edited database) is left out rather than breaking the page for everyone.
    championships = [
        championship
        for championship in Championship.objects.prefetch_related("events").all()
        if ADDRESSABLE.fullmatch(championship.slug)
    ]
    for championship in championships:
        championship.shown_events = [  # type: ignore[attr-defined]
            event
            for event in _shown_events(request, championship, championship.events.all())
            if ADDRESSABLE.fullmatch(event.slug)
        ]
    return render(
        request,
        "tournament/home.html",
        {
            "championships": championships,
            "upcoming": signup_selectors.upcoming(),
            "families": families_named(public=True),
        },
    )


def championship_detail(request: HttpRequest, slug: str) -> HttpResponse:
    championship = get_object_or_404(Championship.objects.select_related("club"), slug=slug)
    actor = actor_for(request)
    is_organiser = actor.can_organise(championship)
    at_desk = actor.can_desk(championship)
    drivers = Driver.objects.filter(championship=championship).select_related("team")
    table = DriverTable(drivers, full_names=at_desk)
    exported = sorted_or_exported(request, table, f"{championship.slug}-drivers", per_page=100)
    if exported:
        return exported
    return render(
        request,
        "tournament/championship.html",
        {
            "championship": championship,
            "table": table,
            "events": _shown_events(
                request, championship, championship.events.select_related("circuit")
            ),
            "is_organiser": is_organiser,
            "at_desk": at_desk,
            "driver_form": DriverForm() if at_desk else None,
            "matches": len(proposals(actor, championship=championship)) if is_organiser else 0,
            "starts_next_season": is_organiser and may_start_next_season(actor, championship),
        },
    )


def _matches_to_check(request: HttpRequest, actor: Any, championship: Championship) -> None:
    """After an import: the possible matches of players it brought that this organiser may
    decide, as a link to them (``tournament.players.matching``)."""
    count = len(proposals(actor, championship=championship))
    if count:
        text = ngettext(
            "%(count)s possible match to check", "%(count)s possible matches to check", count
        ) % {"count": count}
        messages.info(request, format_html('<a href="{}">{}</a>', reverse("player-matches"), text))


@require_http_methods(["GET", "POST"])
def driver_new(request: HttpRequest, slug: str) -> HttpResponse:
    """One driver registered at a time (the championship page's form posts here); a refusal
    shows this page again with every field as typed and the reason beside it."""
    championship = get_object_or_404(Championship, slug=slug)
    actor = actor_for(request)
    if not actor.can_desk(championship):  # a driver arriving at the desk on the day
        raise PermissionDenied(_("Only the organisers of this championship may add drivers."))
    form = DriverForm(
        request.POST if request.method == "POST" else None,
        initial={"number": next_door_number(championship)},  # on the laptop of an event away
    )
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            driver = driver_create(
                actor=actor,
                championship=championship,
                number=data["number"],
                first_name=data["first_name"],
                last_name=data["last_name"],
                team=data["team"] or None,
                email=data["email"],
                licence=data["licence"] or None,
            )
        except ServiceError as exc:
            apply_errors(form, exc)
        else:
            messages.success(
                request,
                _("Driver %(number)s, %(name)s, registered.")
                % {"number": driver.number, "name": driver.name},
            )
            _matches_to_check(request, actor, championship)
            return redirect(reverse("championship", args=[championship.slug]) + "#drivers")
    return render(
        request, "tournament/driver_new.html", {"championship": championship, "form": form}
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
                ngettext(
                    "%(created)s driver created, %(updated)s updated.",
                    "%(created)s drivers created, %(updated)s updated.",
                    report.created,
                )
                % {"created": report.created, "updated": report.updated},
            )
            _matches_to_check(request, actor, championship)
            return redirect("championship", slug=championship.slug)
    return render(
        request,
        "tournament/import.html",
        {"championship": championship, "form": form, "line_errors": line_errors},
    )


@require_http_methods(["GET", "POST"])
def championship_next_season(request: HttpRequest, slug: str) -> HttpResponse:
    """ "Start next season": a form prefilled with the years one later; the new
    championship takes this one's settings, organisers, teams and drivers."""
    championship = get_object_or_404(Championship, slug=slug)
    actor = actor_for(request)
    if not actor.can_organise(championship):
        raise PermissionDenied(_("Only the organisers of this championship may do this."))
    if not may_start_next_season(actor, championship):
        raise PermissionDenied(
            _("Only the owners and organisers of %(club)s start its next season.")
            % {"club": championship.club.name}  # type: ignore[union-attr]
        )
    if request.method == "POST":
        form = NextSeasonForm(request.POST)
        if form.is_valid():
            try:
                new = next_season_create(
                    actor=actor, championship=championship, **form.cleaned_data
                )
            except ServiceError as exc:
                for name, errors in exc.errors.items():
                    for error in errors:
                        form.add_error(name if name in form.fields else None, error)
                if not exc.errors:
                    form.add_error(None, exc.message)
            else:
                messages.success(
                    request,
                    _("%(name)s is ready: its teams and drivers are those of %(old)s.")
                    % {"name": new, "old": championship},
                )
                return redirect("championship", slug=new.slug)
    else:
        form = NextSeasonForm(initial=next_season_defaults(championship))
    # Said before the click, with a link: this season's next one may exist already.
    wanted = form.data if form.is_bound else form.initial
    existing = season_following(
        championship=championship, name=wanted.get("name", ""), season=wanted.get("season", "")
    )
    return render(
        request,
        "tournament/next_season.html",
        {"championship": championship, "form": form, "existing": existing},
    )


def signup_opened(event: Event) -> Announcement | None:
    """The event's announcement once its sign-up has opened, else None: from then on the
    event's page is public (DOMAIN.md "Corrections to 'Before the day'"), with the
    announcement, the sign-up link and the entrants; results still wait for publication."""
    announcement = Announcement.objects.filter(event=event).first()
    if announcement is None or announcement.opens_at is None:
        return None
    return announcement if announcement.opens_at <= timezone.now() else None


@public_page(
    "tournament.Event",
    "tournament.Championship",
    "tournament.Club",  # named on the page: its rename builds the page again
    "tournament.Circuit",
    "tournament.Announcement",
    "tournament.Entry",
    "tournament.Driver",
    "tournament.Team",
    "qualifying.QualifyingSession",
    "qualifying.QualifyingSeat",
    "qualifying.QualifyingTable",
    "races.GridSlot",
    "races.RaceTable",
    "tournament.PlayerRating",  # the favourites of each table, where the event shows them
    "leagues.Round",  # the leagues counting the event, linked under its name
    "leagues.League",
    personal=True,
)
def event_detail(request: HttpRequest, slug: str) -> HttpResponse:
    event = get_object_or_404(
        Event.objects.select_related("championship__club", "circuit"), slug=slug
    )
    # The desk sees the event as its organisers do (its counter, unpublished parts).
    actor = actor_for(request)
    is_organiser = actor.can_desk(event.championship)
    announcement = signup_opened(event)
    if not (is_organiser or event.is_public() or announcement):
        # The same answer as for an unknown event: nothing unpublished shows (API alike).
        raise Http404(_("This page does not exist, or it is not published yet."))
    race = event.published_allocation or is_organiser
    qualifying = event.published_qualifying_tables or is_organiser
    return render(
        request,
        "tournament/event.html",
        {
            "event": event,
            # Before the day: what the sign-up says, and its link.
            "announcement": announcement if event.date >= timezone.localdate() else None,
            "is_organiser": is_organiser,
            # The race tables' page is the organisers' (the desk is refused it): its link too.
            "can_organise": is_organiser and actor.can_organise(event.championship),
            "driver_form": DriverForm() if is_organiser else None,
            "sessions": event.sessions.all(),
            "show_qualifying": is_organiser or event.published_qualifying,
            "show_where": race or qualifying,
            "race_published": race,
            "entries": event.entries.count(),
            "mine": _my_seat(request, event, race=race, qualifying=qualifying),
            "favourites": event_favourites(event) if race and event.show_favourites else [],
        },
    )


def _my_seat(request: HttpRequest, event: Event, *, race: bool, qualifying: bool) -> Any:
    """The seat of the driver this phone chose on "Where do I sit?", if any to show.

    The event page sits below the race floor that finds seats: it reads the grid slots and
    qualifying seats through the models' reverse relations instead.
    """
    number = remembered_number(request, event.championship)
    if number is None or not (race or qualifying):
        return None
    driver = Driver.objects.filter(championship=event.championship, number=number).first()
    if driver is None:
        return None
    if race:
        slot = driver.grid_slots.filter(event=event).select_related("table").first()
        if slot is not None:
            return {"driver": driver, "table": slot.table, "position": slot.position,
                    "stand": slot.stand, "kind": "race"}  # fmt: skip
    if qualifying:
        seat = driver.qualifying_seats.filter(event=event).select_related("table").first()
        if seat is not None:
            return {"driver": driver, "table": seat.table, "kind": "qualifying"}
    if event.entries.filter(driver=driver).exists():
        return {"driver": driver, "table": None, "kind": ""}
    return None


@require_POST
def desk_register(request: HttpRequest, slug: str) -> HttpResponse:
    """Register (and check in, with ``action=checkin``) the numbers typed at the desk. The
    known numbers go through; the unknown ones stay in the box, named, for a second look."""
    event = desk_event(request, slug)
    actor = actor_for(request)
    back = redirect(reverse("event-desk", args=[slug]) + "#entries")
    unknown: list[int] = []
    if request.POST.get("all"):
        numbers = list(
            Driver.objects.filter(championship=event.championship).values_list("number", flat=True)
        )
    else:
        form = RegisterForm(request.POST)
        if not form.is_valid():
            error = next(iter(form.errors.get("numbers") or form.non_field_errors() or [""]))
            messages.error(request, error)
            RegisterForm.keep(request.session, request.POST.get("numbers", ""), error)
            return back
        typed = list(dict.fromkeys(form.cleaned_data["numbers"]))
        known = set(
            Driver.objects.filter(championship=event.championship, number__in=typed).values_list(
                "number", flat=True
            )
        )
        numbers = [n for n in typed if n in known]
        unknown = [n for n in typed if n not in known]
    arrived = request.POST.get("action") == "checkin"
    entries = []
    try:
        if numbers:
            with transaction.atomic():
                entries = entries_register(actor=actor, event=event, numbers=numbers)
                if arrived:  # a driver at the door: registered if needed, and checked in
                    entries_checkin(actor=actor, event=event, numbers=numbers)
    except ServiceError as exc:
        messages.error(request, exc.message)
        RegisterForm.keep(request.session, request.POST.get("numbers", ""), exc.message)
        return back
    if entries:
        text = (
            ngettext("%(count)s driver checked in.", "%(count)s drivers checked in.", len(entries))
            if arrived
            else ngettext(
                "%(count)s driver registered.", "%(count)s drivers registered.", len(entries)
            )
        )
        messages.success(request, text % {"count": len(entries)})
    if unknown:
        listed = " ".join(str(n) for n in unknown)
        error = ngettext(
            "No driver %(numbers)s in this championship: kept in the box, to correct or to "
            "add to the drivers first.",
            "No drivers %(numbers)s in this championship: kept in the box, to correct or to "
            "add to the drivers first.",
            len(unknown),
        ) % {"numbers": ", ".join(str(n) for n in unknown)}
        messages.error(request, error)
        RegisterForm.keep(request.session, listed, error)
    return back


@require_POST
def desk_checkin(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    """One driver at the desk: ``state`` ``present`` (checked in), ``absent`` (did not
    come), or ``none`` (undo either: a button of its own, never the "✓ Present" mark)."""
    event = desk_event(request, slug)
    actor = actor_for(request)
    state = request.POST.get("state") or {"1": "present", "0": "none"}.get(
        request.POST.get("checked_in", ""), ""
    )
    if state not in ("present", "absent", "none"):
        messages.error(request, _("Choose: present, absent, or undo."))
        return redirect(reverse("event-desk", args=[slug]) + "#entries")
    try:
        if state == "absent":
            entry = entry_absent_set(actor=actor, event=event, number=number)
        else:
            (entry,) = entries_checkin(
                actor=actor, event=event, numbers=[number], checked_in=state == "present"
            )
            if state == "none" and entry.absent:
                entry = entry_absent_set(actor=actor, event=event, number=number, absent=False)
    except ServiceError as exc:
        messages.error(request, exc.message)
        return redirect("event-desk", slug=slug)
    if request.htmx:  # type: ignore[attr-defined]
        # The button, and the counter above the list swapped out of band: it follows.
        entries = event.entries.all()
        return render(
            request,
            "tournament/_checkin.html",
            {
                "event": event,
                "entry": entry,
                "count": {
                    "checked_in": entries.filter(checked_in=True).count(),
                    "total": entries.count(),
                },
            },
        )
    # Without JavaScript the whole desk comes back: say what changed.
    if entry.checked_in:
        message = _("%(number)s %(name)s is checked in.")
    elif entry.absent:
        message = _("%(number)s %(name)s is marked absent.")
    else:
        message = _("%(number)s %(name)s is no longer checked in.")
    messages.success(request, message % {"number": entry.driver.number, "name": entry.driver.name})
    return redirect(reverse("event-desk", args=[slug]) + "#entries")


@require_POST
def desk_publish(request: HttpRequest, slug: str) -> HttpResponse:
    event = organised_event(request, slug)
    event_publish(
        actor=actor_for(request),
        event=event,
        qualifying=request.POST.get("qualifying") == "1",
        allocation=request.POST.get("allocation") == "1",
        results=request.POST.get("results") == "1",
        qualifying_tables=request.POST.get("qualifying_tables") == "1",
    )
    messages.success(request, _("Publication settings saved."))
    return redirect("event-desk", slug=slug)
