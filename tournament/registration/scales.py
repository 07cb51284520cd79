"""The two scales race control types: a championship's points and a circuit's d20 weather
scale (§3-0-3), checked in words in the page's language; and what an event keeps of its
circuit (its laps and d20 scale, ``CircuitTerms``)."""

from __future__ import annotations

import re
from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

from tournament.rules.scales import WeatherScale

DEFAULT_POINTS_SCALE = [25, 18, 15, 12, 10, 8, 6, 4, 2, 1]


def validate_points_scale(value: object) -> None:
    if not isinstance(value, list) or not value:
        raise ValidationError(_("The points scale is a non-empty list of whole numbers."))
    for points in value:
        if not isinstance(points, int) or isinstance(points, bool) or points < 0:
            raise ValidationError(
                _("The points scale is a list of whole numbers, 0 or more: %(value)s is not."),
                params={"value": points},
            )


WEATHER_NAMES = {"rain": _("rain"), "variable": _("variable"), "sun": _("sun")}


def weather_scale_errors(scale: WeatherScale) -> list[str]:
    """Translated sentences for every problem of a weather scale, empty when it is valid."""
    messages: list[str] = []
    for problem in scale.problems():
        values = ", ".join(str(v) for v in problem.values)
        if problem.kind == "bad_range":
            messages.append(
                str(
                    _(
                        "The %(weather)s range must go from a lower to a higher face "
                        "between 1 and 20."
                    )
                    % {"weather": WEATHER_NAMES.get(problem.name or "", problem.name)}
                )
            )
        elif problem.kind == "missing":
            messages.append(
                str(
                    _("The weather scale must cover every face from 1 to 20; missing: %(values)s.")
                    % {"values": values}
                )
            )
        else:
            messages.append(
                str(
                    _("A d20 face may belong to one weather only; in two ranges: %(values)s.")
                    % {"values": values}
                )
            )
    return messages


def parse_scale(text: str) -> tuple[list[int] | None, str | None]:
    """A typed points scale (``25-18-15``, ``25 18 15``, ``25, 18, 15``): the list, or the
    sentence that refuses it (the scoring page and a new championship's page read it alike)."""
    tokens = [token for token in re.split(r"[\s,;\-–]+", text.strip()) if token]
    if not tokens:
        return None, str(_("Type the points of the 1st, 2nd, 3rd…"))
    if len(tokens) > 100:
        return None, str(_("At most 100 places score."))
    if bad := next((t for t in tokens if not re.fullmatch(r"[0-9]{1,4}", t)), None):
        message = _("“%(value)s” is not a number of points (whole numbers, 0 or more).")
        return None, str(message % {"value": bad})
    return [int(token) for token in tokens], None


def scale_data(scale: WeatherScale) -> dict[str, list[int]]:
    """A d20 weather scale as JSON data: ``{"rain": [lo, hi], "variable": …, "sun": …}``."""
    return {"rain": list(scale.rain), "variable": list(scale.variable), "sun": list(scale.sun)}


class CircuitTerms(models.Model):
    """What an event took from its circuit when the circuit was set (DOMAIN.md "Many clubs
    on one server"): its laps and d20 weather scale, read instead of the circuit's own. A
    change of the circuit reaches only its own club's events still to come
    (``circuit_update``); every other event keeps these. Empty (a row written before them,
    or by code older than them): the circuit's own."""

    circuit_laps = models.PositiveSmallIntegerField(
        _("the circuit's laps, as the event took them"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1), MaxValueValidator(20)],
    )
    circuit_scale = models.JSONField(
        _("the circuit's weather scale, as the event took it"), null=True, blank=True
    )

    class Meta:
        abstract = True

    def save(self, *args: Any, **kwargs: Any) -> None:
        circuit_id = self.circuit_id  # type: ignore[attr-defined]
        if circuit_id is not None and not self._kept():
            self.take_circuit_terms()
            if kwargs.get("update_fields") is not None:
                kwargs["update_fields"] = {
                    *kwargs["update_fields"],
                    "circuit_laps",
                    "circuit_scale",
                }
        super().save(*args, **kwargs)
        self._circuit_taken_from = circuit_id

    @classmethod
    def from_db(cls, db: Any, field_names: Any, values: Any) -> Any:
        event = super().from_db(db, field_names, values)
        if "circuit_id" in event.__dict__:
            event._circuit_taken_from = event.circuit_id
        return event

    def _kept(self) -> bool:
        """True when the event holds its circuit's terms (and its circuit is still that)."""
        circuit_id = self.circuit_id  # type: ignore[attr-defined]
        taken_from = getattr(self, "_circuit_taken_from", circuit_id)
        held = self.circuit_laps is not None and bool(self.circuit_scale)
        return held and circuit_id is not None and taken_from == circuit_id

    def take_circuit_terms(self) -> None:
        """Keep the circuit's laps and scale as they are now."""
        circuit = self.circuit  # type: ignore[attr-defined]
        self.circuit_laps, self.circuit_scale = circuit.laps, scale_data(circuit.weather_scale)

    @property
    def circuit_race_laps(self) -> int | None:
        """The laps the circuit gave the event (None without a circuit)."""
        if self.circuit_id is None:  # type: ignore[attr-defined]
            return None
        return self.circuit_laps if self._kept() else self.circuit.laps  # type: ignore[attr-defined,no-any-return]

    @property
    def race_laps(self) -> int:
        """Laps of the race: the event's own setting, else its circuit's (§2-0-3)."""
        return self.laps or self.circuit_race_laps or 0  # type: ignore[attr-defined,no-any-return]

    @property
    def weather_scale(self) -> WeatherScale:
        """The d20 weather scale the event's draws read (§3-0-3)."""
        kept = self.circuit_scale
        if not self._kept():
            return self.circuit.weather_scale  # type: ignore[attr-defined,no-any-return]
        return WeatherScale(
            rain=tuple(kept["rain"]), variable=tuple(kept["variable"]), sun=tuple(kept["sun"])
        )
