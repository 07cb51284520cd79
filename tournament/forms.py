"""Forms of the registration pages."""

from __future__ import annotations

import re

from django import forms
from django.utils.translation import gettext_lazy as _

from tournament.models import Event

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
        ]
        widgets = {"date": forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d")}

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        if self.instance.pk:
            self.fields.pop("slug")  # links and QR codes already printed use it
            self.initial["stand_numbers"] = " ".join(str(n) for n in self.instance.stand_numbers)

    def clean_stand_numbers(self) -> list[int]:
        numbers = self.cleaned_data.get("stand_numbers") or []
        if len(set(numbers)) != len(numbers):
            raise forms.ValidationError(_("A stand number is listed twice."))
        return numbers
