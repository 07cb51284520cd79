"""Racetrack as the core's registry knows it (``tournament.games.registry``)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from tournament.games.registry import BASIC_DAY, GameSpec

SPEC = GameSpec(
    key="racetrack",
    name=_("Racetrack"),
    result="runs",
    settings=(
        "qualifying_mode",
        "separate_teams",
        "min_stopwatch",
        "crash_limit",
        "collisions",
        "race_end",
        "show_favourites",
    ),
    # Neither qualifying nor a d20 race weather: the tables, their sheets and results.
    day=BASIC_DAY,
)
