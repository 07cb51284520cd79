"""Sign-up's services: double opt-in, seats and the waiting list, cancellations, race
control's decisions, each told by a mail in the outbox and recorded with who and why."""

from __future__ import annotations

import datetime

import pytest
from django.core import mail as outbox
from django.utils import timezone

from tests.tournament.signup.conftest import OWN, last_token, sent, sent_text
from tournament.access import Actor
from tournament.errors import Conflict, InvalidInput, NotFound
from tournament.signup import broadcast, services
from tournament.signup.models import Announcement, Mail, Registration

pytestmark = pytest.mark.django_db


def test_confirmed_registrations_take_the_seats_then_wait_in_order(open_event, sign_up_confirmed):
    event = open_event(capacity=2)
    statuses = [sign_up_confirmed(event, f"p{i}@example.org")[0].status for i in range(4)]
    assert statuses == ["accepted", "accepted", "waiting", "waiting"]
    ranks = [services.rank_of(r) for r in Registration.objects.filter(status="waiting")]
    assert ranks == [1, 2]
    kinds = list(Mail.objects.order_by("pk").values_list("kind", flat=True))
    assert kinds.count("confirm") == 4 and kinds.count("accepted") == 2
    assert kinds.count("waiting") == 2
    waiting_mail = Mail.objects.filter(kind="waiting").last()
    assert "n° 2" in sent_text(waiting_mail)


def test_unconfirmed_holds_no_seat(open_event, sign_up_confirmed):
    event = open_event(capacity=1)
    services.registration_sign_up(
        event=event, first_name="A", last_name="B", email="early@example.org"
    )
    registration, _link = sign_up_confirmed(event, "late@example.org")
    assert registration.status == "accepted"
    assert Registration.objects.get(email="early@example.org").status == "unconfirmed"


def test_second_sign_up_same_address_mails_the_link_again_no_second_seat(
    open_event, sign_up_confirmed
):
    event = open_event()
    registration, link = sign_up_confirmed(event, "elodie@example.org")
    services.registration_sign_up(  # the same person (name folded), the address in capitals
        event=event, first_name="ELODIE", last_name="lefevre", email="ELODIE@example.org"
    )
    assert Registration.objects.filter(event=event).count() == 1
    again = Mail.objects.filter(registration=registration).last()
    assert again.kind == "link"
    assert link in sent_text(again)
    assert Registration.objects.get().first_name == "Élodie"  # a second sign-up changes nothing


def test_confirmation_link_expires_after_24_hours(open_event):
    event = open_event()
    services.registration_sign_up(event=event, first_name="A", last_name="B", email="a@ex.org")
    later = timezone.now() + datetime.timedelta(hours=25)
    with pytest.raises(Conflict, match="24 hours"):
        services.registration_confirm(token=last_token("a@ex.org"), now=later)
    with pytest.raises(NotFound):
        services.registration_confirm(token="not-a-token")


def test_unconfirmed_deleted_after_7_days(open_event):
    event = open_event()
    services.registration_sign_up(event=event, first_name="A", last_name="B", email="a@ex.org")
    assert services.registrations_clean(now=timezone.now() + datetime.timedelta(days=6)) == 0
    assert services.registrations_clean(now=timezone.now() + datetime.timedelta(days=8)) == 1
    assert not Registration.objects.exists()


def test_closed_or_not_yet_open_says_when(open_event):
    event = open_event()
    Announcement.objects.filter(event=event).update(
        opens_at=timezone.now() + datetime.timedelta(days=2)
    )
    with pytest.raises(Conflict, match="opens on"):
        services.registration_sign_up(event=event, first_name="A", last_name="B", email="a@x.fr")
    Announcement.objects.filter(event=event).update(opens_at=None)
    with pytest.raises(Conflict, match="not open"):
        services.registration_sign_up(event=event, first_name="A", last_name="B", email="a@x.fr")


def test_bad_address_is_refused_per_field(open_event):
    with pytest.raises(InvalidInput) as refused:
        services.registration_sign_up(
            event=open_event(), first_name="", last_name="B", email="not an address"
        )
    assert set(refused.value.errors) == {"first_name", "email"}


def test_cancel_moves_the_first_waiting_in_and_tells_them(open_event, sign_up_confirmed):
    event = open_event(capacity=1)
    first, _ = sign_up_confirmed(event, "a@ex.org")
    second, _ = sign_up_confirmed(event, "b@ex.org")
    third, _ = sign_up_confirmed(event, "c@ex.org")
    services.registration_cancel(registration=first)
    assert Registration.objects.get(pk=first.pk).status == "cancelled"
    assert Registration.objects.get(pk=second.pk).status == "accepted"
    assert Registration.objects.get(pk=third.pk).status == "waiting"
    assert Mail.objects.filter(registration=second, kind="moved_in").count() == 1
    assert services.rank_of(Registration.objects.get(pk=third.pk)) == 1
    history = Registration.history.filter(id=second.pk).first()
    assert history.history_change_reason == "a seat freed up"


def test_registrant_may_not_cancel_after_the_deadline(open_event, sign_up_confirmed):
    event = open_event()
    registration, _ = sign_up_confirmed(event, "a@ex.org")
    Announcement.objects.filter(event=event).update(
        edit_until=timezone.now() - datetime.timedelta(minutes=1)
    )
    with pytest.raises(Conflict):
        services.registration_cancel(registration=registration)
    with pytest.raises(Conflict):
        services.registration_edit(registration=registration, team="X")


def test_race_control_decides_with_a_reason_never_above_capacity(
    open_event, sign_up_confirmed, organiser
):
    event = open_event(capacity=1)
    Announcement.objects.filter(event=event).update(approval="organiser")
    actor = Actor(user=organiser)
    a, _ = sign_up_confirmed(event, "a@ex.org")
    b, _ = sign_up_confirmed(event, "b@ex.org")
    assert a.status == b.status == "pending"
    with pytest.raises(InvalidInput):
        services.registration_decide(registration=a, actor=actor, status="accepted", reason="")
    services.registration_decide(registration=a, actor=actor, status="accepted", reason="ok")
    with pytest.raises(Conflict):
        services.registration_decide(registration=b, actor=actor, status="accepted", reason="ok")
    services.registration_decide(registration=b, actor=actor, status="refused", reason="Full")
    refused = Mail.objects.get(registration=b, kind="refused")
    assert "Full" in sent_text(refused)
    row = Registration.history.filter(id=b.pk).first()
    assert row.history_change_reason == "Full"
    assert row.history_user == organiser


def test_raised_capacity_moves_the_waiting_list_in_in_order(
    open_event, sign_up_confirmed, organiser
):
    from tournament.signup.announcement import announcement_update

    event = open_event(capacity=1)
    for name in "abcd":
        sign_up_confirmed(event, f"{name}@ex.org")
    announcement_update(actor=Actor(user=organiser), event=event, capacity=3)
    statuses = dict(Registration.objects.values_list("email", "status"))
    assert statuses == {
        "a@ex.org": "accepted",
        "b@ex.org": "accepted",
        "c@ex.org": "accepted",
        "d@ex.org": "waiting",
    }


def test_mails_in_the_registrants_language_with_their_link(
    open_event, sign_up_confirmed, django_capture_on_commit_callbacks
):
    event = open_event()
    with django_capture_on_commit_callbacks(execute=True):
        registration, link = sign_up_confirmed(event, "fr@ex.org", language="fr")
    accepted = Mail.objects.get(registration=registration, kind="accepted")
    assert accepted.language == "fr"
    assert "Grand Prix d'Été" in accepted.subject
    text, html = sent(accepted)
    assert link in text and link in html
    assert OWN.search(text)
    with django_capture_on_commit_callbacks(execute=True):
        english, _ = sign_up_confirmed(event, "en@ex.org", language="en")
    assert Mail.objects.get(registration=english, kind="accepted").subject.startswith("You are in")
    assert accepted.subject != Mail.objects.get(registration=english, kind="accepted").subject
    # the locmem backend received them, each once, with its fixed Message-ID
    ids = [m.extra_headers["Message-ID"] for m in outbox.outbox]
    assert len(ids) == len(set(ids)) == Mail.objects.count()
    assert set(Mail.objects.values_list("state", flat=True)) == {"sent"}


def test_reminder_two_days_before_once_and_results_mail_once(
    open_event, sign_up_confirmed, organiser
):
    from tournament.models import Event
    from tournament.registration.services import event_publish

    event = open_event()
    Announcement.objects.filter(event=event).update(place="Gymnase Jean-Moulin")
    registration, _ = sign_up_confirmed(event, "a@ex.org")
    Event.objects.filter(pk=event.pk).update(date=timezone.localdate() + datetime.timedelta(2))
    assert broadcast.signup_daily.apply().get() == {"reminders": 1, "deleted": 0}  # beat's task
    assert broadcast.reminders_queue() == 0  # once
    reminder = Mail.objects.get(registration=registration, kind="reminder")
    assert "Gymnase Jean-Moulin" in sent_text(reminder)
    event.refresh_from_db()
    event_publish(actor=Actor(user=organiser), event=event, results=True)
    event_publish(actor=Actor(user=organiser), event=event, results=False)
    event_publish(actor=Actor(user=organiser), event=event, results=True)
    assert Mail.objects.filter(registration=registration, kind="results").count() == 1


def test_celery_beat_sends_the_daily_task_every_morning(settings):
    from celery.schedules import crontab

    from paddock.celery import app

    entry = settings.CELERY_BEAT_SCHEDULE["signup-daily"]
    assert entry["task"] == broadcast.signup_daily.name  # a task the worker loads:
    assert broadcast.__name__ in settings.CELERY_IMPORTS
    assert entry["schedule"] == crontab(hour=6, minute=0)
    assert str(app.conf.timezone) == settings.TIME_ZONE


def test_the_sender_renders_each_mail_in_its_registrants_language(open_event, settings):
    """Issue 42: a sign-up and a confirmation write their outbox rows (kind, registrant,
    language, subject, the facts: a waiting rank), not their bodies; the sender renders the
    bodies in the registrant's language as the mail leaves and keeps them with the row. No
    row holds the link as it is, before or after."""
    from tournament.signup import mails, tasks

    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    event = open_event(capacity=1)
    for email, language in (("ann@example.org", "en"), ("anne@example.org", "fr")):
        services.registration_sign_up(
            event=event, first_name="Ann", last_name="Smith", email=email, language=language
        )
        services.registration_confirm(token=last_token(email))
    rows = {m.to: m for m in Mail.objects.exclude(kind="confirm")}
    english, french = rows["ann@example.org"], rows["anne@example.org"]
    assert (english.kind, french.kind) == ("accepted", "waiting")
    assert english.subject.startswith("You are in") and french.subject.startswith("Liste")
    for mail in (english, french):
        assert mails.later(mail) and mail.body_html == ""
        assert mails.link_of(mail) not in mail.body_text
        assert tasks.deliver(mail.pk) == "sent"
        mail.refresh_from_db()
        assert not mails.later(mail) and mails.LINK in mail.body_text
        assert mails.link_of(mail) not in mail.body_text + mail.body_html
    assert "Hello Ann," in english.body_text and "Your seat at" in english.body_text
    assert "Bonjour Ann," in french.body_text and "n° 1 sur la liste" in french.body_text
    sent_now = {m.to[0]: m for m in outbox.outbox}
    assert mails.link_of(english) in sent_now["ann@example.org"].body
    assert sent_now["anne@example.org"].extra_headers["Content-Language"] == "fr"
