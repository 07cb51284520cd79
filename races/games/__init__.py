"""The other racing games, one folder each: its pure rules (``rules.py``, no database) and,
where it has them, its services, pages, URLs, API, sheets and demo. Above races: a game
uses the race floor (tables, results, allocation) and tells it what it changes through
``races.variants`` (``races/games/variants.py``, when Django starts).

This module stays pure: ``TABLE_GAMES`` maps an ``Event.game`` whose result is a
referee's sheet at a table to its rules module; each offers ``problems(...)`` and
``classification(...)``. Rallyman is timed per stage across the whole event instead.
"""

from __future__ import annotations

from types import ModuleType

from races.games.cannes_monaco import rules as cannes_monaco_rules
from races.games.racetrack import rules as racetrack_rules

TABLE_GAMES: dict[str, ModuleType] = {
    "cannes_monaco": cannes_monaco_rules,
    "racetrack": racetrack_rules,
}

__all__ = ["TABLE_GAMES", "table_game"]


def table_game(game: str) -> ModuleType | None:
    """The pure module of a table game, None for Formula Dé and Rallyman."""
    return TABLE_GAMES.get(game)
