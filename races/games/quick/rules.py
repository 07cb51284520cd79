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


def standard_configuration_problems(
    values: Mapping[str, object],
) -> list[configuration_rules.ConfigurationProblem]:
    """The problems of a standard configuration: the full game's rule (§5) applies."""
    return configuration_rules.configuration_problems(values)
