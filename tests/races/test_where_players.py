"""Players on "Where do I sit?": the qualifying table in the morning, the race table once the
allocation is out, names in any order and in part, a registered driver not seated yet told
to ask race control, the player remembered on their phone and their table on the event page.
"""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from qualifying.seating.services import qualifying_tables_auto
from qualifying.services import run_record, session_create
from races.grid.services import allocation_run
from races.selectors import name_matches, where_do_i_sit
from tests.security.conftest import _run_data
from tournament.access import Actor
from tournament.models import Driver, Entry
from tournament.public.players import COOKIE
from tournament.registration.services import event_publish

pytestmark = pytest.mark.django_db

NAMES = {1: ("Manon", "Michel"), 2: ("Élodie", "Lefèvre"), 3: ("Jean-Luc", "Dupont"),
         4: ("Michel", "Durand"), 5: ("Inès", "Garçon")}  # fmt: skip


@pytest.fixture
def actor(organiser):
    return Actor(user=organiser)


@pytest.fixture
def event(make_event, actor):
    """Drivers 1–4 at two qualifying tables of two; driver 5 registered later, seated nowhere."""
    event = make_event(n_drivers=5)
    for number, (first, last) in NAMES.items():
        Driver.objects.filter(championship=event.championship, number=number).update(
            first_name=first, last_name=last
        )
    Entry.objects.filter(event=event, driver__number=5).delete()
    qualifying_tables_auto(actor=actor, event=event, table_size=2)
    Entry.objects.create(
        event=event, driver=Driver.objects.get(championship=event.championship, number=5)
    )
    return event


def phone() -> Client:
    client = Client()
    client.cookies["django_language"] = "en"
    return client


def seats(html: str) -> list[tuple[str, str]]:
    return re.findall(r'<p class="seat-table">(.*?)</p>\s*<p><strong>(.*?)</strong>', html, re.S)


def where(client: Client, event, query: str = "", **extra) -> str:
    response = client.get(reverse("where", args=[event.slug]), {"q": query} if query else {})
    assert response.status_code == 200, response.status_code
    return response.content.decode()


@pytest.mark.parametrize(
    ("query", "numbers"),
    [
        ("Manon Michel", [1]),
        ("Michel Manon", [1]),  # surname first
        ("mich man", [1]),  # in part, any order
        ("MICHEL", [1, 4]),  # a first name and a surname
        ("michel durand", [4]),
        ("luc dup", [3]),
        ("garcon ines", [5]),  # accents and cedilla ignored
        ("5", [5]),
        ("5 ines", [5]),
        ("michel 4", [4]),
        ("michel 9", []),
        ("zzz", []),
    ],
)
def test_names_are_found_in_any_order_and_in_part(event, query, numbers):
    assert sorted(s.driver.number for s in where_do_i_sit(event=event, query=query)) == numbers


def test_name_matches_needs_every_word():
    driver = Driver(number=12, first_name="Manon", last_name="Michel")
    assert name_matches(driver, ["manon", "michel"])
    assert not name_matches(driver, ["manon", "dupont"])
    assert not name_matches(driver, ["1"])  # a number is the whole number


def test_the_morning_gives_the_qualifying_table_once_published(event, actor):
    assert phone().get(reverse("where", args=[event.slug]), {"q": "manon"}).status_code == 404
    event_publish(actor=actor, event=event, qualifying_tables=True)
    html = where(phone(), event, "manon")
    assert seats(html) == [("Qualifying table 1", "1 Manon Michel")]
    assert "Qualifying: your table for the timed lap." in html


def test_a_registered_driver_not_seated_is_told_to_ask_race_control(event, actor):
    event_publish(actor=actor, event=event, qualifying_tables=True)
    html = where(phone(), event, "Garçon")
    assert seats(html) == [("Not seated yet", "5 Inès Garçon")]
    assert "You are registered but not seated yet: ask race control." in html
    assert "Nobody found" not in html


@pytest.mark.django_db(transaction=True)  # the public cache's counters move at commit
def test_later_the_race_table_once_the_allocation_is_published(event, actor):
    session = session_create(actor=actor, event=event, number=1, weather_roll=15)
    for number in range(1, 6):
        run_record(actor=actor, session=session, driver_number=number, data=_run_data(number))
    allocation_run(actor=actor, event=event, table_size=5)
    event_publish(actor=actor, event=event, qualifying_tables=True)
    # Allocated but not published yet: the qualifying table still.
    assert seats(where(phone(), event, "manon"))[0][0] == "Qualifying table 1"
    event_publish(actor=actor, event=event, allocation=True)
    html = where(phone(), event, "manon")
    assert seats(html) == [("Table 1", "1 Manon Michel")]
    assert "Grid position 1" in html


def test_the_phone_remembers_its_player(event, actor):
    event_publish(actor=actor, event=event, qualifying_tables=True)
    client = phone()
    chosen = client.get(reverse("where", args=[event.slug]), {"me": "4"})
    assert chosen.status_code == 302 and chosen["Location"] == reverse("where", args=[event.slug])
    assert client.cookies[COOKIE].value == f"{event.championship.slug}:4"
    assert client.cookies[COOKIE]["httponly"]

    html = where(client, event)
    assert "Your table" in html
    assert seats(html) == [("Qualifying table 2", "4 Michel Durand")]
    assert "This is me" not in html.split("</section>")[0]  # not offered for oneself

    event_page = client.get(reverse("event", args=[event.slug])).content.decode()
    assert "Your table" in event_page and "Qualifying table 2" in event_page
    assert "4 Michel Durand" in event_page

    # Another phone sees no "your table"; the cached page of one is never the other's.
    other = phone().get(reverse("event", args=[event.slug])).content.decode()
    assert "Your table" not in other

    forgotten = client.get(reverse("where", args=[event.slug]), {"me": ""})
    assert forgotten.status_code == 302
    assert client.cookies[COOKIE].value == ""
    assert "Your table" not in where(client, event)


@pytest.mark.parametrize("value", ["abc", "²", "-1", "1" * 20, "<script>"])
def test_a_bad_me_forgets_without_error(event, actor, value):
    event_publish(actor=actor, event=event, qualifying_tables=True)
    client = phone()
    response = client.get(reverse("where", args=[event.slug]), {"me": value})
    assert response.status_code == 302
    assert client.cookies[COOKIE].value == ""


def test_a_cookie_of_another_championship_shows_nothing(event, actor):
    event_publish(actor=actor, event=event, qualifying_tables=True)
    client = phone()
    client.cookies[COOKIE] = "autre-championnat:1"
    assert "Your table" not in where(client, event)
    client.cookies[COOKIE] = "not a value"
    assert "Your table" not in where(client, event)


def test_the_event_page_points_to_where_once_tables_are_published(event, actor):
    url = reverse("event", args=[event.slug])
    assert reverse("where", args=[event.slug]) not in phone().get(url).content.decode()
    event_publish(actor=actor, event=event, qualifying_tables=True)
    assert reverse("where", args=[event.slug]) in phone().get(url).content.decode()


@pytest.mark.django_db(transaction=True)  # the seating and its pieces kept between searches
def test_hostile_names_are_escaped_and_a_renamed_driver_found_at_once(event, actor):
    event_publish(actor=actor, event=event, qualifying_tables=True)
    hostile = '<script>alert("x")</script>'
    Driver.objects.filter(championship=event.championship, number=3).update(
        first_name=hostile, last_name='"><img src=x onerror=alert(1)>'
    )
    for query in ("script", "3", "img"):  # the same seat, rendered once, found thrice
        html = where(phone(), event, query)
        assert hostile not in html and "<img src=x" not in html
        assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in html
        assert "&quot;&gt;&lt;img src=x onerror=alert(1)&gt;" in html
    Driver.objects.filter(championship=event.championship, number=3).update(
        first_name="Anaïs", last_name="Vidal"
    )
    assert seats(where(phone(), event, "vidal")) == [("Qualifying table 2", "3 Anaïs Vidal")]
    assert "Nobody found" in where(phone(), event, "script")
