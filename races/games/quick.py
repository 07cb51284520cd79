"""Formula Dé quick rules (``rules/formule-de-quick-rules.fr.txt``): no database here.

Point 10: "Le premier qui effectue 1, 2 ou 3 tours est déclaré vainqueur" — a quick race
is 1 to 3 laps. Point 1: "On peut aussi jouer avec des voitures standards" — the
organisers may set one configuration every driver uses; it follows the full game's
configuration rule (§5 of the competition rules, ``races.configuration``). Point 2: the
grid comes from a d20 draw (the lowest roll is on pole), the event's ``draw`` mode.
"""

from __future__ import annotations

from collections.abc import Mapping

from races import configuration as configuration_rules
from races.games._ranking import is_int

LAPS = (1, 2, 3)  # point 10


def laps_ok(laps: object) -> bool:
    """True for 1, 2 or 3 laps (point 10)."""
    return is_int(laps) and laps in LAPS


def standard_configuration_problems(
    values: Mapping[str, object],
) -> list[configuration_rules.ConfigurationProblem]:
    """The problems of a standard configuration: the full game's rule (§5) applies."""
    return configuration_rules.configuration_problems(values)
