"""Car configurations of Formula Dé competitions: no database here.

Everything in this module is pure: plain values in, plain values out. Article numbers
refer to ``rules/formule-de-competition-rules.fr.txt``.

A driver has 20 wear points (PdV) for the race plus two at their stand (§4-0-2,
§5-0-2), spread over six parts with at least one each (§5-0-2, §5-2). The two stand
points may go on the car, so the car carries 20 to 22 and the stand keeps 2 to 0
(§5-3): parts plus stand points always make 22.

Exception messages are plain English on purpose: callers translate them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

# §5-0-1 names them PNEUS, FREINS, CONSOMMATION, CARROSSERIE, MOTEUR, TENUE DE ROUTE;
# "gearbox" is the consumption box (§5-1-3: no more skipped downshifts).
PARTS = ("tyres", "brakes", "gearbox", "body", "engine", "road_holding")
FIELDS = (*PARTS, "stand_points")

PART_MINIMUM = 1  # §5-0-2, §5-2
STAND_POINTS = 2  # §4-0-2: two PdV at the stand; §5-3: the stand may keep none
TOTAL = 22  # §5-0-2: 20 PdV for the race plus two at the stand (§5-3: up to 22 on the car)

ProblemKind = Literal[
    "missing", "not_integer", "below_minimum", "stand_range", "total", "no_stands"
]


@dataclass(frozen=True)
class Configuration:
    """Wear points on each part of the car and kept at the stand (§5)."""

    tyres: int
    brakes: int
    gearbox: int
    body: int
    engine: int
    road_holding: int
    stand_points: int

    @property
    def total(self) -> int:
        """Parts plus stand points; 22 for a valid configuration."""
        return sum(getattr(self, name) for name in FIELDS)


@dataclass(frozen=True)
class ConfigurationProblem:
    """One reason a configuration is refused, with the article it breaks."""

    field: str
    kind: ProblemKind
    value: object | None
    rule: str


class ConfigurationError(ValueError):
    """An invalid configuration; ``problems`` lists every reason (``args[0]`` too)."""

    def __init__(self, problems: list[ConfigurationProblem]) -> None:
        super().__init__(problems)
        self.problems = problems

    def __str__(self) -> str:
        reasons = ", ".join(f"{problem.field}: {problem.kind}" for problem in self.problems)
        return f"invalid configuration ({reasons})"


def configuration_problems(values: Mapping[str, object]) -> list[ConfigurationProblem]:
    """Every problem of a configuration at once, in field order; empty when valid.

    ``values`` maps each name of :data:`PARTS` and ``"stand_points"`` to an integer;
    an absent key or ``None`` is missing, anything but an ``int`` (``bool``, text,
    float) is not an integer. Other keys are ignored. The total is only checked when
    every field is an integer.
    """
    return _check(values)[0]


def parse_configuration(values: Mapping[str, object]) -> Configuration:
    """A valid :class:`Configuration`, or :class:`ConfigurationError` listing why not."""
    problems, integers = _check(values)
    if problems:
        raise ConfigurationError(problems)
    return Configuration(**integers)


def _check(values: Mapping[str, object]) -> tuple[list[ConfigurationProblem], dict[str, int]]:
    problems: list[ConfigurationProblem] = []
    integers: dict[str, int] = {}
    for name in FIELDS:
        value = values.get(name)
        if value is None:
            problems.append(ConfigurationProblem(name, "missing", None, "§5-0-2"))
        # bool is an int subclass; a ticked box must not count as one point.
        elif not isinstance(value, int) or isinstance(value, bool):
            problems.append(ConfigurationProblem(name, "not_integer", value, "§5-0-2"))
        else:
            integers[name] = value
            if name == "stand_points":
                # §4-0-2: two PdV at the stand; §5-3: the only place that may hold none.
                if not 0 <= value <= STAND_POINTS:
                    problems.append(ConfigurationProblem(name, "stand_range", value, "§5-3"))
            elif value < PART_MINIMUM:
                # §5-0-2 (and again §5-2): at least one PdV on every part.
                problems.append(ConfigurationProblem(name, "below_minimum", value, "§5-0-2"))
    # A sum with a missing or unreadable field would only repeat that problem.
    if len(integers) == len(FIELDS):
        total = sum(integers.values())
        if total != TOTAL:
            # §5-0-2: 20 PdV plus two at the stand, all of them placed (§5-3).
            problems.append(ConfigurationProblem("total", "total", total, "§5-0-2"))
    return problems, integers
