"""The hosted desk's page of the event away: the check-out downloads the bundle, the return
is an upload (a file changed on its way is refused, saying so), a trip is cancelled with a
reason; an event whose tables are made already stays, the page saying what to do."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from paddock.away import checkout as trip
from qualifying.models import QualifyingTable
from tournament.access import Actor
from tournament.away import bundle
from tournament.away.models import Checkout
from tournament.models import Driver
from tournament.signup.models import Announcement, Registration

pytestmark = pytest.mark.django_db


def way_back(out: dict, event) -> bytes:
    """The smallest day a laptop sends back: nothing happened."""
    data = {
        "format": bundle.BACK,
        "checkout": {"id": out["checkout"]["id"]},
        "event": {"slug": event.slug, "id": 1},
        "entries": [],
        "numbers": {},
        "objects": [],
    }
    return json.dumps(bundle.signed(data, out["checkout"]["key"])).encode()


def test_check_out_and_return_from_the_desk(make_event, organiser, client):
    event = make_event(3)
    client.force_login(organiser)
    client.cookies["django_language"] = "en"
    assert b"Check out to a laptop" in client.get(f"/e/{event.slug}/away/").content
    download = client.post(f"/e/{event.slug}/away/checkout/")
    assert download.status_code == 200
    assert "attachment" in download["Content-Disposition"]
    out = json.loads(download.content)
    assert bundle.verify(out, out["checkout"]["key"])
    assert b"Bring the day home" in client.get(f"/e/{event.slug}/away/").content

    changed = json.dumps({**json.loads(way_back(out, event)), "numbers": {"1": 1}}).encode()
    page = client.post(
        f"/e/{event.slug}/away/return/",
        {"file": SimpleUploadedFile("back.json", changed)},
        follow=True,
    )
    assert "signature fails" in page.content.decode()
    assert Checkout.objects.get(side="hosted").returned_at is None

    page = client.post(
        f"/e/{event.slug}/away/return/",
        {"file": SimpleUploadedFile("back.json", way_back(out, event))},
        follow=True,
    )
    assert "The day is home" in page.content.decode()
    assert Checkout.objects.get(side="hosted").returned_at is not None


def test_a_trip_is_cancelled_with_a_reason(make_event, organiser, client):
    event = make_event(3)
    client.force_login(organiser)
    client.post(f"/e/{event.slug}/away/checkout/")
    client.post(f"/e/{event.slug}/away/cancel/", {"reason": ""})
    assert Checkout.objects.get().cancelled_at is None
    client.post(f"/e/{event.slug}/away/cancel/", {"reason": "Panne de l’ordinateur"})
    checkout = Checkout.objects.get()
    assert checkout.cancelled_at is not None and checkout.cancel_reason == "Panne de l’ordinateur"
    assert client.post(f"/e/{event.slug}/desk/register/", {"numbers": "1"}).status_code == 302


def test_an_event_with_tables_stays_and_the_desk_says_what_to_do(make_event, organiser, client):
    event = make_event(3)
    for number in (1, 2):
        QualifyingTable.objects.create(event=event, number=number)
    client.force_login(organiser)
    client.cookies["django_language"] = "en"
    page = client.post(f"/e/{event.slug}/away/checkout/", follow=True).content.decode()
    assert "already has 2 qualifying tables: a check-out does not carry tables" in page
    assert "in the administration" not in page
    assert f'<a href="/e/{event.slug}/allocation/">Undo the race tables</a>' in page
    assert not Checkout.objects.exists()


def test_the_addresses_go_to_the_laptop_only_where_race_control_ticks_it(
    make_event, organiser, client
):
    """Issue 41: the trip page has "take the addresses to the laptop"; unticked, the file
    carries no registrant's nor driver's address."""
    event = make_event(2)
    Driver.objects.filter(championship=event.championship).update(email="pilote@example.org")
    announcement = Announcement.objects.create(event=event, capacity=10)
    Registration.objects.create(
        event=event, first_name="Léa", last_name="Roux", email="lea@example.org",
        status="accepted",
    )  # fmt: skip
    client.force_login(organiser)
    client.cookies["django_language"] = "en"
    assert b'name="emails_travel"' in client.get(f"/e/{event.slug}/away/").content

    unticked = client.post(f"/e/{event.slug}/away/checkout/").content.decode()
    assert "@example.org" not in unticked
    trip.cancel(actor=Actor(user=organiser), event=event, reason="test")

    ticked = client.post(f"/e/{event.slug}/away/checkout/", {"emails_travel": "1"})
    assert "lea@example.org" in ticked.content.decode()
    assert "pilote@example.org" in ticked.content.decode()
    announcement.refresh_from_db()
    assert announcement.emails_travel  # kept for the next check-out, and shown ticked
    changed = announcement.history.order_by("-history_date").first()
    assert changed.emails_travel and changed.history_user == organiser  # who and when
