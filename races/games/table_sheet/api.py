"""API of the table sheet of Cannes–Monaco and Racetrack: the game's body of
``PUT /events/{event}/tables/{t}/result`` (``races/results/api.py`` hands it here through
the game's variant)."""

from __future__ import annotations

from typing import Annotated, Any

from django.http import HttpRequest
from django.utils.translation import gettext as _
from pydantic import BaseModel, Field, StrictBool

from races.games.table_sheet import services as game_services
from races.models import RaceTable
from tournament.apikit import (
    actor_of,
    driver_keys,
    errors_under,
)
from tournament.errors import InvalidInput

# ---------------------------------------------------------------------------
# Cannes–Monaco and Racetrack: the table sheet through PUT .../tables/{t}/result
# ---------------------------------------------------------------------------


class RunIn(BaseModel):
    turns: Annotated[int, Field(strict=True, ge=0, le=10_000)] = 0
    margin: Annotated[int, Field(strict=True, ge=0, le=10_000)] = 0
    crashes: Annotated[int, Field(strict=True, ge=0, le=1_000)] = 0
    finished: StrictBool = False
    eliminated: StrictBool = False
    # "Fin du jeu" at the winner: the referee's place for a car still running.
    place: Annotated[int, Field(strict=True, ge=1, le=100)] | None = None


def table_result_save(request: HttpRequest, table: RaceTable, payload: Any) -> None:
    """Save a Cannes–Monaco (``squares``, ``crossed``) or Racetrack (``runs``) sheet."""
    actor = actor_of(request)
    game = table.event.game
    if game == "cannes_monaco":
        if payload.runs is not None or payload.finish or payload.retired or payload.dns:
            raise InvalidInput(
                _("A Cannes–Monaco result is sent as squares and crossed."),
                {"squares": [_("Send the square of each car (0 to 36).")]},
            )
        squares = driver_keys(payload.squares or {}, "squares")
        data: dict[str, Any] = {"squares": squares, "crossed": list(payload.crossed or [])}
    else:
        if payload.squares is not None or payload.finish or payload.retired or payload.dns:
            raise InvalidInput(
                _("A Racetrack result is sent as runs."),
                {"runs": [_("Send each driver's turns, margin, crashes, finished, eliminated.")]},
            )
        runs = driver_keys(payload.runs or {}, "runs")
        checked = {}
        for number, values in runs.items():
            try:
                checked[number] = RunIn.model_validate(values).model_dump()
            except Exception as exc:  # pydantic's ValidationError: a 400 naming the driver
                message = _(
                    "Driver %(number)s: turns, margin and crashes are whole numbers "
                    "from 0, finished and eliminated true or false, place a whole number "
                    "from 1."
                ) % {"number": number}
                raise InvalidInput(message, {f"runs.{number}": [message]}) from exc
        data = {"runs": checked}
    field = "squares" if game == "cannes_monaco" else "runs"
    try:
        game_services.game_result_save(
            actor=actor, table=table, version=payload.version, data=data, submit=payload.submit
        )
    except InvalidInput as exc:
        raise errors_under(field, exc) from exc
