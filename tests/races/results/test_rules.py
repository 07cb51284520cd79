"""A table's race result (races/results/rules.py) against the competition rules.

Article numbers refer to rules/formule-de-competition-rules.fr.txt: §2-0-3 the race
sheet (grid, retirements with cause, finishing order), §20 the causes of retirement,
§16-0-6/§20-4-1 an engine failure after the second-to-last corner, §21-1-3 the race
ends when everyone has finished or retired, §21-1-4 crossing order. How retired and
non-starting drivers are classified is a product choice (DOMAIN.md, "Race result and
retirements"). No database: these are plain functions.
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from races.results.rules import (
    CAUSES,
    Placed,
    ResultProblem,
    Retirement,
    TableResult,
    competition_laps_problem,
    result_problems,
    table_classification,
)

GRID = (1, 2, 3, 4, 5, 6)


def result(
    finish: tuple[int, ...] = (),
    retired: tuple[Retirement, ...] = (),
    dns: tuple[int, ...] = (),
) -> TableResult:
    return TableResult(finish=finish, retired=retired, dns=dns)


def problems(res: TableResult, *, complete: bool = True, laps: int = 3) -> list[ResultProblem]:
    return result_problems(res, grid=GRID, laps=laps, complete=complete)


# ---------------------------------------------------------------------------
# result_problems
# ---------------------------------------------------------------------------


def test_complete_result_with_every_grid_driver_once_has_no_problem():
    res = result(
        finish=(3, 1, 5),
        retired=(Retirement(2, "off_track", 1), Retirement(6, "body", 3)),
        dns=(4,),
    )
    assert problems(res) == []


def test_every_cause_of_section_20_is_accepted():
    # §20-1 … §20-5, plus "other" with its note.
    retired = tuple(
        Retirement(driver, cause, 2, "disqualified" if cause == "other" else "")
        for driver, cause in zip(GRID, CAUSES, strict=True)
    )
    assert problems(result(retired=retired)) == []


def test_engine_failure_after_second_to_last_corner_may_still_finish():
    # §16-0-6, §20-4-1: the car reaches the line under inertia; it is a finisher
    # written in the finishing order, with no retirement.
    res = result(finish=(1, 2, 3, 4, 5, 6))
    assert problems(res) == []
    assert all(placed.status == "finished" for placed in table_classification(res))


def test_16_0_6_a_finisher_whose_engine_broke_on_the_last_lap_carries_the_referees_note():
    """§16-0-6 ("Si la casse intervient après l'avant dernier virage ... le pilote pourra
    rallier l'arrivée") and §20-4-1 ("éliminée si la casse intervient avant la fin du
    dernier virage") disagree on the last corner; the referee decides (DOMAIN.md) and the
    sheet records it: a finisher may carry a note; a retirement keeps its own note."""
    note = "Engine broken in the last corner: finisher under §16-0-6"
    res = TableResult(
        finish=(1, 2, 3, 4, 5),
        retired=(Retirement(6, "engine", 3),),
        dns=(),
        notes={2: note},
    )
    assert problems(res) == []
    assert [p.status for p in table_classification(res)][:2] == ["finished", "finished"]
    on_retired = TableResult(finish=(1, 2, 3, 4, 5), retired=res.retired, dns=(), notes={6: "x"})
    assert problems(on_retired) == [ResultProblem("note_not_finisher", 6)]
    too_long = TableResult(finish=(1, 2, 3, 4, 5, 6), retired=(), dns=(), notes={1: "x" * 201})
    assert problems(too_long) == [ResultProblem("note_too_long", 1)]


@given(st.sets(st.sampled_from(GRID)), st.sets(st.sampled_from(GRID)))
def test_a_note_is_accepted_exactly_on_a_finisher(finishers, noted):
    order = tuple(sorted(finishers))
    res = TableResult(
        finish=order, retired=(), dns=tuple(d for d in GRID if d not in finishers),
        notes={driver: "engine" for driver in noted},
    )  # fmt: skip
    assert {p.driver for p in problems(res)} == noted - finishers


def test_driver_not_on_the_grid_is_reported_with_its_section():
    res = result(finish=(1, 9), retired=(Retirement(8, "engine", 2),), dns=(7,))
    found = problems(res, complete=False)
    assert found == [
        ResultProblem("unknown_driver", 9, "finish"),
        ResultProblem("unknown_driver", 8, "retired"),
        ResultProblem("unknown_driver", 7, "dns"),
    ]


def test_driver_written_twice_in_one_section_is_a_duplicate():
    found = problems(result(finish=(1, 2, 1)), complete=False)
    assert found == [ResultProblem("duplicate", 1, "finish,finish")]


def test_driver_written_in_two_sections_is_a_duplicate_reported_once():
    res = result(finish=(1,), retired=(Retirement(1, "engine", 3),), dns=(1,))
    found = problems(res, complete=False)
    assert found == [ResultProblem("duplicate", 1, "finish,retired,dns")]


def test_submitted_result_reports_every_missing_grid_driver_in_grid_order():
    # §21-1-3: the race ends once everyone has crossed the line or retired.
    found = problems(result(finish=(5, 2)), complete=True)
    assert found == [ResultProblem("missing", driver) for driver in (1, 3, 4, 6)]


def test_draft_may_leave_drivers_out():
    assert problems(result(finish=(5, 2)), complete=False) == []


def test_unknown_cause_is_reported_with_the_cause_given():
    bad = Retirement(2, "puncture", 1)  # type: ignore[arg-type]
    found = problems(result(retired=(bad,)), complete=False)
    assert found == [ResultProblem("bad_cause", 2, "puncture")]


@pytest.mark.parametrize("note", ["", "   "])
def test_other_cause_needs_a_note(note: str):
    found = problems(result(retired=(Retirement(2, "other", 1, note),)), complete=False)
    assert found == [ResultProblem("note_required", 2)]


def test_a_note_beyond_200_characters_is_reported():
    long_note = Retirement(2, "other", 1, "n" * 201)
    found = problems(result(retired=(long_note,)), complete=False)
    assert found == [ResultProblem("note_too_long", 2)]
    assert problems(result(retired=(Retirement(2, "other", 1, "n" * 200),)), complete=False) == []


def test_other_cause_with_a_note_is_accepted():
    found = problems(result(retired=(Retirement(2, "other", 1, "withdrawn"),)), complete=False)
    assert found == []


@pytest.mark.parametrize("lap", [0, 4, -1, True])
def test_lap_outside_the_race_is_reported(lap: int):
    # §2-0-3: three laps by default.
    found = problems(result(retired=(Retirement(2, "engine", lap),)), complete=False)
    assert found == [ResultProblem("bad_lap", 2, str(lap))]


def test_lap_follows_the_race_length():
    res = result(retired=(Retirement(2, "engine", 5),))
    assert problems(res, complete=False, laps=5) == []
    assert problems(res, complete=False, laps=1) == [ResultProblem("bad_lap", 2, "5")]


def test_draft_may_leave_a_retirement_lap_blank_but_a_submitted_result_may_not():
    res = result(finish=(1, 3, 4, 5, 6), retired=(Retirement(2, "blocked", None),))
    assert problems(res, complete=False) == []
    assert problems(res, complete=True) == [ResultProblem("bad_lap", 2, "required")]


def test_every_problem_is_reported_at_once():
    res = result(
        finish=(1, 9),
        retired=(
            Retirement(1, "engine", 2),
            Retirement(2, "other", None),
            Retirement(3, "flat", 7),  # type: ignore[arg-type]
        ),
    )
    assert problems(res, complete=True) == [
        ResultProblem("duplicate", 1, "finish,retired"),
        ResultProblem("unknown_driver", 9, "finish"),
        ResultProblem("note_required", 2),
        ResultProblem("bad_lap", 2, "required"),
        ResultProblem("bad_cause", 3, "flat"),
        ResultProblem("bad_lap", 3, "7"),
        ResultProblem("missing", 4),
        ResultProblem("missing", 5),
        ResultProblem("missing", 6),
    ]


def test_bad_race_length_or_grid_is_a_caller_error():
    with pytest.raises(ValueError, match="laps"):
        result_problems(result(), grid=GRID, laps=0, complete=False)
    with pytest.raises(ValueError, match="grid"):
        result_problems(result(), grid=(1, 1), laps=3, complete=False)


# ---------------------------------------------------------------------------
# table_classification
# ---------------------------------------------------------------------------


def test_finishers_are_classified_in_crossing_order():
    # §21-1-4: the order of crossing the line, whatever the square reached.
    placed = table_classification(result(finish=(4, 2, 6)))
    assert [(p.driver, p.position, p.status) for p in placed] == [
        (4, 1, "finished"),
        (2, 2, "finished"),
        (6, 3, "finished"),
    ]


def test_latest_retirement_is_classified_first_and_dns_last():
    # DOMAIN.md: finishers, then retired drivers latest first, then DNS in the order given.
    res = result(
        finish=(3, 1),
        retired=(
            Retirement(5, "off_track", 1),
            Retirement(2, "engine", 2),
            Retirement(6, "road_holding", 3),
        ),
        dns=(4, 7),
    )
    assert table_classification(res) == [
        Placed(3, 1, "finished", None, None),
        Placed(1, 2, "finished", None, None),
        Placed(6, 3, "retired", "road_holding", 3),
        Placed(2, 4, "retired", "engine", 2),
        Placed(5, 5, "retired", "off_track", 1),
        Placed(4, 6, "dns", None, None),
        Placed(7, 7, "dns", None, None),
    ]


def test_retirements_follow_the_order_recorded_not_the_laps():
    # Two retirements in the same lap: only the recorded order tells them apart.
    res = result(retired=(Retirement(1, "body", 2), Retirement(2, "body", 2)))
    assert [p.driver for p in table_classification(res)] == [2, 1]


def test_classification_refuses_a_driver_written_twice():
    with pytest.raises(ValueError, match="twice"):
        table_classification(result(finish=(1,), dns=(1,)))


def test_empty_result_has_an_empty_classification():
    assert table_classification(result()) == []


# ---------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------


@st.composite
def table_results(draw: st.DrawFn) -> TableResult:
    drivers = draw(st.lists(st.integers(1, 99), unique=True, max_size=12))
    drivers = draw(st.permutations(drivers))
    finishers = draw(st.integers(0, len(drivers)))
    retired_count = draw(st.integers(0, len(drivers) - finishers))
    cut = finishers + retired_count
    # Written in the order they happened: the laps given never go down (some may wait).
    laps = draw(st.lists(st.none() | st.integers(1, 3), min_size=cut - finishers))
    given_laps = iter(sorted(lap for lap in laps if lap is not None))
    laps = [None if lap is None else next(given_laps) for lap in laps]
    retired = tuple(
        Retirement(driver, draw(st.sampled_from(CAUSES)), lap, "note")
        for driver, lap in zip(drivers[finishers:cut], laps, strict=False)
    )
    return TableResult(tuple(drivers[:finishers]), retired, tuple(drivers[cut:]))


_settings = settings(max_examples=150, deadline=None)


@_settings
@given(table_results())
def test_classification_positions_are_contiguous_and_every_driver_once(res: TableResult):
    placed = table_classification(res)
    written = [*res.finish, *(r.driver for r in res.retired), *res.dns]
    assert [p.position for p in placed] == list(range(1, len(written) + 1))
    assert Counter(p.driver for p in placed) == Counter(written)


@_settings
@given(table_results())
def test_classification_statuses_come_in_order(res: TableResult):
    order = {"finished": 0, "retired": 1, "dns": 2}
    statuses = [order[p.status] for p in table_classification(res)]
    assert statuses == sorted(statuses)


@_settings
@given(table_results())
def test_a_well_formed_draft_has_no_problem(res: TableResult):
    grid = [*res.finish, *(r.driver for r in res.retired), *res.dns, 100]
    assert result_problems(res, grid=grid, laps=3, complete=False) == []
    missing = result_problems(res, grid=grid, laps=3, complete=True)
    assert ResultProblem("missing", 100) in missing


def test_retirement_laps_never_go_down_along_the_list():
    """DOMAIN.md "What the day enforces": retirements are listed in the order they
    happened (§2-0-3), so a lap-1 retirement written after a lap-2 one is refused, naming
    it and the lap before; equal laps and a lap still blank in a draft are fine."""
    res = result(
        finish=(1,),
        retired=(
            Retirement(2, "engine", 2),
            Retirement(3, "body", 2),
            Retirement(4, "off_track", 1),
            Retirement(5, "blocked", None),
        ),
        dns=(6,),
    )
    assert problems(res, complete=False) == [ResultProblem("lap_order", 4, "2")]
    fixed = result(
        finish=(1,),
        retired=(Retirement(4, "off_track", 1), Retirement(2, "engine", 2)),
        dns=(3, 5, 6),
    )
    assert problems(fixed) == []


@_settings
@given(st.lists(st.integers(1, 3), min_size=1, max_size=8))
def test_a_lap_order_problem_exactly_where_a_lap_goes_down(laps: list[int]):
    drivers = list(range(1, len(laps) + 1))
    res = result(
        retired=tuple(Retirement(d, "engine", lap) for d, lap in zip(drivers, laps, strict=True))
    )
    found = [p for p in result_problems(res, grid=drivers, laps=3, complete=True)]
    expected = [
        ResultProblem("lap_order", drivers[i], str(max(laps[:i])))
        for i in range(1, len(laps))
        if laps[i] < max(laps[:i])
    ]
    assert found == expected


def test_2_0_3_a_competition_race_is_three_laps():
    """§2-0-3 « La course se déroule sur trois tours de circuit » (and §0-0-1)."""
    assert competition_laps_problem(3, 7) is None  # the event's own 3 laps win
    assert competition_laps_problem(7, 3) == "laps"
    assert competition_laps_problem(None, 3) is None  # the circuit's 3 laps
    assert competition_laps_problem(None, 2) == "circuit_laps"


@_settings
@given(st.none() | st.integers(1, 20), st.none() | st.integers(1, 20))
def test_a_competition_race_is_accepted_exactly_when_it_runs_3_laps(laps, circuit_laps):
    race = laps if laps is not None else circuit_laps
    assert (competition_laps_problem(laps, circuit_laps) is None) == (race in (None, 3))
