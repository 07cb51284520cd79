"""The spread over qualifying tables, fast tables included (§1-0-4 of
``rules/formule-de-competition-rules.fr.txt``): pure, no database."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from qualifying.seating.rules import SeatingProblem, join, spread, table_sizes


def test_sizes_are_as_equal_as_possible_larger_tables_first() -> None:
    assert table_sizes(23, 10) == [8, 8, 7]
    assert table_sizes(20, 10) == [10, 10]
    assert table_sizes(1, 10) == [1]
    assert table_sizes(0, 10) == []


def test_without_fast_drivers_the_spread_follows_the_numbers() -> None:
    assert spread(list(range(1, 8)), capacity=4) == {1: [1, 2, 3, 4], 2: [5, 6, 7]}


def test_flagged_drivers_sit_at_the_table_reserved_for_them_1_0_4() -> None:
    """ "Des tables devront être réservées pour les pilotes courant régulièrement sous la
    minute": drivers 5, 9 and 22 run under a minute; table 2 is theirs."""
    tables = spread(list(range(1, 24)), capacity=10, fast_drivers={5, 9, 22}, fast_tables={2})
    assert tables == {
        1: [1, 2, 3, 4, 6, 7, 8, 10],
        2: [5, 9, 22, 11, 12, 13, 14, 15],
        3: [16, 17, 18, 19, 20, 21, 23],
    }


def test_flagged_drivers_fill_the_marked_tables_in_their_order_1_0_4() -> None:
    drivers = list(range(1, 21))
    fast = set(range(1, 13))  # 12 fast drivers, two marked tables of 10
    tables = spread(drivers, capacity=10, fast_drivers=fast, fast_tables={1, 2})
    assert tables[1] == list(range(1, 11))
    assert tables[2] == [11, 12, 13, 14, 15, 16, 17, 18, 19, 20]


def test_flagged_drivers_without_a_marked_table_are_refused_1_0_4() -> None:
    with pytest.raises(SeatingProblem) as caught:
        spread([1, 2, 3], capacity=2, fast_drivers={2})
    assert (caught.value.kind, caught.value.flagged, caught.value.tables) == ("no_fast_table", 1, 2)


def test_a_marked_table_the_spread_does_not_create_seats_nobody() -> None:
    # Three drivers fit one table: a mark on table 2 leaves the fast driver without one.
    with pytest.raises(SeatingProblem) as caught:
        spread([1, 2, 3], capacity=10, fast_drivers={2}, fast_tables={2})
    assert caught.value.kind == "no_fast_table"


def test_more_flagged_drivers_than_seats_at_marked_tables_are_refused_1_0_4() -> None:
    with pytest.raises(SeatingProblem) as caught:
        spread(list(range(1, 9)), capacity=4, fast_drivers={1, 2, 3, 4, 5}, fast_tables={1})
    assert (caught.value.kind, caught.value.flagged, caught.value.seats) == ("too_many_fast", 5, 4)


def test_a_driver_listed_twice_is_refused() -> None:
    with pytest.raises(ValueError):
        spread([1, 2, 2], capacity=10)


@given(
    st.lists(st.integers(1, 500), min_size=1, max_size=60, unique=True),
    st.integers(2, 12),
    st.data(),
)
def test_every_driver_sits_once_sizes_stay_balanced_and_flagged_sit_at_marked_tables(
    drivers: list[int], capacity: int, data: st.DataObject
) -> None:
    sizes = table_sizes(len(drivers), capacity)
    marked = data.draw(st.sets(st.integers(1, len(sizes) + 1)))
    fast = data.draw(st.sets(st.sampled_from(drivers)))
    try:
        tables = spread(drivers, capacity=capacity, fast_drivers=fast, fast_tables=marked)
    except SeatingProblem as problem:
        # Refused only when the rule cannot be kept: no marked table, or too few seats.
        seats = sum(sizes[n - 1] for n in marked if n <= len(sizes))
        assert not seats or len(fast) > seats
        assert problem.flagged == len(fast)
        return
    seated = [driver for table in tables.values() for driver in table]
    assert sorted(seated) == sorted(drivers)
    assert [len(tables[n]) for n in sorted(tables)] == sizes
    assert max(sizes) <= capacity and max(sizes) - min(sizes) <= 1
    for number, table in tables.items():
        if number not in marked:
            assert not fast & set(table)


def test_a_late_arrival_joins_the_emptiest_table_and_nobody_moves() -> None:
    tables = {1: [1, 2, 3, 4], 2: [5, 6, 7]}
    assert join(tables, [8], capacity=4) == {1: [1, 2, 3, 4], 2: [5, 6, 7, 8]}
    # Full tables: the late arrival opens the next one.
    assert join({1: [1, 2]}, [3, 4], capacity=2) == {1: [1, 2], 2: [3, 4]}


def test_a_late_fast_driver_joins_a_marked_table_1_0_4() -> None:
    tables = {1: [1, 2], 2: [3]}
    assert join(tables, [9, 10], capacity=4, fast_drivers={9}, fast_tables={1}) == {
        1: [1, 2, 9],
        2: [3, 10],
    }
    with pytest.raises(SeatingProblem):
        join(tables, [9], capacity=4, fast_drivers={9})
    with pytest.raises(SeatingProblem):
        join({1: [1, 2]}, [9], capacity=2, fast_drivers={9}, fast_tables={1})


@given(
    st.lists(st.integers(1, 60), unique=True, max_size=30),
    st.integers(0, 20),
    st.integers(1, 10),
)
def test_joining_keeps_every_seat_and_seats_every_newcomer_once(
    drivers: list[int], cut: int, capacity: int
) -> None:
    seated, late = drivers[:cut], drivers[cut:]
    tables = spread(seated, capacity=capacity)
    joined = join(tables, late, capacity=capacity)
    for number, already in tables.items():
        assert joined[number][: len(already)] == already
    everyone = [driver for table in joined.values() for driver in table]
    assert sorted(everyone) == sorted(drivers)
    assert all(len(table) <= capacity for table in joined.values())
