"""A stranger's account on a server open to clubs, and the password reset (DOMAIN.md "A
server open to clubs", API.md "Many clubs on one server", Accounts), through a real SMTP
server on loopback (the invitations' fixture): sign-up → mail → confirmation → a club; an
address with an account gets the same answer and a mail saying so; the link is single use
and only its digest is kept; the budgets answer 429 with ``Retry-After``; a reset's mail
leaves through the outbox, and the request does the same work for any address."""

from __future__ import annotations

import email
import re

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from tests.tournament.clubs import test_invitations
from tests.tournament.clubs.conftest import Api
from tournament import sealing
from tournament.models import AccountRequest, Membership
from tournament.signup.models import Mail

pytestmark = pytest.mark.django_db

CONFIRM = re.compile(r"(https?://\S+/accounts/confirm/([A-Za-z0-9_-]+)/)")
STRONG = "virage-rapide-2026"
User = get_user_model()
#: The invitations' SMTP server on loopback (SITE_URL https://paddock.example.org).
smtp = test_invitations.smtp


@pytest.fixture
def opened(settings):
    settings.CLUBS_OPEN = True
    return settings


def _text(message: email.message.EmailMessage) -> str:
    return message.get_body(preferencelist=("plain",)).get_content()


def _ask(capture, *, username: str = "lea", address: str = "lea@example.org", **extra):
    with capture(execute=True):
        return Api().post(
            "/accounts",
            {"username": username, "email": address, "password": STRONG, **extra},
        )


def test_a_stranger_signs_up_on_the_page_confirms_by_mail_and_makes_a_club(
    opened, smtp, django_capture_on_commit_callbacks
):
    browser = Client(HTTP_ACCEPT_LANGUAGE="fr")
    assert "/accounts/signup/" in browser.get("/").content.decode()
    assert "/accounts/signup/" in browser.get("/accounts/login/").content.decode()
    assert browser.get("/accounts/signup/").status_code == 200

    with django_capture_on_commit_callbacks(execute=True):
        sent = browser.post(
            "/accounts/signup/",
            {"username": "lea", "email": "lea@example.org", "password": STRONG,
             "password_again": STRONG},
        )  # fmt: skip

    assert sent.status_code == 302 and sent["Location"] == "/accounts/signup/sent/"
    assert "Consultez vos e-mails" in browser.get(sent["Location"]).content.decode()
    [message] = smtp.messages
    assert message["To"] == "lea@example.org" and message["Content-Language"] == "fr"
    text = _text(message)
    assert "Bonjour," in text and "lea" in text
    link, token = CONFIRM.search(text).groups()
    assert link == f"https://paddock.example.org/accounts/confirm/{token}/"
    # Only the digest is kept, and no account exists before the link is opened.
    assert AccountRequest.objects.get().digest == sealing.link_digest(token)
    assert token not in str(list(AccountRequest.objects.values()))
    assert token not in str(list(Mail.objects.values()))
    assert not User.objects.filter(username="lea").exists()

    page = browser.get(f"/accounts/confirm/{token}/")  # a mail scanner's visit makes nothing
    assert page.status_code == 200 and not User.objects.filter(username="lea").exists()
    made = browser.post(f"/accounts/confirm/{token}/")

    assert made.status_code == 302 and made["Location"] == "/accounts/welcome/"
    lea = User.objects.get(username="lea")
    assert lea.email == "lea@example.org" and lea.check_password(STRONG)
    welcome = browser.get(made["Location"]).content.decode()
    assert "/clubs/new/" in welcome and "invitation" in welcome
    club = browser.post("/clubs/new/", {"name": "Écurie Léa", "slug": "ecurie-lea"})
    assert club.status_code == 302
    assert Membership.objects.get(club__slug="ecurie-lea").user == lea
    # Single use.
    again = Client().get(f"/accounts/confirm/{token}/")
    assert again.status_code == 410 and "déjà servi" in again.content.decode()


def test_the_api_s_accounts_answer_the_same_for_a_known_address(
    opened, smtp, django_capture_on_commit_callbacks, django_user_model
):
    django_user_model.objects.create_user("marie", email="Marie@Example.org", password="pw")

    known = _ask(django_capture_on_commit_callbacks, username="marie2", address="marie@example.org")
    new = _ask(django_capture_on_commit_callbacks, language="en")

    assert (known.status_code, known.json()) == (new.status_code, new.json())
    assert new.status_code == 202 and new.json() == {"status": "confirm"}
    to_marie, to_lea = smtp.messages
    assert "/accounts/confirm/" not in _text(to_marie)
    assert "has an account already" in _text(to_marie)
    assert "/accounts/login/" in _text(to_marie) and "/accounts/password_reset/" in _text(to_marie)
    assert to_lea["Subject"] == "Paddock: confirm your new account"
    token = CONFIRM.search(_text(to_lea)).group(2)

    assert Api().post("/accounts/confirm", {"token": "nope"}).status_code == 404
    made = Api().post("/accounts/confirm", {"token": token})
    assert (made.status_code, made.json()) == (201, {"username": "lea"})
    assert Api().post("/accounts/confirm", {"token": token}).status_code == 409
    assert not User.objects.filter(username="marie2").exists()

    taken = Api().post("/accounts", {"username": "LEA", "email": "x@example.org",
                                      "password": STRONG})  # fmt: skip
    assert taken.status_code == 409
    weak = Api().post("/accounts", {"username": "zoe", "email": "z@example.org",
                                     "password": "paddock-club"})  # fmt: skip
    assert weak.status_code == 400 and "password" in weak.json()["errors"]


def test_an_expired_link_makes_nothing_and_a_closed_server_has_no_accounts(
    settings, smtp, django_capture_on_commit_callbacks
):
    settings.CLUBS_OPEN = True
    _ask(django_capture_on_commit_callbacks)
    token = CONFIRM.search(_text(smtp.messages[0])).group(2)
    AccountRequest.objects.update(expires_at=timezone.now())

    assert Api().post("/accounts/confirm", {"token": token}).status_code == 409

    settings.CLUBS_OPEN = False
    assert _ask(django_capture_on_commit_callbacks, username="zoe").status_code == 404
    assert Api().post("/accounts/confirm", {"token": token}).status_code == 404
    assert Client().get("/accounts/signup/").status_code == 404
    assert "/accounts/signup/" not in Client().get("/accounts/login/").content.decode()


def test_the_sixth_account_request_of_an_address_or_a_client_is_refused(
    opened, django_capture_on_commit_callbacks
):
    answers = [
        _ask(django_capture_on_commit_callbacks, username=f"u{n}", address=f"u{n}@example.org")
        for n in range(6)
    ]

    assert [a.status_code for a in answers] == [202] * 5 + [429]
    assert 3500 <= int(answers[-1]["Retry-After"]) <= 3600
    assert "60 minutes" in answers[-1].json()["detail"]
    # The page says it in the person's language.
    page = Client(HTTP_ACCEPT_LANGUAGE="fr").post(
        "/accounts/signup/",
        {"username": "u9", "email": "u9@example.org", "password": STRONG,
         "password_again": STRONG},
    )  # fmt: skip
    assert page.status_code == 429 and page["Retry-After"]
    assert "réessayez dans 60 minutes" in page.content.decode()


# --- The password reset -----------------------------------------------------------------------


def _reset(client: Client, address: str) -> tuple[int, list[str]]:
    """The reset's answer and the SQL it ran, the address blanked."""
    with CaptureQueriesContext(connection) as queries:
        status = client.post("/accounts/password_reset/", {"email": address}).status_code
    return status, [q["sql"].replace(address, "?") for q in queries.captured_queries]


def test_a_reset_does_the_same_work_for_any_address_and_mails_through_the_outbox(
    smtp, django_capture_on_commit_callbacks, django_user_model
):
    django_user_model.objects.create_user("julie", email="julie@example.org", password="pw-1")
    browser = Client()
    browser.get("/accounts/password_reset/")

    known, unknown = _reset(browser, "julie@example.org"), _reset(browser, "nobody@example.org")

    assert known == unknown and known[0] == 302
    assert Mail.objects.count() == 0 and smtp.messages == []  # nothing inside the request
    with django_capture_on_commit_callbacks(execute=True):
        browser.post("/accounts/password_reset/", {"email": "julie@example.org"})
    [message] = smtp.messages
    assert message["To"] == "julie@example.org"
    assert "/accounts/reset/" in _text(message)
    assert Mail.objects.get().kind == "reset"
    assert "/accounts/reset/" not in str(list(Mail.objects.values()))  # sealed apart


def test_the_sixth_reset_of_a_client_within_an_hour_is_refused():
    client = Client()
    answers = [
        client.post("/accounts/password_reset/", {"email": f"p{n}@example.org"}) for n in range(6)
    ]

    assert [a.status_code for a in answers] == [302] * 5 + [429]
    assert int(answers[-1]["Retry-After"]) > 0
    assert "réessayez dans 60 minutes" in answers[-1].content.decode()
