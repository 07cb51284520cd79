"""The other racing games of the rule set, one pure module each (no database here).

``TABLE_GAMES`` maps an ``Event.game`` whose result is a referee's sheet at a table to its
module; each such module offers ``problems(...)`` and ``classification(...)``. Rallyman is
timed per stage across the whole event instead (``races.games.rallyman``).
"""

from __future__ import annotations

from types import ModuleType

from races.games import cannes_monaco, quick, racetrack, rallyman

TABLE_GAMES: dict[str, ModuleType] = {
    "cannes_monaco": cannes_monaco,
    "racetrack": racetrack,
}

__all__ = ["TABLE_GAMES", "cannes_monaco", "quick", "racetrack", "rallyman"]


def table_game(game: str) -> ModuleType | None:
    """The pure module of a table game, None for Formula Dé and Rallyman."""
    return TABLE_GAMES.get(game)
