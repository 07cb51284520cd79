"""Organisers create an event and change its settings, without the admin."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _

from tournament.access import actor_for, organised_event
from tournament.errors import ServiceError
from tournament.models import Championship, Circuit
from tournament.registration.forms import EventForm, apply_errors
from tournament.registration.services import (
    EVENT_SETTINGS,
    event_create,
    event_update,
)


def event_new(request: HttpRequest, slug: str) -> HttpResponse:
    championship = get_object_or_404(Championship, slug=slug)
    actor = actor_for(request)
    if not actor.can_organise(championship):
        raise PermissionDenied(_("Only the organisers of this championship may create events."))
    form = EventForm(
        request.POST if request.method == "POST" else None, initial=_new_event_initial(championship)
    )
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            event = event_create(
                actor=actor,
                championship=championship,
                slug=data["slug"],
                game=data.get("game") or "formula_de",
                **{k: v for k, v in data.items() if k in EVENT_SETTINGS},
            )
        except ServiceError as exc:
            apply_errors(form, exc)
        else:
            messages.success(request, _("Event “%(name)s” created.") % {"name": event.name})
            return redirect("event-desk", slug=event.slug)
    return render(
        request, "tournament/event_form.html", {"form": form, "championship": championship}
    )


def _new_event_initial(championship: Championship) -> dict[str, object]:
    """A club with a single circuit of its own races there: the new event's form says so."""
    if championship.club_id is None:
        return {}
    circuits = list(Circuit.objects.filter(club_id=championship.club_id).values_list("pk")[:2])
    return {"circuit": circuits[0][0]} if len(circuits) == 1 else {}


def event_settings(request: HttpRequest, slug: str) -> HttpResponse:
    event = organised_event(request, slug)
    form = EventForm(request.POST if request.method == "POST" else None, instance=event)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            event_update(
                actor=actor_for(request),
                event=event,
                **{k: v for k, v in data.items() if k in EVENT_SETTINGS},
            )
        except ServiceError as exc:
            apply_errors(form, exc)
        else:
            messages.success(request, _("Event settings saved."))
            return redirect("event-desk", slug=event.slug)
    return render(
        request,
        "tournament/event_form.html",
        {"form": form, "championship": event.championship, "event": event},
    )
