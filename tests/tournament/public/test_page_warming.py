"""Publishing builds the public pages before the phones come (tournament.public.tasks,
tournament.public.cache.warm): the room finds them stored, as if each were built for it.

Committed for real (the counters move at commit on PostgreSQL, and the pages are built
once the publication is committed), tasks inline as in ``make run`` and ``make venue``.
"""

from __future__ import annotations

import gzip
import os
import re
import time

import pytest
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tournament.access import Actor
from tournament.public.cache import warm
from tournament.public.tasks import event_pages
from tournament.registration.services import event_publish

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def event(make_event):
    return make_event(n_drivers=4)


def phone() -> Client:
    """A player's phone in French (the site's language), no session, no cookie."""
    return Client(HTTP_ACCEPT_ENCODING="gzip", HTTP_ACCEPT_LANGUAGE="fr")


def test_publishing_stores_the_pages_the_room_opens(event, organiser):
    pages = [
        reverse("event", args=[event.slug]),
        reverse("standings", args=[event.championship.slug]),
        reverse("where", args=[event.slug]),
    ]
    cache.clear()
    event_publish(actor=Actor(user=organiser), event=event, allocation=True)
    for url in pages:
        with CaptureQueriesContext(connection) as queries:
            response = phone().get(url)
        assert response.status_code == 200, url
        # Stored already: the change counters are read, no page is built.
        assert len(queries) == 1, (url, [q["sql"][:80] for q in queries])
    # And what was stored is what a phone would have been given.
    stored = phone().get(pages[0])
    cache.clear()
    built = phone().get(pages[0])
    # But for the second it was made at (the offline copy's "as of"; a busy machine crosses
    # a second between the two).
    assert without_time(stored) == without_time(built)
    assert 'data-kind="public"' in without_time(stored)  # the stamp was there to take out


def without_time(response) -> str:
    body = gzip.decompress(response.content) if response.get("Content-Encoding") else None
    return re.sub(r'data-served-at="[^"]*"', "", (body or response.content).decode())


def test_pages_not_public_yet_are_left_to_their_first_visitor(event):
    pages = event_pages(event)
    missed = warm(pages)
    # Nothing published: no "where do I sit?", no results of the day.
    assert reverse("where", args=[event.slug]) not in pages
    assert reverse("event-results", args=[event.slug]) not in pages
    assert reverse("standings", args=[event.championship.slug]) in pages
    assert reverse("standings", args=[event.championship.slug]) not in missed


def test_warming_asks_for_no_page_that_would_be_a_404(event, organiser, caplog):
    """``make run``'s demo printed a "Not Found" warning per event: the qualifying
    classification is warmed once it is published, not before."""
    with caplog.at_level("WARNING", logger="django.request"):
        warm(event_pages(event))
    assert [r.getMessage() for r in caplog.records if "Not Found" in r.getMessage()] == []
    assert reverse("qualifying-general", args=[event.slug]) not in event_pages(event)
    event_publish(actor=Actor(user=organiser), event=event, qualifying=True)
    assert reverse("qualifying-general", args=[event.slug]) in event_pages(event)


def test_race_control_keeps_its_language_while_the_pages_are_built(event, organiser):
    """The pages are built in French for the room; race control works in English."""
    client = Client()
    client.force_login(organiser)
    client.cookies["django_language"] = "en"
    response = client.post(
        reverse("desk-publish", args=[event.slug]), {"allocation": "1"}, follow=True
    )
    assert response.status_code == 200
    assert "Publication settings saved." in response.content.decode()
    event.refresh_from_db()
    assert event.published_allocation


@pytest.mark.celery_worker
def test_a_real_worker_builds_the_pages_after_a_publication(event, organiser):
    """Hosted: the publication hands the build to a Celery worker through Redis."""
    if not os.environ.get("REDIS_URL"):
        pytest.skip("REDIS_URL is not set")
    import redis
    from celery.contrib.testing.worker import start_worker

    from paddock.celery import app

    assert not app.conf.task_always_eager
    store = redis.Redis.from_url(os.environ["REDIS_URL"])
    app.control.purge()  # stale messages of earlier runs must not reach this worker
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=30):
        event_publish(actor=Actor(user=organiser), event=event, allocation=True)
        deadline = time.monotonic() + 30
        while len(store.keys("*paddock:page:*")) < 3 and time.monotonic() < deadline:
            time.sleep(0.2)
    # Event page, where do I sit and standings (no results published: not that one).
    assert len(store.keys("*paddock:page:*")) == 3
    with CaptureQueriesContext(connection) as queries:
        response = phone().get(reverse("standings", args=[event.championship.slug]))
    assert response.status_code == 200 and len(queries) == 1
