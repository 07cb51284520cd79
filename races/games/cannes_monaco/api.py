"""Cannes–Monaco 1925 in the API: its own fields of a table's result (API.md "Other
games"), added to the race floor's through its variant (``races/games/variants.py``)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from races.results.schemas import ResultOut
from tournament.apikit import DriverNumber

#: ``PUT .../tables/{t}/result``: the squares and the cars over the line.
RESULT_IN: dict[str, tuple[Any, Any]] = {
    "squares": (
        dict[str, Any] | None,
        Field(None, description="Cannes–Monaco: each car's square, 0 to 36."),
    ),
    "crossed": (
        list[DriverNumber] | None,
        Field(None, description="Cannes–Monaco: the cars over the finish line."),
    ),
}


class CannesMonacoResultOut(ResultOut):
    squares: dict[str, int | None]
    crossed: list[int] = Field(description="The cars over the finish line, in crossing order.")
    winner: int | None = Field(None, description="The first car over the line.")
