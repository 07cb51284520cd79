"""The sign-up pages as a person meets them (issue 40, items 16 and low items): the form's
``autocomplete``, a full event's button that says "join the waiting list", the closing
date and the edit deadline, "Lieu" beside "Places"; a wrong confirmation link says so at
once; the registrant's cancellation asks first (DOMAIN.md "Corrections": irreversible
taps ask first)."""

from __future__ import annotations

import datetime
import re

import pytest
from django.test import Client
from django.utils import timezone

from tests.tournament.signup.conftest import OWN, last_token, sent_text
from tournament.access import Actor
from tournament.signup import services
from tournament.signup.models import Announcement, Mail, Registration

pytestmark = pytest.mark.django_db


def english() -> Client:
    client = Client()
    client.cookies["django_language"] = "en"
    return client


def own_link(registration: Registration) -> str:
    mail = Mail.objects.filter(registration=registration, kind="accepted").get()
    return f"/registrations/{OWN.search(sent_text(mail)).group(1)}/"


def test_the_phone_may_fill_in_names_and_address(open_event):
    html = english().get(f"/e/{open_event().slug}/signup/").content.decode()
    for name, autocomplete in (("first_name", "given-name"), ("last_name", "family-name"),
                               ("email", "email"), ("team", "organization")):  # fmt: skip
        tag = re.search(rf'<input[^>]*name="{name}"[^>]*>', html).group(0)
        assert f'autocomplete="{autocomplete}"' in tag, tag


def test_a_full_event_says_join_the_waiting_list(open_event, sign_up_confirmed, organiser):
    """When every seat is taken, or anyone waits (a newcomer waits behind them, DOMAIN.md
    "Corrections"), the button says what will happen."""
    event = open_event(capacity=1)
    url = f"/e/{event.slug}/signup/"
    assert b"Join the waiting list" not in english().get(url).content
    first, _ = sign_up_confirmed(event, "a@example.org")
    page = english().get(url).content
    assert b"Join the waiting list" in page and b">Sign up</button>" not in page
    services.registration_decide(
        registration=first, actor=Actor(user=organiser), status="waiting", reason="Guest"
    )
    assert b"Join the waiting list" in english().get(url).content  # a seat free, one waiting
    Announcement.objects.filter(event=event).update(approval="organiser")
    assert b"Join the waiting list" not in english().get(url).content  # race control decides


def test_the_closing_date_and_the_edit_deadline_are_shown(open_event):
    event = open_event()
    closes = timezone.make_aware(datetime.datetime(2026, 7, 10, 18, 0))
    until = timezone.make_aware(datetime.datetime(2026, 7, 12, 12, 0))
    Announcement.objects.filter(event=event).update(closes_at=closes, edit_until=until)
    text = " ".join(english().get(f"/e/{event.slug}/signup/").content.decode().split())
    assert "Registration closes</dt><dd>10 July 2026, 18:00" in text
    assert "Changes and cancellation until</dt><dd>12 July 2026, 12:00" in text


def test_the_venue_is_lieu_beside_places_in_french(open_event):
    """ "Place" (the venue) is "Lieu" in French, next to "Places" (the seats): a word of
    its own (``pgettext("venue", "Place")``), not the finishing place's."""
    event = open_event(capacity=12)
    Announcement.objects.filter(event=event).update(place="Gymnase Jean-Moulin")
    text = " ".join(Client().get(f"/e/{event.slug}/signup/").content.decode().split())
    assert "<dt>Lieu</dt><dd>Gymnase Jean-Moulin</dd>" in text
    assert "<dt>Places</dt><dd>12</dd>" in text


def test_a_wrong_confirmation_link_says_so_before_any_button(open_event):
    event = open_event()
    services.registration_sign_up(event=event, first_name="A", last_name="B", email="a@example.org")
    token = last_token("a@example.org")
    assert b'type="submit"' in english().get(f"/registrations/confirm/{token}/").content
    for wrong in ("not-a-token", token[:-2] + "xx"):
        page = english().get(f"/registrations/confirm/{wrong}/")
        assert page.status_code == 404 and b"unknown" in page.content
        assert b'type="submit"' not in page.content
    services.registration_confirm(token=token)
    used = english().get(f"/registrations/confirm/{token}/")
    assert used.status_code == 409 and b"already confirmed" in used.content
    assert b'type="submit"' not in used.content


def test_cancelling_ones_registration_asks_first(open_event, sign_up_confirmed):
    """DOMAIN.md "Corrections": a registrant's cancellation shows what it will do and waits
    for a second tap; the first tap changes nothing."""
    event = open_event(capacity=1)
    first, _ = sign_up_confirmed(event, "a@example.org")
    second, _ = sign_up_confirmed(event, "b@example.org", first_name="Bob")
    url = own_link(first)
    asked = english().post(url, {"action": "cancel"})
    text = asked.content.decode()
    assert asked.status_code == 200 and "Cancel your registration?" in text
    assert "You give up your seat at Grand Prix d&#x27;Été" in text
    assert 'name="confirmed" value="1"' in text and 'name="action" value="cancel"' in text
    assert Registration.objects.get(pk=first.pk).status == "accepted"
    assert not Mail.objects.filter(kind="cancelled").exists()
    done = english().post(url, {"action": "cancel", "confirmed": "1"}, follow=True)
    assert b"Cancelled." in done.content
    assert Registration.objects.get(pk=second.pk).status == "accepted"


def test_a_waiting_registrant_is_told_their_place_before_they_leave(open_event, sign_up_confirmed):
    event = open_event(capacity=1)
    sign_up_confirmed(event, "a@example.org")
    waiting, _ = sign_up_confirmed(event, "b@example.org", first_name="Bob")
    mail = Mail.objects.filter(registration=waiting, kind="waiting").get()
    url = f"/registrations/{OWN.search(sent_text(mail)).group(1)}/"
    asked = english().post(url, {"action": "cancel"}).content.decode()
    assert "You leave the waiting list of Grand Prix d&#x27;Été (you are n° 1)." in asked
