"""The two scales race control types: a championship's points and a circuit's d20 weather
scale (§3-0-3), checked in words in the page's language."""

from __future__ import annotations

import re

from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from tournament.rules.scales import WeatherScale

DEFAULT_POINTS_SCALE = [25, 18, 15, 12, 10, 8, 6, 4, 2, 1]


def validate_points_scale(value: object) -> None:
    if not isinstance(value, list) or not value:
        raise ValidationError(_("The points scale is a non-empty list of whole numbers."))
    for points in value:
        if not isinstance(points, int) or isinstance(points, bool) or points < 0:
            raise ValidationError(
                _("The points scale is a list of whole numbers, 0 or more: %(value)s is not."),
                params={"value": points},
            )


WEATHER_NAMES = {"rain": _("rain"), "variable": _("variable"), "sun": _("sun")}


def weather_scale_errors(scale: WeatherScale) -> list[str]:
    """Translated sentences for every problem of a weather scale, empty when it is valid."""
    messages: list[str] = []
    for problem in scale.problems():
        values = ", ".join(str(v) for v in problem.values)
        if problem.kind == "bad_range":
            messages.append(
                str(
                    _(
                        "The %(weather)s range must go from a lower to a higher face "
                        "between 1 and 20."
                    )
                    % {"weather": WEATHER_NAMES.get(problem.name or "", problem.name)}
                )
            )
        elif problem.kind == "missing":
            messages.append(
                str(
                    _("The weather scale must cover every face from 1 to 20; missing: %(values)s.")
                    % {"values": values}
                )
            )
        else:
            messages.append(
                str(
                    _("A d20 face may belong to one weather only; in two ranges: %(values)s.")
                    % {"values": values}
                )
            )
    return messages


def parse_scale(text: str) -> tuple[list[int] | None, str | None]:
    """A typed points scale (``25-18-15``, ``25 18 15``, ``25, 18, 15``): the list, or the
    sentence that refuses it (the scoring page and a new championship's page read it alike)."""
    tokens = [token for token in re.split(r"[\s,;\-–]+", text.strip()) if token]
    if not tokens:
        return None, str(_("Type the points of the 1st, 2nd, 3rd…"))
    if len(tokens) > 100:
        return None, str(_("At most 100 places score."))
    if bad := next((t for t in tokens if not re.fullmatch(r"[0-9]{1,4}", t)), None):
        message = _("“%(value)s” is not a number of points (whole numbers, 0 or more).")
        return None, str(message % {"value": bad})
    return [int(token) for token in tokens], None
