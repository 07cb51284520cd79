"""Invitations by mail through a real SMTP server (aiosmtpd on loopback, as the sign-up mails'
tests/tournament/signup/test_smtp.py): DOMAIN.md "Clubs and who may do what" — the mail
leaves through the sign-up outbox exactly once, in the invitee's language, carrying
``<SITE_URL>/invitations/<token>/``; the link is single use, and only its digest is stored."""

from __future__ import annotations

import email
import re

import pytest
from aiosmtpd.controller import Controller
from django.utils import formats, timezone, translation

from tests.tournament.clubs.conftest import Api
from tests.tournament.signup.test_smtp import Keeper, free_port
from tournament import sealing
from tournament.models import Invitation, Membership
from tournament.signup import tasks
from tournament.signup.models import Mail

pytestmark = pytest.mark.django_db

LINK = re.compile(r"(https?://\S+/invitations/([A-Za-z0-9_-]+)/)")
STRONG = "virage-rapide-2026"


@pytest.fixture
def smtp(settings):
    keeper = Keeper()
    controller = Controller(keeper, hostname="127.0.0.1", port=free_port())
    controller.start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST = "127.0.0.1"
    settings.EMAIL_PORT = controller.port
    settings.EMAIL_USE_TLS = False
    settings.EMAIL_HOST_USER = ""
    settings.EMAIL_HOST_PASSWORD = ""
    settings.DEFAULT_FROM_EMAIL = "Paddock <paddock@example.org>"
    settings.SITE_URL = "https://paddock.example.org"
    yield keeper
    controller.stop()


def _text(message: email.message.EmailMessage) -> str:
    return message.get_body(preferencelist=("plain",)).get_content()


def _invite(clubs, capture, *, language: str) -> None:
    with capture(execute=True):
        response = clubs.api("patronne").post(
            "/clubs/aix/invitations",
            {"email": "lea@example.org", "role": "desk", "language": language},
        )
    assert response.status_code == 202, response.content


def test_the_invitation_arrives_once_in_french_and_its_link_makes_a_member(
    clubs, smtp, django_capture_on_commit_callbacks
):
    _invite(clubs, django_capture_on_commit_callbacks, language="fr")

    [message] = smtp.messages
    assert message["To"] == "lea@example.org"
    assert message["From"] == "Paddock <paddock@example.org>"
    assert message["Content-Language"] == "fr"
    sent = Invitation.objects.get()
    with translation.override("fr"):  # the invitee's language: the date as French writes it
        until = formats.date_format(timezone.localtime(sent.expires_at), "DATETIME_FORMAT")
    text = _text(message)
    assert until in text and "Club d’Aix" in text
    link, token = LINK.search(text).groups()
    assert link == f"https://paddock.example.org/invitations/{token}/"
    html = message.get_body(preferencelist=("html",)).get_content()
    assert link in html
    # Only the digest is kept: no row holds the link as it is.
    assert sent.digest == sealing.link_digest(token)
    assert token not in str(list(Invitation.objects.values()))
    # Exactly once: a second task for the same mail sends nothing.
    mail = Mail.objects.get(invitation=sent)
    assert tasks.deliver(mail.pk) == "sent"
    assert len(smtp.messages) == 1

    joined = Api().post(
        "/invitations/accept", {"token": token, "username": "lea", "password": STRONG}
    )

    assert joined.status_code == 201, joined.content
    assert Membership.objects.get(user__username="lea").role == "desk"
    again = Api().post(
        "/invitations/accept", {"token": token, "username": "lea2", "password": STRONG}
    )
    assert again.status_code == 409


def test_an_english_invitee_reads_english_and_a_refusing_server_is_tried_again(
    clubs, smtp, django_capture_on_commit_callbacks
):
    smtp.refuse = True
    _invite(clubs, django_capture_on_commit_callbacks, language="en")
    mail = Mail.objects.get()
    assert mail.state == "queued" and mail.attempts == 1 and smtp.messages == []

    smtp.refuse = False
    assert tasks.deliver(mail.pk) == "sent"

    [message] = smtp.messages
    assert message["Content-Language"] == "en"
    assert message["Subject"].strip() == "Paddock: an invitation to the club named “Club d’Aix”"
    assert "as desk" in _text(message)


def test_a_withdrawn_invitation_s_link_opens_nothing(
    clubs, smtp, django_capture_on_commit_callbacks
):
    _invite(clubs, django_capture_on_commit_callbacks, language="en")
    token = LINK.search(_text(smtp.messages[0])).group(2)
    invitation = Invitation.objects.get()

    assert (
        clubs.api("patronne").delete(f"/clubs/aix/invitations/{invitation.pk}").status_code == 200
    )
    refused = Api().post(
        "/invitations/accept", {"token": token, "username": "lea", "password": STRONG}
    )

    assert refused.status_code == 409 and "withdrawn" in refused.json()["detail"]
    assert not Membership.objects.filter(user__username="lea").exists()
