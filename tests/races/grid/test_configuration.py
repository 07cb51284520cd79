"""Car configurations (races/grid/configuration.py) against the competition rules.

Article numbers refer to rules/formule-de-competition-rules.fr.txt (§4, §5). No
database: these are plain functions.
"""

from __future__ import annotations

import pytest

from races.grid.configuration import (
    PARTS,
    TOTAL,
    Configuration,
    ConfigurationError,
    ConfigurationProblem,
    configuration_problems,
    parse_configuration,
)

# 20 on the car, 2 kept at the stand.
VALID: dict[str, int] = {
    "tyres": 4,
    "brakes": 4,
    "gearbox": 3,
    "body": 3,
    "engine": 3,
    "road_holding": 3,
    "stand_points": 2,
}


def values(**changes: object) -> dict[str, object]:
    return {**VALID, **changes}


def test_parts_and_total_follow_5_0_1_and_5_0_2() -> None:
    """§5-0-1: six parts; §5-0-2: 20 PdV plus two at the stand."""
    assert PARTS == ("tyres", "brakes", "gearbox", "body", "engine", "road_holding")
    assert TOTAL == 22


def test_parse_configuration_accepts_20_on_the_car_and_2_at_the_stand_5_0_2() -> None:
    configuration = parse_configuration(VALID)
    assert configuration == Configuration(4, 4, 3, 3, 3, 3, 2)
    assert configuration.total == 22
    assert configuration_problems(VALID) == []


@pytest.mark.parametrize("stand", [0, 1])
def test_parse_configuration_accepts_stand_points_on_the_car_5_3(stand: int) -> None:
    """§5-3: up to 22 PdV on the car; the stand may keep none."""
    configuration = parse_configuration(values(tyres=4 + 2 - stand, stand_points=stand))
    assert configuration.stand_points == stand
    assert configuration.total == 22


def test_parse_configuration_accepts_the_minimum_of_one_on_five_parts_5_0_2() -> None:
    minimal = values(tyres=15, brakes=1, gearbox=1, body=1, engine=1, road_holding=1)
    assert parse_configuration(minimal).tyres == 15


def test_parse_configuration_ignores_other_keys() -> None:
    assert parse_configuration(values(driver=12)) == Configuration(4, 4, 3, 3, 3, 3, 2)


@pytest.mark.parametrize("name", [*PARTS, "stand_points"])
def test_configuration_problems_missing_field(name: str) -> None:
    """§5-0-2: every part gets its points; the total is not checked without them."""
    incomplete = {key: value for key, value in VALID.items() if key != name}
    assert configuration_problems(incomplete) == [
        ConfigurationProblem(name, "missing", None, "§5-0-2")
    ]
    assert configuration_problems(values(**{name: None})) == [
        ConfigurationProblem(name, "missing", None, "§5-0-2")
    ]


@pytest.mark.parametrize("value", ["3", 3.0, 3.5, [3], True, False])
def test_configuration_problems_value_not_an_integer(value: object) -> None:
    """Booleans are not integers, nor are texts and floats (the caller converts)."""
    assert configuration_problems(values(brakes=value)) == [
        ConfigurationProblem("brakes", "not_integer", value, "§5-0-2")
    ]


@pytest.mark.parametrize("name", PARTS)
def test_configuration_problems_part_with_no_point_5_0_2(name: str) -> None:
    """§5-0-2 and §5-2: at least one PdV on every part."""
    # The points go to another part, so the total stays 22.
    other = "brakes" if name == "tyres" else "tyres"
    refused = values(**{name: 0, other: 4 + VALID[name]})
    assert configuration_problems(refused) == [
        ConfigurationProblem(name, "below_minimum", 0, "§5-0-2")
    ]


def test_configuration_problems_negative_part_5_0_2() -> None:
    assert ConfigurationProblem("engine", "below_minimum", -1, "§5-0-2") in (
        configuration_problems(values(engine=-1))
    )


@pytest.mark.parametrize(("stand", "tyres"), [(3, 3), (-1, 7)])
def test_configuration_problems_stand_points_out_of_0_to_2_5_3(stand: int, tyres: int) -> None:
    """§4-0-2: two PdV at the stand; §5-3: the stand may keep none. Total still 22."""
    assert configuration_problems(values(stand_points=stand, tyres=tyres)) == [
        ConfigurationProblem("stand_points", "stand_range", stand, "§5-3")
    ]


@pytest.mark.parametrize("total", [21, 23])
def test_configuration_problems_total_other_than_22_5_0_2(total: int) -> None:
    """§5-0-2, §5-3: parts and stand points make 22, no more, no less."""
    assert configuration_problems(values(tyres=4 + total - 22)) == [
        ConfigurationProblem("total", "total", total, "§5-0-2")
    ]


def test_configuration_problems_lists_every_problem_at_once() -> None:
    problems = configuration_problems(
        {"tyres": 0, "brakes": True, "body": 30, "engine": 1, "road_holding": 1, "stand_points": 5}
    )
    assert problems == [
        ConfigurationProblem("tyres", "below_minimum", 0, "§5-0-2"),
        ConfigurationProblem("brakes", "not_integer", True, "§5-0-2"),
        ConfigurationProblem("gearbox", "missing", None, "§5-0-2"),
        ConfigurationProblem("stand_points", "stand_range", 5, "§5-3"),
    ]


def test_configuration_problems_checks_the_total_alongside_range_problems() -> None:
    """Every field an integer: the total is checked even if another check failed."""
    assert configuration_problems(values(body=0)) == [
        ConfigurationProblem("body", "below_minimum", 0, "§5-0-2"),
        ConfigurationProblem("total", "total", 19, "§5-0-2"),
    ]


def test_parse_configuration_raises_a_value_error_with_the_problems() -> None:
    with pytest.raises(ValueError) as caught:
        parse_configuration(values(body=0, stand_points=3, tyres=6))
    assert isinstance(caught.value, ConfigurationError)
    expected = [
        ConfigurationProblem("body", "below_minimum", 0, "§5-0-2"),
        ConfigurationProblem("stand_points", "stand_range", 3, "§5-3"),
    ]
    assert caught.value.problems == expected
    assert caught.value.args == (expected,)
    assert "body" in str(caught.value)
