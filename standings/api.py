"""API v1, Standings: drivers' and teams' standings of a championship."""

from __future__ import annotations

from typing import Any, Literal

from django.http import HttpRequest
from ninja import Router, Schema
from pydantic import Field

from standings.selectors import standings_for, team_standings_for
from tournament.apikit import (
    ERRORS,
    DriverOut,
    actor_of,
    driver_out,
    get_championship,
    with_players,
)
from tournament.models import (
    Championship,
)

# ---------------------------------------------------------------------------
# Standings
# ---------------------------------------------------------------------------

standings_router = Router(tags=["Standings"])


class StandingResultOut(Schema):
    event: str = Field(description="The event's slug.")
    position: int = Field(description="Place in the table classification.")
    status: Literal["finished", "retired", "dns", "running", "eliminated", "dsq"]
    points: int = Field(description="What the event scored, before any points sanction.")
    points_removed: int = Field(0, description="Points a sanction removed at this event.")
    counted: bool = Field(description="False for a result left out by “best K results”.")


class StandingOut(Schema):
    rank: int = Field(description="Shared on equal points and countback: 1, 2, 2, 4.")
    driver: DriverOut
    points: int = Field(
        description="The counted results' points less every point removed by a sanction "
        "(§1-2-3), in full; may go below zero."
    )
    points_removed: int = Field(0, description="Points removed by sanctions, all events.")
    results: list[StandingResultOut] = Field(description="One per counted event, by date.")
    countback: list[int] = Field(description="How many 1st, 2nd, 3rd… places at their table.")


class TeamStandingOut(Schema):
    rank: int
    team: str
    points: int


def _published_only(request: HttpRequest, championship: Championship) -> bool:
    """Organisers and the desk see every event with confirmed results; everyone else
    published ones."""
    return not actor_of(request).can_desk(championship)


@standings_router.get(
    "/championships/{slug}/standings", response={200: list[StandingOut], **ERRORS}
)
def standings(request: HttpRequest, slug: str) -> list[dict[str, Any]]:
    """The drivers' standings: every driver with an entry in a counted event, 0 points
    included; best K results when the championship says so; ties by countback, then a
    shared rank. Anonymous readers and other tokens see published events only."""
    championship = get_championship(slug)
    table = standings_for(
        championship=championship, published_only=_published_only(request, championship)
    )
    slugs = {event.pk: event.slug for event in table.events}
    with_players(line.driver for line in table.lines)
    return [
        {
            "rank": line.rank,
            "driver": driver_out(line.driver),
            "points": line.points,
            "points_removed": line.points_removed,
            "results": [
                {
                    "event": slugs[event.pk],
                    "position": result.position,
                    "status": result.status,
                    "points": result.points,
                    "points_removed": line.removed.get(event.pk, 0),
                    "counted": event.pk in line.counted,
                }
                for event in table.events
                if (result := line.results.get(event.pk)) is not None
            ],
            "countback": list(line.countback),
        }
        for line in table.lines
    ]


@standings_router.get(
    "/championships/{slug}/team-standings", response={200: list[TeamStandingOut], **ERRORS}
)
def team_standings(request: HttpRequest, slug: str) -> list[dict[str, Any]]:
    """The teams' standings: the sum of their drivers' counted points; equal points share
    the rank. Same events as the drivers' standings."""
    championship = get_championship(slug)
    lines = team_standings_for(
        championship=championship, published_only=_published_only(request, championship)
    )
    return [{"rank": line.rank, "team": line.team.name, "points": line.points} for line in lines]
