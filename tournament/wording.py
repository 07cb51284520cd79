"""The rules' words in the user's language, shared by every floor: the car's parts and
the sentences naming a configuration problem found by the pure rules (§5-0-2)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

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
