"""An event's game in the API (ground floor): the settings a game does not have refused,
the circuit required by the games raced on the catalogue's circuits, a named game's fields
(``tournament/registration/api.py`` reads them; API.md "Any racing game")."""

from __future__ import annotations

from typing import Any, Literal

from django.utils.translation import gettext as _
from pydantic import ValidationError

from tournament.errors import InvalidInput
from tournament.games import registry

#: A named game's grid: a secure random draw per table, or by rating.
GridName = Literal["draw", "rating"]


def circuit_checked(name: str, data: Any, handler: Any) -> Any:
    """A creation body checked by ``handler`` (pydantic's), ``circuit`` required (missing,
    or null: not text) for every game raced on the catalogue's circuits, refused with the
    body's other faults at once (as a required field always was)."""
    try:
        checked, errors = handler(data), []
    except ValidationError as exc:
        checked, errors = None, list(exc.errors())
    if isinstance(data, dict) and data.get("circuit") is None:
        game = data.get("game", registry.MAIN_GAME)
        if not registry.is_known(game) or registry.spec_of(game).circuit:
            errors.append(
                {"type": "missing", "loc": ("circuit",), "input": data}
                if "circuit" not in data
                else {"type": "string_type", "loc": ("circuit",), "input": None}
            )
    if errors:
        raise ValidationError.from_exception_data(name, errors)
    return checked


def refuse_foreign_settings(game: str, sent: set[str]) -> None:
    """A setting of another game sent for an event of ``game``: a 400 naming it."""
    foreign = registry.foreign_settings(game, set(sent))
    if foreign:
        name = registry.spec_of(game).name
        message = _("Not a setting of %(game)s.") % {"game": name}
        raise InvalidInput(
            _("%(fields)s: not a setting of %(game)s.")
            % {"fields": ", ".join(foreign), "game": name},
            {field: [message] for field in foreign},
        )


def named_fields(event: Any) -> dict[str, Any]:
    """A named game's own fields of an event's answer (none for the other games, whose
    answer stays as it was)."""
    if not registry.spec_of(event.game).named:
        return {}
    return {"game_name": event.game_name, "grid": event.grid}
