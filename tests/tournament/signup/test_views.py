"""Sign-up's pages: the public form (honeypot, same answer for a known address), the
confirmation by button, the registrant's own page; race control's list and announcement
(organiser, another user, anyone)."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.tournament.signup.conftest import OWN, last_token, sent_text
from tournament.signup.models import Announcement, Mail, Registration

pytestmark = pytest.mark.django_db

FORM = {
    "first_name": "Élodie",
    "last_name": "<script>alert(1)</script>",
    "email": "elodie@example.org",
    "team": "",
    "public_name": "short",
    "consent": "on",
    "website": "",
}


def english() -> Client:
    client = Client()
    client.cookies["django_language"] = "en"
    return client


def test_sign_up_page_then_confirm_by_button_then_own_page(open_event):
    event = open_event(capacity=1)
    client = english()
    page = client.get(f"/e/{event.slug}/signup/")
    assert page.status_code == 200 and b'name="website"' in page.content
    sent = client.post(f"/e/{event.slug}/signup/", FORM)
    assert sent.status_code == 200 and b"Check your mail" in sent.content
    again = client.post(f"/e/{event.slug}/signup/", FORM)
    assert again.status_code == 200 and b"Check your mail" in again.content
    token = last_token("elodie@example.org")
    shown = client.get(f"/registrations/confirm/{token}/")
    assert shown.status_code == 200
    assert (
        Registration.objects.get().status == "unconfirmed"
    )  # a GET (mail scanner) confirms nothing
    confirmed = client.post(f"/registrations/confirm/{token}/", follow=True)
    assert b"You are in." in confirmed.content
    assert b"<script>alert(1)</script>" not in confirmed.content  # escaped
    assert b"elodie@example.org" not in confirmed.content
    own = OWN.search(sent_text(Mail.objects.filter(kind="accepted").get())).group(1)
    assert client.get(f"/registrations/{own}/").status_code == 200
    asked = client.post(f"/registrations/{own}/", {"action": "cancel"})
    assert (
        b"Cancel your registration?" in asked.content and b"You give up your seat" in asked.content
    )
    assert Registration.objects.get().status == "accepted"  # one tap asks, it does nothing
    cancelled = client.post(
        f"/registrations/{own}/", {"action": "cancel", "confirmed": "1"}, follow=True
    )
    assert b"Cancelled." in cancelled.content
    assert client.get("/registrations/nothing-here/").status_code == 404


def test_honeypot_answers_the_same_and_saves_nothing(open_event):
    event = open_event()
    answer = english().post(f"/e/{event.slug}/signup/", {**FORM, "website": "http://spam"})
    assert b"Check your mail" in answer.content
    assert not Registration.objects.exists()


def test_closed_registration_says_so_in_french(open_event):
    import datetime

    from django.utils import timezone

    event = open_event()
    Announcement.objects.filter(event=event).update(
        closes_at=timezone.now() - datetime.timedelta(hours=1)
    )
    page = Client().get(f"/e/{event.slug}/signup/")
    assert "Les inscriptions ont fermé le".encode() in page.content
    assert b'name="email"' not in page.content
    Announcement.objects.filter(event=event).update(opens_at=None)  # nothing announced yet
    assert Client().get(f"/e/{event.slug}/signup/").status_code == 404


def test_desk_list_for_organisers_only_with_export(
    open_event, sign_up_confirmed, organiser, django_user_model
):
    event = open_event(capacity=1)
    sign_up_confirmed(event, "a@example.org", first_name="=HYPERLINK(1)")
    sign_up_confirmed(event, "b@example.org")
    path = f"/e/{event.slug}/desk/registrations/"
    assert Client().get(path).status_code in (302, 403)
    other = Client()
    other.force_login(django_user_model.objects.create_user("x", password="long-password-1"))
    assert other.get(path).status_code == 403
    client = english()
    client.force_login(organiser)
    page = client.get(path)
    assert page.status_code == 200 and b"a@example.org" in page.content
    csv = client.get(path + "?_export=csv")
    assert b"'=HYPERLINK(1)" in csv.content
    waiting = Registration.objects.get(email="b@example.org")
    refusal = {"action": "decide", "id": waiting.pk, "status": "refused", "reason": "<b>Full</b>"}
    asked = client.post(path, {**refusal, "reason": " "})
    assert asked.status_code == 302  # no reason, no refusal
    asked = client.post(path, refusal)  # a refusal mails the person: asked again first
    assert asked.status_code == 200 and b'name="confirm"' in asked.content
    assert b"&lt;b&gt;Full&lt;/b&gt;" in asked.content
    assert Registration.objects.get(pk=waiting.pk).status == "waiting"
    assert not Mail.objects.filter(kind="refused").exists()
    client.post(path, {**refusal, "confirm": "1"})
    assert Registration.objects.get(pk=waiting.pk).status == "refused"
    assert Mail.objects.filter(kind="refused").count() == 1
    accepted = Registration.objects.get(email="a@example.org")
    client.post(path, {"action": "checkin", "id": accepted.pk, "paid": "1"})
    assert Registration.objects.get(pk=accepted.pk).driver.entries.get(event=event).paid
    handed = client.post(path, {"action": "link", "id": waiting.pk})
    assert b"<svg" in handed.content and b"/registrations/" in handed.content


def test_announcement_page_saves_the_schedule(make_event, organiser):
    event = make_event(n_drivers=0)
    client = english()
    client.force_login(organiser)
    answer = client.post(
        f"/e/{event.slug}/desk/announcement/",
        {
            "place": "Gymnase",
            "starts_at": "09:00",
            "fee": "5 €",
            "capacity": "24",
            "opens_at": "2026-05-01T10:00",
            "closes_at": "",
            "edit_until": "",
            "approval": "first_come",
            "schedule_lines": "09:00 Accueil\n10h00 Essais",
        },
    )
    assert answer.status_code == 302, answer.content[-2000:]
    saved = Announcement.objects.get(event=event)
    assert saved.schedule == [
        {"time": "09:00", "label": "Accueil"},
        {"time": "10:00", "label": "Essais"},
    ]
    assert saved.capacity == 24


def test_calendars_read_back_with_icalendar(open_event, make_event):
    import icalendar

    event = open_event()
    Announcement.objects.filter(event=event).update(
        place="Salle Marcel-Pagnol",
        starts_at="09:30",
        schedule=[{"time": "09:30", "label": "Accueil"}],
    )
    import datetime

    from django.utils import timezone

    from tournament.models import Event

    Event.objects.filter(pk=event.pk).update(date=timezone.localdate() + datetime.timedelta(30))
    make_event(n_drivers=0, slug="secret")  # neither announced nor published: in no calendar
    one = Client().get(f"/e/{event.slug}/event.ics")
    assert one["Content-Type"].startswith("text/calendar")
    [vevent] = icalendar.Calendar.from_ical(one.content).walk("VEVENT")
    assert str(vevent["summary"]) == "Grand Prix d'Été"
    assert str(vevent["location"]) == "Salle Marcel-Pagnol"
    assert vevent.decoded("dtstart").hour == 9 and "09:30 Accueil" in str(vevent["description"])
    assert Client().get("/e/secret/event.ics").status_code == 404
    everything = icalendar.Calendar.from_ical(Client().get("/events.ics").content)
    assert [str(e["uid"]) for e in everything.walk("VEVENT")] == [f"{event.slug}@paddock"]


def test_home_lists_upcoming_events_with_their_registration_state(open_event, sign_up_confirmed):
    import datetime

    from django.utils import timezone

    from tournament.models import Event

    event = open_event(capacity=1)
    Event.objects.filter(pk=event.pk).update(date=timezone.localdate() + datetime.timedelta(9))
    from django.core.cache import cache

    assert "registration open" in english().get("/").content.decode()
    # On PostgreSQL the page's change counters move at commit, which a test never reaches:
    # the cache is emptied instead (its keys are tested in tests/tournament/public).
    sign_up_confirmed(event, "a@example.org")
    cache.clear()
    assert "full: waiting list" in english().get("/").content.decode()
    Announcement.objects.filter(event=event).update(
        opens_at=timezone.now() + datetime.timedelta(days=2)
    )
    cache.clear()
    assert "registration opens on" in english().get("/").content.decode()


def test_before_the_announcement_the_desk_reads_the_sign_up_page_and_the_entrants(
    open_event, sign_up_confirmed, desk_member
):
    """Nothing announced is race control's only (404 to anyone else), and the club's desk is
    race control: it reads the event as its organisers do (DOMAIN.md "Clubs and who may do
    what"), its sign-up page and psych sheet too, as the API answers it."""
    event = open_event()
    sign_up_confirmed(event, "ana@example.org", first_name="Ana")
    Announcement.objects.filter(event=event).update(opens_at=None)
    desk = english()
    desk.force_login(desk_member)
    for path in (f"/e/{event.slug}/signup/", f"/e/{event.slug}/entrants/"):
        assert english().get(path).status_code == 404, path
        assert desk.get(path).status_code == 200, path
    assert b"Ana Lef" in desk.get(f"/e/{event.slug}/entrants/").content
