"""API v1, Leagues: who is who (``matching.py``). The league's organisers read the proposed
joins of its counted rounds' drivers and join those they know to be one person."""

from __future__ import annotations

from typing import Any, Literal

from django.http import HttpRequest
from django.utils.translation import gettext as _
from ninja import Router, Schema
from ninja.responses import Status
from pydantic import Field

from standings.leagues.matching import LeagueMatch, league_join, league_matches
from standings.leagues.models import League
from standings.leagues.services import may_run_league
from tournament.access import Actor
from tournament.apikit import ERRORS, Int, actor_of, require_token
from tournament.errors import NotAllowed, NotFound

league_matches_router = Router(tags=["Leagues"])


class MatchedDriverOut(Schema):
    championship: str = Field(description="The championship's slug.")
    club: str = Field(description="The championship's club's slug.")
    season: str
    number: int
    name: str = Field(description="The name the driver chose to show in public.")
    licence: str | None = Field(None, description="Held or claimed; absent when none.")


class MatchOut(Schema):
    drivers: list[MatchedDriverOut]
    why: Literal["licence", "name"]


class SeatIn(Schema):
    championship: str = Field(max_length=100, description="The championship's slug.")
    number: Int


class JoinIn(Schema):
    drivers: list[SeatIn] = Field(max_length=50)
    reason: str = Field("", max_length=200)


class JoinedOut(Schema):
    id: int
    name: str


def _league(slug: str) -> League:
    league = League.objects.select_related("club").filter(slug=slug[:50]).first()
    if league is None:
        raise NotFound(_("Unknown league %(slug)s.") % {"slug": slug[:50]})
    return league


def _organising(request: HttpRequest, slug: str) -> tuple[Actor, League]:
    actor = actor_of(request)
    require_token(actor)
    league = _league(slug)
    if not may_run_league(actor, league):
        raise NotAllowed(_("Only the league's organisers may do this."))
    return actor, league


def _match_out(match: LeagueMatch) -> dict[str, Any]:
    return {
        "why": match.why,
        "drivers": [
            {
                "championship": d.championship,
                "club": d.club,
                "season": d.season,
                "number": d.number,
                "name": d.name,
                **({"licence": d.licence} if d.licence else {}),
            }
            for d in match.drivers
        ],
    }


@league_matches_router.get(
    "/leagues/{league}/matches", response={200: list[MatchOut], **ERRORS}, exclude_unset=True
)
def league_matches_list(request: HttpRequest, league: str) -> list[dict[str, Any]]:
    """The proposed joins: drivers of the league's counted rounds with the same licence
    number or folded name, who belong to different players (the league's organisers)."""
    _actor, found = _organising(request, league)
    return [_match_out(match) for match in league_matches(league=found)]


@league_matches_router.post("/leagues/{league}/matches", response={201: JoinedOut, **ERRORS})
def league_matches_join(request: HttpRequest, league: str, payload: JoinIn) -> Status[Any]:
    """Join these drivers of the league's counted rounds into one player (recorded; split
    back with ``POST /players/{id}/split``). 400 for a driver outside the counted rounds or
    two of one championship; 409 when two hold two licence numbers."""
    actor, found = _organising(request, league)
    player = league_join(
        actor=actor,
        league=found,
        drivers=[(seat.championship, seat.number) for seat in payload.drivers],
        reason=payload.reason,
    )
    return Status(201, {"id": player.pk, "name": player.name})
