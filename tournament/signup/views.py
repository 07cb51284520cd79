"""Sign-up's public pages, phone first: the sign-up form of an event, the confirmation
(a button: mail scanners open links, only a person presses; a wrong link says so before
it), the registrant's own page (a cancellation asks first), the psych sheet (the accepted
entrants, as ``GET …/entrants`` shows them), the calendars."""

from __future__ import annotations

import datetime
import zoneinfo

import icalendar
from django.conf import settings
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_safe

from tournament.access import actor_for
from tournament.errors import ServiceError
from tournament.models import Event
from tournament.public.cache import public_page
from tournament.public.players import remember
from tournament.registration.forms import apply_errors
from tournament.signup import rules, selectors, services
from tournament.signup.forms import OwnEditForm, SignUpForm
from tournament.signup.models import Announcement, Registration
from tournament.site import ratelimit
from tournament.site.confirm import confirm_page as ask_first
from tournament.site.confirm import confirmed

NO_ROBOTS = "noindex, nofollow"


def _announcement(event: Event) -> Announcement:
    return Announcement.objects.filter(event=event).first() or Announcement(event=event)


@require_http_methods(["GET", "POST"])
def signup_page(request: HttpRequest, slug: str) -> HttpResponse:
    event = get_object_or_404(Event.objects.select_related("championship", "circuit"), slug=slug)
    # Before the announcement, race control's only; the desk reads the event as its organisers
    # do (the event page, the API's sign-up: DOMAIN.md "Clubs and who may do what").
    if not services.announced(event) and not actor_for(request).can_desk(event.championship):
        raise Http404
    announcement = _announcement(event)
    refusal = services.window_refusal(event, timezone.now())
    form = SignUpForm(request.POST if request.method == "POST" else None)
    status = 200
    if request.method == "POST" and refusal is None and form.is_valid():
        data = form.cleaned_data
        if data.pop("website"):
            # A robot filled the hidden field: the same answer as for a person, nothing done.
            return render(request, "signup/sent.html", {"event": event})
        data.pop("consent")
        try:
            ratelimit.signup_check(request, data["email"])
            services.registration_sign_up(event=event, language=get_language() or "fr", **data)
        except ServiceError as exc:
            apply_errors(form, exc)
            status = exc.status
        else:
            return render(request, "signup/sent.html", {"event": event})
    elif request.method == "POST":
        status = 409 if refusal is not None else 400
    accepted = selectors.accepted_count(event)
    waiting = selectors.waiting_list(event).count()
    context = {
        "event": event,
        "announcement": announcement,
        "refusal": refusal.message if refusal else "",
        "form": form,
        "accepted": accepted,
        "waiting": waiting,
        # A newcomer waits while a seat is taken by all or anyone waits (DOMAIN.md).
        "full": announcement.approval == Announcement.Approval.FIRST_COME
        and rules.on_confirm(announcement.approval, announcement.capacity, accepted, waiting)
        == "waiting",
    }
    return render(request, "signup/signup.html", context, status=status)


@require_http_methods(["GET", "POST"])
def confirm_page(request: HttpRequest, token: str) -> HttpResponse:
    if request.method == "POST":
        try:
            registration, link = services.registration_confirm(token=token)
        except ServiceError as exc:
            return render(
                request, "signup/problem.html", {"message": exc.message}, status=exc.status
            )
        messages.success(request, _("Your address is confirmed."))
        return redirect("signup-own", token=link.rstrip("/").rsplit("/", 1)[1])
    try:  # a wrong, replaced, used or expired link says so at once, without a button
        found = services.registration_to_confirm(token)
    except ServiceError as exc:
        response = render(
            request, "signup/problem.html", {"message": exc.message}, status=exc.status
        )
    else:
        response = render(request, "signup/confirm.html", {"token": token, "event": found.event})
    response["X-Robots-Tag"] = NO_ROBOTS
    return response


@require_http_methods(["GET", "POST"])
def own_page(request: HttpRequest, token: str) -> HttpResponse:
    try:
        registration = services.registration_for_link(token)
    except ServiceError as exc:
        return render(request, "signup/problem.html", {"message": exc.message}, status=exc.status)
    event = registration.event
    announcement = _announcement(event)
    editable = rules.may_edit(timezone.now(), announcement.edit_until) and registration.status in (
        services.LIVE
    )
    initial = {
        k: getattr(registration, k) for k in ("first_name", "last_name", "team", "public_name")
    }
    form = OwnEditForm(
        request.POST if request.POST.get("action") == "edit" else None, initial=initial
    )
    status = 200
    if request.method == "POST":
        if request.POST.get("action") == "cancel" and not confirmed(request):
            response = _cancel_asked(request, registration)
            response["X-Robots-Tag"] = NO_ROBOTS
            return response
        if request.POST.get("action") == "cancel":
            try:
                services.registration_cancel(registration=registration)
            except ServiceError as exc:
                messages.error(request, exc.message)
            else:
                messages.success(request, _("Your registration is cancelled."))
            return redirect(request.path)
        try:
            if form.is_valid():
                services.registration_edit(registration=registration, **form.cleaned_data)
                messages.success(request, _("Your changes are saved."))
                return redirect(request.path)
            status = 400
        except ServiceError as exc:
            apply_errors(form, exc)
            status = exc.status
    context = {
        "registration": registration,
        "event": event,
        "announcement": announcement,
        "rank": services.rank_of(registration),
        "table": selectors.table_of(registration),
        "editable": editable,
        "form": form,
        "public_name": rules.public_name(
            registration.first_name, registration.last_name, registration.public_name
        ),
    }
    response = render(request, "signup/own.html", context, status=status)
    response["X-Robots-Tag"] = NO_ROBOTS
    if registration.driver_id is not None:
        # "This is me" on this phone: the event's pages then show this player's table.
        remember(response, event.championship, registration.driver.number)
    return response


def _cancel_asked(request: HttpRequest, registration: Registration) -> HttpResponse:
    """What a cancellation will do, before it is done (DOMAIN.md "Corrections":
    irreversible taps ask first); the second tap posts the same form, confirmed."""
    names = {"event": registration.event.name, "rank": services.rank_of(registration)}
    if registration.status == Registration.Status.ACCEPTED:
        what = _("You give up your seat at %(event)s: the first on the waiting list takes it.")
    elif registration.status == Registration.Status.WAITING:
        what = _("You leave the waiting list of %(event)s (you are n° %(rank)s).")
    else:
        what = _("You withdraw your registration for %(event)s.")
    return ask_first(
        request,
        title=_("Cancel your registration?"),
        heading=_("What cancelling does:"),
        undoes=[
            what % names,
            _("It cannot be undone: to come back, sign up again, as a newcomer."),
        ],
        confirm_label=_("Yes, cancel my registration"),
        cancel=request.path,
        fields={"action": "cancel"},
    )


@public_page(
    "tournament.Event",
    "tournament.Championship",
    "tournament.Announcement",
    "tournament.Registration",
    "tournament.Driver",
    "tournament.PlayerRating",
)
@require_safe
def entrants_page(request: HttpRequest, slug: str) -> HttpResponse:
    """The psych sheet: the accepted entrants, best rating first, unrated after in
    registration order, names as each chose; what the public API shows and nothing more.
    Before the event announces anything, race control's only (404), as in the API; the desk
    reads it as the organisers do (the door's list)."""
    event = get_object_or_404(Event.objects.select_related("championship"), slug=slug)
    if not services.announced(event) and not actor_for(request).can_desk(event.championship):
        raise Http404
    entrants = selectors.entrants(event)
    return render(request, "signup/entrants.html", {"event": event, "entrants": entrants})


# --- calendars (RFC 5545 through the icalendar library) ---------------------------------


def _one_line(text: str) -> str:
    """A name written before names were one line, as one line."""
    return " ".join(text.splitlines())


def _end(announcement: Announcement) -> datetime.time:
    """When the day ends: the time of the schedule's last line, when after the start;
    else late in the evening."""
    steps = [s["time"] for s in announcement.schedule or [] if s.get("time")]
    last = datetime.time.fromisoformat(steps[-1]) if steps else None
    if last is not None and announcement.starts_at is not None and last > announcement.starts_at:
        return last
    return datetime.time(23, 0)


def _vevent(event: Event, announcement: Announcement | None) -> icalendar.Event:
    item = icalendar.Event()
    item.add("uid", f"{event.slug}@paddock")
    item.add("dtstamp", timezone.now())
    item.add("summary", _one_line(event.name))
    if announcement is not None and announcement.starts_at is not None:
        zone = zoneinfo.ZoneInfo(settings.TIME_ZONE)
        start = datetime.datetime.combine(event.date, announcement.starts_at, tzinfo=zone)
        item.add("dtstart", start)
        item.add("dtend", datetime.datetime.combine(event.date, _end(announcement), zone))
    else:
        item.add("dtstart", event.date)
        item.add("dtend", event.date + datetime.timedelta(days=1))
    if announcement is not None and announcement.place:
        item.add("location", announcement.place)
    lines = [f"{s['time']} {s['label']}" for s in (announcement.schedule if announcement else [])]
    club = event.championship.club
    if club is not None:  # the club that runs it, named in public (DOMAIN.md)
        lines.insert(0, _("Run by %(club)s") % {"club": _one_line(club.name)})
    url = f"{settings.SITE_URL.rstrip('/')}{reverse('signup', args=[event.slug])}"
    item.add("description", "\n".join([*lines, url]))
    item.add("url", url)
    return item


def _calendar(items: list[icalendar.Event], name: str) -> HttpResponse:
    """The calendar of ``items``, with a VTIMEZONE for each TZID they use (RFC 5545
    3.8.3.1), its rules from a year before the first to a year after the last."""
    calendar = icalendar.Calendar()
    calendar.add("prodid", "-//Paddock//Formula Dé tournaments//EN")
    calendar.add("version", "2.0")
    calendar.add("x-wr-calname", _one_line(name))
    for item in items:
        calendar.add_component(item)
    days = [item.decoded("dtstart") for item in items]
    days = [d.date() if isinstance(d, datetime.datetime) else d for d in days]
    if days:
        year = datetime.timedelta(days=366)
        calendar.add_missing_timezones(min(days) - year, max(days) + year)
    response = HttpResponse(calendar.to_ical(), content_type="text/calendar; charset=utf-8")
    response["Content-Disposition"] = 'inline; filename="paddock.ics"'
    return response


def _announced(event: Event, announcement: Announcement | None) -> bool:
    """Shown in calendars: an event that opened its registration, or published anything."""
    return bool(announcement and announcement.opens_at) or event.is_public()


@require_safe
def event_ics(request: HttpRequest, slug: str) -> HttpResponse:
    event = get_object_or_404(Event.objects.select_related("championship__club"), slug=slug)
    announcement = Announcement.objects.filter(event=event).first()
    if not _announced(event, announcement):
        raise Http404
    return _calendar([_vevent(event, announcement)], event.name)


@require_safe
def events_ics(request: HttpRequest) -> HttpResponse:
    """Upcoming events of every championship that announce their day (an announcement
    whose registration has an opening date, or published): never a bare date."""
    today = timezone.localdate()
    events = Event.objects.filter(date__gte=today, announcement__isnull=False)
    items = []
    related = events.select_related("championship__club", "announcement")
    for event in related.order_by("date", "pk"):
        if _announced(event, event.announcement):
            items.append(_vevent(event, event.announcement))
    return _calendar(items, "Paddock")
