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
from races.results.points import DayLine
from tournament.games import registry
from tournament.games.registry import MAIN_GAME
from tournament.models import Event


@dataclass(frozen=True)
class Variant:
    """A game's hooks; a hook left at None keeps the race floor's own behaviour."""

    #: The drivers in the game's own start order (e.g. a rally's stage 1), from the
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
    #: through confirmed race tables (e.g. a rally's classification over its stages).
    event_rescore: Callable[..., int] | None = None
    #: The game's own fields of ``PUT .../tables/{t}/result``: ``{name: (type, Field)}``,
    #: added to the API's ``ResultIn`` (``races/results/api.py``).
    result_in: Mapping[str, tuple[Any, Any]] | None = None
    #: The game's answer of a table's result, a subclass of ``races.results.schemas.ResultOut``.
    result_out: type | None = None
    #: The URL name of the referee's result page when the game has its own (token argument).
    result_page: str | None = None
    #: What the game adds to a race table's page (the referee's): template context.
    table_context: Callable[[Event], dict[str, Any]] | None = None
    #: The URL name of the table's page when the game has its own (token argument): the
    #: table link opens it instead of the race floor's (stands, configurations, weather).
    table_page: str | None = None
    #: The game's printed sheets of an event's race tables, in one PDF:
    #: ``(event=, tables=None (all) | [table], language=, progress=None, referee_link=True)
    #: -> bytes`` (no QR code of the table's link without ``referee_link``); the
    #: sheets' batch and a table's sheet link print them instead of the race sheet.
    sheets: Callable[..., bytes] | None = None


_NONE = Variant()
_VARIANTS: dict[str, Variant] = {}
#: The result rules of a result shape (``GameSpec.result``) for a game without its own.
_SHAPES: dict[str, Variant] = {}
#: The games' own API routers and the prefix of their frozen operation ids.
_ROUTERS: list[tuple[Any, str]] = []


def register_router(router: Any, operation_prefix: str) -> None:
    """A game's own API router, mounted by the API root (``paddock/api.py``)."""
    if all(known is not router for known, _prefix in _ROUTERS):
        _ROUTERS.append((router, operation_prefix))


def api_routers() -> list[tuple[Any, str]]:
    return list(_ROUTERS)


def register(game: str, variant: Variant) -> None:
    _VARIANTS[game] = variant


def register_shape(result: str, variant: Variant) -> None:
    """The result rules of every game of the result shape ``result`` that has none of its
    own (a crossing order: ``finish``)."""
    _SHAPES[result] = variant


def missing_rules(spec: Any) -> str | None:
    """Why the registry must refuse ``spec`` (``tournament.games.registry.add_check``): a
    game other than the main one with no result rules, its own or its shape's. Formula Dé's
    rules are the main game's only: another game never gets them silently."""
    if spec.key == MAIN_GAME or spec.key in _VARIANTS or spec.result in _SHAPES:
        return None
    return (
        f"the game {spec.key!r} has no result rules: register a races.variants.Variant for "
        f"it, or declare a result shape with rules of its own (one of {sorted(_SHAPES)}), "
        f"not {spec.result!r}"
    )


def variant_of(game: str) -> Variant:
    """The game's variant; an empty one (the race floor's own rules) for Formula Dé; a game
    without one, its result shape's rules."""
    found = _VARIANTS.get(game)
    if found is not None or game == MAIN_GAME:
        return found or _NONE
    spec = registry.game(game)
    if spec is None:  # a removed game's rows read as the main game's (``spec_of``)
        return _NONE
    shape = _SHAPES.get(spec.result)
    if shape is None:
        raise LookupError(f"the game {game!r} has no result rules")
    return shape


def result_in_fields() -> dict[str, tuple[Any, Any]]:
    """Every game's own fields of a table's result body, in the order games registered."""
    return {name: f for v in _VARIANTS.values() for name, f in (v.result_in or {}).items()}


def result_outs() -> list[type]:
    """Every game's own answer of a table's result (the common one not included)."""
    return [v.result_out for v in _VARIANTS.values() if v.result_out is not None]


def start_lines(event: Event, lines: Sequence[Any]) -> list[Any]:
    hook = variant_of(event.game).start_lines
    return list(lines) if hook is None else hook(event=event, lines=lines)


def special_allocation(
    event: Event, drivers: Sequence[RankedDriver], size: int
) -> tuple[int, Allocation] | None:
    hook = variant_of(event.game).allocation
    return None if hook is None else hook(event=event, drivers=drivers, size=size)
