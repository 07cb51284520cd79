"""Formula Dé quick rules (races/games/quick/rules.py): rules/formule-de-quick-rules.fr.txt."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from races.games import TABLE_GAMES, table_game
from races.games.cannes_monaco import rules as cannes_monaco
from races.games.quick import rules as quick
from races.games.racetrack import rules as racetrack


def test_point_10_a_quick_race_is_1_2_or_3_laps():
    # "Le premier qui effectue 1, 2 ou 3 tours est déclaré vainqueur."
    assert [quick.laps_ok(n) for n in (0, 1, 2, 3, 4)] == [False, True, True, True, False]
    assert not quick.laps_ok(True)


def test_point_1_standard_cars_follow_the_configuration_rule():
    good = {
        "tyres": 7,
        "brakes": 3,
        "gearbox": 3,
        "body": 3,
        "engine": 3,
        "road_holding": 3,
        "stand_points": 0,
    }
    assert quick.standard_configuration_problems(good) == []
    assert [p.kind for p in quick.standard_configuration_problems({**good, "tyres": 9})] == [
        "total"
    ]


def test_point_1_a_quick_car_has_its_22_points_on_the_car_and_no_stand():
    """Point 1: « 22 points au total » over the six parts; « l'arrêt au stand » is one of the
    optional rules the text leaves out, so a standard car of 20 + 2 at the stand is refused."""
    on_the_car = {"tyres": 7, "brakes": 3, "gearbox": 3, "body": 3, "engine": 3, "road_holding": 3}
    assert quick.configuration_problems(on_the_car) == []  # stand points left out: 0
    assert quick.parse_configuration(on_the_car).stand_points == 0
    standard_20_2 = {**on_the_car, "tyres": 5, "stand_points": 2}
    assert [(p.field, p.kind, p.rule) for p in quick.configuration_problems(standard_20_2)] == [
        ("stand_points", "no_stands", "quick rules 1")
    ]
    short = {**on_the_car, "tyres": 5}
    assert [(p.kind, p.value) for p in quick.configuration_problems(short)] == [("total", 20)]


@given(st.lists(st.integers(min_value=1, max_value=17), min_size=6, max_size=6))
def test_a_quick_car_is_valid_exactly_when_its_six_parts_make_22(parts):
    values = dict(
        zip(("tyres", "brakes", "gearbox", "body", "engine", "road_holding"), parts, strict=True)
    )
    assert (quick.configuration_problems(values) == []) == (sum(parts) == 22)


def test_dispatch_maps_table_games_to_their_modules():
    assert {"cannes_monaco": cannes_monaco, "racetrack": racetrack} == TABLE_GAMES
    assert table_game("formula_de") is None
    assert table_game("rallyman") is None


def test_point_10_the_race_laps_are_the_events_else_the_circuits():
    # A quick-rules event without laps races the circuit's: 3 is fine, 5 is not.
    assert quick.race_laps_problem(None, 3) is None
    assert quick.race_laps_problem(2, 5) is None
    assert quick.race_laps_problem(None, 5) == "circuit_laps"
    assert quick.race_laps_problem(4, 3) == "laps"
    assert quick.race_laps_problem(None, None) is None  # no circuit yet: its own error
