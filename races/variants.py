"""What another game changes in the race floor (allocation, scoring, result sheets, API).

Formula Dé needs none of this: the race floor's own rules are its rules. Each other game
of ``races.games`` registers a :class:`Variant` for its ``Event.game`` when Django starts
(``races/games/variants.py``), so that this floor calls the game without importing it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from races.grid.allocation import Allocation, RankedDriver
from races.models import RaceResult, RaceTable
from tournament.models import Event
from tournament.standings.points import DayLine


@dataclass(frozen=True)
class Variant:
    """A game's hooks; a hook left at None keeps the race floor's own behaviour."""

    #: The drivers in the game's own start order (Rallyman: stage 1's), from the
    #: classification lines ``allocation_run`` read.
    start_lines: Callable[..., list[Any]] | None = None
    #: The game's own table rules: ``(size used, allocation)``.
    allocation: Callable[..., tuple[int, Allocation]] | None = None
    #: The places and points of a confirmed table, from the game's sheet.
    table_lines: Callable[..., list[DayLine]] | None = None
    #: Whether a stored sheet (e.g. restored from the history) is complete.
    sheet_complete: Callable[[RaceTable, Mapping[str, Any]], bool] | None = None
    #: The game's own fields of a table's result in the API.
    result_fields: Callable[[RaceTable, RaceResult | None], dict[str, Any]] | None = None
    #: Saves the game's body of ``PUT .../tables/{t}/result``.
    api_result_save: Callable[[Any, RaceTable, Any], None] | None = None
    #: Stores the event's places again (a sanction changed), when the game does not go
    #: through confirmed race tables (Rallyman: the rally's classification).
    event_rescore: Callable[..., int] | None = None


_NONE = Variant()
_VARIANTS: dict[str, Variant] = {}


def register(game: str, variant: Variant) -> None:
    _VARIANTS[game] = variant


def variant_of(game: str) -> Variant:
    """The game's variant; an empty one (the race floor's own rules) for Formula Dé."""
    return _VARIANTS.get(game, _NONE)


def start_lines(event: Event, lines: Sequence[Any]) -> list[Any]:
    hook = variant_of(event.game).start_lines
    return list(lines) if hook is None else hook(event=event, lines=lines)


def special_allocation(
    event: Event, drivers: Sequence[RankedDriver], size: int
) -> tuple[int, Allocation] | None:
    hook = variant_of(event.game).allocation
    return None if hook is None else hook(event=event, drivers=drivers, size=size)
