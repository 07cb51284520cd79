"""The forms of a club's people pages: an invitation, a member's role, a new account from an
invitation. They only read what was typed; the rules (the roles, the password's) are the
services' (``tournament.clubs.services``), whose refusals the pages show."""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.utils.translation import gettext_lazy as _

from tournament.clubs.models import Role
from tournament.registration.forms import validate_one_line


class InviteForm(forms.Form):
    email = forms.EmailField(
        label=_("E-mail address"),
        max_length=254,
        widget=forms.EmailInput(attrs={"autocomplete": "off", "inputmode": "email"}),
    )
    role = forms.ChoiceField(label=_("Role"), choices=Role.choices, initial=Role.ORGANISER)
    language = forms.ChoiceField(
        label=_("Language of the mail"), choices=settings.LANGUAGES, required=False
    )


class ClubForm(forms.Form):
    """A new club: its name, and its address's slug (made from the name when left empty)."""

    name = forms.CharField(
        label=_("Name of the club"), max_length=200, validators=[validate_one_line]
    )
    slug = forms.CharField(
        label=_("Address (slug)"),
        max_length=50,
        required=False,
        help_text=_("Empty: made from the name. Lowercase letters, digits and hyphens."),
        widget=forms.TextInput(attrs={"autocapitalize": "none", "spellcheck": "false"}),
    )


class RoleForm(forms.Form):
    role = forms.ChoiceField(label=_("Role"), choices=Role.choices)


class NewAccountForm(forms.Form):
    """A new person's username and password (twice); the service checks both."""

    username = forms.CharField(
        label=_("Username"),
        max_length=150,
        widget=forms.TextInput(attrs={"autocomplete": "username", "autocapitalize": "none"}),
    )
    password = forms.CharField(
        label=_("Password"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )
    password_again = forms.CharField(
        label=_("Password again"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if data.get("password") and data.get("password_again") != data.get("password"):
            self.add_error("password_again", _("The two passwords differ: type the same twice."))
        return data
