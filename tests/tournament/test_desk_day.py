"""The desk follows the day: entries and check-in first, a "where we are" checklist linking
to each step, messages in view after each action, a check-in counter that follows."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from qualifying.seating.services import qualifying_tables_auto
from qualifying.services import run_record, session_create
from races.grid.services import allocation_run
from races.models import SheetBatch
from races.results.services import result_confirm, result_save
from races.weather.services import race_weather_draw
from tests.security.conftest import _run_data
from tournament.access import Actor
from tournament.registration.services import entries_checkin, event_publish
from tournament.signup.broadcast import message_send
from tournament.signup.models import Announcement, Registration

pytestmark = pytest.mark.django_db


@pytest.fixture
def actor(organiser):
    return Actor(user=organiser)


@pytest.fixture
def desk(client, organiser):
    client.force_login(organiser)
    client.cookies["django_language"] = "en"
    return client


def steps(html: str) -> dict[str, str]:
    """Each step of the checklist: its key and whether it is done."""
    return dict(re.findall(r'<li id="step-([a-z_]+)" class="(done|todo)">', html))


def page(desk, event) -> str:
    return desk.get(reverse("event-desk", args=[event.slug])).content.decode()


def test_entries_and_check_in_come_first(desk, make_event):
    html = page(desk, make_event(n_drivers=2))
    order = [html.index(f'<section id="{name}">') for name in ("entries", "sessions", "tables")]
    assert order == sorted(order)
    assert html.index('id="steps"') < order[0]


def test_the_checklist_follows_the_day(desk, make_event, actor):
    event = make_event(n_drivers=4)
    assert steps(page(desk, event)) == {
        "entries": "done", "checkin": "todo", "qualifying_tables": "todo",
        "sessions": "todo", "runs": "todo", "qualifying_published": "todo", "tables": "todo",
        "sheets": "todo", "race_weather": "todo", "results": "todo", "published": "todo",
    }  # fmt: skip
    entries_checkin(actor=actor, event=event, numbers=[1, 2, 3, 4])
    qualifying_tables_auto(actor=actor, event=event, table_size=2)
    session = session_create(actor=actor, event=event, number=1, weather_roll=15)
    for number in range(1, 5):
        run_record(actor=actor, session=session, driver_number=number, data=_run_data(number))
    event_publish(actor=actor, event=event, qualifying=True)
    tables = allocation_run(actor=actor, event=event, table_size=4)
    event_publish(actor=actor, event=event, allocation=True)
    race_weather_draw(actor=actor, event=event, roll=15)
    SheetBatch.objects.create(event=event, kind="race", status="done", pdf=b"%PDF-1.4")
    html = page(desk, event)
    done = steps(html)
    assert all(done[key] == "done" for key in list(done)[:-2]), done
    assert (done["results"], done["published"]) == ("todo", "todo")
    assert "0 / 1" in html  # results confirmed of the race tables
    grid = list(tables[0].slots.order_by("position").values_list("driver__number", flat=True))
    result_save(actor=actor, table=tables[0], version=0, finish=grid, retired=[], dns=[],
                submit=True)  # fmt: skip
    result_confirm(actor=actor, table=tables[0])
    event_publish(actor=actor, event=event, results=True)
    assert set(steps(page(desk, event)).values()) == {"done"}


def test_each_step_links_to_where_it_is_done(desk, make_event):
    event = make_event(n_drivers=1)
    html = page(desk, event)
    links = dict(re.findall(r'<li id="step-([a-z_]+)"[^>]*><a href="([^"]+)"', html))
    assert links["entries"] == reverse("event-desk", args=[event.slug]) + "#entries"
    assert links["tables"] == reverse("allocation", args=[event.slug])
    assert links["results"] == reverse("results-desk", args=[event.slug])


def test_a_check_in_updates_the_counter(desk, make_event):
    event = make_event(n_drivers=3)
    assert "0 checked in of 3" in page(desk, event)
    response = desk.post(
        reverse("desk-checkin", args=[event.slug, 2]), {"checked_in": "1"}, HTTP_HX_REQUEST="true"
    )
    html = response.content.decode()
    assert 'class="checkin-state status-ok"' in html
    counter = re.search(r'<small class="muted" id="checkin-count" hx-swap-oob="true">(.*?)<', html)
    assert counter and counter.group(1) == "1 checked in of 3"


def test_after_an_action_the_message_is_in_view(desk, make_event):
    event = make_event(n_drivers=3)
    response = desk.post(
        reverse("desk-register", args=[event.slug]), {"numbers": "1 2", "action": "checkin"},
        follow=True,
    )  # fmt: skip
    html = response.content.decode()
    assert '<div class="messages" id="messages">' in html
    assert "2 drivers checked in." in html
    assert "2 checked in of 3" in html


def test_the_qualifying_tables_are_published_from_the_desk(desk, make_event):
    event = make_event(n_drivers=2)
    desk.post(reverse("desk-publish", args=[event.slug]), {"qualifying_tables": "1"})
    event.refresh_from_db()
    assert event.published_qualifying_tables
    assert not (event.published_allocation or event.published_results)
    assert 'name="qualifying_tables" value="1" role="switch" checked' in page(desk, event)


def test_a_new_event_shows_its_organiser_the_sign_up_as_a_next_step(desk, make_event):
    """Issue 41: a person who has never seen Paddock finds the next step. A new event,
    nobody registered: its first step is the announcement (its page linked)."""
    event = make_event(n_drivers=0)
    html = page(desk, event)
    assert list(steps(html).items())[0] == ("signup_announced", "todo")
    announcement = reverse("signup-announcement", args=[event.slug])
    assert f'<li id="step-signup_announced" class="todo"><a href="{announcement}"' in html
    assert "announce the event" in html


def test_an_announced_event_starts_with_the_sign_up_steps(desk, make_event, actor):
    """DOMAIN.md "Before the day": sign-up comes before the day's first step. The
    checklist of an event with an announcement starts with it: announced, opened, the list
    of registrants (final once sign-up closes); the messages sent to them are an optional
    act, not a step (DOMAIN.md "Every game's evening")."""
    event = make_event(n_drivers=2)
    # Drivers registered by race control: sign-up is not asked for.
    assert not any(key.startswith("signup") for key in steps(page(desk, event)))
    now = timezone.now()
    announcement = Announcement.objects.create(
        event=event, capacity=10, opens_at=now + timedelta(days=1),
        closes_at=now + timedelta(days=9),
    )  # fmt: skip
    html = page(desk, event)
    done = steps(html)
    assert list(done)[:4] == ["signup_announced", "signup_open", "signup_list", "entries"]
    assert [done[key] for key in list(done)[:3]] == ["done", "todo", "todo"]
    assert "opens on" in html
    links = dict(re.findall(r'<li id="step-([a-z_]+)"[^>]*><a href="([^"]+)"', html))
    assert links["signup_announced"] == reverse("signup-announcement", args=[event.slug])
    assert links["signup_list"] == reverse("signup-desk", args=[event.slug])
    Registration.objects.create(
        event=event, first_name="Élodie", last_name="Lefèvre", email="e@example.org",
        status="accepted", confirmed_at=now,
    )  # fmt: skip
    announcement.opens_at = now - timedelta(days=9)
    announcement.closes_at = now - timedelta(days=1)
    announcement.save()
    message_send(event=event, actor=actor, to="all", subject="Horaires", body="9 h 30.")
    html = page(desk, event)
    assert [steps(html)[key] for key in list(steps(html))[:3]] == ["done"] * 3
    assert "accepted: 1 / 10 · waiting: 0" in html
    assert "signup_messages" not in steps(html)
