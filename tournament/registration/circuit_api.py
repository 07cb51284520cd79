"""API v1, Setup: the circuits, one catalogue shared by every club (API.md "Clubs and their
people"): read by everyone, made by a club's owner or organiser, changed only by the club
that made it (``403`` for anyone else). A change never alters a weather already drawn."""

from __future__ import annotations

from typing import Annotated, Any

from django.http import HttpRequest
from ninja import Router, Schema
from ninja.responses import Status
from pydantic import Field

from tournament.apikit import ERRORS, Int, actor_of, get_circuit, require_token
from tournament.clubs.services import club_for_new
from tournament.models import Circuit
from tournament.registration.api import CircuitIn, WeatherScaleIn
from tournament.registration.circuits import circuit_create as create
from tournament.registration.circuits import circuit_update as update
from tournament.signup import announcement as signup

circuits = Router(tags=["Setup"])


class WeatherScaleOut(Schema):
    rain: tuple[int, int]
    variable: tuple[int, int]
    sun: tuple[int, int]


class CircuitOut(Schema):
    slug: str
    name: str
    laps: int
    weather_scale: WeatherScaleOut
    club: str | None = Field(None, description="The slug of the club that made it.")
    club_name: str | None = Field(None, description="Its name, for the catalogue.")


def circuit_out(circuit: Circuit) -> dict[str, Any]:
    scale = circuit.weather_scale
    return {
        "slug": circuit.slug,
        "name": circuit.name,
        "laps": circuit.laps,
        "weather_scale": {
            "rain": list(scale.rain),
            "variable": list(scale.variable),
            "sun": list(scale.sun),
        },
        "club": circuit.club.slug if circuit.club_id else None,
        "club_name": circuit.club.name if circuit.club_id else None,
    }


def _scale(scale: WeatherScaleIn) -> dict[str, Any]:
    return {"rain": scale.rain, "variable": scale.variable, "sun": scale.sun}


@circuits.post("/circuits", response={201: CircuitOut, **ERRORS})
def circuit_create(request: HttpRequest, payload: CircuitIn) -> Status[Any]:
    """Create a circuit of a club (its owners and organisers; a superuser may leave ``club``
    out); the d20 scale must cover 1..20 exactly once."""
    actor = actor_of(request)
    require_token(actor)
    circuit = create(
        actor=actor,
        slug=payload.slug,
        name=payload.name,
        laps=payload.laps,
        weather_scale=_scale(payload.weather_scale),
        club=club_for_new(actor=actor, slug=payload.club),
    )
    return Status(201, circuit_out(circuit))


@circuits.get("/circuits", response={200: list[CircuitOut], **ERRORS})
def circuit_list(request: HttpRequest) -> list[dict[str, Any]]:
    return [circuit_out(c) for c in Circuit.objects.select_related("club")]


@circuits.get("/circuits/{slug}", response={200: CircuitOut, **ERRORS})
def circuit_detail(request: HttpRequest, slug: str) -> dict[str, Any]:
    return circuit_out(get_circuit(slug))


class CircuitPatchIn(Schema):
    name: Annotated[signup.OneLine, Field(min_length=1, max_length=200)] | None = None
    laps: Int | None = None
    weather_scale: WeatherScaleIn | None = None


@circuits.patch("/circuits/{slug}", response={200: CircuitOut, **ERRORS})
def circuit_update(request: HttpRequest, slug: str, payload: CircuitPatchIn) -> dict[str, Any]:
    """Change a circuit's name (one line), laps or d20 scale: only the club that made it
    (403 for anyone else). Weather already drawn keeps the reading it had; another club's
    events keep the laps and scale they took (only the club's own events still to come
    take the change)."""
    actor = actor_of(request)
    require_token(actor)
    circuit = get_circuit(slug)
    changed = update(
        actor=actor,
        circuit=circuit,
        name=payload.name,
        laps=payload.laps,
        weather_scale=_scale(payload.weather_scale) if payload.weather_scale else None,
    )
    return circuit_out(changed)
