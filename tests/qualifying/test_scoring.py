"""Qualifying arithmetic (qualifying/scoring.py) against the competition rules.

Article numbers refer to rules/formule-de-competition-rules.fr.txt; the draw refers
to rules/formule-de-quick-rules.fr.txt §2. No database: these are plain functions.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Iterable, Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from qualifying.scoring import (
    Breakdown,
    DrawOutcome,
    GeneralRow,
    Mode,
    RunResult,
    Track,
    Tyres,
    Weather,
    absolute_time,
    classify_general,
    classify_session,
    draw_standing,
    qualifying_track,
    resolve_draw,
    roll_d20,
    run_sort_key,
    tyre_factor,
)
from tournament.rules.scales import ScaleProblem, WeatherScale
from tournament.rules.stopwatch import (
    StopwatchError,
    format_stopwatch,
    full_minutes,
    parse_stopwatch,
)

# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def run(
    driver: int,
    order: int,
    absolute: int | None = None,
    stopwatch: int | None = None,
    *,
    session: int = 1,
    eliminated: bool = False,
) -> RunResult:
    return RunResult(
        driver=driver,
        session=session,
        eliminated=eliminated,
        absolute=absolute,
        stopwatch_cs=stopwatch,
        order=(order,),
    )


def out(driver: int, order: int, *, session: int = 1) -> RunResult:
    return run(driver, order, session=session, eliminated=True)


def scripted(*values: int) -> Callable[[], int]:
    """A roll function that plays back fixed values and fails when exhausted."""
    remaining = list(values)

    def roll() -> int:
        assert remaining, "the draw asked for more rolls than the test scripted"
        return remaining.pop(0)

    roll.remaining = remaining  # type: ignore[attr-defined]
    return roll


def never() -> int:
    raise AssertionError("the draw should not roll any die here")


# ---------------------------------------------------------------------------
# Stopwatch
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "centiseconds"),
    [
        ("1:45", 10500),
        ("1:45.20", 10520),
        ("1:45.2", 10520),  # one digit is tenths
        ("1:45.02", 10502),
        ("1:45,20", 10520),  # French decimal comma
        ("1'45\"20", 10520),
        ("1'45''20", 10520),  # two apostrophes, as typed on phones
        ("1'45", 10500),
        ("1'45\"", 10500),
        ("1\u201945\u201d20", 10520),  # phone autocorrect: ’ and ”
        ("45.20", 4520),
        ("45,5", 4550),
        ("45", 4500),
        ("7", 700),
        ("0:59.99", 5999),
        ("0:00", 0),
        ("12:00", 72000),
        ("125:30.01", 753001),  # minutes are not capped
        ("  1:45.20 \t", 10520),
        # A number pad has no colon: three groups are minutes, seconds, hundredths.
        ("1.48.20", 10820),
        ("1,48,20", 10820),
        ("1 48 20", 10820),
        ("1.48,2", 10820),
        ("1 45", 10500),  # two groups split by a space: minutes and seconds
        ("12.05.00", 72500),
    ],
)
def test_parse_stopwatch_reads_every_accepted_format(text: str, centiseconds: int) -> None:
    assert parse_stopwatch(text) == centiseconds


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "-1:00",
        "-45",
        "abc",
        "1:4a",
        "1:75",  # seconds above 59
        "1:60",
        "60",  # seconds without minutes must stay below a minute
        "1:5",  # one-digit seconds after minutes
        "1'5",
        "1:45.123",  # more than two decimals
        "1:45.",
        "1:45,",
        "1::45",
        "1:45:20",
        ":45",
        "1h45",
        "1 4",
        "1.75.20",  # seconds above 59 in three groups
        "1..48.20",
        "1:45.2.0",
        "145",
        "\u0664\u0665",  # Arabic-Indic digits are not stopwatch digits
    ],
)
def test_parse_stopwatch_refuses_bad_input(text: str) -> None:
    with pytest.raises(StopwatchError):
        parse_stopwatch(text)


def test_stopwatch_error_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        parse_stopwatch("1:75")


@pytest.mark.parametrize(
    ("centiseconds", "text"),
    [(10520, "1:45.20"), (5999, "0:59.99"), (0, "0:00.00"), (6000, "1:00.00"), (72005, "12:00.05")],
)
def test_format_stopwatch_is_always_minutes_seconds_hundredths(
    centiseconds: int, text: str
) -> None:
    assert format_stopwatch(centiseconds) == text


def test_format_stopwatch_refuses_negative_time() -> None:
    with pytest.raises(ValueError):
        format_stopwatch(-1)


@given(st.integers(min_value=0, max_value=200 * 6000))
def test_stopwatch_format_parse_round_trip(centiseconds: int) -> None:
    text = format_stopwatch(centiseconds)
    assert parse_stopwatch(text) == centiseconds
    assert format_stopwatch(parse_stopwatch(text)) == text


@given(
    st.integers(min_value=0, max_value=200),
    st.integers(min_value=0, max_value=59),
    st.integers(min_value=0, max_value=99),
    st.sampled_from([":{s:02d}.{c:02d}", ":{s:02d},{c:02d}", "'{s:02d}\"{c:02d}"]),
)
def test_parse_stopwatch_reads_any_valid_time(m: int, s: int, c: int, template: str) -> None:
    assert parse_stopwatch(f"{m}" + template.format(s=s, c=c)) == (m * 60 + s) * 100 + c


# ---------------------------------------------------------------------------
# Absolute time §1-1-10 … §1-1-13, tyres §8
# ---------------------------------------------------------------------------


def hard_dry(**changes: object) -> Breakdown:
    values: dict[str, object] = {
        "throws": 20,
        "placement_errors": 0,
        "exit_squares": 0,
        "tyres": "hard",
        "track": "dry",
        "stopwatch_cs": 4500,
    }
    values.update(changes)
    return absolute_time(**values)  # type: ignore[arg-type]  # a test-only shortcut


def test_throws_counted_are_the_base_of_absolute_time_1_1_10() -> None:
    assert hard_dry(throws=23) == Breakdown(throws=23, placement=0, corner_exits=0, minutes=0)
    assert hard_dry(throws=23).total == 23


def test_placement_error_costs_ten_throws_1_1_11() -> None:
    assert hard_dry(placement_errors=1).placement == 10
    assert hard_dry(placement_errors=3).total == 20 + 30


def test_corner_exit_square_costs_one_throw_on_hard_tyres_dry_1_1_12_8_1_1() -> None:
    assert hard_dry(exit_squares=3).corner_exits == 3
    assert hard_dry(exit_squares=3).total == 23


def test_corner_exit_square_costs_one_throw_on_hard_tyres_wet_8_1_2() -> None:
    assert hard_dry(exit_squares=3, track="wet").corner_exits == 3


def test_soft_tyres_double_corner_exits_on_a_dry_track_8_2_1() -> None:
    assert hard_dry(exit_squares=3, tyres="soft").corner_exits == 6


def test_soft_tyres_double_corner_exits_on_a_wet_track_8_2_2() -> None:
    assert hard_dry(exit_squares=3, tyres="soft", track="wet").corner_exits == 6


def test_rain_tyres_double_corner_exits_on_a_dry_track_8_3_1() -> None:
    assert hard_dry(exit_squares=3, tyres="rain").corner_exits == 6


def test_rain_tyres_are_normal_on_a_wet_track_8_3_2() -> None:
    assert hard_dry(exit_squares=3, tyres="rain", track="wet").corner_exits == 3


@pytest.mark.parametrize(
    ("tyres", "track", "factor"),
    [
        ("hard", "dry", 1),
        ("soft", "dry", 2),
        ("rain", "dry", 2),
        ("hard", "wet", 1),
        ("soft", "wet", 2),
        ("rain", "wet", 1),
    ],
)
def test_tyre_factor_for_the_first_lap_8(tyres: Tyres, track: Track, factor: int) -> None:
    assert tyre_factor(tyres, track) == factor


@pytest.mark.parametrize(("tyres", "track"), [("slick", "dry"), ("hard", "damp"), ("", "")])
def test_tyre_factor_refuses_unknown_tyres_or_track(tyres: str, track: str) -> None:
    with pytest.raises(ValueError):
        tyre_factor(tyres, track)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("centiseconds", "minutes"),
    [(0, 0), (5999, 0), (6000, 1), (11999, 1), (12000, 2), (12500, 2), (60 * 6000, 60)],
)
def test_full_minutes_counts_only_whole_minutes_1_1_13(centiseconds: int, minutes: int) -> None:
    assert full_minutes(centiseconds) == minutes


def test_just_under_a_minute_adds_nothing_1_1_13() -> None:
    assert hard_dry(stopwatch_cs=parse_stopwatch("0:59.99")).minutes == 0


def test_each_full_minute_adds_one_throw_1_1_13() -> None:
    assert hard_dry(stopwatch_cs=parse_stopwatch("1:00.00")).minutes == 1
    assert hard_dry(stopwatch_cs=parse_stopwatch("2:05")).total == 22


def test_minute_penalty_off_adds_nothing_1_1_13() -> None:
    breakdown = hard_dry(stopwatch_cs=parse_stopwatch("2:05"), minute_penalty=False)
    assert breakdown.minutes == 0
    assert breakdown.total == 20


def test_absolute_time_adds_all_four_parts_1_1_10_to_1_1_13() -> None:
    breakdown = absolute_time(
        throws=21,
        placement_errors=1,
        exit_squares=2,
        tyres="soft",
        track="dry",
        stopwatch_cs=parse_stopwatch("1:45.20"),
    )
    assert breakdown == Breakdown(throws=21, placement=10, corner_exits=4, minutes=1)
    assert breakdown.total == 36


@pytest.mark.parametrize("field", ["throws", "placement_errors", "exit_squares", "stopwatch_cs"])
def test_absolute_time_refuses_negative_inputs(field: str) -> None:
    with pytest.raises(ValueError):
        hard_dry(**{field: -1})


def test_absolute_time_refuses_unknown_tyres() -> None:
    with pytest.raises(ValueError):
        hard_dry(tyres="slick")


@given(
    throws=st.integers(0, 200),
    placement_errors=st.integers(0, 10),
    exit_squares=st.integers(0, 30),
    tyres=st.sampled_from(["hard", "soft", "rain"]),
    track=st.sampled_from(["dry", "wet"]),
    stopwatch_cs=st.integers(0, 30 * 6000),
    minute_penalty=st.booleans(),
)
def test_breakdown_parts_add_up_to_the_total(
    throws: int,
    placement_errors: int,
    exit_squares: int,
    tyres: Tyres,
    track: Track,
    stopwatch_cs: int,
    minute_penalty: bool,
) -> None:
    breakdown = absolute_time(
        throws=throws,
        placement_errors=placement_errors,
        exit_squares=exit_squares,
        tyres=tyres,
        track=track,
        stopwatch_cs=stopwatch_cs,
        minute_penalty=minute_penalty,
    )
    parts = breakdown.throws + breakdown.placement + breakdown.corner_exits + breakdown.minutes
    assert breakdown.total == parts
    expected_minutes = stopwatch_cs // 6000 if minute_penalty else 0
    factor = tyre_factor(tyres, track)
    assert parts == throws + 10 * placement_errors + exit_squares * factor + expected_minutes


# ---------------------------------------------------------------------------
# Weather §3-0, §3-1
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("weather", "track"), [("sun", "dry"), ("variable", "dry"), ("rain", "wet")]
)
def test_qualifying_track_follows_the_weather_3_1_2_to_3_1_4(
    weather: Weather, track: Track
) -> None:
    assert qualifying_track(weather) == track


def test_qualifying_track_refuses_unknown_weather() -> None:
    with pytest.raises(ValueError):
        qualifying_track("snow")  # type: ignore[arg-type]


VALID_SCALE = WeatherScale(rain=(1, 4), variable=(5, 8), sun=(9, 20))


def test_weather_scale_covering_1_to_20_once_has_no_problem_3_0_3() -> None:
    assert VALID_SCALE.problems() == []
    assert WeatherScale(sun=(1, 12), variable=(13, 16), rain=(17, 20)).problems() == []


@pytest.mark.parametrize(
    ("roll", "weather"),
    [(1, "rain"), (4, "rain"), (5, "variable"), (8, "variable"), (9, "sun"), (20, "sun")],
)
def test_weather_for_reads_the_d20_against_the_scale_3_1_1(roll: int, weather: Weather) -> None:
    assert VALID_SCALE.weather_for(roll) == weather


@pytest.mark.parametrize("roll", [0, 21, -3])
def test_weather_for_refuses_a_roll_outside_the_d20(roll: int) -> None:
    with pytest.raises(ValueError):
        VALID_SCALE.weather_for(roll)


def test_weather_for_refuses_an_invalid_scale_3_0_3() -> None:
    with pytest.raises(ValueError):
        WeatherScale(rain=(1, 4), variable=(5, 8), sun=(10, 20)).weather_for(15)


def test_weather_scale_reports_missing_faces_3_0_3() -> None:
    scale = WeatherScale(rain=(1, 3), variable=(6, 8), sun=(10, 20))
    assert scale.problems() == [ScaleProblem("missing", None, (4, 5, 9))]


def test_weather_scale_reports_overlapping_faces_3_0_3() -> None:
    scale = WeatherScale(rain=(1, 5), variable=(4, 10), sun=(10, 20))
    assert scale.problems() == [ScaleProblem("overlap", None, (4, 5, 10))]


def test_weather_scale_reports_a_reversed_range_3_0_3() -> None:
    scale = WeatherScale(rain=(1, 4), variable=(8, 5), sun=(9, 20))
    assert scale.problems() == [
        ScaleProblem("bad_range", "variable", ()),
        ScaleProblem("missing", None, (5, 6, 7, 8)),
    ]


@pytest.mark.parametrize(
    ("scale", "name"),
    [
        (WeatherScale(rain=(0, 4), variable=(5, 8), sun=(9, 20)), "rain"),
        (WeatherScale(rain=(1, 4), variable=(5, 8), sun=(9, 21)), "sun"),
    ],
)
def test_weather_scale_reports_a_range_outside_the_d20_3_0_3(
    scale: WeatherScale, name: str
) -> None:
    assert scale.problems() == [ScaleProblem("bad_range", name, ())]


def test_weather_scale_reports_missing_and_overlap_together() -> None:
    scale = WeatherScale(rain=(1, 6), variable=(5, 8), sun=(12, 20))
    assert scale.problems() == [
        ScaleProblem("missing", None, (9, 10, 11)),
        ScaleProblem("overlap", None, (5, 6)),
    ]


def test_roll_d20_gives_every_face_and_nothing_else_0_0_5() -> None:
    faces = {roll_d20() for _ in range(2000)}
    assert faces == set(range(1, 21))


# ---------------------------------------------------------------------------
# Session classification §1-3-2, §1-1-14
# ---------------------------------------------------------------------------


def ranked_drivers(runs: Iterable[RunResult]) -> list[Hashable]:
    return [ranked.run.driver for ranked in classify_session(runs)]


def test_lowest_absolute_time_ranks_first_1_3_2() -> None:
    runs = [run(1, 1, 30, 9000), run(2, 2, 25, 11000), run(3, 3, 28, 8000)]
    assert ranked_drivers(runs) == [2, 3, 1]
    assert [r.rank for r in classify_session(runs)] == [1, 2, 3]


def test_equal_absolute_time_is_broken_by_the_stopwatch_1_3_2() -> None:
    runs = [run(1, 1, 25, 9500), run(2, 2, 25, 9400)]
    assert ranked_drivers(runs) == [2, 1]


def test_perfect_tie_goes_to_the_run_performed_first_1_3_2() -> None:
    runs = [run(1, 5, 25, 9400), run(2, 3, 25, 9400), run(3, 4, 25, 9400)]
    assert ranked_drivers(runs) == [2, 3, 1]


def test_order_is_compared_as_given_by_the_caller_1_3_2() -> None:
    early = RunResult(1, 1, False, 25, 9400, ("2024-05-01T10:00", 7))
    late = RunResult(2, 1, False, 25, 9400, ("2024-05-01T10:05", 3))
    assert ranked_drivers([late, early]) == [1, 2]


def test_eliminated_runs_rank_last_in_order_performed_1_1_14() -> None:
    runs = [
        out(1, 4),
        run(2, 5, 60, 30000),
        out(3, 1),
        run(4, 2, 20, 5000),
        out(5, 3),
    ]
    assert ranked_drivers(runs) == [4, 2, 3, 5, 1]


def test_eliminated_run_ignores_any_noted_time_1_1_14() -> None:
    eliminated = RunResult(1, 1, True, 5, 1000, (1,))
    assert ranked_drivers([eliminated, run(2, 2, 90, 90000)]) == [2, 1]


def test_run_sort_key_puts_eliminated_after_any_time_1_1_14() -> None:
    assert run_sort_key(run(1, 9, 999, 999999)) < run_sort_key(out(2, 0))


def test_counted_run_without_times_is_refused() -> None:
    with pytest.raises(ValueError):
        run(1, 1, None, 9000)
    with pytest.raises(ValueError):
        run(1, 1, 25, None)
    with pytest.raises(ValueError):
        run(1, 1, -1, 9000)


def test_classify_session_of_no_run_is_empty() -> None:
    assert classify_session([]) == []


@st.composite
def session_runs(draw: st.DrawFn) -> list[RunResult]:
    size = draw(st.integers(0, 12))
    # Distinct orders: two runs cannot be performed at the same moment.
    orders = draw(st.permutations(range(size)))
    runs = []
    for driver, order in enumerate(orders):
        if draw(st.booleans()) and draw(st.booleans()):
            runs.append(out(driver, order))
        else:
            # Small ranges make ties on absolute and stopwatch common.
            runs.append(run(driver, order, draw(st.integers(18, 22)), draw(st.integers(0, 3))))
    return runs


@given(session_runs())
def test_session_classification_is_a_total_order_1_3_2(runs: list[RunResult]) -> None:
    ranked = classify_session(runs)
    assert [r.rank for r in ranked] == list(range(1, len(runs) + 1))
    assert sorted(r.run.driver for r in ranked) == sorted(r.driver for r in runs)  # type: ignore[type-var]  # ints
    keys = [run_sort_key(r.run) for r in ranked]
    assert all(a < b for a, b in zip(keys, keys[1:], strict=False))


@given(session_runs(), st.randoms())
def test_session_classification_ignores_input_order(
    runs: list[RunResult], rnd: random.Random
) -> None:
    shuffled = list(runs)
    rnd.shuffle(shuffled)
    assert classify_session(shuffled) == classify_session(runs)


@given(session_runs())
def test_eliminated_runs_always_follow_counted_runs_1_1_14(runs: list[RunResult]) -> None:
    flags = [r.run.eliminated for r in classify_session(runs)]
    assert flags == sorted(flags)
    eliminated = [r.run for r in classify_session(runs) if r.run.eliminated]
    assert [r.order for r in eliminated] == sorted(r.order for r in eliminated)


# ---------------------------------------------------------------------------
# General classification, mode "best"
# ---------------------------------------------------------------------------


def general(
    runs: list[RunResult],
    drivers: list[int],
    mode: Mode = "best",
    sessions: Sequence[int] = (1, 2),
) -> list[GeneralRow]:
    return classify_general(drivers=drivers, sessions=sessions, runs=runs, mode=mode)


def summary(rows: list[GeneralRow]) -> list[tuple[object, ...]]:
    return [(r.rank, r.driver, r.status, r.absolute, r.stopwatch_cs, r.session) for r in rows]


def test_best_mode_counts_each_drivers_best_run_1_3_2() -> None:
    runs = [
        run(1, 1, 30, 9000, session=1),
        run(2, 2, 27, 9000, session=1),
        run(1, 3, 25, 9900, session=2),
        run(2, 4, 29, 8000, session=2),
    ]
    assert summary(general(runs, [1, 2])) == [
        (1, 1, "ok", 25, 9900, 2),
        (2, 2, "ok", 27, 9000, 1),
    ]


def test_best_mode_breaks_ties_by_stopwatch_then_order_performed_1_3_2() -> None:
    runs = [
        run(1, 5, 25, 9000, session=2),
        run(2, 1, 25, 9100, session=1),
        run(3, 2, 25, 9000, session=1),
    ]
    assert [r.driver for r in general(runs, [1, 2, 3])] == [3, 1, 2]


def test_best_mode_prefers_a_counted_run_to_an_eliminated_one_1_1_14() -> None:
    runs = [out(1, 1, session=1), run(1, 3, 40, 20000, session=2), run(2, 2, 20, 5000)]
    rows = general(runs, [1, 2])
    assert summary(rows) == [(1, 2, "ok", 20, 5000, 1), (2, 1, "ok", 40, 20000, 2)]


def test_best_mode_puts_drivers_eliminated_everywhere_after_all_others_1_1_14() -> None:
    runs = [
        out(1, 1, session=1),
        out(1, 6, session=2),
        run(2, 5, 99, 99000, session=2),
        out(3, 2, session=2),  # eliminated, but first run after driver 1's
        out(4, 0, session=2),
    ]
    assert summary(general(runs, [3, 1, 2, 4])) == [
        (1, 2, "ok", 99, 99000, 2),
        (2, 4, "eliminated", None, None, 2),
        (3, 1, "eliminated", None, None, 1),
        (4, 3, "eliminated", None, None, 2),
    ]


def test_best_mode_puts_drivers_without_a_run_last_in_registration_order() -> None:
    runs = [out(5, 1), run(2, 2, 30, 9000)]
    assert summary(general(runs, [9, 5, 7, 2, 8])) == [
        (1, 2, "ok", 30, 9000, 1),
        (2, 5, "eliminated", None, None, 1),
        (3, 9, "no_run", None, None, None),
        (4, 7, "no_run", None, None, None),
        (5, 8, "no_run", None, None, None),
    ]


def test_unregistered_driver_with_runs_is_still_classified() -> None:
    runs = [run(42, 1, 30, 9000), run(1, 2, 31, 9000), out(43, 3), out(44, 0)]
    rows = general(runs, [1, 2])
    assert [(r.driver, r.status) for r in rows] == [
        (42, "ok"),
        (1, "ok"),
        (44, "eliminated"),
        (43, "eliminated"),
        (2, "no_run"),
    ]


def test_colliding_order_keys_fall_back_to_registration_order() -> None:
    runs = [run(1, 1, 25, 9000), run(2, 1, 25, 9000), out(3, 2), out(4, 2)]
    expected = [2, 1, 4, 3]
    assert [r.driver for r in general(runs, [2, 1, 4, 3])] == expected
    assert [r.driver for r in general(runs[::-1], [2, 1, 4, 3])] == expected


def test_general_row_lists_the_drivers_runs_in_order_performed() -> None:
    first, second = run(1, 1, 30, 9000, session=2), run(1, 7, 28, 9000, session=1)
    (row,) = general([second, first], [1])
    assert row.runs == (first, second)


def test_no_run_row_has_no_runs() -> None:
    (row,) = general([], [1])
    assert (row.rank, row.status, row.runs) == (1, "no_run", ())


def test_two_runs_in_one_session_are_refused() -> None:
    with pytest.raises(ValueError):
        general([run(1, 1, 30, 9000), run(1, 2, 28, 9000)], [1])
    with pytest.raises(ValueError):
        general([run(1, 1, 30, 9000), out(1, 2)], [1], mode="sum", sessions=[1])


def test_unknown_mode_is_refused() -> None:
    with pytest.raises(ValueError):
        general([], [1], mode="average")  # type: ignore[arg-type]


def test_a_driver_registered_twice_is_refused() -> None:
    with pytest.raises(ValueError):
        general([], [1, 2, 1])


# ---------------------------------------------------------------------------
# General classification, mode "sum"
# ---------------------------------------------------------------------------


def test_sum_mode_adds_absolute_and_stopwatch_times() -> None:
    runs = [
        run(1, 1, 30, 9000, session=1),
        run(2, 2, 25, 9000, session=1),
        run(1, 3, 25, 9000, session=2),
        run(2, 4, 31, 9000, session=2),
    ]
    assert summary(general(runs, [1, 2], mode="sum")) == [
        (1, 1, "ok", 55, 18000, None),
        (2, 2, "ok", 56, 18000, None),
    ]


def test_sum_mode_breaks_ties_by_stopwatch_sum_then_earlier_last_run() -> None:
    runs = [
        # Driver 1: same sums as driver 3, but its last run came later.
        run(1, 1, 25, 9000, session=1),
        run(1, 6, 25, 9000, session=2),
        # Driver 2: same absolute sum, slower stopwatch sum.
        run(2, 2, 25, 9000, session=1),
        run(2, 4, 25, 9001, session=2),
        # Driver 3: its last run is earlier than driver 1's, its first is later.
        run(3, 3, 25, 9000, session=1),
        run(3, 5, 25, 9000, session=2),
    ]
    assert [r.driver for r in general(runs, [1, 2, 3], mode="sum")] == [3, 1, 2]


def test_sum_mode_classes_every_status_in_turn() -> None:
    runs = [
        # Driver 1: ok but slow.
        run(1, 10, 40, 12000, session=1),
        run(1, 20, 40, 12000, session=2),
        # Driver 2: eliminated in session 2 despite a great session 1.
        run(2, 30, 10, 3000, session=1),
        out(2, 40, session=2),
        # Driver 3: missed session 2, fast partial.
        run(3, 0, 12, 3000, session=1),
        # Driver 4: eliminated in session 1, first run earlier than driver 2's.
        out(4, 15, session=1),
        # Driver 5: missed session 1.
        run(5, 50, 11, 3000, session=2),
    ]
    assert summary(general(runs, [6, 5, 4, 3, 2, 1], mode="sum")) == [
        (1, 1, "ok", 80, 24000, None),
        (2, 4, "eliminated", None, None, None),
        (3, 2, "eliminated", None, None, None),
        (4, 5, "incomplete", 11, 3000, None),
        (5, 3, "incomplete", 12, 3000, None),
        (6, 6, "no_run", None, None, None),
    ]


def test_sum_mode_ranks_incomplete_drivers_by_sessions_run_first() -> None:
    runs = [
        run(1, 1, 10, 3000, session=1),  # one session, tiny partial sum
        run(2, 2, 40, 12000, session=1),
        run(2, 3, 40, 12000, session=2),  # two sessions out of three
        run(3, 4, 40, 12000, session=3),  # one session, larger than driver 1
    ]
    rows = general(runs, [1, 2, 3], mode="sum", sessions=(1, 2, 3))
    assert summary(rows) == [
        (1, 2, "incomplete", 80, 24000, None),
        (2, 1, "incomplete", 10, 3000, None),
        (3, 3, "incomplete", 40, 12000, None),
    ]


def test_sum_mode_refuses_a_run_outside_the_classified_sessions() -> None:
    with pytest.raises(ValueError):
        general([run(1, 1, 30, 9000, session=3)], [1], mode="sum", sessions=(1, 2))


@st.composite
def event_runs(draw: st.DrawFn) -> tuple[list[int], list[RunResult]]:
    registered = draw(st.lists(st.integers(0, 9), unique=True, max_size=8))
    slots = draw(
        st.lists(
            st.tuples(st.integers(0, 11), st.sampled_from([1, 2, 3])),
            unique=True,
            max_size=20,
        )
    )
    orders = draw(st.permutations(range(len(slots))))
    runs = []
    for (driver, session), order in zip(slots, orders, strict=True):
        if draw(st.integers(0, 4)) == 0:
            runs.append(out(driver, order, session=session))
        else:
            absolute, stopwatch = draw(st.integers(18, 21)), draw(st.integers(0, 2))
            runs.append(run(driver, order, absolute, stopwatch, session=session))
    return registered, runs


STATUS_RANK = {"ok": 0, "eliminated": 1, "incomplete": 2, "no_run": 3}


@given(event_runs(), st.sampled_from(["best", "sum"]))
def test_general_classification_lists_every_driver_exactly_once(
    event: tuple[list[int], list[RunResult]], mode: Mode
) -> None:
    registered, runs = event
    rows = general(runs, registered, mode=mode, sessions=(1, 2, 3))
    expected = set(registered) | {r.driver for r in runs}
    assert sorted(r.driver for r in rows) == sorted(expected)
    assert [r.rank for r in rows] == list(range(1, len(expected) + 1))
    assert sum(len(r.runs) for r in rows) == len(runs)
    statuses = [STATUS_RANK[r.status] for r in rows]
    assert statuses == sorted(statuses)
    if mode == "best":
        assert "incomplete" not in {r.status for r in rows}
    for row in rows:
        assert all(r.driver == row.driver for r in row.runs)
        assert (row.status == "no_run") == (row.runs == ())
        assert (row.absolute is None) == (row.status in ("eliminated", "no_run"))


@given(event_runs(), st.sampled_from(["best", "sum"]), st.randoms())
def test_general_classification_ignores_the_order_runs_are_given_in(
    event: tuple[list[int], list[RunResult]], mode: Mode, rnd: random.Random
) -> None:
    registered, runs = event
    shuffled = list(runs)
    rnd.shuffle(shuffled)
    assert general(shuffled, registered, mode=mode, sessions=(1, 2, 3)) == general(
        runs, registered, mode=mode, sessions=(1, 2, 3)
    )


@given(event_runs())
def test_best_mode_row_matches_the_drivers_best_session_result(
    event: tuple[list[int], list[RunResult]],
) -> None:
    registered, runs = event
    for row in general(runs, registered, sessions=(1, 2, 3)):
        if row.status == "ok":
            best = classify_session(row.runs)[0].run
            assert (row.absolute, row.stopwatch_cs, row.session) == (
                best.absolute,
                best.stopwatch_cs,
                best.session,
            )


# ---------------------------------------------------------------------------
# Quick-rules draw §2
# ---------------------------------------------------------------------------


def test_lowest_roll_takes_pole_quick_rules_2() -> None:
    outcome = resolve_draw({"a": [14], "b": [3], "c": [20], "d": [7]}, system=(), roll=never)
    assert outcome == DrawOutcome(
        order=["b", "d", "a", "c"],
        rolls={"a": (14,), "b": (3,), "c": (20,), "d": (7,)},
        pending_ties=[],
    )


def test_system_driver_without_a_roll_gets_one() -> None:
    outcome = resolve_draw({"a": [10], "s": []}, system={"s"}, roll=scripted(4))
    assert outcome.order == ["s", "a"]
    assert outcome.rolls["s"] == (4,)


def test_physical_tie_waits_for_re_rolls_in_place() -> None:
    outcome = resolve_draw({"a": [9], "b": [5], "c": [5], "d": [12]}, system=(), roll=never)
    # The tied pair keeps its place between pole (none here) and "a".
    assert outcome.order == ["b", "c", "a", "d"]
    assert outcome.pending_ties == [["b", "c"]]


def test_physical_tie_is_settled_by_recorded_re_rolls() -> None:
    outcome = resolve_draw({"a": [9], "b": [5, 17], "c": [5, 2]}, system=(), roll=never)
    assert outcome.order == ["c", "b", "a"]
    assert outcome.pending_ties == []


def test_system_tie_is_re_rolled_among_tied_drivers_only() -> None:
    roll = scripted(15, 8)
    outcome = resolve_draw({"a": [6], "x": [6], "y": [2]}, system={"a", "x", "y"}, roll=roll)
    assert outcome.order == ["y", "x", "a"]
    assert outcome.rolls == {"a": (6, 15), "x": (6, 8), "y": (2,)}
    assert outcome.pending_ties == []


def test_system_tie_rolls_again_until_settled() -> None:
    # Three-way tie; the re-roll ties two of them again, who roll a third time.
    roll = scripted(11, 4, 11, 9, 3)
    outcome = resolve_draw({"p": [1], "q": [1], "r": [1]}, system={"p", "q", "r"}, roll=roll)
    assert outcome.order == ["q", "r", "p"]
    assert outcome.rolls == {"p": (1, 11, 9), "q": (1, 4), "r": (1, 11, 3)}
    assert roll.remaining == []  # type: ignore[attr-defined]


def test_mixed_tie_waits_for_the_physical_re_roll_before_rolling_the_system() -> None:
    outcome = resolve_draw({"phys": [5], "sys": [5], "z": [1]}, system={"sys"}, roll=never)
    assert outcome.order == ["z", "phys", "sys"]
    assert outcome.pending_ties == [["phys", "sys"]]
    assert outcome.rolls["sys"] == (5,)


def test_mixed_tie_rolls_the_system_once_the_physical_re_roll_is_in() -> None:
    outcome = resolve_draw({"sys": [5], "phys": [5, 10]}, system={"sys"}, roll=scripted(13))
    assert outcome.order == ["phys", "sys"]
    assert outcome.rolls == {"sys": (5, 13), "phys": (5, 10)}
    assert outcome.pending_ties == []


def test_mixed_tie_waits_for_every_physical_member() -> None:
    rolls = {"p1": [5, 3], "p2": [5], "sys": [5]}
    outcome = resolve_draw(rolls, system={"sys"}, roll=never)
    assert outcome.pending_ties == [["p1", "p2", "sys"]]


def test_physical_driver_without_a_roll_is_pending_at_the_back() -> None:
    outcome = resolve_draw({"late": [], "a": [18], "s": []}, system={"s"}, roll=scripted(19))
    assert outcome.order == ["a", "s", "late"]
    assert outcome.pending_ties == [["late"]]


def test_draw_gives_up_on_a_roll_function_that_always_ties() -> None:
    with pytest.raises(RuntimeError):
        resolve_draw({"a": [4], "b": [4]}, system={"a", "b"}, roll=lambda: 7)


@pytest.mark.parametrize("bad", [0, 21, -1])
def test_draw_refuses_rolls_outside_the_d20(bad: int) -> None:
    with pytest.raises(ValueError):
        resolve_draw({"a": [bad]}, system=(), roll=never)
    with pytest.raises(ValueError):
        resolve_draw({"a": [3, bad]}, system=(), roll=never)
    with pytest.raises(ValueError):
        resolve_draw({"a": []}, system={"a"}, roll=scripted(bad))


def test_draw_with_the_real_die_settles_every_system_driver() -> None:
    drivers: dict[int, list[int]] = {n: [] for n in range(30)}  # 30 on a d20: ties certain
    outcome = resolve_draw(drivers, system=set(drivers))
    assert sorted(outcome.order) == list(range(30))
    assert outcome.pending_ties == []
    firsts = [outcome.rolls[d][0] for d in outcome.order]
    assert firsts == sorted(firsts)


@given(
    st.lists(st.integers(1, 20), min_size=1, max_size=12),
    st.lists(st.integers(1, 20), max_size=30),
)
def test_all_system_draw_is_fully_settled_and_ordered_by_rolls(
    firsts: list[int], script: list[int]
) -> None:
    drivers = {n: [value] for n, value in enumerate(firsts)}
    # After the script, a cycling die: tied drivers draw different faces in turn.
    feed = iter(script + list(range(1, 21)) * 50)
    outcome = resolve_draw(drivers, system=set(drivers), roll=lambda: next(feed))
    assert sorted(outcome.order) == sorted(drivers)
    assert outcome.pending_ties == []
    sequences = [outcome.rolls[d] for d in outcome.order]
    # Lexicographic order of roll sequences is exactly "re-roll among the tied".
    assert all(a < b for a, b in zip(sequences, sequences[1:], strict=False))
    for driver, value in drivers.items():
        assert outcome.rolls[driver][0] == value[0]
        if firsts.count(value[0]) == 1:
            assert outcome.rolls[driver] == (value[0],)


def test_a_partial_re_roll_never_gives_pole_to_a_driver_who_has_not_re_rolled() -> None:
    """Quick rules §2 and DOMAIN.md "What the day enforces": a re-roll orders only the
    drivers who tied. "b" re-rolled its 5, "c" not yet: they stay tied, pending, and
    nobody passes the other on a half-recorded re-roll."""
    outcome = draw_standing({"a": [9], "b": [5, 17], "c": [5]})
    assert outcome.pending_ties == [["b", "c"]]
    assert outcome.order == ["b", "c", "a"]
    settled = draw_standing({"a": [9], "b": [5, 17], "c": [5, 2]})
    assert (settled.order, settled.pending_ties) == (["c", "b", "a"], [])


def test_reading_a_draw_rolls_nothing_and_lists_drivers_without_a_roll() -> None:
    outcome = draw_standing({"a": [3], "late": []})
    assert outcome.order == ["a", "late"]
    assert outcome.pending_ties == [["late"]]
    assert outcome.rolls == {"a": (3,), "late": ()}


@given(
    st.dictionaries(
        st.integers(1, 30), st.lists(st.integers(1, 20), min_size=1, max_size=3), max_size=10
    )
)
def test_a_re_roll_orders_only_the_tied_drivers(rolls: dict[int, list[int]]) -> None:
    """Whatever was recorded: lower first rolls stay ahead, whatever the re-rolls; only
    drivers of equal first rolls are ordered among themselves by their re-rolls."""
    outcome = draw_standing(rolls)
    assert sorted(outcome.order) == sorted(rolls)
    position = {driver: index for index, driver in enumerate(outcome.order)}
    for a in rolls:
        for b in rolls:
            if rolls[a][0] < rolls[b][0]:
                assert position[a] < position[b]
    pending = {driver for group in outcome.pending_ties for driver in group}
    for group in outcome.pending_ties:
        assert len({rolls[d][0] for d in group}) == 1  # a group tied on its first roll
    for driver in rolls:
        if driver not in pending and [rolls[d][0] for d in rolls].count(rolls[driver][0]) > 1:
            assert len(rolls[driver]) > 1  # settled only by a recorded re-roll
