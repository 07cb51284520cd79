"""Each race table's favourites (tournament/players/odds.py): openskill's Plackett–Luce
``predict_win`` on the players' current ratings, unrated players at the model's defaults."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qualifying.services import draw_record
from races.grid.services import allocation_run
from tournament.access import Actor
from tournament.models import Driver, Player, PlayerRating
from tournament.players.odds import (
    DEFAULT,
    DEFAULT_RATING,
    Skill,
    event_favourites,
    win_probabilities,
)

skills = st.builds(
    Skill,
    mu=st.floats(min_value=0, max_value=50, allow_nan=False),
    sigma=st.floats(min_value=0.5, max_value=10, allow_nan=False),
)


def test_equal_players_have_equal_chances() -> None:
    assert win_probabilities([DEFAULT] * 4) == pytest.approx([0.25] * 4)


def test_an_unrated_player_counts_at_the_model_s_defaults() -> None:
    assert win_probabilities([None, Skill(30, 3)]) == win_probabilities([DEFAULT, Skill(30, 3)])
    assert Skill(25.0, 25 / 3) == DEFAULT and DEFAULT_RATING == 0.0


def test_the_better_player_is_the_favourite() -> None:
    strong, weak = win_probabilities([Skill(32, 2), Skill(20, 2)])
    assert strong > 0.5 > weak


def test_a_table_of_one_wins_for_sure_and_no_table_gives_nothing() -> None:
    assert win_probabilities([Skill(10, 5)]) == [1.0]
    assert win_probabilities([]) == []


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(st.none(), skills), min_size=2, max_size=10))
def test_chances_are_probabilities_that_add_up_to_one(table: list[Skill | None]) -> None:
    chances = win_probabilities(table)
    assert len(chances) == len(table)
    assert all(0 <= p <= 1 for p in chances)
    assert math.isclose(sum(chances), 1, abs_tol=1e-6)


@settings(max_examples=100, deadline=None)
@given(st.lists(skills, min_size=2, max_size=8), st.floats(min_value=0.5, max_value=10))
def test_more_skill_at_equal_uncertainty_is_a_better_chance(
    table: list[Skill], sigma: float
) -> None:
    same = [Skill(s.mu, sigma) for s in table]
    chances = win_probabilities(same)
    for a, pa in zip(same, chances, strict=True):
        for b, pb in zip(same, chances, strict=True):
            if a.mu > b.mu + 1e-6:
                assert pa >= pb - 1e-9


@pytest.fixture
def allocated(make_event, organiser):
    """A quick-rules event of six, drawn 1..6 on the d20, at two tables of three: [1, 2, 3]
    and [4, 5, 6]. Every driver is a player; 3 and 5 are rated, 3 highly."""
    event = make_event(n_drivers=6, qualifying_mode="draw", laps=2, show_favourites=True)
    actor = Actor(user=organiser)
    for driver in Driver.objects.filter(championship=event.championship):
        driver.player = Player.objects.create(first_name=driver.first_name, last_name="Rapide")
        driver.save()
    for number, mu, sigma in ((3, 34.0, 2.0), (5, 18.0, 3.0)):
        player = Driver.objects.get(championship=event.championship, number=number).player
        PlayerRating.objects.create(
            player=player, family="formula_de", mu=mu, sigma=sigma, rating=mu - 3 * sigma, races=9
        )
    draw_record(actor=actor, event=event, rolls={n: [n] for n in range(1, 7)})
    allocation_run(actor=actor, event=event, table_size=3)
    return event


@pytest.mark.django_db
def test_each_table_lists_its_favourites_best_first(allocated, django_assert_max_num_queries):
    with django_assert_max_num_queries(4):
        tables = event_favourites(allocated, top=3)
    assert [t.number for t in tables] == [1, 2]
    one, two = ([f.driver.number for f in t.favourites] for t in tables)
    assert one[0] == 3 and sorted(one[1:]) == [1, 2]
    assert two[-1] == 5  # rated below the newcomers' defaults
    assert all(1 <= f.percent <= 100 for t in tables for f in t.favourites)
    assert sum(f.probability for f in tables[0].favourites) == pytest.approx(1)


@pytest.mark.django_db
def test_a_rating_of_another_game_does_not_count(allocated):
    PlayerRating.objects.filter(family="formula_de").update(family="rallyman")
    tables = event_favourites(allocated, top=1)
    # Everyone at the defaults: equal chances, the grid's order (pole first).
    assert [t.favourites[0].driver.number for t in tables] == [1, 4]
    assert tables[0].favourites[0].percent == 33
