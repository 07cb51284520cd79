"""Rallyman as the core's registry knows it (``tournament.games.registry``)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from tournament.games.registry import GameSpec

SPEC = GameSpec(
    key="rallyman",
    name=_("Rallyman"),
    result="stages",
    settings=("show_favourites",),
    # Its stages, the snow drawn before each (Règlement+), the classification across them.
    day=("entries", "checkin", "tables", "stages", "snow", "results", "published"),
    results_per_table=False,
    desk_pages=(
        ("rally-desk", _("Rally: stages and times")),
        ("rally-classification", _("Classifications")),
    ),
)
