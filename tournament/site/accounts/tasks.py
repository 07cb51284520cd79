"""The account mails' work, out of the request (Celery): the request that asked for an
account or a password reset only counts itself and sends one of these tasks, the same work
whoever the address belongs to (DOMAIN.md "A server open to clubs": nothing tells a stranger
who has an account, not even the time of the answer). Here the address is looked up, the
mail written in the outbox and sent (``tournament.signup.tasks``). An account request is
mailed once (``mailed_at``, under its row's lock); a reset run twice sends a second link,
which works as well as the first."""

from __future__ import annotations

import datetime

from celery import shared_task
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import PasswordResetForm
from django.contrib.auth.tokens import default_token_generator
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from tournament import sealing
from tournament.signup import tasks as outbox_tasks
from tournament.site.accounts import mails
from tournament.site.accounts.tokens import AccountRequest


def account_request_mail(request_id: int, *, now: datetime.datetime | None = None) -> str:
    """Write and send the mail of one account request: its confirmation link, or, when the
    address has an account already, the mail that says so (the request then confirms
    nothing). Answers ``confirm``, ``known`` or ``done`` (mailed before, or gone)."""
    with transaction.atomic():
        found = AccountRequest.objects.select_for_update().filter(pk=request_id).first()
        if found is None or found.mailed_at is not None:
            return "done"
        User = get_user_model()  # noqa: N806
        known = User._default_manager.filter(email__iexact=found.email, is_active=True).exists()
        if known:
            found.known_address = True
            mail = mails.account_known(to=found.email, language=found.language)
        else:
            secret = sealing.new_link_secret()
            found.digest = sealing.link_digest(secret)
            mail = mails.account_confirm(
                to=found.email, language=found.language, username=found.username, secret=secret
            )
        found.mailed_at = now or timezone.now()
        found.save(update_fields=["known_address", "digest", "mailed_at"])
        mail.save(force_insert=True)
        outbox_tasks.send_soon([mail.pk])
    return "known" if known else "confirm"


def password_reset_mails(email: str, language: str) -> int:
    """Write and send a reset mail to each active account of ``email`` whose password can
    be used (Django's own choice of accounts); answers how many."""
    ids = []
    with transaction.atomic():
        for user in PasswordResetForm().get_users(email):
            path = reverse(
                "password_reset_confirm",
                kwargs={
                    "uidb64": urlsafe_base64_encode(force_bytes(user.pk)),
                    "token": default_token_generator.make_token(user),
                },
            )
            mail = mails.password_reset(
                to=getattr(user, user.get_email_field_name()),
                language=language,
                username=user.get_username(),
                path=path,
            )
            mail.save(force_insert=True)
            ids.append(mail.pk)
        outbox_tasks.send_soon(ids)
    return len(ids)


@shared_task(acks_late=True, name="tournament.account_request_mail")
def send_account_request_mail(request_id: int) -> str:
    return account_request_mail(request_id)


@shared_task(acks_late=True, name="tournament.password_reset_mails")
def send_password_reset_mails(email: str, language: str) -> int:
    return password_reset_mails(email, language)
