"""Forms of the registration pages."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

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


class RegisterForm(forms.Form):
    numbers = forms.CharField(
        label=_("Driver numbers"),
        help_text=_("Numbers separated by spaces or commas."),
        max_length=4000,
    )

    def clean_numbers(self) -> list[int]:
        raw = self.cleaned_data["numbers"].replace(",", " ").replace(";", " ").split()
        numbers = []
        for token in raw:
            if not token.isdigit():
                raise forms.ValidationError(
                    _("“%(value)s” is not a driver number."), params={"value": token}
                )
            numbers.append(int(token))
        return numbers
