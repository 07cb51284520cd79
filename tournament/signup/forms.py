"""Sign-up's forms: the public sign-up (with its honeypot), the registrant's changes,
race control's announcement, decisions and messages."""

from __future__ import annotations

import re
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from tournament.registration.forms import validate_one_line
from tournament.signup.models import Announcement, Message, Registration

_STEP = re.compile(r"^\s*([01][0-9]|2[0-3])[:h]([0-5][0-9])\s+(.+)$")


def _name(label: Any, autocomplete: str, required: bool = True) -> forms.CharField:
    """A name of one line (API.md), with what the phone may fill it with."""
    return forms.CharField(
        label=label,
        max_length=100,
        required=required,
        validators=[validate_one_line],
        widget=forms.TextInput(attrs={"autocomplete": autocomplete}),
    )


class SignUpForm(forms.Form):
    first_name = _name(_("First name"), "given-name")
    last_name = _name(_("Last name"), "family-name")
    email = forms.EmailField(
        label=_("Email"), max_length=254, widget=forms.EmailInput(attrs={"autocomplete": "email"})
    )
    licence = forms.CharField(
        label=_("Licence number (optional)"),
        max_length=30,
        required=False,
        validators=[validate_one_line],
        widget=forms.TextInput(attrs={"autocomplete": "off"}),
    )
    team = _name(_("Team (optional)"), "organization", required=False)
    public_name = forms.ChoiceField(
        label=_("Your name in public"),
        choices=Registration.PublicName.choices,
        initial=Registration.PublicName.FULL,
        widget=forms.RadioSelect,
    )
    consent = forms.BooleanField(
        label=_(
            "Race control keeps my name, address and licence number to run this event, and "
            "shows my name as chosen above on the list of entrants and the results."
        )
    )
    #: Left empty by people (hidden from them); robots fill every field.
    website = forms.CharField(required=False, label=_("Leave this empty"))


class OwnEditForm(forms.Form):
    first_name = _name(_("First name"), "given-name")
    last_name = _name(_("Last name"), "family-name")
    team = _name(_("Team (optional)"), "organization", required=False)
    public_name = forms.ChoiceField(
        label=_("Your name in public"),
        choices=Registration.PublicName.choices,
        widget=forms.RadioSelect,
    )


def schedule_text(schedule: list[dict[str, str]]) -> str:
    return "\n".join(f"{s['time']} {s['label']}" for s in schedule or [])


class AnnouncementForm(forms.ModelForm):
    schedule_lines = forms.CharField(
        label=_("Schedule"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 5}),
        help_text=_("One step a line: time then what, e.g. “09:30 Welcome”."),
    )

    class Meta:
        model = Announcement
        fields = [
            "place",
            "starts_at",
            "fee",
            "capacity",
            "opens_at",
            "closes_at",
            "edit_until",
            "approval",
            "mail_tables",
        ]
        labels = {"place": pgettext_lazy("venue", "Place")}  # the venue, « Lieu »
        widgets = {
            "place": forms.Textarea(attrs={"rows": 2}),
            "starts_at": forms.TimeInput(attrs={"type": "time"}, format="%H:%M"),
            "opens_at": forms.DateTimeInput(
                attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"
            ),
            "closes_at": forms.DateTimeInput(
                attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"
            ),
            "edit_until": forms.DateTimeInput(
                attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"
            ),
        }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.instance and self.instance.pk:
            self.fields["schedule_lines"].initial = schedule_text(self.instance.schedule)

    def clean_schedule_lines(self) -> list[dict[str, str]]:
        steps = []
        for line in self.cleaned_data["schedule_lines"].splitlines():
            if not line.strip():
                continue
            match = _STEP.match(line)
            if match is None:
                raise forms.ValidationError(
                    _("“%(line)s”: write a time then what, e.g. “09:30 Welcome”."),
                    params={"line": line.strip()[:60]},
                )
            steps.append({"time": f"{match[1]}:{match[2]}", "label": match[3].strip()[:200]})
        return steps


class DecisionForm(forms.Form):
    status = forms.ChoiceField(
        label=_("Decision"),
        choices=[
            (Registration.Status.ACCEPTED, _("accept")),
            (Registration.Status.WAITING, _("move to the waiting list")),
            (Registration.Status.REFUSED, _("refuse")),
            (Registration.Status.CANCELLED, _("cancel")),
        ],
    )
    reason = forms.CharField(label=_("Reason"), max_length=500)
    #: A refusal is saved only once confirmed (the desk asks: the person is mailed).
    confirm = forms.BooleanField(required=False)


class MessageForm(forms.Form):
    to = forms.ChoiceField(label=_("To"), choices=Message.To.choices)
    subject = forms.CharField(label=_("Subject"), max_length=200)
    body = forms.CharField(label=_("Message"), widget=forms.Textarea(attrs={"rows": 5}))
