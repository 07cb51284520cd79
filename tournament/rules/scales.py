"""The scales a championship and a circuit carry (DOMAIN.md): the points presets a new
championship starts from, and a circuit's d20 weather scale (§3-0-3) with its checks. No
database here: the models, the forms and the floors above read the same rules.

Exception messages are plain English on purpose: callers translate them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Weather = Literal["sun", "variable", "rain"]

D20_FACES = range(1, 21)

#: The points scales race control picks from when it makes a championship (positions 1, 2…).
PRESETS: dict[str, tuple[int, ...]] = {
    "f1": (25, 18, 15, 12, 10, 8, 6, 4, 2, 1),
    "classic": (10, 8, 6, 4, 3, 2, 1),
    "twelve": (12, 10, 8, 7, 6, 5, 4, 3, 2, 1),
    "short": (8, 6, 4, 3, 2, 1),
}


@dataclass(frozen=True)
class ScaleProblem:
    """One reason a circuit's weather scale cannot be used."""

    kind: Literal["bad_range", "missing", "overlap"]
    name: str | None
    values: tuple[int, ...]


@dataclass(frozen=True)
class WeatherScale:
    """A circuit's d20 weather scale (§3-0-3): three inclusive ranges."""

    rain: tuple[int, int]
    variable: tuple[int, int]
    sun: tuple[int, int]

    def _ranges(self) -> tuple[tuple[Weather, tuple[int, int]], ...]:
        return (("rain", self.rain), ("variable", self.variable), ("sun", self.sun))

    def problems(self) -> list[ScaleProblem]:
        """Empty when the three ranges cover the faces 1..20 exactly once."""
        problems: list[ScaleProblem] = []
        coverage = dict.fromkeys(D20_FACES, 0)
        for name, (low, high) in self._ranges():
            if low > high or low < 1 or high > 20:
                problems.append(ScaleProblem("bad_range", name, ()))
            # Count the usable part of a bad range anyway, so that one typo is
            # reported once rather than also as a cascade of missing faces.
            for face in range(max(low, 1), min(high, 20) + 1):
                coverage[face] += 1
        missing = tuple(face for face, count in coverage.items() if count == 0)
        overlap = tuple(face for face, count in coverage.items() if count > 1)
        if missing:
            problems.append(ScaleProblem("missing", None, missing))
        if overlap:
            problems.append(ScaleProblem("overlap", None, overlap))
        return problems

    def weather_for(self, roll: int) -> Weather:
        """Weather drawn by a d20 roll (§3-0-4, §3-1-1)."""
        check_d20(roll)
        if self.problems():
            raise ValueError("the weather scale is invalid")
        for name, (low, high) in self._ranges():
            if low <= roll <= high:
                return name
        raise AssertionError("a valid scale covers every face")  # pragma: no cover


def check_d20(value: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value not in D20_FACES:
        raise ValueError(f"a d20 roll must be between 1 and 20, got {value!r}")
