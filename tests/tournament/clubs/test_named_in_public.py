"""A club is named in public (DOMAIN.md "Many clubs on one server"): the event and
championship pages, the calendars and the API's public reads say which club runs them
(API.md: ``club: {slug, name}``), a hostile name escaped, a renamed club at once on the
cached pages."""

from __future__ import annotations

import icalendar
import pytest
from django.test import Client

from tests.tournament.clubs.conftest import Clubs
from tournament.models import Championship, Club, Event

HOSTILE = '<img src=x onerror=alert(1)> & "Club"\nd’Aix'


def published(clubs: Clubs) -> Event:
    Event.objects.filter(pk=clubs.event.pk).update(published_allocation=True)
    return clubs.event


def phone() -> Client:
    client = Client()
    client.cookies["django_language"] = "en"
    return client


@pytest.mark.django_db
def test_the_api_s_public_reads_name_the_club(clubs):
    event = published(clubs)
    club = {"slug": "aix", "name": "Club d’Aix"}
    anyone = clubs.api(None)

    assert anyone.get(f"/events/{event.slug}").json()["club"] == club
    assert anyone.get("/championships/aix-2026").json()["club"] == club
    assert anyone.get("/championships/aix-2026/events").json()[0]["club"] == club
    listed = {c["slug"]: c["club"] for c in anyone.get("/championships").json()}
    assert listed["aix-2026"] == club
    # A championship of no club (the operator's, from before clubs) answers null.
    Championship.objects.create(slug="old", name="Ancien", season="2019")
    assert anyone.get("/championships/old").json()["club"] is None


@pytest.mark.django_db
def test_the_pages_and_calendar_name_the_club_escaped(clubs):
    event = published(clubs)
    Club.objects.filter(pk=clubs.club.pk).update(name=HOSTILE)
    escaped = "Run by &lt;img src=x onerror=alert(1)&gt; &amp; &quot;Club&quot;"

    for path in (f"/e/{event.slug}/", "/c/aix-2026/"):
        page = phone().get(path)
        assert page.status_code == 200
        text = page.content.decode()
        assert escaped in text and "<img src=x" not in text, path

    calendar = icalendar.Calendar.from_ical(phone().get(f"/e/{event.slug}/event.ics").content)
    [vevent] = calendar.walk("VEVENT")
    first = str(vevent["description"]).splitlines()[0]
    assert first == 'Run by <img src=x onerror=alert(1)> & "Club" d’Aix'  # one line
    french = Client()
    french.cookies["django_language"] = "fr"
    [vevent] = icalendar.Calendar.from_ical(french.get(f"/e/{event.slug}/event.ics").content).walk(
        "VEVENT"
    )
    assert str(vevent["description"]).startswith("Organisé par <img")


@pytest.mark.django_db(transaction=True)  # the change counters move at commit
def test_a_renamed_club_reaches_the_cached_event_page(clubs):
    event = published(clubs)
    url = f"/e/{event.slug}/"
    first = phone().get(url)
    assert "Run by Club d’Aix" in first.content.decode()
    assert phone().get(url)["ETag"] == first["ETag"]  # served from the cache

    club = Club.objects.get(pk=clubs.club.pk)
    club.name = "Écurie d’Aix"
    club.save()

    again = phone().get(url)
    assert again["ETag"] != first["ETag"]
    assert "Run by Écurie d’Aix" in again.content.decode()
