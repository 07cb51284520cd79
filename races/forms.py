"""Forms of race day pages. The rules themselves are checked by the services."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from races.models import SheetBatch

PARTS = [
    ("tyres", _("Tyres")),
    ("brakes", _("Brakes")),
    ("gearbox", _("Gearbox")),
    ("body", _("Body")),
    ("engine", _("Engine")),
    ("road_holding", _("Road holding")),
    ("stand_points", _("Stand points")),
]


class AllocationForm(forms.Form):
    table_size = forms.IntegerField(label=_("Drivers per table"), min_value=2, max_value=20)


class SwapForm(forms.Form):
    a = forms.IntegerField(label=_("Driver number"), min_value=1, max_value=99999)
    b = forms.IntegerField(label=_("with driver number"), min_value=1, max_value=99999)
    reason = forms.CharField(
        label=_("Reason"),
        max_length=200,
        error_messages={
            "required": _(
                "Say why these two drivers swap tables: the reason is kept with the swap."
            )
        },
    )


class RollForm(forms.Form):
    """The d20 rolled at the table, typed; the system rolls only when the "roll for me"
    button (``system``) is pressed."""

    roll = forms.IntegerField(
        label=_("d20 rolled"),
        min_value=1,
        max_value=20,
        required=False,
        widget=forms.NumberInput(attrs={"inputmode": "numeric", "autocomplete": "off"}),
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if self.data.get("system") == "1":
            data["roll"] = None
        elif data.get("roll") is None and "roll" not in self.errors:
            self.add_error(
                "roll",
                _("Type the d20 rolled (1 to 20), or tap “Roll for me” to let the system roll."),
            )
        return data


class RaceWeatherForm(RollForm):
    reason = forms.CharField(
        label=_("Reason for drawing again"),
        max_length=200,
        required=False,
        help_text=_("Only to draw again: a die off the table, a wrong scale…"),
    )


class ReasonForm(forms.Form):
    reason = forms.CharField(label=_("Reason"), max_length=200)


class SheetBatchForm(forms.Form):
    kind = forms.ChoiceField(choices=SheetBatch.Kind.choices)


class StandForm(forms.Form):
    stand = forms.TypedChoiceField(label=_("Stand"), coerce=int)

    def __init__(self, *args: Any, stands: list[int], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["stand"].choices = [(s, s) for s in stands]  # type: ignore[attr-defined]


class ConfigurationForm(forms.Form):
    """Seven small number boxes; the service names the part and the rule on refusal."""

    def __init__(
        self, *args: Any, instance_values: Any = None, stands: bool = True, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        values = instance_values.values() if instance_values is not None else {}
        for name, label in PARTS:
            if name == "stand_points" and not stands:
                continue  # the quick rules have no stand: 22 points on the car
            self.fields[name] = forms.CharField(
                label=label,
                required=False,
                initial=values.get(name, 0 if name == "stand_points" else None),
                widget=forms.NumberInput(attrs={"min": 0, "max": 22, "inputmode": "numeric"}),
            )

    def show_refusal(self, errors: Mapping[str, list[str]]) -> None:
        """Put a refusal of the service (keys ``"<number>.<field>"``) next to each box it
        names; the sum's problem goes above them."""
        self.full_clean()
        for key, texts in errors.items():
            field = key.rpartition(".")[2]
            for text in texts:
                self.add_error(field if field in self.fields else None, text)

    def total(self) -> int | None:
        """The sum of the boxes as shown (what was typed, else the saved values); None
        when no box holds a number."""
        numbers = []
        for name in self.fields:  # the stand's points only where the game has stands
            raw = (
                self.data.get(self.add_prefix(name))
                if self.is_bound
                else self.initial.get(name, self.fields[name].initial)
            )
            text = str(raw if raw is not None else "").strip()
            if text.isascii() and text.isdigit():
                numbers.append(int(text))
        return sum(numbers) if numbers else None

    def raw_values(self) -> dict[str, object]:
        """What was typed, as integers where possible, for the service to judge."""
        values: dict[str, object] = {}
        for name in self.fields:
            raw = (self.data.get(self.add_prefix(name)) or "").strip()
            if raw == "":
                continue
            values[name] = int(raw) if raw.isascii() and raw.lstrip("-").isdigit() else raw
        return values


class SanctionForm(forms.Form):
    """A sanction as race control types it; the service judges what each kind needs."""

    driver = forms.IntegerField(label=_("Driver number"), min_value=1, max_value=99999)
    kind = forms.ChoiceField(
        label=_("Sanction"),
        choices=[
            ("warning", _("Warning")),
            ("throws", _("Throws added to a qualifying run")),
            ("points", _("Championship points removed for the event")),
            ("disqualified", _("Disqualified from the event")),
        ],
    )
    value = forms.IntegerField(
        label=_("Throws or points"), min_value=1, max_value=999, required=False
    )
    session = forms.IntegerField(
        label=_("Qualifying session (throws)"), min_value=1, max_value=20, required=False
    )
    reason = forms.CharField(label=_("Reason"), max_length=200)
