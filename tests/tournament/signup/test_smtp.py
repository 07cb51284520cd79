"""The sign-up mails through a real SMTP server (aiosmtpd on loopback, started here): read
back with the standard ``email`` package, their headers, language and links opened with the
test client; a server that refuses leaves the mail queued, and the next try sends it once; a
mail that can never leave is failed with its error; the outbox never holds a link as it is."""

from __future__ import annotations

import email
import email.policy
import socket
import threading

import pytest
from aiosmtpd.controller import Controller
from django.db import connection
from django.test import Client

from tests.tournament.signup.conftest import CONFIRM, OWN
from tournament.models import Event
from tournament.signup import services, tasks
from tournament.signup.models import Mail

pytestmark = pytest.mark.django_db


class Keeper:
    """An aiosmtpd handler keeping every message; refuses while ``refuse`` is set."""

    def __init__(self) -> None:
        self.messages: list[email.message.EmailMessage] = []
        self.refuse = False
        #: A permanent refusal (5xx) of every message, when set.
        self.refuse_for_good = ""
        self.lock = threading.Lock()

    async def handle_DATA(self, server, session, envelope):  # noqa: N802 - aiosmtpd's name
        if self.refuse_for_good:
            return self.refuse_for_good
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
    # Nobody has confirmed the address yet: the name typed is no one's to greet (N32).
    assert text.startswith("Bonjour,\r\n") and "<p>Bonjour,</p>" in html
    assert "Élodie" not in text + html and "Lefèvre" not in text + html
    token = CONFIRM.search(text).group(1)
    assert token in html
    client = Client()
    assert client.get(f"/registrations/confirm/{token}/").status_code == 200
    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post(f"/registrations/confirm/{token}/")
    assert answer.status_code == 302
    accepted = smtp.messages[1]
    assert "Vous êtes inscrit" in accepted["Subject"]
    assert _text(accepted).startswith("Bonjour Élodie,\r\n")  # the address confirmed
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


def raw_rows(table: str) -> str:
    """Every value of every row of ``table`` as the database holds it, as text."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT * FROM {connection.ops.quote_name(table)}")
        rows = cursor.fetchall()
    return "\n".join(
        bytes(value).decode("latin-1") if isinstance(value, bytes | memoryview) else str(value)
        for row in rows
        for value in row
    )


def test_no_outbox_row_holds_a_link_and_the_mail_received_carries_it(
    open_event, smtp, django_capture_on_commit_callbacks
):
    """API.md "The door and a person's data": secrets (registrants' links) are never stored
    as they are. The outbox's bodies keep a mark where the link goes and the link is sealed
    beside them; the mail the server receives carries the link, and it works."""
    event = open_event(capacity=1)
    client = Client()
    with django_capture_on_commit_callbacks(execute=True):
        services.registration_sign_up(
            event=event, first_name="Élodie", last_name="Lefèvre", email="e@example.org"
        )
    token = CONFIRM.search(_text(smtp.messages[0])).group(1)
    with django_capture_on_commit_callbacks(execute=True):
        assert client.post(f"/registrations/confirm/{token}/").status_code == 302
    accepted = smtp.messages[1]
    own = OWN.search(_text(accepted)).group(1)
    assert own in accepted.get_body(preferencelist=("html",)).get_content()
    assert client.get(f"/registrations/{own}/").status_code == 200
    outbox = raw_rows(Mail._meta.db_table)
    assert "e@example.org" in outbox  # the rows are read: the address is there
    assert token not in outbox and own not in outbox
    assert "/registrations/" not in outbox
    assert all(mail.link_sealed for mail in Mail.objects.all())


def test_an_event_named_on_two_lines_mails_a_subject_of_one(
    open_event, smtp, django_capture_on_commit_callbacks
):
    """Issue 40, item 12: a line break in an event's name made every mail of that event a
    header the mail library refuses (BadHeaderError), silently. A subject is one line."""
    event = open_event()
    Event.objects.filter(pk=event.pk).update(name="Grand Prix\r\nd'Été")
    event.refresh_from_db()
    with django_capture_on_commit_callbacks(execute=True):
        services.registration_sign_up(
            event=event, first_name="A", last_name="B", email="a@example.org", language="en"
        )
    [received] = smtp.messages
    assert received["Subject"].strip() == "Confirm your registration for Grand Prix d'Été"
    assert Mail.objects.get().state == "sent"


def test_a_mail_refused_for_good_is_failed_with_its_error_at_once(
    open_event, smtp, django_capture_on_commit_callbacks
):
    """API.md "The door and a person's data": a mail that fails for good says so on the desk.
    A server's permanent refusal (5xx) is not tried eight times over hours: failed at once,
    with the server's words."""
    event = open_event()
    smtp.refuse_for_good = "550 5.7.1 message refused"
    with django_capture_on_commit_callbacks(execute=True):
        services.registration_sign_up(
            event=event, first_name="A", last_name="B", email="a@example.org", language="en"
        )
    mail = Mail.objects.get()
    assert (mail.state, mail.attempts) == ("failed", 1)
    assert "550" in mail.last_error
    assert smtp.messages == []


def test_a_mail_the_mail_library_refuses_is_failed_never_left_queued(
    open_event, smtp, django_capture_on_commit_callbacks
):
    """Issue 40, item 12: a message the mail library refuses to write (``BadHeaderError``
    and the other ``ValueError``'s) was raised out of the task, its row left queued with no
    error and never tried again. Such a mail is failed, with its error: here a row whose
    address holds a line break."""
    event = open_event()
    with django_capture_on_commit_callbacks(execute=True):
        services.registration_sign_up(
            event=event, first_name="A", last_name="B", email="a@example.org", language="en"
        )
    mail = Mail.objects.get()
    Mail.objects.filter(pk=mail.pk).update(
        state="queued", to="a@example.org\nBcc: b@example.org", attempts=0
    )
    smtp.messages.clear()
    assert tasks.deliver(mail.pk) == "failed"
    mail.refresh_from_db()
    assert mail.state == "failed" and mail.attempts == 1
    assert mail.last_error.startswith("ValueError: Invalid address")
    assert smtp.messages == []
