"""Cannes–Monaco 1925 as the core's registry knows it (``tournament.games.registry``)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from tournament.games.registry import BASIC_DAY, GameSpec

SPEC = GameSpec(
    key="cannes_monaco",
    name=_("Cannes–Monaco 1925"),
    result="squares",
    settings=("qualifying_mode", "separate_teams", "min_stopwatch", "show_favourites"),
    words=("cannesmonaco", "cannes"),
    # Neither qualifying nor a d20 race weather: the tables, their sheets and results.
    day=BASIC_DAY,
)
