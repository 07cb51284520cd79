"""The finishing-order game in the API: its body of ``PUT .../tables/{t}/result`` (the
Formula Dé shape, API.md "Any racing game"), handed here by the race floor through the
game's variant (``races/games/variants.py``)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from races.games.finishing_order import services
from races.models import RaceTable
from tournament.apikit import actor_of


def table_result_save(request: HttpRequest, table: RaceTable, payload: Any) -> None:
    """Save the crossing order: ``finish``, ``retired`` (cause ``other``, ``lap`` and
    ``note`` optional), ``dns``; a 400 names each driver at fault."""
    services.result_save(
        actor=actor_of(request),
        table=table,
        version=payload.version,
        finish=list(payload.finish),
        retired=[r.as_service_input() for r in payload.retired],
        dns=list(payload.dns),
        submit=payload.submit,
    )
