"""Race control's list of registrations at the door (tournament/signup/desk.py): who a
registrant is, read side by side before joining a driver; the erasure and the closing of
check-in shown first and done on a second tap (DOMAIN.md "Corrections to 'Before the day'":
irreversible taps ask first); a mail failed for good said on its row; one line a row."""

from __future__ import annotations

import datetime
import json
import re

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from tournament.access import Actor
from tournament.models import Driver, Entry
from tournament.players.identity import new_player
from tournament.signup import checkin
from tournament.signup.models import Announcement, Mail, Registration

pytestmark = pytest.mark.django_db


def desk(organiser) -> Client:
    client = Client()
    client.cookies["django_language"] = "en"
    client.force_login(organiser)
    return client


def path_of(event) -> str:
    return f"/e/{event.slug}/desk/registrations/"


def test_check_in_shows_who_the_registrant_may_be_side_by_side_and_joins_on_confirmation(
    open_event, sign_up_confirmed, organiser, championship
):
    """A licence typed by a registrant is a hint, never a key (issue 40, item 6)."""
    event = open_event(capacity=None)
    known = Driver.objects.create(
        championship=championship,
        number=7,
        first_name="Élodie",
        last_name="Lefèvre",
        player=new_player(first_name="Élodie", last_name="Lefèvre", licence="L-77"),
    )
    stranger, _ = sign_up_confirmed(event, "marc@example.org", first_name="Marc", licence="L-77")
    client, path = desk(organiser), path_of(event)
    asked = client.post(path, {"action": "checkin", "id": stranger.pk, "paid": "1"})
    assert asked.status_code == 200
    proposal = asked.content.decode()
    assert "Who is Marc Lefèvre?" in proposal and "Driver n° 7" in proposal
    assert re.search(r'<td class="same">L-77</td><td class="same">L-77', proposal)
    assert "lefevre marc" in proposal and "elodie lefevre" in proposal  # folded names
    assert not Entry.objects.filter(event=event).exists()  # nothing yet
    client.post(path, {"action": "checkin", "id": stranger.pk, "decided": "1", "join": ""})
    stranger.refresh_from_db()
    assert stranger.driver.number == 8 and stranger.driver != known
    real, _ = sign_up_confirmed(event, "e@example.org", licence="L-77")
    decided = {"action": "checkin", "id": real.pk, "decided": "1", "join": "7", "paid": "1"}
    client.post(path, decided)
    real.refresh_from_db()
    assert real.driver == known and known.entries.get(event=event).paid


def test_erasure_shows_what_it_will_do_and_waits_for_a_second_tap(
    open_event, sign_up_confirmed, organiser
):
    """Irreversible taps ask first (issue 40, item 16); the export is the person's data."""
    actor = Actor(user=organiser)
    event = open_event()
    for number in (1, 2, 3):  # the championship's drivers: she is n° 4, registration 1
        Driver.objects.create(championship=event.championship, number=number, first_name="P")
    registration, _ = sign_up_confirmed(event, "elodie@example.org", licence="L-12")
    driver = checkin.registration_check_in(reg=registration, actor=actor).driver
    client, path = desk(organiser), path_of(event)
    exported = json.loads(client.post(path, {"action": "export", "id": registration.pk}).content)
    assert exported["registration"]["email"] == "elodie@example.org"
    assert [c["why"] for c in exported["changes"]][:2] == [
        "signed up",
        "address confirmed: accepted",
    ]
    assert registration.pk != driver.number  # the number shown is the racing one
    erase = {"action": "erase", "id": registration.pk, "reason": "asked by mail"}
    assert client.post(path, {**erase, "reason": " "}).status_code == 302  # says why first
    asked = client.post(path, erase)
    assert asked.status_code == 200
    page = asked.content.decode()
    assert "Erase Élodie Lefèvre?" in page and 'name="confirm"' in page
    assert f"Coupe de France (2026) · n° {driver.number}" in page
    assert Registration.objects.get(pk=registration.pk).email == "elodie@example.org"
    done = client.post(path, {**erase, "confirm": "1"}, follow=True)
    page = done.content.decode()
    assert f"Pilote anonyme · n° {driver.number}" in page
    assert "elodie" not in page.lower() and f"n° {registration.pk}" not in page
    assert Driver.objects.get(pk=driver.pk).name == "Pilote anonyme"


def test_closing_check_in_shows_what_it_will_do_and_waits_for_a_second_tap(
    open_event, sign_up_confirmed, organiser
):
    """Irreversible taps ask first (issue 40, item 16)."""
    event = open_event(capacity=1)
    away, _ = sign_up_confirmed(event, "absent@example.org", first_name="Bruno")
    waiting, _ = sign_up_confirmed(event, "w@example.org", first_name="Nina")
    checkin.present_set(reg=waiting, actor=Actor(user=organiser))
    client, path = desk(organiser), path_of(event)
    asked = client.post(path, {"action": "close"})
    page = asked.content.decode()
    assert asked.status_code == 200 and "Close check-in?" in page
    assert "Bruno Lefèvre" in page and "Nina Lefèvre" in page and 'name="confirm"' in page
    assert Announcement.objects.get(event=event).check_in_closed_at is None
    assert Registration.objects.get(pk=away.pk).status == "accepted"
    client.post(path, {"action": "close", "confirm": "1"})
    assert Announcement.objects.get(event=event).check_in_closed_at is not None
    assert Registration.objects.get(pk=away.pk).status == "absent"
    assert Registration.objects.get(pk=waiting.pk).status == "accepted"


def test_a_mail_failed_for_good_says_so_on_its_row(open_event, sign_up_confirmed, organiser):
    """Issue 40, item 12: the desk says which mail failed, and what the server said."""
    event = open_event()
    registration, _ = sign_up_confirmed(event, "elodie@example.org")
    Mail.objects.filter(registration=registration, kind="accepted").update(
        state=Mail.State.FAILED, last_error="SMTPRecipientsRefused: mailbox unknown"
    )
    page = desk(organiser).get(path_of(event)).content.decode()
    assert "mail failed: SMTPRecipientsRefused: mailbox unknown" in page


def test_each_row_s_decision_starts_blank_and_check_in_is_offered_from_the_day_on(
    open_event, sign_up_confirmed, organiser
):
    event = open_event()
    sign_up_confirmed(event, "elodie@example.org")
    client = desk(organiser)
    page = client.get(path_of(event)).content.decode()
    select = re.search(r'<select name="status"[^>]*>(.*?)</select>', page, re.S)
    assert "required" in select.group(0)
    assert re.match(r'<option value="" selected>Choose…</option>', select.group(1))
    assert 'value="checkin"' in page  # the event's day has come (14 July)
    event.date = timezone.localdate() + datetime.timedelta(days=20)
    event.save()
    assert 'value="checkin"' not in client.get(path_of(event)).content.decode()


def test_the_csv_says_when_each_confirmed_in_local_time_to_the_minute(
    open_event, sign_up_confirmed, organiser
):
    event = open_event()
    registration, _ = sign_up_confirmed(event, "elodie@example.org")
    at = datetime.datetime(2026, 7, 1, 8, 5, 42, 123456, tzinfo=datetime.UTC)
    Registration.objects.filter(pk=registration.pk).update(confirmed_at=at)
    csv = desk(organiser).get(path_of(event) + "?_export=csv").content.decode()
    assert "2026-07-01 10:05" in csv  # Paris, summer time
    assert "08:05" not in csv and "123456" not in csv


def test_the_club_s_desk_keeps_the_door_and_is_shown_no_organiser_form(
    open_event, sign_up_confirmed, desk_member
):
    """DOMAIN.md "Clubs and who may do what": the desk keeps the day's counter (the list,
    check-in, a waiting registrant at the door, closing check-in), never registrations'
    decisions, messages, a person's data or the announcement (issue 41): those forms are not
    shown to it, and posted anyway they are refused (403), nothing changed."""
    event = open_event(capacity=1)
    accepted, _ = sign_up_confirmed(event, "a@example.org", first_name="Bruno")
    waiting, _ = sign_up_confirmed(event, "w@example.org", first_name="Nina")
    client, path = desk(desk_member), path_of(event)
    answer = client.get(path)
    page = answer.content.decode()
    assert answer.status_code == 200 and "a@example.org" in page
    assert 'value="checkin"' in page and 'value="present"' in page and 'value="close"' in page
    for organisers in ('name="status"', 'value="message"', 'value="link"', 'value="export"'):
        assert organisers not in page
    assert 'value="erase"' not in page
    assert reverse("signup-announcement", args=[event.slug]) not in page
    refused = {
        "decide": {"status": "refused", "reason": "non", "confirm": "1"},
        "message": {"to": "all", "subject": "Parking", "body": "Rue de la Gare."},
        "send": {},
        "link": {},
        "export": {},
        "erase": {"reason": "asked", "confirm": "1"},
    }
    for action, data in refused.items():
        answer = client.post(path, {"action": action, "id": accepted.pk, **data})
        assert answer.status_code == 403, action
    assert Registration.objects.get(pk=accepted.pk).status == "accepted"
    assert not Registration.objects.filter(erased_at__isnull=False).exists()
    client.post(path, {"action": "present", "id": waiting.pk})
    assert Registration.objects.get(pk=waiting.pk).present
    client.post(path, {"action": "checkin", "id": accepted.pk, "paid": "1"})
    checked_in = Registration.objects.get(pk=accepted.pk)
    assert checked_in.driver.entries.get(event=event).paid
    client.post(path, {"action": "close", "confirm": "1"})
    assert Announcement.objects.get(event=event).check_in_closed_at is not None


def test_a_row_named_by_anything_but_its_number_is_not_found(
    open_event, sign_up_confirmed, organiser
):
    """Issue 49, item 10: ``id=abc``, an empty id or ``1.5`` sent with a row's action was a
    500 (the query refused the value); it names no row, and the row itself is untouched."""
    event = open_event()
    registration, _ = sign_up_confirmed(event, "elodie@example.org")
    client = desk(organiser)
    failures = [
        (action, raw, status)
        for action in ("checkin", "export", "erase", "present", "link", "")
        for raw in ("abc", "", "1.5", "\x00", "9" * 5000, f" {registration.pk}")
        if (status := client.post(path_of(event), {"action": action, "id": raw}).status_code) != 404
    ]
    assert failures == []
    assert client.post(path_of(event), {"action": "present"}).status_code == 404  # no id
    registration.refresh_from_db()
    assert not registration.present
