"""API v1, the games the server knows (API.md "Any racing game"): ``GET /games``, read from
the games' registry and the named games in use; nobody needs a token."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from ninja import Router, Schema
from pydantic import Field

from tournament.apikit import ERRORS
from tournament.games import registry
from tournament.games.registry import ResultKind
from tournament.games.selectors import named_families

router = Router(tags=["Games"])


class GameOut(Schema):
    game: str = Field(description="The value of an event's ``game``.")
    name: str = Field(description="The game's name, in the reader's language.")
    result: ResultKind = Field(
        description="A table's result: a crossing order (finish), squares, runs or stages."
    )
    settings: list[str] = Field(description="The event's fields this game reads.")


class FamilyOut(Schema):
    game: str = Field(description="The game the organisers named (its key in the registry).")
    name: str = Field(description="The name they gave it, as events show it.")
    family: str = Field(description="Its ratings family: GET /ratings?game=<family>.")


@router.get("/games", response={200: list[GameOut | FamilyOut], **ERRORS})
def games_list(request: HttpRequest) -> list[dict[str, Any]]:
    """Every game the server knows, from the games' own registry, then every named game in
    use in a published event (each its own family of ratings and careers)."""
    return [
        {
            "game": spec.key,
            "name": str(spec.name),
            "result": spec.result,
            "settings": list(spec.settings),
        }
        for spec in registry.games()
    ] + [
        {"game": game, "name": name, "family": family}
        for game, name, family in named_families(public=True)
    ]
