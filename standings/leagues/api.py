"""API v1, leagues (API.md "A season across clubs"): leagues, their rounds (proposed by the
league, accepted or declined by the event's club), the standings and the clubs' cup (public,
from published results only)."""

from __future__ import annotations

from typing import Any, Literal

from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext as _
from ninja import Router, Schema
from ninja.responses import Status
from pydantic import Field, field_validator

from standings.leagues import selectors, services
from standings.leagues.models import League, Round
from tournament.apikit import ERRORS, Int, actor_of, get_event, require_token
from tournament.clubs.models import Club
from tournament.documents.exports import FORMATS, csv_bytes, xlsx_bytes
from tournament.errors import InvalidInput, NotFound
from tournament.registration.scales import DEFAULT_POINTS_SCALE
from tournament.signup.announcement import OneLine

router = Router(tags=["Leagues"])


class LeagueClubOut(Schema):
    slug: str
    name: str


class LeagueIn(Schema):
    slug: str
    name: OneLine
    season: OneLine
    club: str = Field(description="The slug of the club the league belongs to.")
    points_scale: list[Int] = Field(default_factory=lambda: list(DEFAULT_POINTS_SCALE))
    points_mode: Literal["per_table", "overall"] = "per_table"
    best_results: Int | None = None
    club_best: Int | None = Field(
        None, description="The clubs' cup: a club's best N players of each round (3 if left out)."
    )

    @field_validator("season", mode="before")
    @classmethod
    def _season_as_text(cls, value: Any) -> Any:
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        return value


class LeagueOut(Schema):
    slug: str
    name: str
    season: str
    club: LeagueClubOut
    points_scale: list[int]
    points_mode: str
    best_results: int | None
    club_best: int


class LeagueRoundOut(Schema):
    event: str = Field(description="The event's slug.")
    name: str
    date: str
    club: LeagueClubOut | None
    status: Literal["proposed", "counted", "declined"]


class LeagueDetailOut(LeagueOut):
    rounds: list[LeagueRoundOut]


class LeagueRoundIn(Schema):
    event: str = Field(description="The event's slug.")


class LeagueRoundStatusOut(Schema):
    status: Literal["proposed", "counted", "declined"]


class LeaguePlayerOut(Schema):
    id: int | None = Field(description="The player; null for a driver made before players.")
    name: str = Field(description="The public name the player chose.")


class LeagueRoundResultOut(Schema):
    event: str
    position: int | None = None
    rank: int | None = None
    status: str
    points: int = Field(description="The league's points for the round, before any sanction.")
    points_removed: int = 0
    counted: bool = Field(description="False for a round left out by “best K results”.")


class LeagueStandingOut(Schema):
    rank: int = Field(description="Shared on equal points and countback: 1, 2, 2, 4.")
    player: LeaguePlayerOut
    points: int
    rounds: list[LeagueRoundResultOut]
    clubs: list[str] = Field(description="The slugs of the clubs the player counted for.")


class LeagueClubRoundOut(Schema):
    event: str
    points: int


class LeagueClubStandingOut(Schema):
    rank: int
    club: LeagueClubOut
    points: int
    rounds: list[LeagueClubRoundOut]


def _club(club: Club | None) -> dict[str, str] | None:
    return {"slug": club.slug, "name": club.name} if club is not None else None


def _league_out(league: League) -> dict[str, Any]:
    return {
        "slug": league.slug,
        "name": league.name,
        "season": league.season,
        "club": _club(league.club),
        "points_scale": league.points_scale,
        "points_mode": league.points_mode,
        "best_results": league.best_results,
        "club_best": league.club_best,
    }


def _round_out(round_: Round) -> dict[str, Any]:
    event = round_.event
    return {
        "event": event.slug,
        "name": event.name,
        "date": event.date.isoformat(),
        "club": _club(event.championship.club),
        "status": round_.status,
    }


def get_league(slug: str) -> League:
    league = League.objects.select_related("club").filter(slug=slug[:50]).first()
    if league is None:
        raise NotFound(_("Unknown league “%(slug)s”.") % {"slug": slug[:60]})
    return league


def get_round(league: League, event_slug: str) -> Round:
    event = get_event(event_slug)
    round_ = (
        Round.objects.select_related("league__club", "event__championship__club")
        .filter(league=league, event=event)
        .first()
    )
    if round_ is None:
        raise NotFound(
            _("%(event)s is not a round of %(league)s.")
            % {"event": event.name, "league": league.name}
        )
    return round_


@router.post("/leagues", response={201: LeagueOut, **ERRORS})
def league_create(request: HttpRequest, payload: LeagueIn) -> Status[Any]:
    """A league of a club (its owners and organisers): a season that counts events of
    several clubs' championships, with its scale, mode, best-K and the clubs' cup's N."""
    actor = actor_of(request)
    require_token(actor)
    club = Club.objects.filter(slug=payload.club[:50]).first()
    if club is None:
        message = _("Unknown club “%(slug)s”.") % {"slug": payload.club[:60]}
        raise InvalidInput(message, {"club": [message]})
    fields = payload.model_dump(exclude={"club"})
    league = services.league_create(actor=actor, club=club, **fields)
    return Status(201, _league_out(league))


@router.get("/leagues", response={200: list[LeagueOut], **ERRORS})
def league_list(request: HttpRequest) -> list[dict[str, Any]]:
    """Every league (public)."""
    return [_league_out(league) for league in selectors.leagues_list()]


@router.get("/leagues/{league}", response={200: LeagueDetailOut, **ERRORS})
def league_detail(request: HttpRequest, league: str) -> dict[str, Any]:
    """A league and its rounds, whatever their state (public)."""
    found = get_league(league)
    return {
        **_league_out(found),
        "rounds": [_round_out(r) for r in selectors.league_rounds(league=found)],
    }


@router.post("/leagues/{league}/rounds", response={201: LeagueRoundStatusOut, **ERRORS})
def round_propose(request: HttpRequest, league: str, payload: LeagueRoundIn) -> Status[Any]:
    """The league counts an event (its organisers): ``counted`` at once for an event of
    the league's club, else ``proposed`` to the event's club, whose owners get a mail."""
    actor = actor_of(request)
    require_token(actor)
    found = get_league(league)
    round_ = services.round_propose(actor=actor, league=found, event=get_event(payload.event))
    return Status(201, {"status": round_.status})


@router.post(
    "/leagues/{league}/rounds/{event}/accept", response={200: LeagueRoundStatusOut, **ERRORS}
)
def round_accept(request: HttpRequest, league: str, event: str) -> dict[str, Any]:
    """The event's club counts its event in the league (its owners and organisers)."""
    actor = actor_of(request)
    require_token(actor)
    round_ = services.round_accept(actor=actor, round_=get_round(get_league(league), event))
    return {"status": round_.status}


@router.post(
    "/leagues/{league}/rounds/{event}/decline", response={200: LeagueRoundStatusOut, **ERRORS}
)
def round_decline(request: HttpRequest, league: str, event: str) -> dict[str, Any]:
    """The event's club keeps its event out of the league (its owners and organisers)."""
    actor = actor_of(request)
    require_token(actor)
    round_ = services.round_decline(actor=actor, round_=get_round(get_league(league), event))
    return {"status": round_.status}


@router.delete("/leagues/{league}/rounds/{event}", response={204: None, **ERRORS})
def round_withdraw(request: HttpRequest, league: str, event: str) -> Status[None]:
    """The league stops counting the event (its organisers)."""
    actor = actor_of(request)
    require_token(actor)
    services.round_withdraw(actor=actor, round_=get_round(get_league(league), event))
    return Status(204, None)


def standings_rows(table: selectors.LeagueTable) -> list[list[Any]]:
    """The standings as a spreadsheet's rows: rank, player, points, clubs, then each round's
    points (empty where the player has none)."""
    events = [r["event"] for r in table.rounds]
    header = [_("Rank"), _("Player"), _("Points"), _("Clubs"), *events]
    rows: list[list[Any]] = [header]
    for line in table.lines:
        by_event = {r["event"]: r["points"] for r in line["rounds"]}
        rows.append(
            [
                line["rank"],
                line["player"]["name"],
                line["points"],
                ", ".join(line["clubs"]),
                *[by_event.get(event, "") for event in events],
            ]
        )
    return rows


@router.get("/leagues/{league}/standings", response={200: list[LeagueStandingOut], **ERRORS})
def league_standings(
    request: HttpRequest, league: str, format: Literal["json", "csv", "xlsx"] = "json"
) -> Any:
    """The league's standings (public), from its counted rounds' published results only:
    best K rounds, countback, shared ranks; ``?format=csv|xlsx`` for a spreadsheet."""
    found = get_league(league)
    if format in FORMATS:
        rows = standings_rows(selectors.league_table(league=found))
        name = f"{found.slug}-standings"
        content = xlsx_bytes(rows, title=name) if format == "xlsx" else csv_bytes(rows)
        response = HttpResponse(content, content_type=FORMATS[format])
        response["Content-Disposition"] = f'attachment; filename="{name}.{format}"'
        return response
    # The lines are the schema's already: sent as stored, not validated again (bench.leagues).
    return HttpResponse(
        selectors.league_standings_json(league=found), content_type="application/json"
    )


@router.get("/leagues/{league}/clubs", response={200: list[LeagueClubStandingOut], **ERRORS})
def league_clubs(request: HttpRequest, league: str) -> list[dict[str, Any]]:
    """The clubs' cup (public): each round, a club scores its best N players' points;
    clubs ranked by the sum, countback by best round."""
    return selectors.league_table(league=get_league(league)).clubs
