"""Tables and grids (races/grid/allocation.py) against the competition rules.

Article numbers refer to rules/formule-de-competition-rules.fr.txt: §1-3-2 fills the
tables in classification order, §1-3-3 lets the organisers keep team-mates apart. How
they are kept apart and the table sizes are product choices (DOMAIN.md, "Tables and
grids"). No database: these are plain functions.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Hashable, Mapping, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from races.grid.allocation import (
    Allocation,
    RankedDriver,
    Swap,
    TeamConflict,
    _closest_candidate,
    allocate,
    allocate_by_rating,
    table_sizes,
)


def field(count: int, teams: Mapping[int, Hashable] | None = None) -> list[RankedDriver]:
    """Drivers numbered by their rank 1..count; ``teams`` maps a rank to its team."""
    teams = teams or {}
    return [
        RankedDriver(driver=rank, rank=rank, team=teams.get(rank)) for rank in range(1, count + 1)
    ]


# ---------------------------------------------------------------------------
# Table sizes
# ---------------------------------------------------------------------------


def test_table_sizes_23_drivers_at_10_a_table_give_8_8_7() -> None:
    """DOMAIN.md's example. No article: the text is silent on sizes (product choice)."""
    assert table_sizes(23, 10) == [8, 8, 7]


@pytest.mark.parametrize(
    ("count", "capacity", "sizes"),
    [
        (0, 10, []),
        (1, 10, [1]),
        (10, 10, [10]),
        (11, 10, [6, 5]),
        (20, 10, [10, 10]),
        (21, 10, [7, 7, 7]),
        (5, 1, [1, 1, 1, 1, 1]),
        (16, 8, [8, 8]),
    ],
)
def test_table_sizes_are_as_equal_as_possible_larger_first(
    count: int, capacity: int, sizes: list[int]
) -> None:
    """ceil(count / capacity) tables, larger first. Product choice, no article."""
    assert table_sizes(count, capacity) == sizes


@pytest.mark.parametrize("capacity", [0, -1])
def test_table_sizes_refuse_a_capacity_below_one(capacity: int) -> None:
    with pytest.raises(ValueError, match="capacity"):
        table_sizes(10, capacity)


@pytest.mark.parametrize(("count", "capacity"), [(-1, 10), (True, 10), (10, True), (2.0, 10)])
def test_table_sizes_refuse_a_negative_or_non_integer_argument(
    count: object, capacity: object
) -> None:
    with pytest.raises(ValueError):
        table_sizes(count, capacity)  # type: ignore[arg-type]


@given(st.integers(min_value=0, max_value=500), st.integers(min_value=1, max_value=40))
def test_table_sizes_differ_by_at_most_one_larger_first_within_capacity(
    count: int, capacity: int
) -> None:
    """Product choice, no article."""
    sizes = table_sizes(count, capacity)
    assert sum(sizes) == count
    assert len(sizes) == -(-count // capacity)
    assert all(0 < size <= capacity for size in sizes)
    assert sizes == sorted(sizes, reverse=True)
    assert not sizes or max(sizes) - min(sizes) <= 1


# ---------------------------------------------------------------------------
# Filling in classification order (§1-3-2)
# ---------------------------------------------------------------------------


def test_allocate_seats_the_best_drivers_at_table_1_and_grids_in_rank_order() -> None:
    """§1-3-2: tables follow the general classification; the grid is in rank order."""
    drivers = field(23)
    random.Random(7).shuffle(drivers)
    allocation = allocate(drivers, capacity=10)
    assert allocation == Allocation(
        tables=[list(range(1, 9)), list(range(9, 17)), list(range(17, 24))],
        swaps=[],
        conflicts=[],
    )


def test_allocate_keeps_the_input_order_for_equal_ranks() -> None:
    """§1-3-2: the caller has already broken ties; equal ranks keep the order given."""
    drivers = [
        RankedDriver("c", 2, None),
        RankedDriver("a", 1, None),
        RankedDriver("z", 2, None),
        RankedDriver("b", 2, None),
    ]
    assert allocate(drivers, capacity=2).tables == [["a", "c"], ["z", "b"]]


def test_allocate_without_drivers_gives_no_table() -> None:
    assert allocate([], capacity=10) == Allocation(tables=[], swaps=[], conflicts=[])


def test_allocate_refuses_a_driver_given_twice() -> None:
    with pytest.raises(ValueError, match="twice"):
        allocate([RankedDriver(1, 1, None), RankedDriver(1, 2, None)], capacity=10)


@pytest.mark.parametrize("rank", [True, 1.0, "1", None])
def test_allocate_refuses_a_rank_that_is_not_an_integer(rank: object) -> None:
    with pytest.raises(ValueError, match="rank"):
        allocate([RankedDriver(1, rank, None)], capacity=10)  # type: ignore[arg-type]


def test_allocate_refuses_a_capacity_below_one() -> None:
    with pytest.raises(ValueError, match="capacity"):
        allocate(field(3), capacity=0)


# ---------------------------------------------------------------------------
# Keeping team-mates apart (§1-3-3)
# ---------------------------------------------------------------------------


def test_allocate_worked_example_rank_2_swaps_with_rank_9() -> None:
    """§1-3-3, DOMAIN.md's worked example: team-mates ranked 1 and 2, tables of 8."""
    allocation = allocate(field(16, {1: "red", 2: "red"}), capacity=8)
    assert allocation.tables == [[1, 3, 4, 5, 6, 7, 8, 9], [2, 10, 11, 12, 13, 14, 15, 16]]
    assert allocation.swaps == [
        Swap(moved_down=2, moved_up=9, from_table=1, to_table=2, teammate=1)
    ]
    assert allocation.conflicts == []


def test_allocate_skips_a_candidate_whose_team_mate_is_at_the_conflict_table() -> None:
    """§1-3-3: rank 9 would meet its team-mate rank 3 at table 1, so rank 10 comes up."""
    teams = {1: "red", 2: "red", 3: "blue", 9: "blue"}
    allocation = allocate(field(16, teams), capacity=8)
    assert allocation.swaps == [Swap(2, 10, 1, 2, 1)]
    assert allocation.tables == [[1, 3, 4, 5, 6, 7, 8, 10], [2, 9, 11, 12, 13, 14, 15, 16]]
    assert allocation.conflicts == []


def test_allocate_reports_a_conflict_when_the_other_table_has_a_team_mate_too() -> None:
    """§1-3-3: rank 2 cannot leave for table 2, where its team-mate rank 12 sits."""
    teams = {1: "red", 2: "red", 12: "red"}
    allocation = allocate(field(16, teams), capacity=8)
    assert allocation.swaps == []
    assert allocation.tables == [list(range(1, 9)), list(range(9, 17))]
    assert allocation.conflicts == [TeamConflict(table=1, drivers=(1, 2), team="red")]


def test_allocate_last_table_swaps_with_the_previous_table() -> None:
    """§1-3-3: team-mates at the last table; the lower one goes up to the table before."""
    allocation = allocate(field(16, {15: "red", 16: "red"}), capacity=8)
    assert allocation.swaps == [
        Swap(moved_down=16, moved_up=8, from_table=2, to_table=1, teammate=15)
    ]
    assert allocation.tables == [[1, 2, 3, 4, 5, 6, 7, 16], [8, 9, 10, 11, 12, 13, 14, 15]]
    assert allocation.conflicts == []


def test_allocate_handles_conflicts_in_rank_order_and_never_brings_a_team_mate_back() -> None:
    """§1-3-3: rank 3 moves first (for 1), then rank 4 (for 2), which cannot take
    rank 3's place back at table 1 and swaps with rank 6 instead."""
    teams = {1: "red", 3: "red", 2: "blue", 4: "blue"}
    allocation = allocate(field(8, teams), capacity=4)
    assert allocation.swaps == [Swap(3, 5, 1, 2, 1), Swap(4, 6, 1, 2, 2)]
    assert allocation.tables == [[1, 2, 5, 6], [3, 4, 7, 8]]
    assert allocation.conflicts == []


def test_allocate_reports_a_team_with_more_members_than_tables() -> None:
    """§1-3-3: three team-mates at table 1 and two tables: only one can leave."""
    allocation = allocate(field(8, {1: "red", 2: "red", 3: "red"}), capacity=4)
    assert allocation.swaps == [Swap(2, 5, 1, 2, 1)]
    assert allocation.tables == [[1, 3, 4, 5], [2, 6, 7, 8]]
    # More team-mates than tables: the leftover conflict is reported.
    assert allocation.conflicts == [TeamConflict(table=1, drivers=(1, 3), team="red")]


def test_allocate_reports_team_mates_at_a_single_table() -> None:
    """§1-3-3: with one table there is nowhere to move anyone."""
    allocation = allocate(field(6, {2: "red", 5: "red", 3: "blue"}), capacity=10)
    assert allocation.tables == [[1, 2, 3, 4, 5, 6]]
    assert allocation.swaps == []
    assert allocation.conflicts == [TeamConflict(table=1, drivers=(2, 5), team="red")]


def test_allocate_picks_the_better_ranked_of_two_equally_close_candidates() -> None:
    """§1-3-3: ranks 3 and 3 are equally close to rank 2; the one given first comes up."""
    drivers = [
        RankedDriver("a", 1, "red"),
        RankedDriver("b", 2, "red"),
        RankedDriver("c", 3, None),
        RankedDriver("d", 3, None),
    ]
    allocation = allocate(drivers, capacity=2)
    assert allocation.swaps == [Swap("b", "c", 1, 2, "a")]
    assert allocation.tables == [["a", "c"], ["b", "d"]]


def test_the_swap_search_takes_the_better_ranked_of_two_candidates_equally_close() -> None:
    """§1-3-3, DOMAIN.md "Tables and grids": the driver who leaves swaps with the closest in
    rank at the other table; equally close, the better-ranked. Rank 5 leaves, ranks 4 and 6
    are one place away on either side: rank 4 comes.

    The search is tested by itself: through ``allocate`` two acceptable candidates never sit
    on either side of the one leaving (the better-ranked side holds only drivers moved down
    for a team-mate, who may not come back), so no allocation can tell the two rules apart;
    the search must still say what DOMAIN.md says if the tables ever allow it."""
    leaving, better, worse = (5, 0), (4, 1), (6, 2)
    by_key = {
        leaving: RankedDriver("x", 5, "red"),
        better: RankedDriver("b", 4, None),
        worse: RankedDriver("w", 6, None),
    }
    here, there = Counter({"red": 2}), Counter({None: 2})
    found = _closest_candidate(leaving, "red", [better, worse], here, there, by_key)
    assert found == better
    # The better-ranked one cannot come (its team-mate is here): the other, as close, does.
    by_key[better] = RankedDriver("b", 4, "blue")
    found = _closest_candidate(leaving, "red", [better, worse], here + Counter({"blue": 1}),
                               Counter({"blue": 1, None: 1}), by_key)  # fmt: skip
    assert found == worse


def test_allocate_without_team_separation_does_no_swap() -> None:
    """§1-3-3 is an option ("peuvent moduler"): off, the classification order stands."""
    allocation = allocate(field(16, {1: "red", 2: "red"}), capacity=8, separate_teams=False)
    assert allocation.swaps == []
    assert allocation.tables == [list(range(1, 9)), list(range(9, 17))]
    # The conflict is still reported, so the organisers can see it.
    assert allocation.conflicts == [TeamConflict(table=1, drivers=(1, 2), team="red")]


def test_allocate_drivers_without_team_never_conflict() -> None:
    allocation = allocate(field(16), capacity=8)
    assert allocation.swaps == []
    assert allocation.conflicts == []
    assert allocation.tables == [list(range(1, 9)), list(range(9, 17))]


def test_allocate_keeps_a_large_field_apart() -> None:
    """§1-3-3 on an event-sized field: 1,000 drivers, 200 teams of 5, 100 tables."""
    rng = random.Random(2024)
    teams = [number // 5 for number in range(1000)]
    rng.shuffle(teams)
    drivers = [RankedDriver(n, n, team) for n, team in enumerate(teams, start=1)]
    allocation = allocate(drivers, capacity=10)
    assert sorted(d for table in allocation.tables for d in table) == list(range(1, 1001))
    assert real_conflicts(allocation.tables, {d.driver: d for d in drivers}) == allocation.conflicts
    assert excess(allocation.tables, {d.driver: d for d in drivers}) < excess(
        allocate(drivers, capacity=10, separate_teams=False).tables, {d.driver: d for d in drivers}
    )


# ---------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------


def real_conflicts(
    tables: Sequence[Sequence[Hashable]], by_driver: Mapping[Hashable, RankedDriver]
) -> list[TeamConflict]:
    """Team-mates sharing a table, found independently of the module."""
    found = []
    for number, table in enumerate(tables, start=1):
        teams = [by_driver[d].team for d in table]
        for team in dict.fromkeys(t for t in teams if t is not None):
            members = tuple(d for d in table if by_driver[d].team == team)
            if len(members) > 1:
                found.append(TeamConflict(number, members, team))
    return found


def excess(tables: Sequence[Sequence[Hashable]], by_driver: Mapping[Hashable, RankedDriver]) -> int:
    """Drivers too many: at each table, each team's members beyond the first."""
    total = 0
    for table in tables:
        counts = Counter(by_driver[d].team for d in table if by_driver[d].team is not None)
        total += sum(count - 1 for count in counts.values())
    return total


@st.composite
def fields(draw: st.DrawFn, distinct_ranks: bool = False) -> list[RankedDriver]:
    count = draw(st.integers(min_value=0, max_value=30))
    if distinct_ranks:
        ranks = draw(st.permutations(range(1, count + 1)))
    else:
        ranks = draw(st.lists(st.integers(1, max(count, 1)), min_size=count, max_size=count))
    team_count = draw(st.integers(min_value=1, max_value=8))
    teams = draw(
        st.lists(
            st.one_of(st.none(), st.integers(0, team_count - 1)), min_size=count, max_size=count
        )
    )
    return [
        RankedDriver(f"d{i}", rank, team)
        for i, (rank, team) in enumerate(zip(ranks, teams, strict=True))
    ]


capacities = st.integers(min_value=1, max_value=8)
_settings = settings(max_examples=150, deadline=None)


@_settings
@given(fields(), capacities, st.booleans())
def test_allocate_places_every_driver_once_in_tables_of_the_planned_sizes(
    drivers: list[RankedDriver], capacity: int, separate: bool
) -> None:
    allocation = allocate(drivers, capacity=capacity, separate_teams=separate)
    placed = [d for table in allocation.tables for d in table]
    assert sorted(placed) == sorted(d.driver for d in drivers)
    assert [len(table) for table in allocation.tables] == table_sizes(len(drivers), capacity)


@_settings
@given(fields(), capacities, st.booleans())
def test_allocate_grids_are_in_rank_order_with_ties_in_input_order(
    drivers: list[RankedDriver], capacity: int, separate: bool
) -> None:
    """§1-3-2: each grid is its drivers in classification order, pole first."""
    position = {d.driver: (d.rank, index) for index, d in enumerate(drivers)}
    allocation = allocate(drivers, capacity=capacity, separate_teams=separate)
    for table in allocation.tables:
        assert table == sorted(table, key=position.__getitem__)


@_settings
@given(fields(), capacities, st.booleans())
def test_allocate_reports_exactly_the_remaining_conflicts(
    drivers: list[RankedDriver], capacity: int, separate: bool
) -> None:
    """§1-3-3: every reported conflict is real and every real one is reported."""
    by_driver = {d.driver: d for d in drivers}
    allocation = allocate(drivers, capacity=capacity, separate_teams=separate)
    assert allocation.conflicts == real_conflicts(allocation.tables, by_driver)


@_settings
@given(fields(), capacities)
def test_allocate_swaps_only_remove_conflicts(drivers: list[RankedDriver], capacity: int) -> None:
    """§1-3-3: each swap parts one pair of team-mates and creates no new conflict."""
    by_driver = {d.driver: d for d in drivers}
    before = allocate(drivers, capacity=capacity, separate_teams=False)
    after = allocate(drivers, capacity=capacity)
    assert excess(after.tables, by_driver) <= excess(before.tables, by_driver) - len(after.swaps)
    for swap in after.swaps:
        down, up, mate = (
            by_driver[swap.moved_down],
            by_driver[swap.moved_up],
            by_driver[swap.teammate],
        )
        assert down.team is not None and down.team == mate.team
        assert up.team != down.team
        assert (mate.rank, drivers.index(mate)) < (down.rank, drivers.index(down))
        assert abs(swap.from_table - swap.to_table) == 1


@_settings
@given(fields(), capacities)
def test_allocate_without_separation_just_fills_tables_in_order(
    drivers: list[RankedDriver], capacity: int
) -> None:
    allocation = allocate(drivers, capacity=capacity, separate_teams=False)
    order = [
        d.driver for _, d in sorted(enumerate(drivers), key=lambda item: (item[1].rank, item[0]))
    ]
    chunks, start = [], 0
    for size in table_sizes(len(drivers), capacity):
        chunks.append(order[start : start + size])
        start += size
    assert allocation.swaps == []
    assert allocation.tables == chunks


@_settings
@given(fields(distinct_ranks=True), capacities, st.randoms(use_true_random=False))
def test_allocate_is_deterministic_whatever_the_input_order(
    drivers: list[RankedDriver], capacity: int, rng: random.Random
) -> None:
    first = allocate(drivers, capacity=capacity)
    assert allocate(drivers, capacity=capacity) == first
    shuffled = list(drivers)
    rng.shuffle(shuffled)
    assert allocate(shuffled, capacity=capacity) == first


# ---------------------------------------------------------------------------
# Quick rules seeded by rating (a club's choice)
# ---------------------------------------------------------------------------
# rules/formule-de-quick-rules.fr.txt point 2: the grid by "le lancer d'un dé 20 (le plus
# petit nombre est en pôle position)". A club may seat its tables by rating instead, as
# §1-3-2 seats a competition's by qualifying: the best-rated together at table 1.


def test_by_rating_seats_the_best_rated_together_at_table_1_and_each_grid_by_the_d20() -> None:
    """Six drivers drawn 1..6 on the d20 (driver = draw rank); 4, 5 and 6 have the best
    ratings: they race together at table 1, pole to the lowest roll among them (4)."""
    ratings = {6: 30.0, 5: 20.0, 4: 10.0, 3: -2.0}  # 1 and 2 unrated: the default 0
    allocation = allocate_by_rating(field(6), ratings, default=0.0, capacity=3)
    assert allocation.tables == [[4, 5, 6], [1, 2, 3]]


def test_by_rating_unrated_newcomers_count_at_the_default_rating() -> None:
    ratings = {1: -5.0, 2: 4.0}  # 3 and 4 unrated: 0, between the two
    allocation = allocate_by_rating(field(4), ratings, default=0.0, capacity=2)
    assert allocation.tables == [[2, 3], [1, 4]]


def test_by_rating_equal_ratings_are_the_d20_draw_itself() -> None:
    """Nobody rated yet (a first season): the tables are exactly the draw's (point 2)."""
    drivers = field(7, {1: "a", 2: "a", 5: "b", 6: "b"})
    seeded = allocate_by_rating(drivers, {}, default=0.0, capacity=3)
    assert seeded == allocate(drivers, capacity=3)


def test_by_rating_keeps_team_mates_apart_as_the_allocation_does() -> None:
    """§1-3-3: the two best-rated are team-mates; the second moves to table 2."""
    drivers = field(4, {1: "x", 2: "x"})
    allocation = allocate_by_rating(
        drivers, {1: 9.0, 2: 8.0, 3: 1.0, 4: 0.5}, default=0.0, capacity=2
    )
    assert allocation.tables == [[1, 3], [2, 4]]
    assert [(s.moved_down, s.moved_up) for s in allocation.swaps] == [(2, 3)]


@st.composite
def rated_fields(draw: st.DrawFn) -> tuple[list[RankedDriver], dict[Hashable, float]]:
    drivers = draw(fields())
    rated = draw(st.lists(st.booleans(), min_size=len(drivers), max_size=len(drivers)))
    values = st.floats(min_value=-20, max_value=60, allow_nan=False)
    ratings = {d.driver: draw(values) for d, r in zip(drivers, rated, strict=True) if r}
    return drivers, ratings


@_settings
@given(rated_fields(), capacities, st.booleans())
def test_by_rating_places_every_driver_once_with_grids_in_draw_order(
    field_and_ratings: tuple[list[RankedDriver], dict[Hashable, float]],
    capacity: int,
    separate: bool,
) -> None:
    drivers, ratings = field_and_ratings
    allocation = allocate_by_rating(
        drivers, ratings, default=0.0, capacity=capacity, separate_teams=separate
    )
    placed = [d for table in allocation.tables for d in table]
    assert sorted(placed) == sorted(d.driver for d in drivers)
    assert [len(table) for table in allocation.tables] == table_sizes(len(drivers), capacity)
    position = {d.driver: (d.rank, index) for index, d in enumerate(drivers)}
    for table in allocation.tables:
        assert table == sorted(table, key=position.__getitem__)  # the d20 gives the grid


@_settings
@given(rated_fields(), capacities)
def test_by_rating_without_team_separation_no_table_has_a_better_rated_driver_below(
    field_and_ratings: tuple[list[RankedDriver], dict[Hashable, float]], capacity: int
) -> None:
    drivers, ratings = field_and_ratings
    allocation = allocate_by_rating(
        drivers, ratings, default=0.0, capacity=capacity, separate_teams=False
    )
    levels = [[ratings.get(d, 0.0) for d in table] for table in allocation.tables]
    for upper, lower in zip(levels, levels[1:], strict=False):
        assert min(upper) >= max(lower)
