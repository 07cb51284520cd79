"""The header's context (tournament.site.context): under ``make venue``'s guard a phone is
not offered the organiser login it could not open (its login page is the "on the laptop
only" 403); the laptop still is, and the public cache never hands one's header to the other.

Tests stay on loopback: the phone's address is the test client's ``REMOTE_ADDR``.
"""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tournament.public.cache import warm

# Committed for real: the public cache's keys follow the change counters, which move at commit.
pytestmark = pytest.mark.django_db(transaction=True)

PHONE = {"REMOTE_ADDR": "192.168.1.37"}
LOGIN_LINK = 'href="/accounts/login/'
NOTE = "Race control logs in on the laptop"
FRENCH_NOTE = "La direction de course se connecte sur l’ordinateur du tournoi"


@pytest.fixture
def venue(settings):
    settings.ORGANISERS_LAPTOP_ONLY = True
    settings.TRUSTED_PROXY_COUNT = 0
    return settings


def english(**extra: str) -> Client:
    client = Client(**extra)
    client.cookies["django_language"] = "en"
    return client


def header(response) -> str:
    assert response.status_code == 200
    text = response.content.decode()
    return text[text.index("<header") : text.index("</header>")]


def test_a_phone_under_the_guard_is_told_where_race_control_logs_in(venue):
    phone = header(english(**PHONE).get(reverse("home")))
    assert LOGIN_LINK not in phone and NOTE in phone
    # The login it would have been offered is the 403.
    assert english(**PHONE).get(reverse("login")).status_code == 403


def test_the_laptop_and_any_hosted_visitor_keep_the_login_link(venue, settings):
    laptop = header(english().get(reverse("home")))
    assert LOGIN_LINK in laptop and NOTE not in laptop
    settings.ORGANISERS_LAPTOP_ONLY = False
    hosted = header(english(**PHONE).get(reverse("home")))
    assert LOGIN_LINK in hosted and NOTE not in hosted


def test_the_note_is_in_french_for_a_french_phone(venue):
    phone = Client(HTTP_ACCEPT_LANGUAGE="fr", **PHONE)
    text = header(phone.get(reverse("home")))
    assert FRENCH_NOTE in text


def test_the_cached_page_keeps_the_phones_header_apart_from_the_laptops(venue):
    """The home page is a public page, stored once per version of its data: the laptop's
    copy (with the login) must not reach the phones, nor the phones' the laptop."""
    first = header(english().get(reverse("home")))
    phone = header(english(**PHONE).get(reverse("home")))
    again = header(english().get(reverse("home")))
    assert LOGIN_LINK in first and LOGIN_LINK in again
    assert LOGIN_LINK not in phone and NOTE in phone


def test_pages_built_before_the_phones_come_are_the_phones(venue):
    """Warming builds the pages as a phone asks for them (in the site's language): the room
    finds them stored, with the phones' header."""
    cache.clear()
    assert warm([reverse("home")]) == []
    phone = Client(HTTP_ACCEPT_LANGUAGE="fr", **PHONE)
    with CaptureQueriesContext(connection) as queries:
        response = phone.get(reverse("home"))
    assert len(queries) == 1  # stored: only the change counters were read
    assert LOGIN_LINK not in header(response) and FRENCH_NOTE in header(response)
