"""The sign-up mails through a real SMTP server (aiosmtpd on loopback, started here): read
back with the standard ``email`` package, their headers, language and links opened with the
test client; a server that refuses leaves the mail queued, and the next try sends it once."""

from __future__ import annotations

import email
import email.policy
import socket
import threading

import pytest
from aiosmtpd.controller import Controller
from django.test import Client

from tests.tournament.signup.conftest import CONFIRM, OWN
from tournament.signup import services, tasks
from tournament.signup.models import Mail

pytestmark = pytest.mark.django_db


class Keeper:
    """An aiosmtpd handler keeping every message; refuses while ``refuse`` is set."""

    def __init__(self) -> None:
        self.messages: list[email.message.EmailMessage] = []
        self.refuse = False
        self.lock = threading.Lock()

    async def handle_DATA(self, server, session, envelope):  # noqa: N802 - aiosmtpd's name
        if self.refuse:
            return "451 4.3.0 try again later"
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        with self.lock:
            self.messages.append(message)
        return "250 OK"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


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
    yield keeper
    controller.stop()


def _text(message) -> str:
    return message.get_body(preferencelist=("plain",)).get_content()


def test_sign_up_mails_arrive_in_french_and_their_links_open(
    open_event, smtp, django_capture_on_commit_callbacks
):
    event = open_event(capacity=1)
    with django_capture_on_commit_callbacks(execute=True):
        services.registration_sign_up(
            event=event, first_name="Élodie", last_name="Lefèvre", email="e@example.org"
        )
    [confirm] = smtp.messages
    assert confirm["To"] == "e@example.org"
    assert confirm["From"] == "Paddock <paddock@example.org>"
    assert confirm["Content-Language"] == "fr"
    assert "Confirmez votre inscription" in confirm["Subject"]
    assert confirm["Message-ID"] == Mail.objects.get().message_id_header
    text = _text(confirm)
    assert "Grand Prix d'Été" in text
    html = confirm.get_body(preferencelist=("html",)).get_content()
    token = CONFIRM.search(text).group(1)
    assert token in html
    client = Client()
    assert client.get(f"/registrations/confirm/{token}/").status_code == 200
    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post(f"/registrations/confirm/{token}/")
    assert answer.status_code == 302
    accepted = smtp.messages[1]
    assert "Vous êtes inscrit" in accepted["Subject"]
    own = OWN.search(_text(accepted)).group(1)
    page = client.get(f"/registrations/{own}/")
    assert page.status_code == 200 and "Vous êtes inscrit.".encode() in page.content


def test_a_refusing_server_leaves_the_mail_queued_and_the_retry_sends_it_once(
    open_event, smtp, django_capture_on_commit_callbacks
):
    event = open_event()
    smtp.refuse = True
    with django_capture_on_commit_callbacks(execute=True):
        services.registration_sign_up(
            event=event, first_name="A", last_name="B", email="a@example.org", language="en"
        )
    mail = Mail.objects.get()
    assert mail.state == "queued" and mail.attempts == 1 and "451" in mail.last_error
    assert smtp.messages == []
    smtp.refuse = False
    assert tasks.deliver(mail.pk) == "sent"
    assert tasks.deliver(mail.pk) == "sent"  # a second task for the same mail sends nothing
    assert len(smtp.messages) == 1
    assert smtp.messages[0]["Subject"].strip().startswith("Confirm your registration")
    assert smtp.messages[0]["Message-ID"] == mail.message_id_header
