"""The scoring form: a points scale (a preset or a custom list), the mode and best-K."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from tournament.models import Championship
from tournament.registration.scales import parse_scale
from tournament.rules.scales import PRESETS

CUSTOM_SCALE = "custom"


def _scale_text(scale: list[int] | tuple[int, ...]) -> str:
    return "-".join(str(points) for points in scale)


class ScoringForm(forms.Form):
    """How a championship scores: a preset scale or a custom one, the mode, best-K."""

    preset = forms.ChoiceField(
        label=_("Points scale"),
        widget=forms.RadioSelect,
        choices=[
            *((key, _scale_text(scale)) for key, scale in PRESETS.items()),
            (CUSTOM_SCALE, _("Custom scale")),
        ],
    )
    custom_scale = forms.CharField(
        label=_("Custom scale"),
        required=False,
        max_length=400,
        help_text=_("Points of the 1st, 2nd, 3rd… separated by dashes, spaces or commas."),
    )
    points_mode = forms.ChoiceField(label=_("Points mode"), choices=Championship.PointsMode)
    best_results = forms.IntegerField(
        label=_("Best results counted"),
        required=False,
        min_value=1,
        max_value=100,
        help_text=_("Leave empty to count every result."),
    )

    @classmethod
    def initial_for(cls, championship: Championship) -> dict[str, object]:
        scale = tuple(championship.points_scale)
        preset = next((k for k, v in PRESETS.items() if v == scale), CUSTOM_SCALE)
        return {
            "preset": preset,
            "custom_scale": _scale_text(scale) if preset == CUSTOM_SCALE else "",
            "points_mode": championship.points_mode,
            "best_results": championship.best_results,
        }

    def clean(self) -> dict[str, object]:
        data = super().clean() or {}
        preset = data.get("preset")
        if preset and preset != CUSTOM_SCALE:
            data["points_scale"] = list(PRESETS[preset])
        elif preset == CUSTOM_SCALE:
            scale, refusal = parse_scale(data.get("custom_scale", ""))
            if refusal is not None:
                self.add_error("custom_scale", refusal)
            else:
                data["points_scale"] = scale
        return data
