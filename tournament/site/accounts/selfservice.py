"""Accounts a stranger makes on a server open to clubs (``CLUBS_OPEN``; DOMAIN.md "A server
open to clubs"), and password resets: the writes behind the pages and the API.

A request for an account checks what it can tell without an address (the username free, the
password by the first start's rules), counts itself (``ACCOUNT_REQUESTS_PER_HOUR`` per
address and per client), keeps what was chosen (the password hashed) and leaves the rest to
a task (``tasks.py``): whether the address has an account already changes the mail, never
the answer nor the request's work. The confirmation makes the account (single use, 48 h).
A password reset counts itself the same way and leaves everything else to a task.
"""

from __future__ import annotations

import datetime

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from tournament import sealing
from tournament.clubs.services import _check_new_account, _username_taken, translation_language
from tournament.errors import Conflict, InvalidInput, NotFound
from tournament.site import ratelimit
from tournament.site.accounts import tasks
from tournament.site.accounts.tokens import CONFIRM_HOURS, AccountRequest


def accounts_open() -> bool:
    """Strangers make accounts here only on a server open to clubs."""
    return bool(settings.CLUBS_OPEN)


def _closed() -> NotFound:
    return NotFound(_("Accounts are made by invitation on this server: ask a club's owner."))


def _spend(kind: str, *, client: str, email: str) -> None:
    """Count one ``kind`` (``accounts``, ``resets``) for the client and for the address."""
    most = int(settings.ACCOUNT_REQUESTS_PER_HOUR)
    ratelimit.spend_or_refuse(
        [f"{kind}:{client}", f"{kind}:{ratelimit.address_budget_key(email)}"],
        most=most,
        window=3600,
        message=lambda wait: (
            _(
                "Too many requests from here or for this address (%(most)s an hour at most): "
                "try again in %(wait)s."
            )
            % {"most": most, "wait": wait}
        ),
    )


def _language(language: str | None) -> str:
    return language if language in dict(settings.LANGUAGES) else translation_language()


def account_request(
    *,
    client: str,
    username: str,
    email: str,
    password: str,
    language: str | None = None,
    now: datetime.datetime | None = None,
) -> AccountRequest:
    """Ask for an account (``client``: ``ratelimit.client_key`` of the request). A username
    taken is a 409, a weak, common or published password a 400; past the budget a 429. The
    same answer whether ``email`` has an account or not: its mail says which (a task)."""
    if not accounts_open():
        raise _closed()
    username, email = (username or "").strip(), (email or "").strip()
    User = get_user_model()  # noqa: N806
    try:
        validate_email(email)
    except ValidationError:
        message = _("“%(email)s” is not an e-mail address.") % {"email": email[:254]}
        raise InvalidInput(message, {"email": [message]}) from None
    _check_new_account(User, username, password or "")
    _spend("accounts", client=client, email=email)
    now = now or timezone.now()
    found = AccountRequest.objects.create(
        username=username,
        email=email,
        password=make_password(password),
        language=_language(language),
        expires_at=now + datetime.timedelta(hours=CONFIRM_HOURS),
    )
    pk = found.pk
    transaction.on_commit(lambda: tasks.send_account_request_mail.delay(pk))
    return found


def _request_for_token(token: str) -> AccountRequest:
    found = None
    if token and len(token) <= 200 and "\x00" not in token:
        found = AccountRequest.objects.filter(
            digest=sealing.link_digest(token), known_address=False
        ).first()
    if found is None:
        raise NotFound(_("Unknown link: check the link in the mail."))
    return found


def account_refusal(found: AccountRequest, now: datetime.datetime) -> Conflict | None:
    """Why this request's link makes no account any more (used, expired), or None."""
    status = found.status(now)
    if status == "confirmed":
        return Conflict(_("This link was used already: your account exists, log in."))
    if status == "expired":
        return Conflict(_("This link has expired: ask for your account again."))
    return None


def account_for_token(token: str, *, now: datetime.datetime | None = None) -> AccountRequest:
    """The request a mail's link confirms, still open; 404 unknown, 409 used or expired."""
    if not accounts_open():
        raise _closed()
    found = _request_for_token(token)
    refusal = account_refusal(found, now or timezone.now())
    if refusal is not None:
        raise refusal
    return found


def account_confirm(*, token: str, now: datetime.datetime | None = None) -> object:
    """Make the account of a mail's link (single use, under its row's lock): answers the
    new user. The username taken meanwhile, or the address now an account's: 409."""
    now = now or timezone.now()
    found = account_for_token(token, now=now)
    User = get_user_model()  # noqa: N806
    with transaction.atomic():
        found = AccountRequest.objects.select_for_update().get(pk=found.pk)
        refusal = account_refusal(found, now)
        if refusal is not None:
            raise refusal
        if User._default_manager.filter(email__iexact=found.email).exists():
            raise Conflict(_("This address has an account already: log in, or reset its password."))
        if User._default_manager.filter(
            **{f"{User.USERNAME_FIELD}__iexact": found.username}
        ).exists():
            raise _username_taken(found.username)
        user = User(**{User.USERNAME_FIELD: found.username}, email=found.email)
        user.password = found.password
        try:
            with transaction.atomic():
                user.save()
        except IntegrityError:
            raise _username_taken(found.username) from None
        found.confirmed_at = now
        found.save(update_fields=["confirmed_at"])
    return user


def password_reset_ask(*, client: str, email: str, language: str | None = None) -> None:
    """Ask for a password reset mail: counted (429 past the budget), then a task finds the
    accounts of ``email`` and mails each its link. Nothing here reads the accounts."""
    email = (email or "").strip()
    _spend("resets", client=client, email=email)
    language = _language(language)
    transaction.on_commit(lambda: tasks.send_password_reset_mails.delay(email, language))
