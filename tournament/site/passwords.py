"""Passwords nobody should be able to guess from the code or a list: the demo's, published
in the README, and Django's common passwords with a few digits or signs around them.

Django's ``CommonPasswordValidator`` refuses ``motdepasse`` but takes ``motdepasse1``, and
no list refuses ``paddock-admin`` for an account named ``chef``. On a tournament day the
organiser's password crosses the hall's Wi-Fi, whose own password is on the poster: this
validator (in ``AUTH_PASSWORD_VALIDATORS``, so in every form that sets a password,
``createsuperuser`` and the first start of ``make venue``) refuses both.
"""

from __future__ import annotations

import string
from typing import Any

from django.contrib.auth.password_validation import CommonPasswordValidator
from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

#: load_demo's published logins (its ``DEMO_LOGINS``, README "Try it"): a test keeps the
#: two equal. Here, on the ground floor, because every floor's forms validate against them.
DEMO_LOGINS = {"admin": "paddock-admin", "organisateur": "paddock-pc"}
DEMO_PASSWORDS = frozenset(DEMO_LOGINS.values())

#: What people add around a common word to pass a length rule: digits, signs, spaces.
_DECORATION = string.digits + string.punctuation + " "
#: At most this many of them are taken off each end (a password is short; this bounds it).
_MOST = 12


def _cores(password: str) -> set[str]:
    """``password`` (lower case) without some of the digits and signs at either end: every
    way of taking them off, so that ``abc123!`` gives ``abc123`` as well as ``abc``."""
    text = password.lower().strip()
    lead = min(len(text) - len(text.lstrip(_DECORATION)), _MOST)
    trail = min(len(text) - len(text.rstrip(_DECORATION)), _MOST)
    cores = {text[i : len(text) - j] for i in range(lead + 1) for j in range(trail + 1)}
    return {core for core in cores if core and core != text}


def is_demo_password(password: str) -> bool:
    """True for a published demo password, whatever its case or the digits added."""
    return password.lower().strip() in DEMO_PASSWORDS or bool(_cores(password) & DEMO_PASSWORDS)


class KnownPasswordValidator(CommonPasswordValidator):
    """Refuse the demo's passwords and a common password with digits or signs added."""

    def validate(self, password: str, user: Any = None) -> None:
        if is_demo_password(password):
            raise ValidationError(
                _("This is a password of Paddock's demo, published with the code: choose another."),
                code="password_demo",
            )
        if _cores(password) & self.passwords:
            raise ValidationError(
                _("This password is a common one with digits or signs added: choose another."),
                code="password_too_common",
            )

    def get_help_text(self) -> str:
        return _("Your password can’t be the demo’s, nor a common password with digits added.")
