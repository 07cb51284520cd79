"""Two seasons of one player, through the services race control uses.

- 2026 (``cf``): a competition at Monza, four drivers, one sunny session; Élodie (number 1)
  qualifies first and wins table 1 of two. Qualifying and results published.
- 2027 (``cf-2027``): a quick-rules event (d20 draw), Élodie number 7, third at her table;
  published. A second quick-rules event, raced and confirmed but not published.

Her rating after each table is written directly (the ratings' computation is tested where
it lives): 4.0 after 2026, 9.4 after the 2027 opener, 12.0 after the unpublished one.
"""

from __future__ import annotations

import datetime
from types import SimpleNamespace

import pytest

from qualifying.models import Run
from qualifying.services import draw_record, session_create
from races.grid.services import allocation_run
from races.results.services import result_confirm, result_save
from races.weather.services import race_weather_draw
from tournament.access import Actor
from tournament.models import (
    Championship,
    Driver,
    Entry,
    Event,
    Player,
    PlayerRating,
    RatingPoint,
)
from tournament.registration.services import event_publish


def race(actor: Actor, event: Event, size: int, finish_of=None) -> None:
    """Allocate, draw the race weather where the event draws one (§2-0-1: before any
    result), then every table finishes in grid order (or ``finish_of(grid)``), confirmed."""
    tables = allocation_run(actor=actor, event=event, table_size=size)
    if event.draws_race_weather:
        race_weather_draw(actor=actor, event=event, roll=15)
    for table in tables:
        grid = list(table.slots.order_by("position").values_list("driver__number", flat=True))
        finish = finish_of(grid) if finish_of else grid
        result_save(actor=actor, table=table, version=0, finish=finish, retired=[], dns=[],
                    submit=True)  # fmt: skip
        result_confirm(actor=actor, table=table)


@pytest.fixture
def seasons(make_event, organiser, circuit):
    actor = Actor(user=organiser)
    elodie = Player.objects.create(first_name="Élodie", last_name="Lefèvre", licence="FD-0042")
    # 2026: a competition.
    gp = make_event(n_drivers=4)
    Driver.objects.filter(championship=gp.championship, number=1).update(
        first_name="Élodie", player=elodie
    )
    session = session_create(actor=actor, event=gp, number=1, weather_roll=15)
    for throws, number in enumerate([1, 2, 3, 4], start=10):
        Run.objects.create(
            session=session,
            driver=Driver.objects.get(championship=gp.championship, number=number),
            tyres="hard",
            throws=throws,
            stopwatch_cs=6000 + number,
        )
    race(actor, gp, 2)
    event_publish(actor=actor, event=gp, qualifying=True, results=True, allocation=True)
    # 2027: the quick rules.
    next_season = Championship.objects.create(
        slug="cf-2027", name="Coupe de France", season="2027", points_scale=[10, 8, 6]
    )
    next_season.organisers.add(organiser)
    for number in (5, 6, 7, 8):
        Driver.objects.create(
            championship=next_season,
            number=number,
            first_name="Élodie" if number == 7 else f"Pilote{number}",
            last_name="Lefèvre",
            player=elodie if number == 7 else None,
        )
    opener, later = (
        Event.objects.create(
            championship=next_season,
            slug=slug,
            name=name,
            date=date,
            circuit=circuit,
            qualifying_mode="draw",
            laps=2,
        )
        for slug, name, date in (
            ("opener-2027", "Ouverture 2027", datetime.date(2027, 3, 14)),
            ("later-2027", "Manche secrète", datetime.date(2027, 4, 11)),
        )
    )
    for event in (opener, later):
        for driver in Driver.objects.filter(championship=next_season):
            Entry.objects.create(event=event, driver=driver)
        draw_record(actor=actor, event=event, rolls={5: [1], 6: [2], 7: [3], 8: [4]})
        race(actor, event, 4)
    event_publish(actor=actor, event=opener, qualifying=True, results=True, allocation=True)
    for seq, (event, table, place, mu, sigma) in enumerate(
        [(gp, 1, 1, 26.5, 7.5), (opener, 1, 3, 24.1, 4.9), (later, 1, 3, 24.0, 4.0)], start=1
    ):
        RatingPoint.objects.create(
            player=elodie, family="formula_de", seq=seq, event=event, table_number=table,
            place=place, mu=mu, sigma=sigma, rating=mu - 3 * sigma,
        )  # fmt: skip
    PlayerRating.objects.create(
        player=elodie, family="formula_de", mu=24.0, sigma=4.0, rating=12.0, races=3
    )
    return SimpleNamespace(
        player=elodie, gp=gp, opener=opener, later=later, first=gp.championship, second=next_season
    )
