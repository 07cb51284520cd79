"""The rating chart's geometry (standings/careers/chart.py): round ticks that enclose the
values, a path inside the plot, higher ratings drawn higher. No database."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from standings.careers.chart import (
    BOTTOM,
    HEIGHT,
    LEFT,
    MIN_SPAN,
    RIGHT,
    TOP,
    WIDTH,
    Y_TICKS,
    decimals_of,
    line_chart,
    nice_range,
    nice_step,
)

ratings = st.floats(min_value=-60, max_value=80, allow_nan=False, allow_infinity=False)
careers = st.lists(ratings, min_size=1, max_size=120)
_settings = settings(max_examples=200, deadline=None)


def is_round(step: float) -> bool:
    """1, 2 or 5 times a power of ten."""
    mantissa = step / 10 ** math.floor(math.log10(step) + 1e-9)
    return any(math.isclose(mantissa, m, rel_tol=1e-9) for m in (1, 2, 5, 10))


def test_a_first_season_s_rating_gets_round_ticks_every_5() -> None:
    """A newcomer's rating starts at 0 (mu 25, sigma 25/3) and climbs: 0, 3.1, 7.8, 12.4."""
    chart = line_chart([[0.0, 3.1, 7.8, 12.4]])
    assert [t.value for t in chart.y_ticks] == [0, 5, 10, 15]
    assert [t.decimals for t in chart.y_ticks] == [0, 0, 0, 0]
    assert chart.y_ticks[0].at == HEIGHT - BOTTOM  # 0 on the x axis
    assert chart.series[0].path == "M38.0,170.0 L141.3,136.9 L244.7,86.8 L348.0,37.7"
    assert [t.value for t in chart.x_ticks] == [1, 2, 3, 4]


def test_a_negative_rating_is_drawn_below_zero() -> None:
    chart = line_chart([[-4.2, -1.0, 2.5]])
    values = [t.value for t in chart.y_ticks]
    assert values[0] <= -4.2 and values[-1] >= 2.5 and 0 in values


def test_a_single_table_sits_in_the_middle_between_two_ticks() -> None:
    chart = line_chart([[3.0]])
    (x, y) = chart.series[0].points[0]
    assert x == (LEFT + WIDTH - RIGHT) / 2
    assert [t.value for t in chart.y_ticks][0] < 3.0 < [t.value for t in chart.y_ticks][-1]
    assert TOP < y < HEIGHT - BOTTOM


def test_a_long_career_labels_a_few_tables_only() -> None:
    chart = line_chart([[float(i % 7) for i in range(95)]])
    assert [t.value for t in chart.x_ticks] == [1, 20, 40, 60, 80]


def test_a_difference_below_the_shown_precision_is_a_flat_line() -> None:
    assert nice_step(5e-324) == 1.0
    assert nice_range(2.0, 2.0 + 1e-12) == (1.0, 3.0, 0.5)


def test_small_steps_get_their_decimals() -> None:
    assert decimals_of(5) == 0 and decimals_of(1) == 0
    assert decimals_of(0.5) == 1 and decimals_of(0.2) == 1
    assert decimals_of(0.05) == 2


@pytest.mark.parametrize(
    "lines",
    [[], [[]], [[1.0], [1.0, 2.0]], [[math.nan]], [[math.inf, 1.0]]],
    ids=["none", "empty", "uneven", "nan", "inf"],
)
def test_what_cannot_be_drawn_is_refused(lines: list[list[float]]) -> None:
    with pytest.raises(ValueError):
        line_chart(lines)


@_settings
@given(st.floats(min_value=0, max_value=1e6), st.integers(min_value=1, max_value=10))
def test_the_step_is_round_and_the_smallest_that_covers_the_span(span: float, ticks: int) -> None:
    step = nice_step(span, ticks)
    assert is_round(step)
    assert step * ticks >= span * (1 - 1e-9)
    if span >= MIN_SPAN:
        # The next smaller round step would not cover it.
        smaller = [f * 10 ** math.floor(math.log10(step)) for f in (0.5, 0.2, 0.1)]
        below = max(s for s in smaller if s < step * (1 - 1e-9))
        assert below * ticks < span * (1 + 1e-9)


@_settings
@given(ratings, ratings)
def test_the_range_encloses_the_values_in_few_round_intervals(a: float, b: float) -> None:
    low, high = min(a, b), max(a, b)
    start, end, step = nice_range(low, high)
    assert start <= low + 1e-9 and end >= high - 1e-9
    intervals = round((end - start) / step)
    assert math.isclose(start / step, round(start / step), abs_tol=1e-6)
    assert 1 <= intervals <= Y_TICKS + 1


@_settings
@given(careers, st.integers(min_value=0, max_value=1))
def test_every_point_is_inside_the_plot_and_higher_ratings_higher(
    values: list[float], second: int
) -> None:
    lines = [values] + ([[v + 3 for v in values]] if second else [])
    chart = line_chart(lines)
    left, right, top, bottom = chart.left, chart.right, chart.top, chart.bottom
    for series in chart.series:
        assert len(series.points) == len(values)
        xs = [x for x, _y in series.points]
        assert all(left <= x <= right for x in xs)
        assert all(top - 0.1 <= y <= bottom + 0.1 for _x, y in series.points)
        assert xs == sorted(xs) and len(set(xs)) == len(xs)  # one table after the other
        assert series.path.startswith("M") and series.path.count(" L") == len(values) - 1
    first = chart.series[0].points
    for (_x1, y1), (_x2, y2), v1, v2 in zip(first, first[1:], values, values[1:], strict=False):
        if v1 > v2 + 1e-6:
            assert y1 <= y2
        elif v2 > v1 + 1e-6:
            assert y2 <= y1
    ticks = [t.at for t in chart.y_ticks]
    assert ticks == sorted(ticks, reverse=True)  # gridlines bottom to top, values rising
    assert ticks[0] == bottom and ticks[-1] == top
    assert chart.x_ticks[0].value == 1 and 2 <= len(chart.x_ticks) + 1 <= 9
