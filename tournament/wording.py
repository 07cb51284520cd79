"""The rules' words in the user's language, shared by every floor: the car's parts, the
sentences naming a configuration problem found by the pure rules (§5-0-2), an event's race
length and standard car refused by its rules, why drivers under a minute cannot sit
(§1-0-4)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from races.games.quick import rules as quick
from races.grid import configuration as configuration_rules
from races.results import rules as race_rules

PART_NAMES = {
    "tyres": gettext_lazy("tyres"),
    "brakes": gettext_lazy("brakes"),
    "gearbox": gettext_lazy("gearbox"),
    "body": gettext_lazy("body"),
    "engine": gettext_lazy("engine"),
    "road_holding": gettext_lazy("road holding"),
    "stand_points": gettext_lazy("stand points"),
    "total": gettext_lazy("total"),
}


def configuration_messages(problems: list[Any]) -> dict[str, list[str]]:
    """Translated sentences naming the part and the rule for each configuration problem."""
    errors: dict[str, list[str]] = {}
    for problem in problems:
        name = PART_NAMES.get(problem.field, problem.field)
        if problem.kind == "missing":
            text = _("%(part)s: missing (%(rule)s).")
        elif problem.kind == "not_integer":
            text = _("%(part)s: a whole number is needed (%(rule)s).")
        elif problem.kind == "below_minimum":
            text = _("%(part)s: at least 1 point per part (%(rule)s).")
        elif problem.kind == "stand_range":
            text = _("%(part)s: 0 to 2 points at the stand (%(rule)s).")
        elif problem.kind == "no_stands":
            text = _(
                "%(part)s: the quick rules have no stand, all 22 points go on the car (%(rule)s)."
            )
        else:
            text = _("The parts and stand points add up to %(value)s, not 22 (%(rule)s).")
        # The quick rules' points are not articles: said in words ("quick rules, point 1").
        rule = _("quick rules, point 1") if problem.rule == "quick rules 1" else problem.rule
        errors.setdefault(problem.field, []).append(
            text % {"part": name, "rule": rule, "value": problem.value}
        )
    return errors


def laps_errors(
    *, quick_rules: bool, competition: bool, laps: int | None, circuit_laps: int | None
) -> list[str]:
    """Why an event's laps break its rules, in words ([] when they do not): a competition
    race is 3 laps (§2-0-3), a quick race 1 to 3 (quick rules point 10)."""
    if competition:
        problem = race_rules.competition_laps_problem(laps, circuit_laps)
        own = _("A competition race is 3 laps (§2-0-3).")
        circuit = _(
            "A competition race is 3 laps (§2-0-3), and the circuit has %(laps)s: set the "
            "event's laps to 3."
        )
    elif quick_rules:
        problem = quick.race_laps_problem(laps, circuit_laps)
        own = _("Quick rules: a race of 1, 2 or 3 laps.")
        circuit = _(
            "Quick rules: a race of 1, 2 or 3 laps, and the circuit has %(laps)s: set the "
            "event's laps."
        )
    else:
        return []
    if problem == "laps":
        return [own]
    return [circuit % {"laps": circuit_laps}] if problem == "circuit_laps" else []


def standard_car_errors(*, quick_rules: bool, standard: Any) -> list[str]:
    """Why a standard car breaks the rules, in words ([] when it does not, or is None): §5
    (six parts of at least 1, 22 points with the stand's), or under the quick rules their
    point 1 (22 points on the car, no stand)."""
    if standard is None:
        return []
    check = (
        quick.standard_configuration_problems
        if quick_rules
        else configuration_rules.configuration_problems
    )
    if isinstance(standard, dict) and not check(standard):
        return []
    if quick_rules:
        return [
            _(
                "The standard car must have six parts of at least 1 and 22 points on the car, "
                "none at a stand (quick rules, point 1)."
            )
        ]
    return [_("The standard car must have six parts of at least 1 and 22 points in all.")]


def seating_message(problem: Any) -> str:
    """Why the drivers under a minute cannot all sit at the tables reserved for them
    (``qualifying.seating.rules.SeatingProblem``, §1-0-4), in the user's language."""
    if problem.kind == "no_fast_table":
        return ngettext(
            "%(flagged)s driver runs under a minute but none of tables 1 to %(tables)s is "
            "reserved for them (§1-0-4): reserve one, or unflag them.",
            "%(flagged)s drivers run under a minute but none of tables 1 to %(tables)s is "
            "reserved for them (§1-0-4): reserve one, or unflag them.",
            problem.flagged,
        ) % {"flagged": problem.flagged, "tables": problem.tables}
    return ngettext(
        "%(flagged)s driver runs under a minute and the tables reserved for them seat "
        "%(seats)s: reserve another table.",
        "%(flagged)s drivers run under a minute and the tables reserved for them seat "
        "%(seats)s: reserve another table.",
        problem.flagged,
    ) % {"flagged": problem.flagged, "seats": problem.seats}
