"""Cannes–Monaco 1925 points (races/games/cannes_monaco.py) against the rule text.

Section: rules/cannes-monaco-1925-bauza-rules.fr.txt, "Règles de championnat —
Décompte des points"; the number of players ("pour 3 à 6 pilotes"). No database.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from races.allocation import table_sizes
from races.games.cannes_monaco import (
    Car,
    classification,
    points,
    problems,
    table_capacity,
    table_size_ok,
)


def test_rule_example_of_the_championship_section_0_4_and_6_plus_3():
    # "a Tony & Anne-Marie ne marquent aucun point, b Sir Stephen marque 4 points,
    #  c Oliver & Dorotha marquent 6+3 = 9 points": the last car on square 30, Sir
    # Stephen 4 squares ahead, Oliver & Dorotha over the line (36 = 30 + 6) plus 3.
    race = [Car("tony", 30), Car("stephen", 34), Car("oliver", 0, crossed=True)]
    assert points(race) == {"tony": 0, "stephen": 4, "oliver": 9}
    lines = classification(race)
    assert [(line.driver, line.place, line.status) for line in lines] == [
        ("oliver", 1, "finished"),
        ("stephen", 2, "running"),
        ("tony", 3, "running"),
    ]


def test_every_last_car_scores_nothing():
    # "le ou les derniers pilotes ne marquent aucun point"
    race = [Car(1, 12), Car(2, 12), Car(3, 20)]
    assert points(race) == {1: 0, 2: 0, 3: 8}
    assert [line.place for line in classification(race)] == [1, 2, 2]


def test_a_car_over_the_line_counts_as_square_36_whatever_square_was_written():
    assert points([Car(1, 5, crossed=True), Car(2, 10)]) == {1: 26 + 3, 2: 0}


def test_problems_name_the_driver():
    found = problems({7: 40, 8: None, 99: 3}, [], grid=[7, 8, 9], complete=True)
    assert {(p.kind, p.driver) for p in found} == {
        ("bad_square", 7),
        ("unknown_driver", 99),
        ("missing", 8),
        ("missing", 9),
    }
    assert problems({7: 3}, [8], grid=[7, 8], complete=True) == []
    assert problems({7: 3}, [], grid=[7, 8], complete=False) == []


cars = st.lists(st.tuples(st.integers(0, 36), st.booleans()), min_size=1, max_size=6).map(
    lambda items: [Car(i, square, crossed) for i, (square, crossed) in enumerate(items)]
)


@given(cars)
def test_points_are_never_negative_and_a_last_car_scores_zero(race):
    scored = points(race)
    assert all(value >= 0 for value in scored.values())
    last = min(car.distance for car in race)
    assert all(scored[car.driver] == 0 for car in race if car.distance == last)


@given(cars)
def test_places_are_1_based_shared_only_on_equal_points(race):
    lines = classification(race)
    scored = points(race)
    assert [line.position for line in lines] == list(range(1, len(race) + 1))
    assert lines[0].place == 1
    for before, after in zip(lines, lines[1:], strict=False):
        assert scored[before.driver] >= scored[after.driver]
        assert (before.place == after.place) == (scored[before.driver] == scored[after.driver])


@given(cars, st.randoms())
def test_points_do_not_depend_on_the_order_cars_are_written(race, rnd):
    shuffled = list(race)
    rnd.shuffle(shuffled)
    assert points(shuffled) == points(race)
    assert {(line.driver, line.place) for line in classification(shuffled)} == {
        (line.driver, line.place) for line in classification(race)
    }


def test_a_race_is_for_3_to_6_drivers():
    # Rule text: "pour 3 à 6 pilotes".
    assert [table_size_ok(n) for n in (2, 3, 6, 7)] == [False, True, True, False]
    assert table_capacity(7, 10) == 4  # 4 + 3, not one table of 7
    assert table_capacity(4, 2) == 4  # not two tables of 2
    assert table_capacity(12, 4) == 4
    with pytest.raises(ValueError):
        table_capacity(2, 6)


@given(st.integers(3, 200), st.integers(1, 20))
def test_tables_of_the_capacity_seat_everyone_in_races_of_3_to_6(count, wanted):
    sizes = table_sizes(count, table_capacity(count, wanted))
    assert sum(sizes) == count
    assert all(table_size_ok(size) for size in sizes)
    plain = table_sizes(count, wanted)
    if wanted <= 6 and all(table_size_ok(size) for size in plain):
        assert sizes == plain  # the organiser's table size holds whenever it can
