"""Forms of the registration pages."""

from __future__ import annotations

import re

from django import forms
from django.utils.translation import gettext_lazy as _

from tournament import points
from tournament.models import Championship, Event

MAX_UPLOAD = 2 * 1024 * 1024


class DriverImportForm(forms.Form):
    file = forms.FileField(
        label=_("CSV file"),
        help_text=_(
            "Columns number, first_name, last_name, team, email; separated by ; or , "
            "(UTF-8, as saved by a spreadsheet)."
        ),
    )

    def clean_file(self):  # type: ignore[no-untyped-def]
        upload = self.cleaned_data["file"]
        if upload.size > MAX_UPLOAD:
            raise forms.ValidationError(_("The file is larger than 2 MB: is it really a CSV?"))
        return upload


class NumberListField(forms.CharField):
    """Driver numbers typed as ``3 7 12`` or ``3, 7, 12``; cleans to a list of ints."""

    def __init__(self, **kwargs: object) -> None:
        kwargs.setdefault("max_length", 4000)
        kwargs.setdefault("help_text", _("Numbers separated by spaces or commas."))
        super().__init__(**kwargs)  # type: ignore[arg-type]

    def clean(self, value: object) -> list[int]:  # type: ignore[override]
        text = super().clean(value)
        numbers = []
        for token in text.replace(",", " ").replace(";", " ").split():
            # ASCII digits only: str.isdigit() also accepts "²", which int() refuses.
            if not re.fullmatch(r"[0-9]{1,6}", token):
                raise forms.ValidationError(
                    _("“%(value)s” is not a driver number."), params={"value": token}
                )
            numbers.append(int(token))
        return numbers


class RegisterForm(forms.Form):
    numbers = NumberListField(label=_("Driver numbers"))


class EventForm(forms.ModelForm):
    """An event's settings as the organiser sets them at the desk."""

    stand_numbers = NumberListField(
        label=_("Stand numbers"),
        required=False,
        help_text=_("Empty: stands 1 to the table size. Otherwise numbers separated by spaces."),
    )

    class Meta:
        model = Event
        fields = [
            "name",
            "slug",
            "date",
            "circuit",
            "laps",
            "table_size",
            "qualifying_mode",
            "minute_penalty",
            "allow_redo",
            "separate_teams",
            "language",
            "use_configurations",
            "game",
            "crash_limit",
            "collisions",
        ]
        widgets = {"date": forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d")}

    def __init__(self, *args: object, **kwargs: object) -> None:
        from races.configuration import FIELDS
        from races.services import PART_NAMES

        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        # Quick rules (other games): one configuration every driver uses, printed on sheets.
        for name in FIELDS:
            self.fields[f"standard_{name}"] = forms.IntegerField(
                label=_("Standard car: %(part)s") % {"part": PART_NAMES[name]},
                required=False,
                min_value=0,
                max_value=22,
            )
        # Older forms and scripts send neither: the event keeps its game and crash limit.
        self.fields["game"].required = False
        self.fields["crash_limit"].required = False
        if self.instance.pk:
            self.fields.pop("slug")  # links and QR codes already printed use it
            self.fields.pop("game")  # tables, sheets and results depend on it
            self.initial["stand_numbers"] = " ".join(str(n) for n in self.instance.stand_numbers)
            for name, value in (self.instance.standard_configuration or {}).items():
                self.initial[f"standard_{name}"] = value

    def clean(self) -> dict[str, object]:
        from races.configuration import FIELDS
        from races.games import quick
        from races.services import configuration_messages

        data = super().clean() or {}
        if "game" in self.fields and not data.get("game"):
            data["game"] = self.instance.game
        if data.get("crash_limit") is None:
            data["crash_limit"] = self.instance.crash_limit
        values = {name: data.get(f"standard_{name}") for name in FIELDS}
        if all(v is None for v in values.values()):
            data["standard_configuration"] = None
        else:
            problems = quick.standard_configuration_problems(values)
            if problems:
                self.add_error(
                    None,
                    _("The standard car must be a valid configuration: %(problems)s.")
                    % {
                        "problems": " ".join(
                            m for msgs in configuration_messages(problems).values() for m in msgs
                        )
                    },
                )
            data["standard_configuration"] = values
        game = data.get("game") or self.instance.game
        if game == Event.Game.FORMULA_DE and data.get("qualifying_mode") == "draw":
            circuit = data.get("circuit")
            laps = data.get("laps") or (circuit.laps if circuit else None)
            if laps is not None and not quick.laps_ok(laps):
                self.add_error("laps", _("Quick rules: a race of 1, 2 or 3 laps."))
        return data

    def clean_stand_numbers(self) -> list[int]:
        numbers = self.cleaned_data.get("stand_numbers") or []
        if len(set(numbers)) != len(numbers):
            raise forms.ValidationError(_("A stand number is listed twice."))
        return numbers


CUSTOM_SCALE = "custom"


def _scale_text(scale: list[int] | tuple[int, ...]) -> str:
    return "-".join(str(points) for points in scale)


class ScoringForm(forms.Form):
    """How a championship scores: a preset scale or a custom one, the mode, best-K."""

    preset = forms.ChoiceField(
        label=_("Points scale"),
        widget=forms.RadioSelect,
        choices=[
            *((key, _scale_text(scale)) for key, scale in points.PRESETS.items()),
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
        preset = next((k for k, v in points.PRESETS.items() if v == scale), CUSTOM_SCALE)
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
            data["points_scale"] = list(points.PRESETS[preset])
        elif preset == CUSTOM_SCALE:
            tokens = re.split(r"[\s,;\-–]+", data.get("custom_scale", "").strip())
            tokens = [token for token in tokens if token]
            if not tokens:
                self.add_error("custom_scale", _("Type the points of the 1st, 2nd, 3rd…"))
            elif len(tokens) > 100:
                self.add_error("custom_scale", _("At most 100 places score."))
            elif bad := next((t for t in tokens if not re.fullmatch(r"[0-9]{1,4}", t)), None):
                self.add_error(
                    "custom_scale",
                    _("“%(value)s” is not a number of points (whole numbers, 0 or more).")
                    % {"value": bad},
                )
            else:
                data["points_scale"] = [int(token) for token in tokens]
        return data
