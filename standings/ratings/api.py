"""API v1, Ratings: a game's ranking of players."""

from __future__ import annotations

from typing import Annotated, Any

from django.http import HttpRequest
from django.utils.translation import gettext as _
from ninja import Router, Schema
from pydantic import Field

from standings.ratings.selectors import ranking
from tournament.apikit import ERRORS, INT32_MAX, expected, invalid_fields
from tournament.games.registry import FAMILY_MAX, MAIN_GAME
from tournament.games.selectors import families
from tournament.public.names import player_name

ratings_router = Router(tags=["Ratings"])

#: At most this many players an answer: 10,000 players are 10 calls (a federation's whole
#: ranking is ~1 MB of JSON otherwise, built at once).
MAX_LIMIT = 1000
Limit = Annotated[int, Field(ge=1, le=MAX_LIMIT)]
Offset = Annotated[int, Field(ge=0, le=INT32_MAX)]


class RatedPlayerOut(Schema):
    id: int
    name: str


class RatingOut(Schema):
    rank: int = Field(description="Shared on an equal rating: 1, 2, 2, 4.")
    player: RatedPlayerOut
    mu: float = Field(description="openskill's estimate of the skill (Plackett–Luce).")
    sigma: float = Field(description="Its uncertainty: it shrinks with every race.")
    rating: float = Field(description="The conservative rating, mu − 3 sigma: the order.")
    races: int = Field(description="The tables counted: confirmed, results published.")


@ratings_router.get("/ratings", response={200: list[RatingOut], **ERRORS})
def ratings(
    request: HttpRequest,
    game: Annotated[str, Field(max_length=FAMILY_MAX)] = MAIN_GAME,
    limit: Limit = 100,
    offset: Offset = 0,
) -> list[dict[str, Any]]:
    """A game family's ranking, best conservative rating first, ``limit`` players (100 by
    default, at most 1000) from ``offset``: page on until fewer than ``limit`` come back.
    Counts only confirmed tables of events whose results are published, so every reader
    sees the same. ``game``: a game, or a named game's family (``GET /games``)."""
    known = families()
    if game not in known:
        raise invalid_fields(
            {"game": [_("Use one of: %(choices)s.") % {"choices": expected(known)}]}
        )
    return [
        {
            "rank": line.rank,
            "player": {"id": line.player_id, "name": player_name(line.player, short=line.short)},
            "mu": line.mu,
            "sigma": line.sigma,
            "rating": line.rating,
            "races": line.races,
        }
        for line in ranking(game=game)[offset : offset + limit]
    ]
