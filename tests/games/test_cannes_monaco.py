"""Cannes–Monaco 1925 points (races/games/cannes_monaco/rules.py) against the rule text.

Section: rules/cannes-monaco-1925-bauza-rules.fr.txt, "Règles de championnat —
Décompte des points"; "FIN DE LA COURSE" (the first over the line is the winner); the
number of players ("pour 3 à 6 pilotes"). No database.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from races.games.cannes_monaco.rules import (
    CROSSING_BONUS,
    SQUARES,
    Car,
    Race,
    cars,
    classification,
    points,
    problems,
    table_capacity,
    table_size_ok,
)
from races.grid.allocation import table_sizes


def test_rule_example_of_the_championship_section_0_4_and_6_plus_3():
    # "a Tony & Anne-Marie ne marquent aucun point, b Sir Stephen marque 4 points,
    #  c Oliver & Dorotha marquent 6+3 = 9 points": the last car on square 30, Sir
    # Stephen 4 squares ahead, Oliver & Dorotha over the line (36 = 30 + 6) plus 3.
    race = [Car("tony", 30), Car("stephen", 34), Car("oliver", 0, crossed=True)]
    assert points(race) == {"tony": 0, "stephen": 4, "oliver": 9}
    lines = classification(Race(tuple(race), ("oliver",)))
    assert [(line.driver, line.place, line.status) for line in lines] == [
        ("oliver", 1, "finished"),
        ("stephen", 2, "running"),
        ("tony", 3, "running"),
    ]


def test_every_last_car_scores_nothing():
    # "le ou les derniers pilotes ne marquent aucun point"
    race = [Car(1, 12), Car(2, 12), Car(3, 20)]
    assert points(race) == {1: 0, 2: 0, 3: 8}
    assert [line.place for line in classification(Race(tuple(race), ()))] == [1, 2, 2]


def test_the_first_over_the_line_is_the_winner_and_crossers_keep_their_order():
    """ "Le premier pilote qui franchit la ligne d'arrivée est déclaré vainqueur": every
    car over the line scores the same (square 36 plus 3), but the crossing order places
    them, the winner first; the others follow by square, equal squares sharing."""
    race = cars({1: 20, 4: 20, 5: 31}, [3, 2], grid=[1, 2, 3, 4, 5])
    assert race.winner == 3
    lines = classification(race)
    assert [(line.driver, line.place, line.status, line.points) for line in lines] == [
        (3, 1, "finished", 36 - 20 + 3),
        (2, 2, "finished", 36 - 20 + 3),
        (5, 3, "running", 31 - 20),
        (1, 4, "running", 0),
        (4, 4, "running", 0),
    ]
    assert problems({}, [3, 3], grid=[1, 2, 3], complete=False)[0].kind == "crossed_twice"


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


@st.composite
def races(draw: st.DrawFn) -> Race:
    """A complete sheet: 1 to 6 cars, each on a square or over the line, in a crossing
    order. Squares reach 36 without crossing: a car on the last square has not crossed."""
    items = draw(st.lists(st.tuples(st.integers(0, 36), st.booleans()), min_size=1, max_size=6))
    squares = {i: square for i, (square, _crossed) in enumerate(items)}
    crossed = draw(st.permutations([i for i, (_square, over) in enumerate(items) if over]))
    return cars(squares, crossed, grid=list(squares))


@given(races())
def test_points_recomputed_from_the_rule(race):
    """ "Décompte des points", computed here from the rule: the last car(s) 0; the others
    their square minus the last car's square; a car over the line counts as square 36
    and scores 3 more. A car on square 36 that did not cross scores 36 − last, no bonus."""
    distance = {car.driver: SQUARES if car.crossed else car.square for car in race.cars}
    assert all(value >= 0 for value in points(race.cars).values())
    last = min(distance.values())
    for car in race.cars:
        expected = 0 if distance[car.driver] == last else distance[car.driver] - last
        if car.crossed and distance[car.driver] != last:
            expected += CROSSING_BONUS
        assert points(race.cars)[car.driver] == expected
        if car.square == SQUARES and not car.crossed and distance[car.driver] != last:
            assert points(race.cars)[car.driver] == SQUARES - last  # no bonus


@given(races())
def test_places_follow_the_crossing_order_then_the_squares(race):
    lines = classification(race)
    assert [line.position for line in lines] == list(range(1, len(race.cars) + 1))
    over = [line.driver for line in lines if line.status == "finished"]
    assert over == list(race.crossing)  # the winner first, in crossing order
    assert [line.place for line in lines[: len(over)]] == list(range(1, len(over) + 1))
    square = {car.driver: car.square for car in race.cars}
    rest = lines[len(over) :]
    for before, after in zip(rest, rest[1:], strict=False):
        assert square[before.driver] >= square[after.driver]
        assert (before.place == after.place) == (square[before.driver] == square[after.driver])


@given(races(), st.randoms())
def test_points_do_not_depend_on_the_order_cars_are_written(race, rnd):
    shuffled = list(race.cars)
    rnd.shuffle(shuffled)
    assert points(shuffled) == points(race.cars)
    again = classification(Race(tuple(shuffled), race.crossing))
    assert {(line.driver, line.place) for line in again} == {
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
