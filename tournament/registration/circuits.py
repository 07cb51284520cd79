"""Writes of circuits: one catalogue shared by every club, read by all, changed only by the
club that made it (DOMAIN.md "Clubs and who may do what"). A change never alters a weather
already drawn: sessions and race draws keep the reading they had (they store it). A change
stays in its club (DOMAIN.md "Many clubs on one server"): every event keeps the laps and d20
scale its circuit had when it was set (``Event.circuit_laps``, ``Event.circuit_scale``);
only the circuit's own club's events still to come (dated today or later) take the change."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from tournament.access import Actor
from tournament.clubs.models import Club
from tournament.errors import Conflict, InvalidInput, NotAllowed
from tournament.models import Circuit, Event
from tournament.registration.scales import scale_data
from tournament.registration.services import save_checked


def _ranges(weather_scale: Mapping[str, Sequence[int]]) -> dict[str, Sequence[int]]:
    ranges = {}
    for key in ("rain", "variable", "sun"):
        pair = weather_scale.get(key)
        if not isinstance(pair, list | tuple) or len(pair) != 2:
            raise InvalidInput(
                _("The weather scale needs a [from, to] range for rain, variable and sun."),
                {"weather_scale": [_("Missing or malformed range: %(name)s.") % {"name": key}]},
            )
        ranges[key] = pair
    return ranges


def _set_scale(circuit: Circuit, weather_scale: Mapping[str, Sequence[int]]) -> None:
    ranges = _ranges(weather_scale)
    circuit.rain_from, circuit.rain_to = ranges["rain"]
    circuit.variable_from, circuit.variable_to = ranges["variable"]
    circuit.sun_from, circuit.sun_to = ranges["sun"]


@transaction.atomic
def circuit_create(
    *,
    actor: Actor,
    slug: str,
    name: str,
    laps: int = 3,
    weather_scale: Mapping[str, Sequence[int]],
    club: Club | None = None,
) -> Circuit:
    """A circuit made by ``club`` (its owners and organisers; a superuser may leave it
    without a club: the operator's). The d20 scale covers 1..20 exactly once."""
    if club is None and not actor.is_superuser():
        raise NotAllowed(
            _("Only a club's owner or organiser creates circuits: say which club makes it.")
        )
    if club is not None and not actor.can_run_club(club):
        raise NotAllowed(
            _("Only the owners and organisers of %(club)s create its championships and circuits.")
            % {"club": club.name}
        )
    if Circuit.objects.filter(slug=slug).exists():
        message = _("A circuit with the slug “%(slug)s” already exists.") % {"slug": slug}
        raise Conflict(message, {"slug": [message]})
    circuit = Circuit(slug=slug, name=name, laps=laps, club=club)
    _set_scale(circuit, weather_scale)
    return save_checked(circuit, _("The circuit could not be created."))


@transaction.atomic
def circuit_update(
    *,
    actor: Actor,
    circuit: Circuit,
    name: str | None = None,
    laps: int | None = None,
    weather_scale: Mapping[str, Sequence[int]] | None = None,
) -> Circuit:
    """Change a circuit: only its club's owners and organisers (the operator's circuits: a
    superuser). Weather already drawn keeps its reading; another club's events, and the
    club's own past ones, keep the laps and scale they took; the club's own events dated
    today or later take the change (the operator's circuit: the events of championships
    without a club)."""
    if not actor.can_run_club(circuit.club):
        raise NotAllowed(
            _("Only the club that made %(circuit)s may change it.") % {"circuit": circuit.name}
        )
    circuit = Circuit.objects.select_for_update().get(pk=circuit.pk)
    if name is not None:
        circuit.name = name
    if laps is not None:
        circuit.laps = laps
    if weather_scale is not None:
        _set_scale(circuit, weather_scale)
    saved = save_checked(circuit, _("The circuit could not be saved."))
    Event.objects.filter(
        circuit=saved, championship__club_id=saved.club_id, date__gte=timezone.localdate()
    ).update(circuit_laps=saved.laps, circuit_scale=scale_data(saved.weather_scale))
    return saved
