"""Which pages a server builds as it starts (tournament.public.warming): the public events
of the day, else of the last day that had one; never an unpublished event's. The start
itself, with gunicorn's workers, is tested for real in tests/integrity/test_two_servers.py."""

from __future__ import annotations

import datetime

import pytest
from django.urls import reverse

from tournament.models import Event
from tournament.public import warming

pytestmark = pytest.mark.django_db

TODAY = datetime.date(2026, 7, 14)


@pytest.fixture
def events(make_event):
    day = make_event(n_drivers=2, slug="today", published_allocation=True)
    earlier = make_event(n_drivers=2, slug="june", published_results=True)
    hidden = make_event(n_drivers=2, slug="hidden")  # nothing published
    Event.objects.filter(slug="june").update(date=datetime.date(2026, 6, 1))
    return day, earlier, hidden


def test_the_days_public_events_are_warmed(events):
    day, _earlier, _hidden = events
    assert warming.events_of_the_day(TODAY) == [day]


def test_without_an_event_today_the_last_days_are(events):
    _day, earlier, _hidden = events
    assert warming.events_of_the_day(datetime.date(2026, 7, 1)) == [earlier]
    assert warming.events_of_the_day(datetime.date(2026, 5, 1)) == []


def test_two_events_of_one_championship_share_their_standings(events):
    day, earlier, _hidden = events
    pages = warming.pages_of_the_day([day, earlier])
    assert pages.count(reverse("standings", args=[day.championship.slug])) == 1
    assert reverse("where", args=[day.slug]) in pages
    assert reverse("event-results", args=[earlier.slug]) in pages


def test_a_waiter_that_takes_the_lock_just_after_the_build_finds_the_page(monkeypatch):
    """Single flight across processes (tournament.public.cache): the build another process
    held the lock for ends (page stored, lock freed) just between the waiter's last look at
    the cache and its next try at the lock. The waiter then holds a free lock: it must serve
    the stored page, not build it a second time (a clean-clone run counted two builds)."""
    from django.core.cache import cache

    from tournament.public import cache as public_cache

    key = "paddock:page:test-single-flight"
    stored = {"body": b"<p>built elsewhere</p>"}
    cache.delete_many([key, f"{key}:building"])
    cache.add(f"{key}:building", 1, 30)  # the other process's build, under way
    looks = []
    real_get = public_cache._cache_get

    def look(asked: str):
        found = real_get(asked)
        if not looks:  # the other process ends its build right after this first look
            cache.set(key, stored, 60)
            cache.delete(f"{key}:building")
        looks.append(found)
        return found

    monkeypatch.setattr(public_cache, "_cache_get", look)
    built = []
    page = public_cache._single_flight(key, lambda asked: built.append(asked) or stored)
    cache.delete(key)
    assert built == [] and page == stored
    assert looks[0] is None  # the waiter did look before the build ended
