"""Seasons played through the services race control uses: drivers with their players, a d20
draw (quick rules: the grid is plain), tables allocated, results confirmed and published."""

from __future__ import annotations

import datetime

import pytest

from qualifying.services import draw_record
from races.grid.services import allocation_run
from races.models import RaceTable
from races.results.services import result_confirm, result_reopen, result_save
from tournament.access import Actor
from tournament.models import Championship, Circuit, Driver, Entry, Event, Player


@pytest.fixture
def actor(organiser):
    return Actor(user=organiser)


class Season:
    """A championship whose drivers 1..n are players; events of one table each (or more)."""

    def __init__(self, actor: Actor, slug: str, drivers: int, players: list[Player] | None = None):
        self.actor = actor
        self.championship = Championship.objects.create(slug=slug, name=slug.upper(), season="2026")
        self.championship.organisers.add(actor.user)
        self.circuit = Circuit.objects.get_or_create(
            slug="monza",
            defaults={"name": "Monza", "rain_from": 1, "rain_to": 4, "variable_from": 5,
                      "variable_to": 8, "sun_from": 9, "sun_to": 20},
        )[0]  # fmt: skip
        self.drivers = {}
        for number in range(1, drivers + 1):
            player = (
                players[number - 1]
                if players
                else Player.objects.create(first_name=f"Joueur{number}", last_name=slug.upper())
            )
            self.drivers[number] = Driver.objects.create(
                championship=self.championship,
                number=number,
                first_name=player.first_name,
                last_name=player.last_name,
                player=player,
            )
        self.events: list[Event] = []

    def event(self, *, day: int, table_size: int, published: bool = True) -> Event:
        """An event on March ``day``; every driver drawn in number order (table 1 holds the
        lowest numbers)."""
        event = Event.objects.create(
            championship=self.championship,
            slug=f"{self.championship.slug}-{len(self.events) + 1}",
            name=f"GP {len(self.events) + 1}",
            date=datetime.date(2026, 3, day),
            circuit=self.circuit,
            qualifying_mode="draw",
            separate_teams=False,
            published_results=published,
        )
        for driver in self.drivers.values():
            Entry.objects.create(event=event, driver=driver)
        draw_record(actor=self.actor, event=event, rolls={n: [n] for n in self.drivers})
        allocation_run(actor=self.actor, event=event, table_size=table_size)
        self.events.append(event)
        return event

    def confirm(self, event: Event, number: int, finish, retired=(), dns=()) -> None:
        table = RaceTable.objects.get(event=event, number=number)
        version = table.result.version if hasattr(table, "result") else 0
        result_save(actor=self.actor, table=table, version=version, submit=True,
                    finish=list(finish), retired=list(retired), dns=list(dns))  # fmt: skip
        result_confirm(actor=self.actor, table=table)

    def reopen(self, event: Event, number: int) -> None:
        table = RaceTable.objects.get(event=event, number=number)
        result_reopen(actor=self.actor, table=table, reason="erreur de saisie")

    def player(self, number: int) -> Player:
        return self.drivers[number].player


@pytest.fixture
def season(actor):
    def build(slug: str = "s1", drivers: int = 4, players=None) -> Season:
        return Season(actor, slug, drivers, players)

    return build
