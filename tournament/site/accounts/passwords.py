"""Passwords nobody should be able to guess from the code or a list: the demo's, published
in the README, and Django's common passwords with a few digits or signs around them.

Django's ``CommonPasswordValidator`` refuses ``motdepasse`` but takes ``motdepasse1``, and
no list refuses ``paddock-admin`` for an account named ``chef``. On a tournament day the
organiser's password crosses the hall's Wi-Fi, whose own password is on the poster: this
validator (in ``AUTH_PASSWORD_VALIDATORS``, so in every form that sets a password,
``createsuperuser`` and the first start of ``make venue``) refuses both. And with ``DEBUG``
off, a demo password opens no account, whatever the database holds (``NoDemoLoginBackend``).
"""

from __future__ import annotations

import logging
import string
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import CommonPasswordValidator
from django.core.exceptions import PermissionDenied, ValidationError
from django.utils.translation import gettext as _

from tournament.site.accounts.tokens import ApiToken

#: load_demo's published logins (its ``DEMO_LOGINS``, README "Try it"): a test keeps the
#: two equal. Here, on the ground floor, because every floor's forms validate against them.
DEMO_LOGINS = {
    "admin": "paddock-admin",
    "organisateur": "paddock-pc",
    "proprietaire": "paddock-club",
    "accueil": "paddock-accueil",
}
DEMO_PASSWORDS = frozenset(DEMO_LOGINS.values())

logger = logging.getLogger(__name__)

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


def close_account(user: Any) -> None:
    """``user`` logs in no more, by any way: its password unusable (which ends its sessions)
    and its API tokens deleted (a demo account's token opened the API after its password
    was closed: issue 32)."""
    user.set_unusable_password()
    user.save(update_fields=["password"])
    ApiToken.objects.filter(user=user).delete()


class NoDemoLoginBackend:
    """With ``DEMO_LOGINS_ALLOWED`` off (``DEBUG`` off when the settings were read), a demo
    password opens no account, whatever the database holds: a demo database restored on a
    server, even while it runs. An account whose password it really is gets closed (its
    password made unusable, which ends its sessions) and the server's log says so; typed for
    an account of another password, it only fails, and closes nothing.

    Before Django's ``ModelBackend`` in ``AUTHENTICATION_BACKENDS``: it never logs anyone in
    (sessions keep naming ``ModelBackend``), it only stops the chain (``PermissionDenied``).
    No ``get_user``: the test client's ``force_login`` would pick it, and find nobody.
    """

    def authenticate(
        self, request: Any, username: str | None = None, password: str | None = None, **kwargs: Any
    ) -> None:
        if settings.DEMO_LOGINS_ALLOWED or password not in DEMO_PASSWORDS:
            return None
        User = get_user_model()
        if username is None:
            username = kwargs.get(User.USERNAME_FIELD)
        user = User._default_manager.filter(**{User.USERNAME_FIELD: username}).first()
        if user is not None and user.check_password(password):
            close_account(user)
            logger.warning(
                "The demo login %r still opened with its published password: closed. Give it "
                "a password of its own with: manage.py changepassword %s",
                username,
                username,
            )
        raise PermissionDenied("A demo password opens nothing here.")
