"""The site's middleware (``tournament.site.middleware``): a registrant's wrong links count
as failures of the address, as wrong table links do, and pages that hold a person's data
answer ``Cache-Control: no-store``."""

from __future__ import annotations

import json

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from tests.tournament.signup.conftest import OWN, open_event, sign_up_confirmed  # noqa: F401
from tournament.site import ratelimit

pytestmark = pytest.mark.django_db

LIMIT = 3
ADDRESS = "203.0.113.40"


@pytest.fixture(autouse=True)
def small_limit(settings):
    settings.TOKEN_FAILURE_LIMIT = LIMIT
    settings.TOKEN_FAILURE_WINDOW = 600
    yield
    ratelimit.forget(ADDRESS)


def guesser() -> Client:
    """A stranger reading English: pages follow the language cookie (the menu's), not
    Accept-Language, which only the API reads."""
    client = Client(REMOTE_ADDR=ADDRESS, HTTP_ACCEPT_LANGUAGE="en")
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    return client


def test_wrong_registrant_links_count_and_are_refused_past_the_limit(
    open_event,  # noqa: F811
    sign_up_confirmed,  # noqa: F811
):
    """Issue 40: wrong confirmation tokens and own links were not counted by the token
    limiter (tournament.site.ratelimit), as wrong table links are. Every way in counts
    (the pages, the API's confirmation and own link); past the limit a wrong link is a 429,
    while a link that works still opens its registration."""
    _registration, link = sign_up_confirmed(open_event(), "e@example.org")
    own = OWN.search(link).group(1)
    client = guesser()
    misses = [
        client.get("/registrations/no-such-link/"),
        client.post("/registrations/confirm/no-such-token/"),
        client.post(
            "/api/v1/registrations/confirm",
            json.dumps({"token": "no-such-token"}),
            content_type="application/json",
        ),
    ]
    assert [answer.status_code for answer in misses] == [404] * LIMIT
    assert ratelimit.failures(misses[0].wsgi_request) == LIMIT
    page = client.get("/registrations/another-guess/")
    assert page.status_code == 429
    assert "Too many wrong links from this address" in page.content.decode()
    answer = client.get("/api/v1/registrations/another-guess")
    assert answer.status_code == 429 and "link of your last mail" in answer.json()["detail"]
    assert client.get(f"/registrations/{own}/").status_code == 200
    assert client.get(f"/api/v1/registrations/{own}").status_code == 200
    # Another address is not held back by this one's guesses.
    assert Client().get("/registrations/no-such-link/").status_code == 404


def test_a_person_s_pages_are_never_stored_by_a_cache(
    open_event,  # noqa: F811
    sign_up_confirmed,  # noqa: F811
    organiser,
):
    """Issue 40: the registrant's own page and organiser pages answer ``Cache-Control:
    no-store`` (a shared computer's browser or a proxy keeps no copy); a players' page
    seen by anyone keeps its own caching."""
    event = open_event()
    _registration, link = sign_up_confirmed(event, "e@example.org")
    own = OWN.search(link).group(1)
    anyone = Client()
    assert "no-store" in anyone.get(f"/registrations/{own}/")["Cache-Control"]
    assert "no-store" in anyone.get(f"/api/v1/registrations/{own}")["Cache-Control"]
    desk = Client()
    desk.force_login(organiser)
    for url in (
        reverse("event-desk", args=[event.slug]),
        reverse("signup-desk", args=[event.slug]),
    ):
        answer = desk.get(url)
        assert answer.status_code == 200
        assert answer["Cache-Control"] == "private, no-store"
    home = anyone.get(reverse("home"))
    assert home.status_code == 200 and "no-store" not in home.get("Cache-Control", "")
