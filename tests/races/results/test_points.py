"""Points and standings (races/results/points.py) against the competition rules.

Article numbers refer to rules/formule-de-competition-rules.fr.txt: §21-1-2 only a car
that crosses the line scores the points given for its place. The scales, the day
classification, the overall mode, best-K results, countback and shared ranks are
product choices (DOMAIN.md, "Race result and retirements"). No database: these are
plain functions.
"""

from __future__ import annotations

from collections.abc import Hashable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from races.results.points import (
    DayLine,
    EventResult,
    StandingLine,
    TeamLine,
    countback_place,
    day_classification,
    disqualified_after,
    points_after_sanction,
    standings,
    team_standings,
)
from races.results.rules import Placed, Retirement, TableResult, table_classification
from tournament.rules.scales import PRESETS

F1 = PRESETS["f1"]


def finished(*drivers: Hashable) -> list[Placed]:
    return [
        Placed(driver, position, "finished", None, None)
        for position, driver in enumerate(drivers, start=1)
    ]


def res(event: Hashable, driver: Hashable, position: int, points: int) -> EventResult:
    """A finisher's result, counted at its table place in countback."""
    return EventResult(event, driver, position, "finished", points, position)


# ---------------------------------------------------------------------------
# Day classification
# ---------------------------------------------------------------------------


def test_presets_give_more_points_to_better_places():
    for scale in PRESETS.values():
        assert list(scale) == sorted(scale, reverse=True)
        assert all(points > 0 for points in scale)


def test_day_rank_is_table_1_then_table_2():
    day = day_classification([finished("a", "b"), finished("c", "d")], scale=F1)
    assert [(line.driver, line.table, line.position, line.rank) for line in day] == [
        ("a", 1, 1, 1),
        ("b", 1, 2, 2),
        ("c", 2, 1, 3),
        ("d", 2, 2, 4),
    ]


def test_per_table_points_follow_the_position_at_the_table():
    day = day_classification([finished("a", "b"), finished("c", "d")], scale=F1)
    assert [line.points for line in day] == [25, 18, 25, 18]


def test_overall_points_follow_the_day_rank():
    # DOMAIN.md: table 2's winner behind an 8-driver table 1 is rank 9.
    table_1 = finished(*range(1, 7)) + [
        Placed(7, 7, "retired", "engine", 2),
        Placed(8, 8, "dns", None, None),
    ]
    table_2 = finished(9, 10)
    day = day_classification([table_1, table_2], scale=F1, mode="overall")
    winner = day[8]
    assert (winner.driver, winner.table, winner.position, winner.rank) == (9, 2, 1, 9)
    assert winner.points == F1[8]
    assert day[9].points == F1[9]
    # The retired and DNS drivers take ranks 7 and 8 and score nothing.
    assert [(line.rank, line.points) for line in day[6:8]] == [(7, 0), (8, 0)]


def test_retired_and_dns_drivers_score_nothing():
    # §21-1-2: a car must cross the line to score the points of its place.
    table = [
        *finished("a"),
        Placed("b", 2, "retired", "off_track", 3),
        Placed("c", 3, "dns", None, None),
    ]
    day = day_classification([table], scale=F1)
    assert [line.points for line in day] == [25, 0, 0]
    assert [(line.status, line.cause, line.lap) for line in day] == [
        ("finished", None, None),
        ("retired", "off_track", 3),
        ("dns", None, None),
    ]


def test_engine_failure_after_second_to_last_corner_scores_as_a_finisher():
    # §16-0-6, §20-4-1: the car that limps over the line is a finisher.
    table = table_classification(
        TableResult(finish=("a", "b"), retired=(Retirement("c", "engine", 3),), dns=())
    )
    day = day_classification([table], scale=F1)
    assert [line.points for line in day] == [25, 18, 0]


def test_places_beyond_the_scale_score_nothing():
    day = day_classification([finished(*range(8))], scale=PRESETS["short"])
    assert [line.points for line in day] == [8, 6, 4, 3, 2, 1, 0, 0]


def test_day_classification_sorts_each_table_by_position():
    table = list(reversed(finished("a", "b", "c")))
    day = day_classification([table], scale=F1)
    assert [line.driver for line in day] == ["a", "b", "c"]


def test_day_classification_returns_day_lines():
    assert day_classification([finished("a")], scale=(3,)) == [
        DayLine("a", 1, 1, 1, "finished", None, None, 3, place=1)
    ]


def test_day_classification_refuses_bad_input():
    with pytest.raises(ValueError, match="mode"):
        day_classification([], scale=F1, mode="sum")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="scale"):
        day_classification([], scale=(10, -1))
    with pytest.raises(ValueError, match="twice"):
        day_classification([finished("a"), finished("a")], scale=F1)


# ---------------------------------------------------------------------------
# Standings
# ---------------------------------------------------------------------------


def test_standings_sum_points_and_list_drivers_without_points():
    lines = standings(
        ["a", "b", "c"],
        [res(1, "a", 1, 25), res(1, "b", 2, 18), res(2, "a", 3, 15), res(2, "b", 1, 25)],
    )
    assert [(line.rank, line.driver, line.points) for line in lines] == [
        (1, "b", 43),
        (2, "a", 40),
        (3, "c", 0),
    ]
    c = lines[2]
    assert (c.counted, c.results, c.countback) == ((), (), (0, 0, 0))


def test_best_k_results_count_and_others_are_kept_but_not_counted():
    results = [res(1, "a", 1, 25), res(2, "a", 4, 12), res(3, "a", 2, 18)]
    (line,) = standings(["a"], results, best=2)
    assert line.points == 43
    assert line.counted == (1, 3)
    assert line.results == tuple(results)


def test_best_k_keeps_the_earlier_of_equal_results():
    results = [res(1, "a", 9, 0), res(2, "a", 8, 0), res(3, "a", 1, 10)]
    (line,) = standings(["a"], results, best=2)
    assert (line.points, line.counted) == (10, (1, 3))


def test_countback_breaks_a_tie_with_more_first_places():
    # Both on 50 points: "b" has two wins, "a" one.
    results = [
        res(1, "a", 1, 25),
        res(2, "a", 2, 18),
        res(3, "a", 8, 7),
        res(1, "b", 1, 25),
        res(2, "b", 1, 25),
        res(3, "b", 9, 0),
    ]
    lines = standings(["a", "b"], results)
    assert [(line.rank, line.driver, line.points) for line in lines] == [
        (1, "b", 50),
        (2, "a", 50),
    ]
    assert lines[0].countback == (2, 0, 0, 0, 0, 0, 0, 0, 1)
    assert lines[1].countback == (1, 1, 0, 0, 0, 0, 0, 1, 0)


def test_countback_then_looks_at_second_places():
    results = [res(1, "a", 3, 10), res(1, "b", 2, 10)]
    lines = standings(["a", "b"], results)
    assert [line.driver for line in lines] == ["b", "a"]
    assert [line.rank for line in lines] == [1, 2]


def test_countback_uses_all_results_even_those_not_counted():
    # Best 1: both count 25; "b" also has an uncounted 2nd place, "a" a 3rd.
    results = [res(1, "a", 1, 25), res(2, "a", 3, 15), res(1, "b", 1, 25), res(2, "b", 2, 18)]
    lines = standings(["a", "b"], results, best=1)
    assert [(line.rank, line.driver, line.points) for line in lines] == [
        (1, "b", 25),
        (2, "a", 25),
    ]


def test_perfect_ties_share_the_rank_written_1_2_2_4():
    results = [
        res(1, "a", 1, 25),
        res(1, "b", 2, 18),
        res(2, "c", 2, 18),
        res(1, "d", 3, 15),
    ]
    lines = standings(["a", "c", "b", "d"], results)
    assert [(line.rank, line.driver) for line in lines] == [
        (1, "a"),
        (2, "c"),
        (2, "b"),
        (4, "d"),
    ]


def test_drivers_with_no_result_share_the_last_rank_in_the_order_given():
    lines = standings(["x", "y", "a"], [res(1, "a", 1, 25)])
    assert [(line.rank, line.driver) for line in lines] == [(1, "a"), (2, "x"), (2, "y")]


def test_a_driver_with_results_but_not_listed_is_added():
    lines = standings(["a"], [res(1, "z", 1, 25)])
    assert [(line.rank, line.driver, line.points) for line in lines] == [
        (1, "z", 25),
        (2, "a", 0),
    ]


def test_standings_return_standing_lines():
    result = res(1, "a", 2, 18)
    assert standings(["a"], [result]) == [StandingLine(1, "a", 18, (1,), (result,), (0, 1))]


def test_standings_refuse_bad_input():
    with pytest.raises(ValueError, match="twice"):
        standings(["a", "a"], [])
    with pytest.raises(ValueError, match="two results"):
        standings(["a"], [res(1, "a", 1, 25), res(1, "a", 2, 18)])
    with pytest.raises(ValueError, match="best"):
        standings(["a"], [], best=0)
    with pytest.raises(ValueError, match="position"):
        standings(["a"], [res(1, "a", 0, 25)])
    with pytest.raises(ValueError, match="counted place"):
        standings(["a"], [EventResult(1, "a", 1, "finished", 25, 0)])


# ---------------------------------------------------------------------------
# Team standings
# ---------------------------------------------------------------------------


def test_team_points_are_the_sum_of_counted_points_with_shared_ranks():
    results = [
        res(1, "a", 1, 25),
        res(1, "b", 2, 18),
        res(1, "c", 3, 15),
        res(1, "d", 4, 12),
        res(1, "e", 5, 10),
        res(1, "f", 6, 8),
    ]
    lines = standings(["a", "b", "c", "d", "e", "f"], results)
    team_of = {"a": "red", "b": "blue", "c": "green", "d": "blue", "e": "green", "f": None}
    assert team_standings(lines, team_of) == [
        TeamLine(1, "blue", 30),
        TeamLine(2, "red", 25),
        TeamLine(2, "green", 25),
    ]


def test_team_standings_use_counted_points_only():
    lines = standings(["a"], [res(1, "a", 1, 25), res(2, "a", 2, 18)], best=1)
    assert team_standings(lines, {"a": "red"}) == [TeamLine(1, "red", 25)]


def test_team_with_zero_points_is_listed_and_drivers_without_team_ignored():
    lines = standings(["a", "b", "c"], [res(1, "c", 1, 25)])
    assert team_standings(lines, {"a": "red", "b": "blue"}) == [
        TeamLine(1, "red", 0),
        TeamLine(1, "blue", 0),
    ]


# ---------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------

_settings = settings(max_examples=150, deadline=None)
scales = st.sampled_from(list(PRESETS.values())) | st.lists(st.integers(0, 30), max_size=12)


@st.composite
def day_tables(draw: st.DrawFn) -> list[list[Placed]]:
    count = draw(st.integers(0, 25))
    drivers = iter(range(count))
    tables: list[list[Placed]] = []
    remaining = count
    while remaining:
        size = draw(st.integers(1, min(remaining, 10)))
        remaining -= size
        finishers = draw(st.integers(0, size))
        retired = draw(st.integers(0, size - finishers))
        statuses = ["finished"] * finishers + ["retired"] * retired
        statuses += ["dns"] * (size - len(statuses))
        tables.append(
            [
                Placed(
                    next(drivers),
                    position,
                    status,  # type: ignore[arg-type]
                    "engine" if status == "retired" else None,
                    2 if status == "retired" else None,
                )
                for position, status in enumerate(statuses, start=1)
            ]
        )
    return tables


@_settings
@given(day_tables(), scales, st.sampled_from(["per_table", "overall"]))
def test_points_never_go_to_a_retired_or_dns_driver(tables, scale, mode):
    day = day_classification(tables, scale=scale, mode=mode)
    assert all(line.points == 0 for line in day if line.status != "finished")
    assert [line.rank for line in day] == list(range(1, len(day) + 1))
    assert len(day) == sum(len(table) for table in tables)


@st.composite
def seasons(draw: st.DrawFn) -> tuple[list[int], list[EventResult]]:
    """Events of tables where places may be shared (Racetrack, Cannes–Monaco), with
    retirements, non-starters and disqualifications, scored in either mode."""
    drivers = list(range(draw(st.integers(0, 8))))
    mode = draw(st.sampled_from(["per_table", "overall"]))
    results: list[EventResult] = []
    for event in range(draw(st.integers(0, 5))):
        present = draw(st.lists(st.sampled_from(drivers), unique=True)) if drivers else []
        place = 0
        for position, driver in enumerate(present, start=1):
            shared = place > 0 and draw(st.booleans())
            place = place if shared else position
            status = draw(st.sampled_from(["finished", "finished", "retired", "dns", "dsq"]))
            points = draw(st.integers(0, 25)) if status == "finished" else 0
            rank = place + draw(st.integers(0, 10))  # the drivers of the tables before
            counted = countback_place(mode=mode, status=status, place=place, rank=rank)
            results.append(EventResult(event, driver, position, status, points, counted))
    return drivers, results


def _countback_by_the_rule(results: list[EventResult], deepest: int) -> tuple[int, ...]:
    """How many 1st, 2nd, 3rd… places a driver counts, read straight from DOMAIN.md:
    each result counts its place (a shared place the same), a non-starter none."""
    counts = [0] * deepest
    for result in results:
        if result.status not in ("dns", "dsq"):
            counts[result.counted_place - 1] += 1  # type: ignore[operator]
    return tuple(counts)


@_settings
@given(seasons(), st.none() | st.integers(1, 4))
def test_standings_follow_the_rule_best_k_then_countback_then_shared_rank(season, best):
    """DOMAIN.md: the sum of the K best results, then more 1st places, more 2nd places…;
    still equal, a shared rank written 1, 2, 2, 4. Checked against the rule written here
    from the raw results, not against the lines the code returns."""
    drivers, results = season
    lines = standings(drivers, results, best=best)
    assert sorted(line.driver for line in lines) == drivers
    deepest = max((r.counted_place or 0 for r in results), default=0)
    expected: dict[int, tuple[int, tuple[int, ...]]] = {}
    for driver in drivers:
        own = [r for r in results if r.driver == driver]
        kept = sorted((r.points for r in own), reverse=True)[: best or len(own)]
        expected[driver] = (sum(kept), _countback_by_the_rule(own, deepest))
    for line in lines:
        points, countback = expected[line.driver]
        assert line.points == points  # the K best kept
        assert line.countback == countback
        better = [
            d
            for d, (p, c) in expected.items()
            if p > points or (p == points and c > countback)  # more 1st, then more 2nd…
        ]
        assert line.rank == len(better) + 1  # 1, 2, 2, 4
    assert [line.rank for line in lines] == sorted(line.rank for line in lines)


def test_shared_places_count_the_same_place_and_dns_counts_none():
    """Racetrack or Cannes–Monaco: "a" and "b" shared 2nd place and count one 2nd each;
    "c" did not start and counts nothing; "a" beats "b" on its other 2nd place."""
    results = [
        EventResult(1, "a", 2, "finished", 10, 2),
        EventResult(1, "b", 3, "finished", 10, 2),
        EventResult(1, "c", 4, "dns", 0, None),
        EventResult(2, "a", 2, "finished", 0, 2),
        EventResult(2, "b", 5, "retired", 0, 5),
        EventResult(2, "c", 1, "finished", 20, 1),
    ]
    lines = standings(["a", "b", "c"], results)
    assert [(line.rank, line.driver, line.points, line.countback) for line in lines] == [
        (1, "c", 20, (1, 0, 0, 0, 0)),
        (2, "a", 10, (0, 2, 0, 0, 0)),
        (3, "b", 10, (0, 1, 0, 0, 1)),
    ]


@pytest.mark.parametrize(
    ("mode", "status", "place", "rank", "counted"),
    [
        ("per_table", "finished", 2, 10, 2),  # the place at the table
        ("per_table", "retired", 7, 15, 7),  # a retirement holds its place
        ("per_table", "dns", 8, 16, None),  # a non-starter counts nothing
        ("per_table", "dsq", 8, 40, None),  # nor a disqualified driver (§1-2-3)
        ("overall", "finished", 1, 9, 9),  # table 2's winner behind 8 drivers: rank 9
        ("overall", "retired", 3, 11, 11),
        ("overall", "dns", 8, 16, None),
    ],
)
def test_countback_place_per_mode(mode, status, place, rank, counted):
    assert countback_place(mode=mode, status=status, place=place, rank=rank) == counted


def test_countback_in_overall_mode_counts_day_ranks():
    """Mode overall: "a" won table 2 (day rank 9), "b" was 8th at table 1 (rank 8): equal
    points are broken by the better day rank, not by the table places (1st against 8th)."""
    a = countback_place(mode="overall", status="finished", place=1, rank=9)
    b = countback_place(mode="overall", status="finished", place=8, rank=8)
    lines = standings(
        ["a", "b"],
        [EventResult(1, "a", 1, "finished", 2, a), EventResult(1, "b", 8, "finished", 2, b)],
    )
    assert [line.driver for line in lines] == ["b", "a"]


def test_points_removed_come_off_the_total_after_best_k_and_may_go_below_zero():
    """DOMAIN.md (§1-2-3 sanctions): best-K chooses on what the events scored, so the
    penalised 25 stays counted (not dropped as a worst result); the whole 30 comes off."""
    results = [res(1, "a", 1, 25), res(2, "a", 4, 12), res(3, "a", 2, 18)]
    (line,) = standings(["a"], results, best=2, removed={"a": 30})
    assert (line.points, line.removed, line.counted) == (13, 30, (1, 3))
    lines = standings(["a", "b"], [res(1, "b", 5, 0)], removed={"b": 5})
    assert [(line.driver, line.rank, line.points) for line in lines] == [("a", 1, 0), ("b", 2, -5)]


def test_points_removed_by_a_sanction_never_go_below_zero_for_the_event():
    assert points_after_sanction(10, 3) == 7
    assert points_after_sanction(2, 5) == 0
    assert points_after_sanction(0, 1) == 0
    with pytest.raises(ValueError):
        points_after_sanction(5, -1)


def test_a_disqualified_driver_follows_the_table_scored_without_them():
    """DOMAIN.md "Every game's evening": the table is reclassified without the driver, then
    scored (the lines given); the disqualified follow with status dsq and no points."""
    lines = [
        DayLine("b", 1, 2, 6, "finished", None, None, 9, place=1),
        DayLine("c", 1, 1, 5, "finished", None, None, 12, place=1),
    ]
    out = disqualified_after(lines, ["a"], table=1)
    assert [(x.driver, x.position, x.place, x.status, x.points) for x in out] == [
        ("c", 1, 1, "finished", 12),
        ("b", 2, 1, "finished", 9),
        ("a", 3, 3, "dsq", 0),
    ]


@_settings
@given(seasons(), st.none() | st.integers(1, 4), st.data())
def test_team_points_are_the_sum_of_their_drivers_counted_points(season, best, data):
    drivers, results = season
    lines = standings(drivers, results, best=best)
    team_of = {
        driver: data.draw(st.sampled_from(["red", "blue", "green", None])) for driver in drivers
    }
    teams = team_standings(lines, team_of)
    for team_line in teams:
        expected = sum(line.points for line in lines if team_of[line.driver] == team_line.team)
        assert team_line.points == expected
    assert {line.team for line in teams} == {t for t in team_of.values() if t is not None}
    assert [line.points for line in teams] == sorted((t.points for t in teams), reverse=True)
