"""API v1, Players: a player's career (``GET /api/v1/players/{id}``, API.md "Players, seasons
and ratings"). The same reads as the career page (``standings.careers.selectors``)."""

from __future__ import annotations

import datetime
from typing import Any, Literal

from django.http import HttpRequest
from django.utils.translation import gettext as _
from ninja import Router, Schema
from pydantic import Field

from standings.careers.selectors import Career, career_for, survivor_of
from tournament.apikit import ERRORS, INT32_MAX, actor_of
from tournament.errors import NotFound
from tournament.models import Player

players_router = Router(tags=["Players"])


class QualifyingOut(Schema):
    rank: int = Field(description="Place in the event's general qualifying classification.")
    status: Literal["ok", "eliminated", "incomplete", "no_run"]
    absolute_time: int | None = Field(description="Null in the quick rules' d20 draw.")
    stopwatch: str | None = Field(description="m:ss.cc of the counted run.")


class CareerEventOut(Schema):
    event: str = Field(description="The event's slug.")
    name: str
    date: datetime.date
    game: str
    qualifying: QualifyingOut | None = Field(
        description="Null until the qualifying is published (or without a line)."
    )
    table: int | None = Field(description="The race table; null until the results are out.")
    position: int | None = Field(description="Place in the table classification.")
    rank: int | None = Field(description="Place in the day classification.")
    status: Literal["finished", "retired", "dns", "running", "eliminated", "dsq"] | None
    points: int | None = Field(description="What the event scored, after any points sanction.")
    counted: bool = Field(description="False for a result left out by “best K results”.")


class CareerStandingOut(Schema):
    rank: int
    points: int
    drivers: int = Field(description="How many drivers the standings rank.")


class CareerSeasonOut(Schema):
    slug: str = Field(description="The championship's slug.")
    name: str
    season: str
    number: int = Field(description="The driver's number in that championship.")
    team: str | None
    standing: CareerStandingOut | None
    events: list[CareerEventOut] = Field(description="By date.")


class RatingPointOut(Schema):
    event: str
    date: datetime.date
    table: int
    place: int
    mu: float
    sigma: float
    rating: float


class PlayerRatingOut(Schema):
    game: str = Field(description="The game family (Formula Dé's quick rules count with it).")
    mu: float
    sigma: float
    rating: float = Field(description="mu − 3 sigma.")
    races: int = Field(description="Tables counted.")
    history: list[RatingPointOut] = Field(description="The rating after each table, in order.")


class PlayerCareerOut(Schema):
    id: int
    name: str
    licence: str | None = Field(
        None, description="Only for the organisers of one of the player's championships."
    )
    championships: list[CareerSeasonOut] = Field(description="Latest season first.")
    ratings: list[PlayerRatingOut]


def career_out(career: Career, *, licence: bool) -> dict[str, Any]:
    player = career.player
    return {
        "id": player.pk,
        "name": career.name,
        "licence": player.licence if licence else None,
        "championships": [
            {
                "slug": season.championship.slug,
                "name": season.championship.name,
                "season": season.championship.season,
                "number": season.driver.number,
                "team": season.driver.team.name if season.driver.team_id else None,
                "standing": {
                    "rank": season.standing.rank,
                    "points": season.standing.points,
                    "drivers": season.drivers_count,
                }
                if season.standing
                else None,
                "events": [
                    {
                        "event": row.event.slug,
                        "name": row.event.name,
                        "date": row.event.date,
                        "game": row.event.game,
                        "qualifying": {
                            "rank": row.qualifying.rank,
                            "status": row.qualifying.status,
                            "absolute_time": row.qualifying.absolute_time,
                            "stopwatch": row.qualifying.stopwatch,
                        }
                        if row.qualifying
                        else None,
                        "table": row.result.table.number if row.result else None,
                        "position": row.result.position if row.result else None,
                        "rank": row.result.rank if row.result else None,
                        "status": row.result.status if row.result else None,
                        "points": row.result.points if row.result else None,
                        "counted": row.counted,
                    }
                    for row in season.events
                ],
            }
            for season in career.seasons
        ],
        "ratings": [
            {
                "game": rating.family,
                "mu": rating.mu,
                "sigma": rating.sigma,
                "rating": rating.rating,
                "races": rating.races,
                "history": [
                    {
                        "event": p.event.slug,
                        "date": p.event.date,
                        "table": p.table_number,
                        "place": p.place,
                        "mu": p.mu,
                        "sigma": p.sigma,
                        "rating": p.rating,
                    }
                    for p in rating.points
                ],
            }
            for rating in career.ratings
        ],
    }


@players_router.get("/players/{id}", response={200: PlayerCareerOut, **ERRORS})
def player_career(request: HttpRequest, id: int) -> dict[str, Any]:  # noqa: A002 - the path's name
    """A player's career: every championship (season) they drove in, each event's
    qualifying, table, place and points, and their ratings per game family with the
    rating after each table. Anonymous readers and tokens that do not organise a
    championship see its published events only. A player merged into another is a 404
    naming the one it was merged into."""
    player = Player.objects.filter(pk=id).first() if 1 <= id <= INT32_MAX else None
    if player is None:
        raise NotFound(_("Unknown player %(id)s.") % {"id": id})
    if player.merged_into_id is not None:
        survivor = survivor_of(player)
        raise NotFound(
            _("Player %(id)s was merged into player %(other)s: ask for that one.")
            % {"id": id, "other": survivor.pk},
            {"id": [_("Merged into player %(other)s.") % {"other": survivor.pk}]},
        )
    actor = actor_of(request)
    career = career_for(player=player, organises=actor.can_organise)
    return career_out(career, licence=career.organiser)
