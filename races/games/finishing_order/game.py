"""The finishing-order game as the core's registry knows it (``tournament.games.registry``):
named by its organisers, each name its own family; run on the game's own tracks."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from tournament.games import registry
from tournament.games.registry import GameSpec


def settings_errors(event: Any) -> dict[str, list[str]]:
    """A finishing-order event names its game, and not as another registered game."""
    name = (event.game_name or "").strip()
    if not name:
        return {"game_name": [_("Name the game you race (e.g. “Flamme Rouge”).")]}
    family = registry.named_family(name)
    if not family:
        return {"game_name": [_("Name the game with at least one letter or digit.")]}
    if registry.is_known(family.replace("-", "_")):
        return {
            "game_name": [
                _("“%(name)s” is a game of its own here: choose it as the game.") % {"name": name}
            ]
        }
    return {}


SPEC = GameSpec(
    key="finishing_order",
    name=gettext_lazy("Finishing order"),
    result="finish",
    settings=("game_name", "grid", "laps", "show_favourites"),
    words=("finishingorder",),
    circuit=False,
    named=True,
    strict_settings=True,
    clean=settings_errors,
    # Sign-up, check-in, tables, sheets, results, publication: nothing of Formula Dé's.
    day=registry.BASIC_DAY,
    result_note=gettext_lazy(
        "Each table is classified by finishing order, then retired drivers (latest "
        "retirement first), then drivers who did not start; the day follows table 1, "
        "then table 2…"
    ),
)
