"""The fuzz tests share the security tests' event, built once per module and committed;
each test's writes are rolled back (``tests.security.conftest.world``). The forms' fuzz adds
an event of each other game (``fuzz_world``)."""

from __future__ import annotations

import datetime
from dataclasses import dataclass, fields
from typing import Any

import pytest
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from django.utils import translation

from races.games.rallyman import services as game_services
from races.grid.services import allocation_run
from races.models import RaceTable, Stage
from tests.security.conftest import World, world  # noqa: F401 - a fixture, shared on purpose
from tournament.access import Actor
from tournament.models import Driver, Entry, Event


@pytest.fixture(autouse=True)
def _keep_the_test_connection():
    """schemathesis calls the WSGI app directly, which fires Django's request signals; their
    ``close_old_connections`` would close the connection holding the test's transaction
    (PostgreSQL). Django's own test client disconnects them the same way."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@dataclass
class Games:
    """One event of each other game, on the security tests' championship."""

    rally: Event
    stage: Stage
    cannes_monaco: RaceTable
    racetrack: RaceTable

    def starters(self) -> list[int]:
        return list(self.stage.start_order)

    def grid(self, table: RaceTable) -> list[int]:
        return list(table.slots.order_by("position").values_list("driver__number", flat=True))


@dataclass
class FuzzWorld(World):
    """The security tests' event, and the other games' events (``games``)."""

    games: Games | None = None


def _game_event(base: World, slug: str, game: str, **options: Any) -> Event:
    """An event of ``game`` with drivers 1-4 of the world's championship, built as the
    games' tests build theirs (draw qualifying, teams not kept apart)."""
    event = Event.objects.create(
        championship=base.championship,
        slug=slug,
        name=f"Fuzz {game}",
        date=datetime.date(2026, 8, 15),
        circuit=base.event.circuit,
        game=game,
        separate_teams=False,
        qualifying_mode="draw",
        **options,
    )
    for driver in Driver.objects.filter(championship=base.championship, number__lte=4):
        Entry.objects.create(event=event, driver=driver)
    return event


def build_games(base: World) -> Games:
    organiser = Actor(user=base.users["organiser"])
    rally = _game_event(base, "fuzz-rally", "rallyman")
    stage = game_services.stage_create(
        actor=organiser, event=rally, number=1, route="C8 C3-J6-J5-C4 C5", service_after=False
    )
    stage = game_services.start_order_set(actor=organiser, stage=stage, order=[4, 3, 2, 1])
    tables = {}
    for game, options in (("cannes_monaco", {}), ("racetrack", {"crash_limit": 2})):
        event = _game_event(base, f"fuzz-{game.replace('_', '-')}", game, **options)
        (tables[game],) = allocation_run(actor=organiser, event=event, table_size=6)
    return Games(rally, stage, tables["cannes_monaco"], tables["racetrack"])


@pytest.fixture(scope="module")
def fuzz_world(world: World, django_db_blocker: Any) -> FuzzWorld:  # noqa: F811 - the fixture
    """The world and the other games' events, committed once for the module (the world's
    flush removes them)."""
    with django_db_blocker.unblock(), translation.override("en"):
        games = build_games(world)
    return FuzzWorld(**{f.name: getattr(world, f.name) for f in fields(World)}, games=games)
