"""The geometry of a career's rating chart: scales, round ticks, the line's path. Pure.

A player's rating after each table they played (``RatingPoint``), drawn on the server as an
SVG line: no JavaScript, nothing fetched. The x axis counts the tables played (1, 2, 3…),
the y axis the rating; a second series (mu, the rating before the 3-sigma caution) may be
drawn dashed beside it. This module only computes where things go, in the SVG's user units
(its ``viewBox``): the page scales it to the phone's width. Numbers in, numbers out; the
template writes the labels in the reader's language.

No database, no Django: a floor-0 module, tested with examples and hypothesis properties.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

#: The viewBox: 360 units wide, so that at a 390 px phone's width (less the page's
#: margins) one unit is about one pixel and the 11-unit labels stay readable.
WIDTH = 360
HEIGHT = 200
LEFT = 38  # room for "−12.5" beside the y axis
RIGHT = 12
TOP = 10
BOTTOM = 30  # room for the x labels and the axis's name
#: Below this a difference is no difference (ratings are shown to one decimal): a span
#: that small is drawn as a flat line, not with a step of 10^-300.
MIN_SPAN = 1e-6
#: About this many gridlines on each axis.
Y_TICKS = 4
X_TICKS = 6


@dataclass(frozen=True)
class Tick:
    """A gridline: where it is drawn (``at``, in user units), the value it marks, and how
    many decimals its label needs (0 for a step of 1 or more)."""

    at: float
    value: float
    decimals: int


@dataclass(frozen=True)
class Series:
    """One line: its path (``M x,y L x,y …``) and its points, in user units."""

    path: str
    points: list[tuple[float, float]]


@dataclass(frozen=True)
class LineChart:
    width: int
    height: int
    left: int
    right: int  # the plot's right edge (x), not the margin
    top: int
    bottom: int  # the plot's bottom edge (y)
    x_ticks: list[Tick]
    y_ticks: list[Tick]
    series: list[Series]


def nice_step(span: float, ticks: int = Y_TICKS) -> float:
    """The round step (…, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, …) that marks ``span`` with at
    most about ``ticks`` intervals: the smallest such step with ``step * ticks >= span``.
    A span of 0 (a flat line; below ``MIN_SPAN`` too) gets a step of 1."""
    if ticks < 1:
        raise ValueError(f"ticks must be at least 1, got {ticks}")
    if not math.isfinite(span) or span < 0:
        raise ValueError(f"span must be a finite number >= 0, got {span}")
    if span < MIN_SPAN:
        return 1.0
    raw = span / ticks
    power = 10.0 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5, 10):
        step = factor * power
        if step * ticks >= span * (1 - 1e-12):
            return _clean(step)
    return _clean(10 * power)  # pragma: no cover - 10 × power always covers raw


def _clean(value: float) -> float:
    """``value`` without the binary dust of its computation (0.30000000000000004 → 0.3)."""
    return float(f"{value:.12g}")


def decimals_of(step: float) -> int:
    """How many decimals label a multiple of ``step``: 0 for 1 and more, 1 for 0.5, 2 for
    0.05."""
    if step >= 1:
        return 0
    return max(0, -math.floor(math.log10(step) + 1e-9))


def nice_range(low: float, high: float, ticks: int = Y_TICKS) -> tuple[float, float, float]:
    """(start, end, step): the multiples of a round step that enclose ``low``..``high``."""
    if low > high:
        raise ValueError(f"low {low} is above high {high}")
    if high - low < MIN_SPAN:  # a single value or a flat line: one step either side
        low, high = low - 1, high + 1
    step = nice_step(high - low, ticks)
    # Rounding both ends out adds less than a step each: at most ``ticks + 1`` intervals.
    start = math.floor(low / step + 1e-9) * step
    end = math.ceil(high / step - 1e-9) * step
    return _clean(start), _clean(end), step


def _scale(d0: float, d1: float, r0: float, r1: float) -> tuple[float, float]:
    """Slope and offset mapping d0..d1 onto r0..r1 (a zero-width domain maps to the middle)."""
    if d1 == d0:
        return 0.0, (r0 + r1) / 2
    slope = (r1 - r0) / (d1 - d0)
    return slope, r0 - slope * d0


def line_chart(lines: Sequence[Sequence[float]]) -> LineChart:
    """The chart of ``lines``, each a value per table played (the first line is the one
    the axes are made for, the others share them). Every line has the same length, at
    least one value."""
    if not lines or not lines[0]:
        raise ValueError("a chart needs at least one value")
    count = len(lines[0])
    if any(len(line) != count for line in lines):
        raise ValueError("every line needs one value per table")
    values = [v for line in lines for v in line]
    if not all(math.isfinite(v) for v in values):
        raise ValueError("values must be finite numbers")
    right, bottom = WIDTH - RIGHT, HEIGHT - BOTTOM

    start, end, step = nice_range(min(values), max(values))
    y_slope, y_offset = _scale(start, end, bottom, TOP)
    decimals = decimals_of(step)
    y_ticks = []
    for index in range(round((end - start) / step) + 1):
        value = _clean(start + index * step)
        y_ticks.append(
            Tick(at=round(y_slope * value + y_offset, 1), value=value, decimals=decimals)
        )

    # x: table 1 at the left edge, the last at the right (a single table in the middle).
    x_slope, x_offset = _scale(1, count, LEFT, right)
    x_step = max(1, math.ceil(nice_step(max(count - 1, 1), X_TICKS)))
    x_ticks = [
        Tick(at=round(x_slope * n + x_offset, 1), value=n, decimals=0)
        for n in range(1, count + 1)
        if n == 1 or n % x_step == 0
    ]

    series = []
    for line in lines:
        points = [
            (round(x_slope * (i + 1) + x_offset, 1), round(y_slope * v + y_offset, 1))
            for i, v in enumerate(line)
        ]
        path = "M" + " L".join(f"{x},{y}" for x, y in points)
        series.append(Series(path=path, points=points))
    return LineChart(
        width=WIDTH,
        height=HEIGHT,
        left=LEFT,
        right=right,
        top=TOP,
        bottom=bottom,
        x_ticks=x_ticks,
        y_ticks=y_ticks,
        series=series,
    )
