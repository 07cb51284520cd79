"""The desk's page of the event away. Hosted: the check-out (its file downloaded), its
cancellation with a reason, and the return by uploading the laptop's file. On the laptop
that loaded its bundle: the way back (its file downloaded, ``make export``, ``push_event``),
never a new check-out."""

from __future__ import annotations

import json

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST, require_safe

from paddock.away import checkout as trip
from paddock.away.export import ExportError, export_event
from paddock.away.landing import land
from tournament.access import actor_for, organised_event
from tournament.away.models import Checkout
from tournament.errors import ServiceError
from tournament.signup.models import Announcement


@require_safe
def away_page(request: HttpRequest, slug: str) -> HttpResponse:
    event = organised_event(request, slug)
    return render(
        request,
        "away/desk.html",
        {
            "event": event,
            "away": trip.under_way(event),
            "trips": Checkout.objects.filter(event=event, side=Checkout.Side.HOSTED)[:10],
            # On the laptop: the bundle loaded here, whose day goes back.
            "loaded": Checkout.objects.filter(event=event, side=Checkout.Side.VENUE).first(),
            "announcement": Announcement.objects.filter(event=event).first(),
        },
    )


@require_safe
def away_back(request: HttpRequest, slug: str) -> HttpResponse:
    """On the laptop: the day's way back, as the file to upload on the hosted desk."""
    event = organised_event(request, slug)
    try:
        data = export_event(event.slug)
    except ExportError as exc:
        messages.error(request, str(exc))
        return redirect("away", slug=slug)
    response = HttpResponse(
        json.dumps(data, ensure_ascii=False, sort_keys=True),
        content_type="application/json; charset=utf-8",
    )
    response["Content-Disposition"] = f'attachment; filename="{event.slug}.back.json"'
    return response


@require_POST
def away_checkout(request: HttpRequest, slug: str) -> HttpResponse:
    """The check-out: the bundle as a file to take to the laptop."""
    event = organised_event(request, slug)
    # The registrants' addresses go only where race control ticked it (DOMAIN.md "The
    # event away"): the choice is the announcement's, kept for the next check-out.
    announcement = Announcement.objects.filter(event=event).first()
    travel = request.POST.get("emails_travel") == "1"
    changed = announcement is not None and announcement.emails_travel != travel
    if changed and trip.under_way(event) is None:
        announcement.emails_travel = travel
        actor_for(request).stamp(announcement).save(update_fields=["emails_travel"])
    try:
        data = trip.check_out(actor=actor_for(request), event=event)
    except ServiceError as exc:
        undo = (exc.current or {}).get("undo") if isinstance(exc.current, dict) else None
        if undo:  # the tables' page, where race control may undo them
            link = format_html(' <a href="{}">{}</a>', undo, _("Undo the race tables"))
            messages.error(request, format_html("{}{}", exc.message, link))
        else:
            messages.error(request, exc.message)
        return redirect("away", slug=slug)
    response = HttpResponse(
        json.dumps(data, ensure_ascii=False, sort_keys=True),
        content_type="application/json; charset=utf-8",
    )
    response["Content-Disposition"] = f'attachment; filename="{event.slug}.paddock-event.json"'
    return response


@require_POST
def away_cancel(request: HttpRequest, slug: str) -> HttpResponse:
    event = organised_event(request, slug)
    try:
        trip.cancel(actor=actor_for(request), event=event, reason=request.POST.get("reason", ""))
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("Check-out cancelled: the event is home again."))
    return redirect("away", slug=slug)


@require_POST
def away_return(request: HttpRequest, slug: str) -> HttpResponse:
    """The laptop's file, uploaded: it lands whole, or the page says what was refused."""
    event = organised_event(request, slug)
    upload = request.FILES.get("file")
    if upload is None:
        messages.error(request, _("Choose the file the laptop wrote (export_event)."))
        return redirect("away", slug=slug)
    try:
        answer = land(upload.read(), event=event, actor=actor_for(request))
    except ServiceError as exc:
        for line in [exc.message, *(m for ms in exc.errors.values() for m in ms)][:1]:
            messages.error(request, line)
        return redirect("away", slug=slug)
    landed = answer["landed"]
    messages.success(
        request,
        _(
            "The day is home: %(runs)s runs, %(tables)s tables, %(results)s results, "
            "%(sanctions)s sanctions, %(photos)s photos, %(drivers)s new drivers."
        )
        % landed,
    )
    return redirect("away", slug=slug)
