"""Calendars (RFC 5545, read back with the icalendar library; issue 40, low items): a
VTIMEZONE for each TZID, DTEND from the schedule's last line, no event without an
announcement in ``/events.ics``, no calendar link on a cancelled registration's page."""

from __future__ import annotations

import datetime

import icalendar
import pytest
from django.test import Client
from django.utils import timezone

from tests.tournament.signup.conftest import OWN, sent_text
from tournament.models import Event
from tournament.signup import services
from tournament.signup.models import Announcement, Mail

pytestmark = pytest.mark.django_db


def soon(event: Event, **announced) -> None:
    Event.objects.filter(pk=event.pk).update(date=timezone.localdate() + datetime.timedelta(30))
    Announcement.objects.filter(event=event).update(**announced)


def test_each_tzid_has_its_vtimezone_and_the_day_ends_with_the_schedule(open_event):
    event = open_event()
    soon(event, starts_at="09:30", schedule=[
        {"time": "09:30", "label": "Accueil"},
        {"time": "10:00", "label": "Qualifications"},
        {"time": "18:15", "label": "Remise des prix"},
    ])  # fmt: skip
    for path in (f"/e/{event.slug}/event.ics", "/events.ics"):
        calendar = icalendar.Calendar.from_ical(Client().get(path).content)
        [vevent] = calendar.walk("VEVENT")
        start, end = vevent.decoded("dtstart"), vevent.decoded("dtend")
        assert (start.hour, start.minute, end.hour, end.minute) == (9, 30, 18, 15)
        tzids = {str(vevent["dtstart"].params["TZID"]), str(vevent["dtend"].params["TZID"])}
        assert tzids == {"Europe/Paris"}
        assert {str(tz["TZID"]) for tz in calendar.walk("VTIMEZONE")} == tzids
        assert calendar.get_missing_tzids() == set()


def test_without_a_schedule_the_day_ends_in_the_evening(open_event):
    event = open_event()
    soon(event, starts_at="09:30")
    [vevent] = icalendar.Calendar.from_ical(
        Client().get(f"/e/{event.slug}/event.ics").content
    ).walk("VEVENT")
    assert vevent.decoded("dtend").hour == 23


def test_no_event_without_an_announcement_in_the_calendar_of_every_event(open_event, make_event):
    """A published event that never announced its day is no calendar entry (a date and
    nothing else); an announced one is."""
    announced = open_event()
    soon(announced, starts_at="09:30")
    bare = make_event(n_drivers=0, slug="bare", published_results=True)
    Event.objects.filter(pk=bare.pk).update(date=timezone.localdate() + datetime.timedelta(20))
    assert not Announcement.objects.filter(event=bare).exists()
    everything = icalendar.Calendar.from_ical(Client().get("/events.ics").content)
    assert [str(e["uid"]) for e in everything.walk("VEVENT")] == [f"{announced.slug}@paddock"]


def test_a_cancelled_registration_offers_no_calendar(open_event, sign_up_confirmed):
    event = open_event()
    registration, _link = sign_up_confirmed(event, "e@example.org")
    own = OWN.search(sent_text(Mail.objects.get(kind="accepted"))).group(1)
    ics = f"/e/{event.slug}/event.ics".encode()
    assert ics in Client().get(f"/registrations/{own}/").content
    services.registration_cancel(registration=registration)
    page = Client().get(f"/registrations/{own}/")
    assert page.status_code == 200 and ics not in page.content
