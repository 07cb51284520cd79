"""Sign-up's public pages, phone first: the sign-up form of an event, the confirmation
(a button: mail scanners open links, only a person presses), the registrant's own page."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from tournament.errors import ServiceError
from tournament.models import Event
from tournament.public.players import remember
from tournament.registration.forms import apply_errors
from tournament.signup import rules, services
from tournament.signup.forms import OwnEditForm, SignUpForm
from tournament.signup.models import Announcement
from tournament.site import ratelimit

NO_ROBOTS = "noindex, nofollow"


def _announcement(event: Event) -> Announcement:
    return Announcement.objects.filter(event=event).first() or Announcement(event=event)


@require_http_methods(["GET", "POST"])
def signup_page(request: HttpRequest, slug: str) -> HttpResponse:
    event = get_object_or_404(Event.objects.select_related("championship", "circuit"), slug=slug)
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
    context = {
        "event": event,
        "announcement": announcement,
        "refusal": refusal.message if refusal else "",
        "form": form,
        "accepted": services.accepted_count(event),
        "waiting": services.waiting_list(event).count(),
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
    response = render(request, "signup/confirm.html", {"token": token})
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
        "table": services.table_of(registration),
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
