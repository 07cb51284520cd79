"""Forms of a club's season pages: a new championship (its points scale from a preset or
typed) and a circuit (its d20 weather scale as three ranges), the catalogue's search. The
slugs are derived here from the names; the rules of the scales stay in
``tournament.registration.scales`` and ``qualifying.scoring``."""

from __future__ import annotations

import re
from typing import Any

from django import forms
from django.contrib.auth import get_user_model
from django.utils.functional import lazy
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from tournament.models import Championship, Circuit
from tournament.registration.forms import derived_slug, validate_one_line
from tournament.registration.scales import (
    DEFAULT_POINTS_SCALE,
    WEATHER_NAMES,
    parse_scale,
    weather_scale_errors,
)
from tournament.rules.scales import PRESETS, WeatherScale

CUSTOM_SCALE = "custom"
#: The three weathers in the order of the d20 bar's usual reading (low faces: rain).
WEATHERS = ("rain", "variable", "sun")
#: A new circuit's scale until the organiser types theirs.
DEFAULT_WEATHER = {"rain": (1, 4), "variable": (5, 8), "sun": (9, 20)}
SLUG_LENGTH = 50
_ENDS = ((0, "from"), (1, "to"))
FACE_FIELDS = tuple(f"{w}_{end}" for w in WEATHERS for _i, end in _ENDS)


def scale_text(scale: list[int] | tuple[int, ...]) -> str:
    return "-".join(str(value) for value in scale)


def _default_label(scale: str) -> str:
    return gettext("%(scale)s (Formula Dé’s default)") % {"scale": scale}


#: Translated when shown, not when this module is imported: a lazy string's ``%`` is
#: evaluated at once, in whatever language the first request that imported it was in.
_default_label_lazy = lazy(_default_label, str)


def _preset_label(key: str, scale: tuple[int, ...]) -> str:
    if list(scale) == DEFAULT_POINTS_SCALE:
        return _default_label_lazy(scale_text(scale))
    return scale_text(scale)


class ChampionshipNewForm(forms.Form):
    """A club's new championship: the slug is made from the name and the season, with
    ``-2``, ``-3``… when that address is taken already (the page says which it got)."""

    name = forms.CharField(label=_("Name"), max_length=200, validators=[validate_one_line])
    season = forms.CharField(
        label=_("Season"),
        max_length=20,
        validators=[validate_one_line],
        help_text=_("A year (2026) or two (2025-2026)."),
    )
    preset = forms.ChoiceField(
        label=_("Points scale"),
        widget=forms.RadioSelect,
        initial="f1",
        choices=[
            *((key, _preset_label(key, scale)) for key, scale in PRESETS.items()),
            (CUSTOM_SCALE, _("Type your own")),
        ],
    )
    custom_scale = forms.CharField(
        label=_("Your own scale"),
        required=False,
        max_length=400,
        help_text=_("Points of the 1st, 2nd, 3rd… separated by dashes, spaces or commas."),
    )
    points_mode = forms.ChoiceField(
        label=_("Points mode"),
        choices=Championship.PointsMode,
        initial=Championship.PointsMode.PER_TABLE,
    )
    best_results = forms.IntegerField(
        label=_("Best results counted"),
        required=False,
        min_value=1,
        max_value=100,
        help_text=_("Leave empty to count every result."),
    )
    organisers = forms.CharField(
        label=_("Guest organisers"),
        required=False,
        max_length=2000,
        help_text=_(
            "Usernames separated by spaces or commas: people from outside the club who run "
            "this championship alone (a neighbouring club’s referee). May stay empty."
        ),
    )

    def clean_organisers(self) -> list[str]:
        names = list(dict.fromkeys(re.split(r"[\s,;]+", self.cleaned_data.get("organisers", ""))))
        names = [name for name in names if name]
        known = set(
            get_user_model()
            .objects.filter(username__in=[n for n in names if len(n) <= 150], is_active=True)
            .values_list("username", flat=True)
        )
        if unknown := [name for name in names if name not in known]:
            raise forms.ValidationError(
                _("No active account is named %(usernames)s."),
                params={"usernames": ", ".join(f"“{name[:150]}”" for name in unknown)},
            )
        return names

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        preset = data.get("preset")
        if preset == CUSTOM_SCALE:
            scale, error = parse_scale(data.get("custom_scale", ""))
            if error:
                self.add_error("custom_scale", error)
            else:
                data["points_scale"] = scale
        elif preset:
            data["points_scale"] = list(PRESETS[preset])
        if data.get("name") and not derived_slug(data["name"], taken=lambda s: False):
            self.add_error(
                "name",
                _("Give the championship a name with a letter or a digit: its address "
                  "is made from it."),
            )  # fmt: skip
        elif data.get("name") and data.get("season"):
            data["slug"] = derived_slug(
                f"{data['name']} {data['season']}",
                taken=lambda s: Championship.objects.filter(slug=s).exists(),
                max_length=SLUG_LENGTH,
            )
        return data


def _face_field(label: Any) -> forms.IntegerField:
    return forms.IntegerField(
        label=label,
        min_value=1,
        max_value=20,
        widget=forms.NumberInput(attrs={"inputmode": "numeric", "class": "face"}),
    )


class CircuitForm(forms.Form):
    """A circuit: its name, laps and d20 weather scale (§3-0-3) as three ranges, each face
    from 1 to 20 in exactly one; refused in words when a face is in none or in two."""

    name = forms.CharField(label=_("Name"), max_length=200, validators=[validate_one_line])
    laps = forms.IntegerField(label=_("Laps"), min_value=1, max_value=20, initial=3)
    rain_from = _face_field(_("Rain from"))
    rain_to = _face_field(_("Rain to"))
    variable_from = _face_field(_("Variable from"))
    variable_to = _face_field(_("Variable to"))
    sun_from = _face_field(_("Sun from"))
    sun_to = _face_field(_("Sun to"))

    def __init__(self, *args: Any, circuit: Circuit | None = None, **kwargs: Any) -> None:
        if circuit is not None:
            kwargs.setdefault(
                "initial",
                {
                    "name": circuit.name,
                    "laps": circuit.laps,
                    **{f: getattr(circuit, f) for f in FACE_FIELDS},
                },
            )
        else:
            kwargs.setdefault(
                "initial",
                {f"{w}_{end}": DEFAULT_WEATHER[w][i] for w in WEATHERS for i, end in _ENDS},
            )
        super().__init__(*args, **kwargs)
        self.circuit = circuit

    def ranges(self) -> list[tuple[str, Any, Any, Any]]:
        """(weather, its name, the "from" field, the "to" field), for the template."""
        return [(w, WEATHER_NAMES[w], self[f"{w}_from"], self[f"{w}_to"]) for w in WEATHERS]

    def typed_ranges(self) -> dict[str, tuple[int | None, int | None]]:
        """The ranges as typed (bound) or shown (initial): for the bar drawn with the form."""
        values: dict[str, tuple[int | None, int | None]] = {}
        for weather in WEATHERS:
            pair = []
            for end in ("from", "to"):
                raw = self[f"{weather}_{end}"].value()
                try:
                    pair.append(int(str(raw).strip()))
                except (TypeError, ValueError):
                    pair.append(None)
            values[weather] = (pair[0], pair[1])
        return values

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if all(data.get(f) is not None for f in FACE_FIELDS):
            scale = WeatherScale(
                **{w: (data[f"{w}_from"], data[f"{w}_to"]) for w in WEATHERS}  # type: ignore[arg-type]
            )
            for message in weather_scale_errors(scale):
                self.add_error(None, message)
            data["weather_scale"] = {w: [data[f"{w}_from"], data[f"{w}_to"]] for w in WEATHERS}
        return data


def weather_bar(ranges: dict[str, tuple[int | None, int | None]]) -> list[dict[str, Any]]:
    """The d20 bar: for each face 1..20 its weather, ``hole`` (in no range) or ``overlap``
    (in two or more). A range with a missing or reversed end covers nothing."""
    cells = []
    for face in range(1, 21):
        covering = [
            w
            for w, (low, high) in ranges.items()
            if low is not None and high is not None and low <= face <= high
        ]
        kind = covering[0] if len(covering) == 1 else ("hole" if not covering else "overlap")
        cells.append({"face": face, "kind": kind})
    return cells


def circuit_slug(name: str) -> str:
    """A new circuit's slug, made from its name (``-2``… when taken; "" when no letter)."""
    return derived_slug(
        name, taken=lambda s: Circuit.objects.filter(slug=s).exists(), max_length=SLUG_LENGTH
    )


class CatalogueSearchForm(forms.Form):
    q = forms.CharField(label=_("Circuit name"), required=False, max_length=100)
