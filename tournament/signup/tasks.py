"""Sending the outbox (Celery): each mail exactly once.

The task claims its row under a lock (``select_for_update``) and keeps it while it talks to
the mail server, then marks it sent in the same transaction; it renders the bodies first,
in the mail's language, when the request that wrote the row left them to the sender
(``mails.bodies``), and keeps them with the row. A second task for the same mail (a retry,
a message given back by a worker that died) waits for the lock, then finds the row sent and
does nothing. A worker killed before the server took the mail leaves the
row queued, and the task runs again (acks late). The Message-ID is fixed when the row is
written, so every try sends the same message. An SMTP refusal is counted and retried with
a growing delay. A mail that can never leave (a header the mail library refuses, a server's
permanent 5xx refusal, a link sealed with a key this server no longer has) is marked failed at
once with its error, for the desk to see: never left queued. The link is written into the
bodies here, from its sealed copy (``mails.bodies_as_sent``): the row never holds it. Without a
mail server (``make venue``: the dummy backend) rows stay queued, and the desk hands each
registrant their link.
"""

from __future__ import annotations

import logging
import smtplib

from celery import shared_task
from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.db import transaction
from django.utils import timezone

from tournament.signup import mails
from tournament.signup.models import Mail

log = logging.getLogger(__name__)

DUMMY = "django.core.mail.backends.dummy.EmailBackend"
MAX_RETRIES = 8
#: Written with each try: the bodies as rendered (``_message``).
RENDERED = ("body_text", "body_html")


def mails_leave() -> bool:
    """False where there is no mail server (the rows stay in the outbox)."""
    return settings.EMAIL_BACKEND != DUMMY


def send_soon(mail_ids: list[int]) -> None:
    """After the caller's commit, one task per mail."""
    if not mail_ids or not mails_leave():
        return
    ids = list(mail_ids)
    transaction.on_commit(lambda: [send_mail.delay(pk) for pk in ids])


class Undeliverable(Exception):
    """This mail can never leave as it is: trying again would fail the same way."""


def _message(mail: Mail) -> EmailMultiAlternatives:
    if mails.later(mail):  # kept with the row: what was sent, for the desk and an export
        mail.body_text, mail.body_html = mails.bodies(mail)
    bodies = mails.bodies_as_sent(mail)
    if bodies is None:
        raise Undeliverable("the link is sealed with a key this server does not have")
    text, html = bodies
    message = EmailMultiAlternatives(
        # A row written before subjects were made one line may still hold a line break.
        subject=mails.one_line(mail.subject),
        body=text,
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[mail.to],
        headers={"Message-ID": mail.message_id_header, "Content-Language": mail.language},
    )
    if html:
        message.attach_alternative(html, "text/html")
    return message


def _for_good(exc: Exception) -> bool:
    """True for an error no later try can mend: a message the mail library refuses to write
    (``BadHeaderError`` is a ``ValueError``), or a server's permanent refusal (5xx)."""
    if isinstance(exc, (Undeliverable, ValueError)):
        return True
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        codes = [code for code, _text in exc.recipients.values()]
        return bool(codes) and all(code >= 500 for code in codes)
    return isinstance(exc, smtplib.SMTPResponseException) and exc.smtp_code >= 500


def deliver(mail_id: int) -> str:
    """Send one queued mail; answers its state afterwards (``sent``, ``refused`` after a
    refusal worth another try, ``failed`` after the last try or an error for good)."""
    with transaction.atomic():
        mail = (
            Mail.objects.select_for_update(of=("self",))
            .select_related("registration__event__championship", "message")
            .filter(pk=mail_id)
            .first()
        )
        if mail is None or mail.state != Mail.State.QUEUED or not mails_leave():
            return mail.state if mail else "gone"
        mail.attempts += 1
        try:
            sent = _message(mail).send(fail_silently=False)
        except (smtplib.SMTPException, OSError, ValueError, Undeliverable) as exc:
            # The refusal is kept (a row per mail); the address itself never goes to a log.
            mail.last_error = f"{type(exc).__name__}: {exc}"[:500]
            if mail.attempts >= MAX_RETRIES or _for_good(exc):
                mail.state = Mail.State.FAILED
            mail.save(update_fields=["attempts", "last_error", "state", *RENDERED])
            log.warning("signup mail %s not sent (try %s)", mail.pk, mail.attempts)
            return mail.state if mail.state == Mail.State.FAILED else "refused"
        mail.state = Mail.State.SENT if sent else Mail.State.FAILED
        mail.sent_at = timezone.now()
        mail.save(update_fields=["attempts", "last_error", "state", "sent_at", *RENDERED])
        return mail.state


@shared_task(bind=True, max_retries=MAX_RETRIES, acks_late=True, name="tournament.signup_send_mail")
def send_mail(self, mail_id: int) -> str:  # type: ignore[no-untyped-def]
    state = deliver(mail_id)
    if state == "refused" and not self.request.is_eager:
        # 30 s, 1 min, 2 min… up to an hour: a server that refuses for a while is waited for.
        raise self.retry(countdown=min(3600, 30 * 2**self.request.retries))
    return state


def send_queued(*, event_id: int | None = None) -> int:
    """Send (again) every queued mail, of one event or all: the desk's button, once a
    venue has a mail server again. Answers how many were sent to the tasks."""
    rows = Mail.objects.filter(state=Mail.State.QUEUED)
    if event_id is not None:
        rows = rows.filter(registration__event_id=event_id)
    ids = list(rows.values_list("pk", flat=True))
    for pk in ids:
        send_mail.delay(pk)
    return len(ids)
