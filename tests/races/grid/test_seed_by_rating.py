"""A quick-rules event's tables seeded by rating (races/grid/services.py ``allocation_run``
with ``Event.seed_by_rating``), a club's choice: by default the d20 decides, as the rule.

rules/formule-de-quick-rules.fr.txt point 2: "La place sur la grille de départ est attribuée
[…] selon le lancer d'un dé 20 (le plus petit nombre est en pôle position)".
"""

from __future__ import annotations

import pytest

from qualifying.models import Run
from qualifying.services import draw_record, session_create
from races.grid.services import allocation_run
from races.models import GridSlot
from tournament.access import Actor
from tournament.models import Driver, Player, PlayerRating

pytestmark = pytest.mark.django_db

#: Rolls of drivers 1..6: driver 6 rolls lowest and takes pole, then 5, 4…
ROLLS = {1: [18], 2: [15], 3: [12], 4: [9], 5: [6], 6: [3]}
#: The best-rated are 1 and 2, then 3; 4, 5 and 6 are newcomers (the default, 0).
RATINGS = {1: 21.0, 2: 14.0, 3: 2.5}


@pytest.fixture
def actor(organiser):
    return Actor(user=organiser)


def rated(event) -> None:
    for driver in Driver.objects.filter(championship=event.championship):
        driver.player = Player.objects.create(first_name=driver.first_name, last_name="Rapide")
        driver.team = None
        driver.save()
        if driver.number in RATINGS:
            value = RATINGS[driver.number]
            PlayerRating.objects.create(
                player=driver.player, family="formula_de", mu=value + 6, sigma=2, rating=value
            )


def grids(event) -> list[list[int]]:
    slots = GridSlot.objects.filter(event=event).order_by("table__number", "position")
    tables: dict[int, list[int]] = {}
    for table, number in slots.values_list("table__number", "driver__number"):
        tables.setdefault(table, []).append(number)
    return list(tables.values())


def test_by_default_the_tables_follow_the_d20_whatever_the_ratings(make_event, actor):
    """Point 2: the lowest roll takes pole; table 1 takes the first three of the draw."""
    event = make_event(n_drivers=6, qualifying_mode="draw", laps=2)
    assert event.seed_by_rating is False  # the rule is the default
    rated(event)
    draw_record(actor=actor, event=event, rolls=ROLLS)
    allocation_run(actor=actor, event=event, table_size=3)
    assert grids(event) == [[6, 5, 4], [3, 2, 1]]


def test_seeded_by_rating_the_best_rated_race_together_and_the_d20_orders_each_grid(
    make_event, actor
):
    """The best-rated (1, 2, 3) at table 1, as §1-3-2 seats a competition's fastest; pole
    at each table to its lowest roll (3 there, 6 at table 2)."""
    event = make_event(n_drivers=6, qualifying_mode="draw", laps=2, seed_by_rating=True)
    rated(event)
    draw_record(actor=actor, event=event, rolls=ROLLS)
    allocation_run(actor=actor, event=event, table_size=3)
    assert grids(event) == [[3, 2, 1], [6, 5, 4]]
    # Each grid place keeps the driver's place in the draw (swaps re-sort by it).
    ranks = dict(GridSlot.objects.filter(event=event).values_list("driver__number", "rank"))
    assert ranks == {6: 1, 5: 2, 4: 3, 3: 4, 2: 5, 1: 6}


def test_a_driver_without_a_player_counts_as_a_newcomer(make_event, actor):
    event = make_event(n_drivers=4, qualifying_mode="draw", laps=2, seed_by_rating=True)
    rated(event)
    Driver.objects.filter(championship=event.championship, number=1).update(player=None)
    draw_record(actor=actor, event=event, rolls={1: [18], 2: [15], 3: [12], 4: [9]})
    allocation_run(actor=actor, event=event, table_size=2)
    # 2 (14.0) and 3 (2.5) above the unrated 1 and 4 (0): 1 rolled higher than 4.
    assert grids(event) == [[3, 2], [4, 1]]


def test_a_competition_ignores_the_option_its_qualifying_seats_the_tables(make_event, actor):
    """§1-3-2: a competition's tables follow the qualifying classification, rated or not."""
    event = make_event(n_drivers=4, seed_by_rating=True)
    rated(event)
    session = session_create(actor=actor, event=event, number=1, weather_roll=15)
    for throws, number in enumerate([4, 3, 2, 1], start=10):
        driver = Driver.objects.get(championship=event.championship, number=number)
        Run.objects.create(
            session=session, driver=driver, tyres="hard", throws=throws, stopwatch_cs=6000
        )
    allocation_run(actor=actor, event=event, table_size=2)
    assert grids(event) == [[4, 3], [2, 1]]
