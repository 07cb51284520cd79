"""Formula Dé quick rules (``rules/formule-de-quick-rules.fr.txt``): no database here.

Point 10: "Le premier qui effectue 1, 2 ou 3 tours est déclaré vainqueur" — a quick race
is 1 to 3 laps. Point 1: "On peut aussi jouer avec des voitures standards" — the
organisers may set one configuration every driver uses; it follows the full game's
configuration rule (§5 of the competition rules, ``races.grid.configuration``). Point 2: the
grid comes from a d20 draw (the lowest roll is on pole), the event's ``draw`` mode.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from races.games._ranking import is_int
from races.grid import configuration as configuration_rules

LAPS = (1, 2, 3)  # point 10


def laps_ok(laps: object) -> bool:
    """True for 1, 2 or 3 laps (point 10)."""
    return is_int(laps) and laps in LAPS


def race_laps_problem(
    laps: int | None, circuit_laps: int | None
) -> Literal["laps", "circuit_laps"] | None:
    """Why a quick race's length breaks point 10, None when it is 1 to 3 laps.

    The race is the event's own ``laps``, else the circuit's (§2-0-3 of the full game):
    ``"laps"`` when the event's own laps are wrong, ``"circuit_laps"`` when the event
    has none and the circuit's are outside 1..3 (then the event must set its laps).
    """
    if laps is not None:
        return None if laps_ok(laps) else "laps"
    if circuit_laps is None or laps_ok(circuit_laps):
        return None
    return "circuit_laps"


#: Point 1 of the quick rules: « 22 points au total » over the six parts; « l'arrêt au
#: stand » is one of the optional rules the text leaves out, so nothing waits at a stand.
RULE = "quick rules 1"


def configuration_problems(
    values: Mapping[str, object],
) -> list[configuration_rules.ConfigurationProblem]:
    """The problems of a quick-rules car (point 1): six parts of at least one point each,
    22 points in all on the car and none at a stand (the quick rules have no stands).

    ``stand_points`` may be left out (it is 0); any other number of stand points is
    refused, a standard car of 20 + 2 at the stand included. Empty when valid.
    """
    given = dict(values)
    stand = given.get("stand_points")
    given["stand_points"] = 0 if stand is None else stand
    problems = configuration_rules.configuration_problems(given)
    if is_int(stand) and stand != 0:
        problems = [p for p in problems if p.field not in ("stand_points", "total")]
        problems.append(
            configuration_rules.ConfigurationProblem("stand_points", "no_stands", stand, RULE)
        )
    return [
        configuration_rules.ConfigurationProblem(p.field, p.kind, p.value, RULE)
        if p.kind == "total"
        else p
        for p in problems
    ]


def parse_configuration(values: Mapping[str, object]) -> configuration_rules.Configuration:
    """A valid quick-rules car (stand points 0), or ``ConfigurationError`` listing why not."""
    problems = configuration_problems(values)
    if problems:
        raise configuration_rules.ConfigurationError(problems)
    return configuration_rules.parse_configuration({**values, "stand_points": 0})


def standard_configuration_problems(
    values: Mapping[str, object],
) -> list[configuration_rules.ConfigurationProblem]:
    """The problems of the quick rules' standard car: 22 points on the car (point 1)."""
    return configuration_problems(values)
