"""API v1, Setup: a championship's next season in one call (``seasons.py``)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from ninja import Router, Schema
from ninja.responses import Status

from tournament.apikit import ERRORS, actor_of, get_championship, require_token
from tournament.registration import seasons as services
from tournament.registration.api import ChampionshipOut, championship_out

next_season_router = Router(tags=["Setup"])


class NextSeasonIn(Schema):
    slug: str
    name: str
    season: str


@next_season_router.post(
    "/championships/{slug}/next-season", response={201: ChampionshipOut, **ERRORS}
)
def championship_next_season(request: HttpRequest, slug: str, payload: NextSeasonIn) -> Status[Any]:
    """Start the next season (the championship's organisers): a new championship with the
    same scale, mode, best-K, organisers, teams and drivers (same numbers, same players).
    A slug already taken answers 409; nothing of this season changes."""
    actor = actor_of(request)
    require_token(actor)
    new = services.championship_next_season(
        actor=actor,
        championship=get_championship(slug),
        slug=payload.slug,
        name=payload.name,
        season=payload.season,
    )
    return Status(201, championship_out(new))
