"""The public name is the registrant's choice everywhere (DOMAIN.md "Corrections to 'Before
the day'"): a driver who chose "first name and initial" reads "Élodie L." on every public
page, public export and public API answer, and never "Lefèvre"; race control's pages keep
the full name.

The event: four drivers, each a player, a d20 draw, two race tables of two, results
confirmed; qualifying, allocation and results published; ratings computed. Élodie Lefèvre
is number 1 and chose the short name; the others are Martins.
"""

from __future__ import annotations

import csv
import datetime
import io
import json
import re

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from openpyxl import load_workbook

from qualifying.models import QualifyingSession
from qualifying.services import draw_record
from races.grid.services import allocation_run
from races.results.services import result_confirm, result_save
from standings.ratings.services import ratings_recompute
from tournament.access import Actor
from tournament.models import ApiToken, Driver, Player
from tournament.registration.services import entries_checkin, event_publish
from tournament.signup import checkin
from tournament.signup.models import Registration

pytestmark = pytest.mark.django_db

FULL = "Lefèvre"
SHORT = "Élodie L."


@pytest.fixture
def actor(organiser):
    return Actor(user=organiser)


def name_drivers(championship, *, elodie_choice: str) -> Driver:
    """Driver 1 is Élodie Lefèvre with ``elodie_choice``; the others Martins. Each a player."""
    for driver in Driver.objects.filter(championship=championship):
        first, last = (
            ("Élodie", FULL) if driver.number == 1 else (f"Pilote{driver.number}", "Martin")
        )
        driver.first_name, driver.last_name = first, last
        driver.player = Player.objects.create(first_name=first, last_name=last)
        driver.public_name_choice = elodie_choice if driver.number == 1 else "full"
        driver.save()
    return Driver.objects.get(championship=championship, number=1)


def race_and_publish(actor: Actor, event) -> None:
    """A d20 draw, two tables of two finished in grid order and confirmed, everything
    published, a session's page to read, ratings computed."""
    draw_record(actor=actor, event=event, rolls={n: [n] for n in range(1, 5)})
    for table in allocation_run(actor=actor, event=event, table_size=2):
        grid = list(table.slots.order_by("position").values_list("driver__number", flat=True))
        result_save(actor=actor, table=table, version=0, finish=grid, retired=[], dns=[],
                    submit=True)  # fmt: skip
        result_confirm(actor=actor, table=table)
    event_publish(actor=actor, event=event, results=True, allocation=True, qualifying=True)
    QualifyingSession.objects.create(
        event=event, number=1, roll=12, source="physical", weather="sun", track="dry"
    )
    ratings_recompute(game="formula_de", full=True)


@pytest.fixture
def raced(make_event, actor):
    event = make_event(n_drivers=4, qualifying_mode="draw")
    elodie = name_drivers(event.championship, elodie_choice="short")
    race_and_publish(actor, event)
    return event, elodie


def anonymous() -> Client:
    client = Client()
    client.cookies["django_language"] = "en"
    return client


def read(response) -> str:
    """The answer as text: JSON decoded (no \\u escapes), a workbook's cells, else the body."""
    kind = response.get("Content-Type", "")
    if kind.startswith("application/json"):
        return json.dumps(response.json(), ensure_ascii=False)
    if "spreadsheetml" in kind:
        book = load_workbook(io.BytesIO(response.content))
        return " ".join(
            str(cell) for sheet in book for row in sheet.iter_rows(values_only=True) for cell in row
        )
    return response.content.decode()


#: Every public page, export and API answer that names the event's drivers:
#: (name, address from the event and Élodie's driver).
PUBLIC = {
    "championship page": lambda e, d: reverse("championship", args=[e.championship.slug]),
    "championship CSV": lambda e, d: (
        reverse("championship", args=[e.championship.slug]) + "?_export=csv"
    ),
    "event page": lambda e, d: reverse("event", args=[e.slug]),
    "where do I sit": lambda e, d: reverse("where", args=[e.slug]) + "?q=elodie",
    "event results": lambda e, d: reverse("event-results", args=[e.slug]),
    "event results CSV": lambda e, d: reverse("event-results", args=[e.slug]) + "?_export=csv",
    "event results XLSX": lambda e, d: reverse("event-results", args=[e.slug]) + "?_export=xlsx",
    "standings": lambda e, d: reverse("standings", args=[e.championship.slug]),
    "standings CSV": lambda e, d: reverse("standings", args=[e.championship.slug]) + "?_export=csv",
    "team standings": lambda e, d: reverse("team-standings", args=[e.championship.slug]),
    "projector": lambda e, d: reverse("standings-projector", args=[e.championship.slug]),
    "driver page": lambda e, d: reverse("driver", args=[e.championship.slug, d.number]),
    "career": lambda e, d: reverse("career", args=[d.player_id]),
    "qualifying": lambda e, d: reverse("qualifying-general", args=[e.slug]),
    "qualifying CSV": lambda e, d: reverse("qualifying-general", args=[e.slug]) + "?_export=csv",
    "ratings": lambda e, d: reverse("ratings", args=["formula_de"]),
    "API drivers": lambda e, d: f"/api/v1/championships/{e.championship.slug}/drivers",
    "API standings": lambda e, d: f"/api/v1/championships/{e.championship.slug}/standings",
    "API entries": lambda e, d: f"/api/v1/events/{e.slug}/entries",
    "API results": lambda e, d: f"/api/v1/events/{e.slug}/results",
    "API qualifying": lambda e, d: f"/api/v1/events/{e.slug}/qualifying",
    "API tables": lambda e, d: f"/api/v1/events/{e.slug}/tables",
    "API player": lambda e, d: f"/api/v1/players/{d.player_id}",
    "API ratings": lambda e, d: "/api/v1/ratings?game=formula_de",
}


@pytest.mark.parametrize("page", sorted(PUBLIC))
def test_a_short_name_is_all_the_public_reads(raced, page):
    """DOMAIN.md "Corrections to 'Before the day'": every public page, export and API
    answer uses the driver's choice, "Élodie L.", and never the last name."""
    event, elodie = raced
    # A cookie saying "this is me" on the event page's own seat too.
    client = anonymous()
    client.cookies["paddock_me"] = f"{event.championship.slug}:{elodie.number}"
    response = client.get(PUBLIC[page](event, elodie))
    assert response.status_code == 200
    text = read(response)
    assert FULL not in text
    if page == "championship page":  # first and last names in their own columns
        assert re.search(r"<td\s*>Élodie</td>\s*<td\s*>L\.</td>", text)
    elif page == "championship CSV":
        rows = list(csv.reader(io.StringIO(text.lstrip("\ufeff"))))
        assert ["1", "Élodie", "L.", "Écurie Étoile"] in rows, rows
    elif page == "API drivers":
        (found,) = [d for d in json.loads(text) if d["number"] == elodie.number]
        assert (found["name"], found["first_name"], found["last_name"]) == (SHORT, "Élodie", "L.")
        assert found["player"]["name"] == SHORT
    else:
        assert SHORT in text


def test_the_last_name_finds_nobody_on_where_do_i_sit(raced):
    """A public search by the hidden last name would tie it to the short name."""
    event, _elodie = raced
    html = anonymous().get(reverse("where", args=[event.slug]), {"q": "lefevre"}).content.decode()
    assert SHORT not in html and "Nobody found" in html


def test_race_control_keeps_the_full_name(raced, organiser):
    """Race control's own pages keep the full name: the desk, the championship page's
    drivers as its organisers manage them, the drivers' names apart in the API."""
    event, _elodie = raced
    client = Client()
    client.force_login(organiser)
    desk = client.get(reverse("event-desk", args=[event.slug])).content.decode()
    assert "Élodie Lefèvre" in desk
    page = client.get(reverse("championship", args=[event.championship.slug])).content.decode()
    assert re.search(r"<td\s*>Élodie</td>\s*<td\s*>Lefèvre</td>", page)
    api = Client(HTTP_AUTHORIZATION=f"Bearer {ApiToken.issue(organiser)}")
    drivers = api.get(f"/api/v1/championships/{event.championship.slug}/drivers").json()
    (found,) = [d for d in drivers if d["number"] == 1]
    assert (found["last_name"], found["email"] is not None) == (FULL, True)


def test_a_full_name_stays_full(make_event, actor):
    event = make_event(n_drivers=4, qualifying_mode="draw")
    name_drivers(event.championship, elodie_choice="full")
    race_and_publish(actor, event)
    html = anonymous().get(reverse("standings", args=[event.championship.slug])).content.decode()
    assert "Élodie Lefèvre" in html and SHORT not in html


def test_the_choice_made_at_sign_up_holds_after_check_in(make_event, actor):
    """The driver takes the registrant's choice at check-in (DOMAIN.md "Corrections to
    'Before the day'"), and the public pages read it once the day is raced."""
    event = make_event(n_drivers=4, qualifying_mode="draw")
    name_drivers(event.championship, elodie_choice="full")
    # Élodie is new to the championship: the driver she becomes at the door takes the
    # place of the fixture's number 1.
    Driver.objects.filter(championship=event.championship, number=1).delete()
    registration = Registration.objects.create(
        event=event,
        first_name="Élodie",
        last_name=FULL,
        email="elodie@example.org",
        public_name="short",
        status=Registration.Status.ACCEPTED,
        confirmed_at=timezone.now() - datetime.timedelta(days=1),
    )
    entry = checkin.registration_check_in(reg=registration, actor=actor)
    elodie = entry.driver
    assert elodie.public_name_choice == "short"
    assert elodie.name == "Élodie Lefèvre" and elodie.public_name == SHORT
    entries_checkin(actor=actor, event=event, numbers=[2, 3, 4])  # the others came too
    numbers = sorted(event.entries.values_list("driver__number", flat=True))
    draw_record(actor=actor, event=event, rolls={n: [i + 1] for i, n in enumerate(numbers)})
    for table in allocation_run(actor=actor, event=event, table_size=2):
        grid = list(table.slots.order_by("position").values_list("driver__number", flat=True))
        result_save(actor=actor, table=table, version=0, finish=grid, retired=[], dns=[],
                    submit=True)  # fmt: skip
        result_confirm(actor=actor, table=table)
    event_publish(actor=actor, event=event, results=True)
    for url in (
        reverse("standings", args=[event.championship.slug]),
        f"/api/v1/championships/{event.championship.slug}/drivers",
    ):
        text = read(anonymous().get(url))
        assert SHORT in text and FULL not in text, url
