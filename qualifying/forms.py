"""Forms of the qualifying desk and tables; the API validates runs with the same RunForm."""

from __future__ import annotations

import datetime
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from qualifying import scoring
from qualifying.models import Tyres
from tournament.forms import NumberListField

MAX_THROWS = 999
MAX_PENALTY = 99
MAX_STOPWATCH_CS = 100 * 60 * 100  # 100 minutes: nobody's lap lasts longer


class StopwatchField(forms.CharField):
    """Accepts ``m:ss``, ``m:ss.cc`` and ``1'45"20`` as written on paper; cleans to 1/100 s."""

    default_error_messages = {
        "invalid": _("Write the stopwatch as 1:45, 1:45.20 or 1'45\"20."),
        "too_long": _("A lap of more than 100 minutes? Check the stopwatch."),
    }

    def to_python(self, value: Any) -> int | None:  # type: ignore[override]
        if isinstance(value, int) and not isinstance(value, bool):
            if not 0 <= value < MAX_STOPWATCH_CS:
                raise forms.ValidationError(self.error_messages["too_long"], code="too_long")
            return value
        text = super().to_python(value)
        if text in self.empty_values:
            return None
        if len(text) > 20:
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid")
        try:
            centiseconds = scoring.parse_stopwatch(text)
        except ValueError as exc:
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid") from exc
        if centiseconds >= MAX_STOPWATCH_CS:
            raise forms.ValidationError(self.error_messages["too_long"], code="too_long")
        return centiseconds


class PerformedAtField(forms.DateTimeField):
    """ISO date-time of when the run was performed; anything but text or a datetime is refused.

    The API feeds raw JSON values to this form: a number or a boolean must be a 400.
    """

    def to_python(self, value: Any) -> Any:
        if value is not None and not isinstance(value, str | datetime.datetime):
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid")
        return super().to_python(value)


class RunForm(forms.Form):
    tyres = forms.ChoiceField(label=_("Tyres"), choices=Tyres.choices)
    throws = forms.IntegerField(
        label=_("Throws"), min_value=1, max_value=MAX_THROWS, required=False
    )
    placement_errors = forms.IntegerField(
        label=_("Placement errors"), min_value=0, max_value=MAX_PENALTY, required=False
    )
    exit_squares = forms.IntegerField(
        label=_("Corner-exit squares"), min_value=0, max_value=MAX_THROWS, required=False
    )
    stopwatch = StopwatchField(label=_("Stopwatch"), required=False)
    eliminated = forms.BooleanField(label=_("Eliminated"), required=False)
    performed_at = PerformedAtField(label=_("Performed at"), required=False)

    def clean_performed_at(self) -> Any:
        value = self.cleaned_data.get("performed_at")
        if value is not None and not 2000 <= value.year <= 2100:
            raise forms.ValidationError(_("This date is not plausible for a run."))
        return value

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        data["placement_errors"] = data.get("placement_errors") or 0
        data["exit_squares"] = data.get("exit_squares") or 0
        if not data.get("eliminated"):
            if data.get("throws") is None and "throws" not in self.errors:
                self.add_error("throws", _("Count the throws (or tick “eliminated”)."))
            if data.get("stopwatch") is None and "stopwatch" not in self.errors:
                self.add_error("stopwatch", _("Write the stopwatch time (or tick “eliminated”)."))
        return data


class SessionForm(forms.Form):
    number = forms.IntegerField(label=_("Session number"), min_value=1, max_value=20)
    weather_roll = forms.IntegerField(
        label=_("Weather roll (d20)"),
        min_value=1,
        max_value=20,
        required=False,
        help_text=_("Leave empty to let the system roll."),
    )


class CancelRunForm(forms.Form):
    reason = forms.CharField(label=_("Reason"), max_length=200)


class QualifyingTableForm(forms.Form):
    number = forms.IntegerField(label=_("Table"), min_value=1, max_value=200)
    referee_name = forms.CharField(label=_("Referee"), max_length=120, required=False)
    drivers = NumberListField(label=_("Driver numbers"))
    referee_account = forms.CharField(
        label=_("Referee account"),
        max_length=150,
        required=False,
        help_text=_(
            "The username of a referee's account: it then opens this table's page when "
            "logged in, like the link. Empty: no account."
        ),
    )


class AutoTablesForm(forms.Form):
    table_size = forms.IntegerField(label=_("Drivers per table"), min_value=1, max_value=40)
