"""Mails to many registrants: race control's messages (all accepted, all waiting or
everyone; the message keeps how many it went to), and the mails of the day (tables,
results, the reminder). Each through the outbox, sent once."""

from __future__ import annotations

import datetime
from typing import Any

from celery import shared_task
from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone
from django.utils.translation import gettext as _

from tournament.access import Actor
from tournament.errors import InvalidInput
from tournament.models import Event
from tournament.signup import mails, selectors, services, tasks
from tournament.signup.models import Announcement, Mail, Message, Registration

Status = Registration.Status
RECIPIENTS = {
    Message.To.ACCEPTED: (Status.ACCEPTED,),
    Message.To.WAITING: (Status.WAITING,),
    Message.To.ALL: (Status.ACCEPTED, Status.WAITING, Status.PENDING),
}


def message_send(*, event: Event, actor: Actor, to: str, subject: str, body: str) -> Message:
    services.require_organiser(actor, event)
    errors = {}
    if to not in RECIPIENTS:
        errors["to"] = [_("Use one of: %(choices)s.") % {"choices": ", ".join(RECIPIENTS)}]
    if not subject.strip():
        errors["subject"] = [_("This field is required.")]
    if not body.strip():
        errors["body"] = [_("This field is required.")]
    if errors:
        raise InvalidInput(
            _("Some fields are invalid: %(fields)s.") % {"fields": ", ".join(errors)}, errors
        )
    with transaction.atomic():
        message = Message.objects.create(
            event=event,
            to=to,
            subject=subject.strip()[:200],
            body=body.strip(),
            by=actor.user if actor.is_authenticated else None,
        )
        recipients = (
            Registration.objects.select_related("event__championship")
            .filter(event=event, status__in=RECIPIENTS[to])
            .exclude(email="")
        )
        sent = [
            mails.queue(
                registration,
                Mail.Kind.MESSAGE,
                link=services.own_link(registration),
                key=f"message:{message.pk}",
                message=message,
                subject=message.subject,
                body=message.body,
            ).pk
            for registration in recipients
        ]
        message.queued = len(sent)
        message.save(update_fields=["queued"])
        tasks.send_soon(sent)
    return message


def messages_of(event: Event) -> list[dict[str, Any]]:
    """What was sent, to whom, to how many, how many delivered and failed."""
    rows = Message.objects.filter(event=event).annotate(
        delivered=Count("mails", filter=Q(mails__state=Mail.State.SENT)),
        failed=Count("mails", filter=Q(mails__state=Mail.State.FAILED)),
    )
    return [
        {
            "id": m.pk,
            "to": m.to,
            "subject": m.subject,
            "body": m.body,
            "at": m.at,
            "by": m.by.get_username() if m.by else None,
            "queued": m.queued,
            "delivered": m.delivered,
            "failed": m.failed,
        }
        for m in rows.select_related("by")
    ]


# --- the mails of the day: tables, results, the reminder --------------------------------


def _once(registration: Registration, key: str) -> bool:
    return not Mail.objects.filter(registration=registration, key=key).exists()


def publication_mails(*, event: Event, allocation: bool, results: bool) -> int:
    """After a publication: each accepted registrant's table (if race control ticked it)
    and the results, each mailed once. Answers how many mails were queued."""
    announcement = Announcement.objects.filter(event=event).first()
    if announcement is None or not (allocation or results):
        return 0
    sent = []
    accepted = (
        Registration.objects.filter(event=event, status=Registration.Status.ACCEPTED)
        .exclude(email="")
        .select_related("event__championship", "driver")
    )
    for registration in accepted:
        if allocation and announcement.mail_tables and _once(registration, "table"):
            table = selectors.table_of(registration)
            if table is not None:
                link = services.own_link(registration)
                sent.append(mails.queue(registration, Mail.Kind.TABLE, link=link, table=table).pk)
        if results and _once(registration, "results"):
            link = services.own_link(registration)
            sent.append(mails.queue(registration, Mail.Kind.RESULTS, link=link).pk)
    tasks.send_soon(sent)
    return len(sent)


def reminders_queue(*, now: datetime.datetime | None = None) -> int:
    """The reminder two days before: schedule, place and link, to each accepted registrant
    of the events two days ahead, once. Answers how many were queued."""
    day = timezone.localdate(now or timezone.now()) + datetime.timedelta(days=2)
    sent = []
    with transaction.atomic():
        accepted = (
            Registration.objects.filter(event__date=day, status=Registration.Status.ACCEPTED)
            .exclude(email="")
            .select_related("event__championship", "event__announcement")
        )
        for registration in accepted:
            if _once(registration, "reminder"):
                link = services.own_link(registration)
                sent.append(mails.queue(registration, Mail.Kind.REMINDER, link=link).pk)
        tasks.send_soon(sent)
    return len(sent)


@shared_task(name="tournament.signup_daily", ignore_result=True)
def signup_daily() -> dict[str, int]:
    """Sign-up's daily work, sent by Celery beat (``CELERY_BEAT_SCHEDULE`` in settings) or run
    by ``manage.py signup_daily``: the reminders two days before each event, and the deletion
    of unconfirmed registrations older than 7 days. An unconfirmed registration expires after
    24 hours without any task: its link is refused from then on (``rules.confirmable``)."""
    return {"reminders": reminders_queue(), "deleted": services.registrations_clean()}
