"""A whole event for the security tests, built once per module, and who calls.

The event ``gp`` of championship ``cf`` (unpublished) has a qualifying session, two
qualifying tables of four with every run entered, two race tables of four, a submitted
result on race table 1 (version 1), a stand and the sheets batch. People: the organiser
(organiser role, not a superuser), the referee account of table 1 (qualifying and race),
the referee account of table 2, an outsider (organiser of another championship) and
anonymous visitors; each has an API token where it makes sense.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.conf import settings
from django.test import Client, override_settings
from django.utils import translation

from qualifying.forms import RunForm
from qualifying.models import QualifyingSession, QualifyingTable
from qualifying.seating.services import qualifying_tables_auto
from qualifying.services import run_record, session_create
from races.grid.services import allocation_run
from races.grid.start import stands_set
from races.models import RaceTable, SheetBatch
from races.results.services import result_save
from races.weather.services import race_weather_draw
from tests.template_db import empty_database
from tournament.access import Actor
from tournament.models import ApiToken, Championship, Circuit, Driver, Entry, Event, Team

#: A well-formed link nobody was given.
UNKNOWN_TOKEN = "Zm9yZ2VkLXRva2VuLXRoYXQtbm9ib2R5LWdvdA"


@dataclass
class World:
    championship: Championship
    other_championship: Championship
    event: Event
    session: QualifyingSession
    qtables: list[QualifyingTable]
    rtables: list[RaceTable]
    users: dict[str, Any]
    api_tokens: dict[str, str] = field(default_factory=dict)

    def qdriver(self, index: int = 0) -> int:
        """A driver number seated at qualifying table 1."""
        return sorted(d.number for d in self.qtables[0].drivers.all())[index]

    def rdriver(self, index: int = 0) -> int:
        """A driver number on race table 1's grid."""
        return list(
            self.rtables[0].slots.order_by("position").values_list("driver__number", flat=True)
        )[index]


def _run_data(throws: int) -> dict[str, Any]:
    form = RunForm(data={"tyres": "hard", "throws": str(throws), "stopwatch": "0:50.00"})
    assert form.is_valid(), form.errors
    return form.cleaned_data


def build_world(django_user_model: Any) -> World:
    users = {
        "organiser": django_user_model.objects.create_user("orga", password="orga-pass-1"),
        "ref1": django_user_model.objects.create_user("arbitre1", password="ref-pass-1"),
        "ref2": django_user_model.objects.create_user("arbitre2", password="ref-pass-2"),
        "outsider": django_user_model.objects.create_user("curieux", password="out-pass-1"),
        "admin": django_user_model.objects.create_superuser("root", password="root-pass-1"),
    }
    championship = Championship.objects.create(
        slug="cf", name="Coupe de France", season="2026", points_scale=[10, 8, 6]
    )
    championship.organisers.add(users["organiser"])
    other = Championship.objects.create(slug="autre", name="Autre coupe", season="2026")
    other.organisers.add(users["outsider"])
    circuit = Circuit.objects.create(
        slug="monza",
        name="Monza",
        rain_from=1,
        rain_to=4,
        variable_from=5,
        variable_to=8,
        sun_from=9,
        sun_to=20,
    )
    event = Event.objects.create(
        championship=championship,
        slug="gp",
        name="Grand Prix d'Été",
        date=datetime.date(2026, 7, 14),
        circuit=circuit,
        use_configurations=True,
    )
    team = Team.objects.create(championship=championship, name="Écurie Étoile")
    for number in range(1, 9):
        driver = Driver.objects.create(
            championship=championship,
            number=number,
            first_name=f"Pilote{number}",
            last_name="Lefèvre",
            team=team if number % 2 else None,
        )
        Entry.objects.create(event=event, driver=driver)
    organiser = Actor(user=users["organiser"])
    session = session_create(actor=organiser, event=event, number=1, weather_roll=12)
    qtables = qualifying_tables_auto(actor=organiser, event=event, table_size=4)
    for number in range(1, 9):
        run_record(actor=organiser, session=session, driver_number=number, data=_run_data(number))
    rtables = allocation_run(actor=organiser, event=event, table_size=4)
    # The overall pole's draw once qualifying is closed (§2-0-1), before any result: sun.
    race_weather_draw(actor=organiser, event=event, roll=12)
    for index, ref in ((0, "ref1"), (1, "ref2")):
        for table in (qtables[index], rtables[index]):
            table.referee = users[ref]
            table.save(update_fields=["referee"])
    first = rtables[0]
    grid = list(first.slots.order_by("position").values_list("driver__number", flat=True))
    link = Actor(table=first)
    stands_set(actor=link, table=first, stands={grid[0]: 1})
    result_save(
        actor=link,
        table=first,
        version=0,
        finish=grid[:3],
        retired=[{"driver": grid[3], "cause": "engine", "lap": 2}],
        dns=[],
        submit=True,
    )
    for kind in SheetBatch.Kind.values:
        SheetBatch.objects.create(
            event=event, kind=kind, status=SheetBatch.Status.DONE, pdf=b"%PDF-1.4\n%%EOF\n"
        )
    world = World(
        championship=championship,
        other_championship=other,
        event=event,
        session=session,
        qtables=list(QualifyingTable.objects.filter(event=event).order_by("number")),
        rtables=list(RaceTable.objects.filter(event=event).order_by("number")),
        users=users,
    )
    for name in ("organiser", "ref1", "ref2", "outsider"):
        world.api_tokens[name] = ApiToken.issue(users[name])
    return world


@pytest.fixture(scope="module")
def world(django_db_setup: None, django_db_blocker: Any) -> Any:
    """The event, committed once for the module; each test's writes are rolled back."""
    from django.contrib.auth import get_user_model

    # The tests' password hasher (tests/conftest.py), so that logins with these work.
    fast = override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"])
    with django_db_blocker.unblock(), fast, translation.override("en"):
        built = build_world(get_user_model())
        open_sessions(built)
        try:
            yield built
        finally:
            SESSIONS.clear()
            empty_database()


#: A session of each of the world's people, committed with the module's world: a client
#: carries it instead of logging in again in every test (a login writes a session and runs
#: every login signal: a quarter of some tests' time). Emptied when the world is flushed.
SESSIONS: dict[int, str] = {}


def open_sessions(world: World) -> None:
    for user in world.users.values():
        client = Client()
        client.force_login(user)
        SESSIONS[user.pk] = client.cookies[settings.SESSION_COOKIE_NAME].value


def english(client: Client) -> Client:
    client.cookies["django_language"] = "en"
    return client


def logged_in(user: Any, **kwargs: Any) -> Client:
    client = Client(**kwargs)
    if user is not None and user.pk in SESSIONS:
        client.cookies[settings.SESSION_COOKIE_NAME] = SESSIONS[user.pk]
    elif user is not None:
        client.force_login(user)
    return english(client)
