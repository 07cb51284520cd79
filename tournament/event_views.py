"""Organisers create an event, change its settings and the championship's scoring, without
the admin."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _

from races.models import ResultLine
from tournament.errors import ServiceError
from tournament.forms import EventForm, ScoringForm
from tournament.models import Championship
from tournament.services import (
    EVENT_SETTINGS,
    championship_scoring_set,
    event_create,
    event_update,
)
from tournament.views import actor_for, organised_event


def _apply_errors(form: EventForm | ScoringForm, exc: ServiceError) -> None:
    for name, errors in exc.errors.items():
        for error in errors:
            form.add_error(name if name in form.fields else None, error)
    if not exc.errors:
        form.add_error(None, exc.message)


def event_new(request: HttpRequest, slug: str) -> HttpResponse:
    championship = get_object_or_404(Championship, slug=slug)
    actor = actor_for(request)
    if not actor.can_organise(championship):
        raise PermissionDenied(_("Only the organisers of this championship may create events."))
    form = EventForm(request.POST if request.method == "POST" else None)
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
            _apply_errors(form, exc)
        else:
            messages.success(request, _("Event “%(name)s” created.") % {"name": event.name})
            return redirect("event-desk", slug=event.slug)
    return render(
        request, "tournament/event_form.html", {"form": form, "championship": championship}
    )


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
            _apply_errors(form, exc)
        else:
            messages.success(request, _("Event settings saved."))
            return redirect("event-desk", slug=event.slug)
    return render(
        request,
        "tournament/event_form.html",
        {"form": form, "championship": event.championship, "event": event},
    )


def championship_scoring(request: HttpRequest, slug: str) -> HttpResponse:
    """The organiser picks the points scale (a preset or custom), the mode and best-K."""
    championship = get_object_or_404(Championship, slug=slug)
    actor = actor_for(request)
    if not actor.can_organise(championship):
        raise PermissionDenied(
            _("Only the organisers of this championship may change its scoring.")
        )
    form = ScoringForm(
        request.POST if request.method == "POST" else None,
        initial=ScoringForm.initial_for(championship),
    )
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            changed = championship_scoring_set(
                actor=actor,
                championship=championship,
                points_scale=data["points_scale"],
                points_mode=data["points_mode"],
                best_results=data["best_results"],
            )
        except ServiceError as exc:
            _apply_errors(form, exc)
        else:
            messages.success(
                request,
                _("Scoring saved; %(count)s confirmed result lines took the new points.")
                % {"count": changed},
            )
            return redirect("championship", slug=championship.slug)
    confirmed = ResultLine.objects.filter(event__championship=championship).exists()
    return render(
        request,
        "tournament/scoring.html",
        {"form": form, "championship": championship, "confirmed": confirmed},
    )
