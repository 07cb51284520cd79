"""A club's season pages (issue 41): a new championship, a new circuit and its changes, the
shared circuit catalogue, a circuit's page with the events that use it. Only the club's
owners and organisers create and change (``Actor.can_run_club``, which asks
``tournament.clubs.rights``); everyone reads the catalogue and the circuits' pages. Views
fetch, call the services, redirect."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from tournament.access import Actor, actor_for
from tournament.clubs.models import Club, Role
from tournament.clubs.scale_forms import (
    CatalogueSearchForm,
    ChampionshipNewForm,
    CircuitForm,
    circuit_slug,
    weather_bar,
)
from tournament.clubs.services import actor_clubs, championship_organisers_set
from tournament.errors import ServiceError
from tournament.models import Circuit, Event
from tournament.registration.circuits import circuit_create, circuit_update
from tournament.registration.forms import apply_errors
from tournament.registration.scales import WEATHER_NAMES
from tournament.registration.services import championship_create


def _require_running(request: HttpRequest, actor: Actor, club: Club | None) -> None:
    """PermissionDenied, in words, unless ``actor`` runs ``club`` (its owner or organiser);
    nobody signed in is sent to the login page first, as the club's other pages do."""
    if actor.can_run_club(club):
        return
    if club is not None and actor.role_in(club) == Role.DESK:
        raise PermissionDenied(
            _("The desk keeps the day’s counter: championships and circuits are made by the "
              "club’s owners and organisers.")
        )  # fmt: skip
    if club is None:
        raise PermissionDenied(_("This circuit is the server operator’s: no club changes it."))
    raise PermissionDenied(
        _("Only the owners and organisers of %(club)s create and change its championships "
          "and circuits.") % {"club": club.name}
    )  # fmt: skip


@login_required
def club_championship_new(request: HttpRequest, club: str) -> HttpResponse:
    club_row = get_object_or_404(Club, slug=club)
    actor = actor_for(request)
    _require_running(request, actor, club_row)
    form = ChampionshipNewForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            # One transaction: a refused guest organiser leaves no championship behind.
            with transaction.atomic():
                championship = championship_create(
                    actor=actor,
                    slug=data["slug"],
                    name=data["name"],
                    season=data["season"],
                    points_scale=data["points_scale"],
                    points_mode=data["points_mode"],
                    best_results=data.get("best_results"),
                    club=club_row,
                )
                if data["organisers"]:
                    championship_organisers_set(
                        actor=actor, championship=championship, usernames=data["organisers"]
                    )
        except ServiceError as exc:
            apply_errors(form, exc)
        else:
            address = reverse("championship", args=[championship.slug])
            messages.success(
                request,
                _("Championship “%(name)s” created; its address is %(address)s. Next step: "
                  "create its first event with “New event” below (an event needs a circuit: "
                  "choose one in the catalogue or make one).")
                % {"name": str(championship), "address": address},
            )  # fmt: skip
            return redirect("championship", slug=championship.slug)
    return render(
        request,
        "clubs/season_championship_new.html",
        {
            "form": form,
            "club": club_row,
            "default_preset": "f1",
            # Guest organisers are named by the club's owners (DOMAIN.md).
            "names_guests": actor.can_manage_people(club_row),
        },
    )


def _circuit_events(actor: Actor, circuit: Circuit) -> dict[str, Any]:
    """The events that use ``circuit`` as the reader may see them (DOMAIN.md "Many clubs on
    one server": the circuit's page says which events use it): each with its club, date and
    the laps it reads, and whether the circuit's changes reach it; an event nothing of which
    is published is named to its organisers and desk only (``Event.is_public``), counted
    for the others."""
    events = Event.objects.filter(circuit=circuit).select_related("championship__club")
    today = timezone.localdate()
    desk: dict[int, bool] = {}
    rows: list[dict[str, Any]] = []
    hidden = 0
    for event in events.order_by("-date", "name"):
        championship = event.championship
        if championship.pk not in desk:
            desk[championship.pk] = actor.can_desk(championship)
        if not (event.is_public() or desk[championship.pk]):
            hidden += 1
            continue
        follows = championship.club_id == circuit.club_id and event.date >= today
        rows.append({"event": event, "club": championship.club, "follows": follows})
    return {"event_rows": rows, "hidden_events": hidden}


def _circuit_page(
    request: HttpRequest, form: CircuitForm, club: Club | None, circuit: Circuit | None
) -> HttpResponse:
    used = _circuit_events(actor_for(request), circuit) if circuit is not None else {}
    return render(
        request,
        "clubs/season_circuit_form.html",
        {
            "form": form,
            "club": club,
            "circuit": circuit,
            "bar": weather_bar(form.typed_ranges()),
            "weathers": WEATHER_NAMES,
            **used,
        },
    )


@require_GET
def circuit_detail(request: HttpRequest, slug: str) -> HttpResponse:
    """A circuit's page, read by all: its laps, its d20 scale, its club and the events that
    use it; a link to change it where the reader runs its club."""
    circuit = get_object_or_404(Circuit.objects.select_related("club"), slug=slug)
    actor = actor_for(request)
    return render(
        request,
        "clubs/season_circuit.html",
        {
            "circuit": circuit,
            "bar": weather_bar(_scale_of(circuit)),
            "weathers": WEATHER_NAMES,
            "editable": actor.can_run_club(circuit.club),
            **_circuit_events(actor, circuit),
        },
    )


@login_required
def club_circuit_new(request: HttpRequest, club: str) -> HttpResponse:
    club_row = get_object_or_404(Club, slug=club)
    actor = actor_for(request)
    _require_running(request, actor, club_row)
    form = CircuitForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        slug = circuit_slug(data["name"])
        if not slug:
            form.add_error("name", _("Give the circuit a name with a letter or a digit."))
        else:
            try:
                circuit = circuit_create(
                    actor=actor,
                    slug=slug,
                    name=data["name"],
                    laps=data["laps"],
                    weather_scale=data["weather_scale"],
                    club=club_row,
                )
            except ServiceError as exc:
                apply_errors(form, exc)
            else:
                messages.success(
                    request,
                    _("Circuit “%(name)s” added to the shared catalogue. Your events choose it "
                      "in their settings.") % {"name": circuit.name},
                )  # fmt: skip
                return redirect(reverse("circuit-catalogue") + f"#circuit-{circuit.slug}")
    return _circuit_page(request, form, club_row, None)


@login_required
def circuit_edit(request: HttpRequest, slug: str) -> HttpResponse:
    circuit = get_object_or_404(Circuit.objects.select_related("club"), slug=slug)
    actor = actor_for(request)
    _require_running(request, actor, circuit.club)
    form = CircuitForm(request.POST if request.method == "POST" else None, circuit=circuit)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            circuit_update(
                actor=actor,
                circuit=circuit,
                name=data["name"],
                laps=data["laps"],
                weather_scale=data["weather_scale"],
            )
        except ServiceError as exc:
            apply_errors(form, exc)
        else:
            messages.success(request, _("Circuit “%(name)s” saved.") % {"name": data["name"]})
            return redirect(reverse("circuit-catalogue") + f"#circuit-{circuit.slug}")
    return _circuit_page(request, form, circuit.club, circuit)


def _scale_of(circuit: Circuit) -> dict[str, tuple[int | None, int | None]]:
    return {
        "rain": (circuit.rain_from, circuit.rain_to),
        "variable": (circuit.variable_from, circuit.variable_to),
        "sun": (circuit.sun_from, circuit.sun_to),
    }


@require_GET
def circuit_catalogue(request: HttpRequest) -> HttpResponse:
    """Every club's circuits, searchable by name; each with its d20 bar and its club. An
    edit link where the reader runs the club that made it."""
    actor = actor_for(request)
    form = CatalogueSearchForm(request.GET or None)
    query = form.cleaned_data["q"].strip() if form.is_valid() else ""
    circuits = list(Circuit.objects.select_related("club").order_by("name", "slug"))
    if query:
        # Compared in Python: SQLite's icontains ignores accented capitals, PostgreSQL's
        # does not; both must find "Écosse" from "écosse".
        circuits = [c for c in circuits if query.casefold() in c.name.casefold()]
    may_edit: dict[int | None, bool] = {}
    rows: list[dict[str, Any]] = []
    for circuit in circuits:
        if circuit.club_id not in may_edit:
            may_edit[circuit.club_id] = actor.can_run_club(circuit.club)
        rows.append(
            {
                "circuit": circuit,
                "bar": weather_bar(_scale_of(circuit)),
                "editable": may_edit[circuit.club_id],
            }
        )
    return render(
        request,
        "clubs/season_circuits.html",
        {
            "form": form,
            "query": query,
            "rows": rows,
            "clubs": actor_clubs(actor, running=True),
            "weathers": WEATHER_NAMES,
        },
    )
