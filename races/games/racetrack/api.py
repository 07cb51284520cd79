"""Racetrack in the API: its own fields of a table's result (API.md "Other games"), added
to the race floor's through its variant (``races/games/variants.py``)."""

from __future__ import annotations

from typing import Any

from ninja import Schema
from pydantic import Field

from races.results.schemas import ResultOut

#: ``PUT .../tables/{t}/result``: each car's run.
RESULT_IN: dict[str, tuple[Any, Any]] = {
    "runs": (
        dict[str, Any] | None,
        Field(
            None,
            description="Racetrack: {turns, margin, crashes, finished, eliminated} per driver.",
        ),
    ),
}


class RacetrackRunOut(Schema):
    turns: int
    margin: int
    crashes: int
    finished: bool
    eliminated: bool
    place: int | None = Field(
        None, description="A car still running when the race stopped at the winner: its place."
    )


class RacetrackResultOut(ResultOut):
    runs: dict[str, RacetrackRunOut]
