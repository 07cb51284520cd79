"""A league's reads (DOMAIN.md "A season across clubs"). The walls: a league reads only the
published results and the public names of its counted rounds; never a registration, an
address or an unpublished result.

The standings and the clubs' cup are built once per version of the tables they read and kept
in the public cache (``tournament.public.cache.fragment``, keyed by the database's change
counters, which move when a transaction commits): a round published, a table confirmed or
reopened, a sanction, a table back from the laptop or a round accepted shows at the next
read, with nothing to send. A constant number of queries whatever the season's size.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet, Sum

from races.models import ResultLine
from standings.leagues import rules
from standings.leagues.models import League, Round
from tournament.clubs.models import Club
from tournament.models import Driver, Event, Player, Sanction
from tournament.public.cache import fragment
from tournament.public.names import SHORT, player_name, row_name

#: The tables the standings read (their counters key the cache).
STANDINGS_TABLES = (
    "leagues.League",
    "leagues.Round",
    "tournament.Club",
    "tournament.Championship",
    "tournament.Event",
    "tournament.Driver",
    "tournament.Player",
    "races.ResultLine",
    "tournament.Sanction",
)


def leagues_list() -> QuerySet[League]:
    """Every league with its club (names are public), the latest season first."""
    return League.objects.select_related("club")


def league_rounds(*, league: League) -> list[Round]:
    """Every round of the league, whatever its state, by date: its event and the event's
    club (public names only)."""
    return list(
        Round.objects.filter(league=league)
        .select_related("event__championship__club")
        .order_by("event__date", "event__name", "pk")
    )


def club_leagues(*, club: Club) -> list[League]:
    """The leagues ``club`` runs, the latest season first."""
    return list(League.objects.filter(club=club).select_related("club"))


def club_round_requests(*, club: Club) -> list[Round]:
    """The rounds other clubs' leagues ask of ``club``'s events (its own leagues' rounds are
    counted at once): those still to decide first, then by date."""
    return sorted(
        Round.objects.filter(event__championship__club=club)
        .exclude(league__club=club)
        .select_related("league__club", "event__championship"),
        key=lambda r: (r.status != Round.Status.PROPOSED, r.event.date, r.event.name, r.pk),
    )


#: Events offered in a league's rounds page (the nearest by date; any other by its slug).
PROPOSABLE = 200


def proposable_events(*, league: League, today: datetime.date) -> list[Event]:
    """Events of any club the league may propose (not yet its rounds), from a year before
    ``today`` on, by date, at most ``PROPOSABLE``; public names only."""
    taken = Round.objects.filter(league=league).values("event_id")
    events = (
        Event.objects.exclude(pk__in=taken)
        .select_related("championship__club")
        .filter(date__gte=today - datetime.timedelta(days=366))
        .order_by("date", "name", "pk")
    )
    return list(events[:PROPOSABLE])


def counted_rounds(*, league: League) -> list[Round]:
    """The rounds the league counts: accepted (or of its own club) with published results."""
    return [
        round_
        for round_ in league_rounds(league=league)
        if round_.status == Round.Status.COUNTED and round_.event.published_results
    ]


@dataclass(frozen=True)
class LeagueTable:
    """What the public reads of a league, as plain values (the API's and the page's words):
    ``rounds`` ``[{event, name, date, club: {slug, name}}]``, the counted rounds by date;
    ``lines`` ``[{rank, player: {id, name}, points, rounds: [{event, position, rank,
    status, points, points_removed, counted}], clubs: [slug]}]``; ``clubs`` ``[{rank, club:
    {slug, name}, points, rounds: [{event, points}]}]``."""

    rounds: list[dict[str, Any]]
    lines: list[dict[str, Any]]
    clubs: list[dict[str, Any]]


def league_table(*, league: League) -> LeagueTable:
    """The league's standings and clubs' cup, from its counted rounds' published results,
    built once per version of what they read."""
    text = fragment(
        "leagues.standings",
        STANDINGS_TABLES,
        lambda: json.dumps(_build(league), separators=(",", ":")),
        league.pk,
    )
    data = json.loads(text)
    return LeagueTable(rounds=data["rounds"], lines=data["lines"], clubs=data["clubs"])


def league_standings_json(*, league: League) -> str:
    """The standings' lines as the API sends them, as JSON text kept as the table is (once
    per version of what they read): a national season's 600 players of 40 rounds each are
    not validated again at every read."""
    return fragment(
        "leagues.standings.json",
        STANDINGS_TABLES,
        lambda: json.dumps(league_table(league=league).lines, separators=(",", ":")),
        league.pk,
    )


def _club(club: Any) -> dict[str, str] | None:
    return {"slug": club.slug, "name": club.name} if club is not None else None


def _build(league: League) -> dict[str, Any]:
    rounds = counted_rounds(league=league)
    events = {round_.event_id: round_.event for round_ in rounds}
    out_rounds = [
        {
            "event": round_.event.slug,
            "name": round_.event.name,
            "date": round_.event.date.isoformat(),
            "club": _club(round_.event.championship.club),
        }
        for round_ in rounds
    ]
    if not events:
        return {"rounds": out_rounds, "lines": [], "clubs": []}
    rows = list(
        ResultLine.objects.filter(event_id__in=list(events), event__published_results=True)
        .order_by("event_id", "rank", "pk")
        .values_list(
            "event_id", "driver_id", "driver__player_id", "driver__championship__club_id",
            "position", "place", "rank", "status",
        )
    )  # fmt: skip
    removed = _removed(events)
    lines = []
    for event_id, driver_id, player_id, club_id, position, place, rank, status in rows:
        lines.append(
            rules.RoundLine(
                round=event_id,
                # A driver without a player (made before players) is a person of its own.
                player=player_id if player_id is not None else f"d{driver_id}",
                club=club_id,
                status=status,
                position=position,
                place=position if place is None else place,
                rank=rank,
                removed=removed.get((event_id, driver_id), 0),
            )
        )
    names = _names(lines)
    clubs = {round_.event.championship.club_id: round_.event.championship.club for round_ in rounds}
    order = [round_.event_id for round_ in rounds]
    table = rules.league_standings(
        lines,
        rounds=order,
        scale=league.points_scale,
        mode=league.points_mode,  # type: ignore[arg-type]
        best=league.best_results,
        players=sorted(names, key=lambda key: (names[key].casefold(), str(key))),
    )
    cup = rules.clubs_cup(
        lines,
        rounds=order,
        scale=league.points_scale,
        mode=league.points_mode,  # type: ignore[arg-type]
        club_best=league.club_best,
    )
    slugs = {event_id: event.slug for event_id, event in events.items()}
    return {
        "rounds": out_rounds,
        "lines": [
            {
                "rank": line.rank,
                "player": {
                    "id": line.player if isinstance(line.player, int) else None,
                    "name": names[line.player],
                },
                "points": line.points,
                "rounds": [
                    {
                        "event": slugs[score.round],
                        "position": score.position,
                        "rank": score.rank,
                        "status": score.status,
                        "points": score.points,
                        "points_removed": score.removed,
                        "counted": score.counted,
                    }
                    for score in line.rounds
                ],
                "clubs": [clubs[club].slug for club in line.clubs if clubs.get(club) is not None],
            }
            for line in table
        ],
        "clubs": [
            {
                "rank": line.rank,
                "club": _club(clubs.get(line.club)),
                "points": line.points,
                "rounds": [{"event": slugs[r], "points": pts} for r, pts in line.rounds],
            }
            for line in cup
            if clubs.get(line.club) is not None
        ],
    }


def _removed(events: Iterable[int]) -> dict[tuple[int, int], int]:
    """The points sanctions in force (§1-2-3), whole, by (event, driver)."""
    rows = (
        Sanction.objects.filter(
            event_id__in=list(events), kind=Sanction.Kind.POINTS, withdrawn_at__isnull=True
        )
        .values("event_id", "driver_id")
        .annotate(total=Sum("value"))
        .values_list("event_id", "driver_id", "total")
    )
    return {(e, d): total or 0 for e, d, total in rows}


def _names(lines: list[rules.RoundLine]) -> dict[Any, str]:
    """The public name of each player of ``lines``: a person's, the most private choice of
    their drivers holding (``tournament.public.names``); a driver without a player, its own."""
    player_ids = {line.player for line in lines if isinstance(line.player, int)}
    loose = {int(line.player[1:]) for line in lines if isinstance(line.player, str)}
    names: dict[Any, str] = {}
    short = set(
        Driver.objects.filter(player_id__in=player_ids, public_name_choice=SHORT).values_list(
            "player_id", flat=True
        )
    )
    for player in Player.objects.filter(pk__in=player_ids).only("first_name", "last_name"):
        names[player.pk] = player_name(player, short=player.pk in short)
    for pk, first, last, choice in Driver.objects.filter(pk__in=loose).values_list(
        "pk", "first_name", "last_name", "public_name_choice"
    ):
        names[f"d{pk}"] = row_name(first, last, choice)
    return names
