"""Who is who in a league (DOMAIN.md "A season across clubs"): the league's matching proposes
drivers of its counted rounds' championships whose players may be one person (the same
licence number, held or claimed, or the same folded name: ``tournament.players.names``), side
by side; its organisers join them on purpose, through race control's merge of players
(``tournament.players.changes``: each join is a recorded ``PlayerChange``, split back with
``POST /api/v1/players/{id}/split`` or undone). Nothing is joined here by a name or an
address: a proposal is only a proposal.

The league's organisers (its club's owners and organisers) decide about the drivers of its
counted rounds: ``decides_for_leagues`` answers ``tournament.signals.players_deciders``, so
that the merge, the split and the undo of the ground accept them for those drivers only.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from standings.leagues.models import League, Round
from standings.leagues.services import may_run_league
from tournament.access import Actor
from tournament.clubs import rights
from tournament.errors import InvalidInput, NotAllowed
from tournament.models import Championship, Driver, NotSamePlayer, Player
from tournament.players.changes import players_merge
from tournament.players.names import name_key

#: The most proposals the page and the API list at once (the rest come once these are decided).
LIMIT = 200


@dataclass(frozen=True)
class MatchedDriver:
    """One driver of a proposal, as the league's organisers read it side by side."""

    championship: str
    championship_name: str
    season: str
    club: str
    club_name: str
    number: int
    name: str  # the public name the driver chose
    licence: str  # "" when the player holds or claims none


@dataclass
class LeagueMatch:
    """Two players of the league's rounds who may be one person, and why."""

    why: str  # "licence" or "name"
    drivers: list[MatchedDriver] = field(default_factory=list)


def counted_championships(league: League) -> set[int]:
    """The championships (ids) of the league's counted rounds' events."""
    rounds = Round.objects.filter(league=league, status=Round.Status.COUNTED)
    return set(rounds.values_list("event__championship_id", flat=True))


def _seat(driver: Driver) -> MatchedDriver:
    championship = driver.championship
    club = championship.club
    player = driver.player
    return MatchedDriver(
        championship=championship.slug,
        championship_name=championship.name,
        season=championship.season,
        club=club.slug if club is not None else "",
        club_name=club.name if club is not None else "",
        number=driver.number,
        name=driver.public_name,
        licence=(player.licence or player.claimed_licence) if player is not None else "",
    )


def league_matches(*, league: League, limit: int = LIMIT) -> list[LeagueMatch]:
    """The pairs of players of the league's counted rounds' championships who hold or claim
    one licence number, or whose drivers' folded names are equal; never a pair said to be two
    people (``NotSamePlayer``), holding two licence numbers, or driving in one championship
    (a merge would refuse them). By licence first, then by name; nothing is written."""
    drivers = list(
        Driver.objects.filter(championship__in=counted_championships(league), player__isnull=False)
        .select_related("championship__club", "player")
        .order_by("championship__season", "championship__slug", "number")
    )
    by_licence: dict[str, set[int]] = defaultdict(set)
    by_name: dict[str, set[int]] = defaultdict(set)
    seats: dict[int, list[Driver]] = defaultdict(list)
    players: dict[int, Player] = {}
    for driver in drivers:
        player = driver.player
        assert player is not None
        players[player.pk] = player
        seats[player.pk].append(driver)
        for licence in {player.licence or "", player.claimed_licence}:
            if licence:
                by_licence[licence].add(player.pk)
        if key := name_key(driver.first_name, driver.last_name):
            by_name[key].add(player.pk)
    why: dict[tuple[int, int], str] = {}
    for reason, groups in (("licence", by_licence), ("name", by_name)):
        for key in sorted(groups):
            for pair in combinations(sorted(groups[key]), 2):
                why.setdefault(pair, reason)
    if not why:
        return []
    ids = {pk for pair in why for pk in pair}
    refused = set(
        NotSamePlayer.objects.filter(player__in=ids, other__in=ids).values_list(
            "player_id", "other_id"
        )
    )
    # Every championship of each player, the league's or not: one person drives once in each.
    driven: dict[int, set[int]] = defaultdict(set)
    for player_id, championship_id in Driver.objects.filter(player__in=ids).values_list(
        "player_id", "championship_id"
    ):
        driven[player_id].add(championship_id)
    found = []
    for (a, b), reason in sorted(why.items(), key=lambda item: (item[1] != "licence", item[0])):
        one, two = players[a], players[b]
        if (a, b) in refused or driven[a] & driven[b]:
            continue
        if one.licence and two.licence and one.licence != two.licence:
            continue
        found.append(LeagueMatch(why=reason, drivers=[_seat(d) for d in seats[a] + seats[b]]))
        if len(found) >= limit:
            break
    return found


@transaction.atomic
def league_join(
    *, actor: Actor, league: League, drivers: Iterable[tuple[str, int]], reason: str = ""
) -> Player:
    """The league's organisers say these drivers (championship slug, number) of its counted
    rounds are one person: their players are merged into the oldest of them, each merge
    recorded (``players_merge``: refused, and nothing joined, when two of them hold two
    licence numbers or drive in one championship). Answers the player they now are."""
    if not may_run_league(actor, league):
        raise NotAllowed(_("Only the league's organisers may join its drivers."))
    wanted = list(dict.fromkeys((slug, number) for slug, number in drivers))
    if len(wanted) < 2:
        raise InvalidInput(
            _("Name at least two drivers to join."), {"drivers": [_("Name at least two.")]}
        )
    slugs = [slug for slug, _number in wanted]
    if len(set(slugs)) < len(slugs):
        message = _("Two of these drivers drive in one championship: they are two people.")
        raise InvalidInput(message, {"drivers": [message]})
    counted = counted_championships(league)
    found = {
        (d.championship.slug, d.number): d
        for d in Driver.objects.filter(
            championship__in=counted, championship__slug__in=slugs
        ).select_related("championship", "player")
    }
    for slug, number in wanted:
        driver = found.get((slug, number))
        if driver is None or driver.player is None:
            message = _(
                "Driver %(number)s of %(championship)s does not drive in a round this league "
                "counts."
            ) % {"number": number, "championship": slug}
            raise InvalidInput(message, {"drivers": [message]})
    players = sorted({found[seat].player_id for seat in wanted})  # type: ignore[misc]
    keep = Player.objects.get(pk=players[0])
    text = (reason or "").strip() or _("Joined on the league's matching page (%(league)s).") % {
        "league": league.slug
    }
    for other in Player.objects.filter(pk__in=players[1:]).order_by("pk"):
        players_merge(actor=actor, keep=keep, other=other, reason=text)
    keep.refresh_from_db()
    return keep


def decides_for_leagues(sender: Any, *, actor: Actor, sides: list[set[int]], **kwargs: Any) -> bool:
    """``tournament.signals.players_deciders``: True when ``actor`` runs a league whose counted
    rounds' championships meet every side (the drivers it may join, split back or undo)."""
    # A league decides who is who across clubs only: what one club joined among its own
    # championships (its race control's confirmed match) stays that club's to split back.
    clubs_of = dict(
        Championship.objects.filter(pk__in=set().union(*sides)).values_list("pk", "club_id")
    )
    side_clubs = [{clubs_of.get(pk) for pk in side} for side in sides]
    if any(first & second for first, second in combinations(side_clubs, 2)):
        return False
    leagues = League.objects.filter(club__in=rights.running_clubs(actor.user))
    counted: dict[int, set[int]] = defaultdict(set)
    for league_id, championship_id in Round.objects.filter(
        league__in=leagues, status=Round.Status.COUNTED
    ).values_list("league_id", "event__championship_id"):
        counted[league_id].add(championship_id)
    return any(all(side & mine for side in sides) for mine in counted.values())
