"""Stands in grid order and a table's start (races/grid/stands.py) against the rules.

Article numbers refer to rules/formule-de-competition-rules.fr.txt: §4-0-1 the pole chooses
its stand first, "et ainsi de suite jusqu'au dernier sur la grille de départ"; §4-0-2 one
stand per driver; §5-0-2 configurations "au stylo bille … pas au crayon" (the start locks
them). No database: these are plain functions.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from races.grid.stands import Missing, StandProblem, next_to_choose, stand_problems, start_problems

GRID = ["pole", "p2", "p3", "p4"]
STANDS = [1, 2, 3, 4, 5]


def test_4_0_1_the_pole_chooses_first():
    assert stand_problems(GRID, {}, {"pole": 3}, stands=STANDS) == []
    assert next_to_choose(GRID, {"pole": 3}) == "p2"
    assert next_to_choose(GRID, {d: s for d, s in zip(GRID, STANDS, strict=False)}) is None


def test_4_0_1_a_driver_choosing_before_the_pole_is_refused_naming_the_pole():
    assert stand_problems(GRID, {}, {"p2": 1}, stands=STANDS) == [
        StandProblem("out_of_order", "p2", 1, "pole")
    ]
    # P3 before P2: P2 chooses first.
    assert stand_problems(GRID, {"pole": 1}, {"p3": 2}, stands=STANDS) == [
        StandProblem("out_of_order", "p3", 2, "p2")
    ]


def test_4_0_1_several_at_once_in_grid_order_are_fine():
    assert stand_problems(GRID, {}, {"p2": 5, "pole": 1}, stands=STANDS) == []


def test_4_0_2_a_stand_is_taken_once_and_the_refusal_names_who_holds_it():
    """The pole correcting its stand to one P2 holds: the holder is P2, not the pole."""
    current = {"pole": 1, "p2": 2}
    assert stand_problems(GRID, current, {"pole": 2}, stands=STANDS) == [
        StandProblem("taken", "pole", 2, "p2")
    ]
    assert stand_problems(GRID, current, {"p3": 1}, stands=STANDS) == [
        StandProblem("taken", "p3", 1, "pole")
    ]


def test_a_stand_is_corrected_or_exchanged_before_the_start():
    current = {"pole": 1, "p2": 2}
    assert stand_problems(GRID, current, {"pole": 4}, stands=STANDS) == []
    assert stand_problems(GRID, current, {"pole": 2, "p2": 1}, stands=STANDS) == []
    # Freeing the last chooser's stand keeps the order; freeing the pole's does not.
    assert stand_problems(GRID, current, {"p2": None}, stands=STANDS) == []
    assert stand_problems(GRID, current, {"pole": None}, stands=STANDS) == [
        StandProblem("out_of_order", "p2", 2, "pole")
    ]


def test_unknown_drivers_and_stands():
    found = stand_problems(GRID, {}, {"ghost": 1, "pole": 9}, stands=STANDS)
    assert found == [
        StandProblem("unknown_driver", "ghost", 1),
        StandProblem("unknown_stand", "pole", 9),
    ]


def test_5_0_2_the_start_waits_for_every_stand_and_configuration():
    stands = {"pole": 1, "p2": None, "p3": 3, "p4": None}
    assert start_problems(GRID, stands, ["pole", "p2"], configurations=True) == [
        Missing("p2", "stand"),
        Missing("p4", "stand"),
        Missing("p3", "configuration"),
        Missing("p4", "configuration"),
    ]
    full = {d: s for d, s in zip(GRID, STANDS, strict=False)}
    assert start_problems(GRID, full, [], configurations=False) == []
    assert start_problems(GRID, full, GRID, configurations=True) == []


# ---------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------


@st.composite
def attempts(draw: st.DrawFn) -> tuple[list[int], list[int], list[dict[int, int | None]]]:
    grid = list(range(draw(st.integers(1, 8))))
    stands = list(range(1, len(grid) + 3))
    changes = draw(
        st.lists(
            st.dictionaries(st.sampled_from(grid), st.none() | st.sampled_from(stands), max_size=3),
            max_size=12,
        )
    )
    return grid, stands, changes


@settings(max_examples=200, deadline=None)
@given(attempts())
def test_whatever_is_tried_the_stands_recorded_are_those_of_the_first_k_drivers(attempt):
    """DOMAIN.md "What the day enforces": the stands recorded are always those of the
    first k drivers of the grid, each stand once."""
    grid, stands, changes = attempt
    current: dict[int, int | None] = {}
    for change in changes:
        if not stand_problems(grid, current, change, stands=stands):
            current.update(change)
        chosen = [driver for driver in grid if current.get(driver) is not None]
        assert chosen == grid[: len(chosen)]  # a prefix of the grid
        held = [current[driver] for driver in chosen]
        assert len(set(held)) == len(held)


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 10), st.randoms())
def test_choosing_in_grid_order_is_always_accepted(size, rnd):
    grid = list(range(size))
    stands = list(range(1, size + 1))
    rnd.shuffle(stands)
    current: dict[int, int | None] = {}
    for driver, stand in zip(grid, stands, strict=True):
        assert next_to_choose(grid, current) == driver
        assert stand_problems(grid, current, {driver: stand}, stands=stands) == []
        current[driver] = stand
    assert start_problems(grid, current, grid, configurations=True) == []
