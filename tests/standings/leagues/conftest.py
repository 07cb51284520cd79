"""A league across two clubs, played through race control's services (tests/standings/ratings'
``Season``): the club ``aix`` (owner ``patronne``, organiser ``orga``, desk ``guichet``) runs the
league ``sud``; the club ``nice`` (owner ``rival``) runs a championship whose events the league
proposes. ``invitee`` belongs to no club. Each person has an API token."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from standings.leagues.models import League
from tests.standings.ratings.conftest import Season
from tests.tournament.clubs.conftest import Api, Clubs
from tests.tournament.clubs.conftest import clubs as clubs  # noqa: F401 - the fixture
from tournament.access import Actor
from tournament.models import Player

SCALE = [10, 6, 4, 3]


@dataclass
class World:
    clubs: Clubs
    league: League
    aix: Season
    nice: Season
    players: list[Player]

    def api(self, username: str | None) -> Api:
        return self.clubs.api(username)


@pytest.fixture
def world(clubs: Clubs, organiser: Any) -> World:  # noqa: F811
    """Two championships sharing players 1 and 2 (the same persons, joined on purpose);
    each club's drivers 3 and 4 are its own."""
    shared = [Player.objects.create(first_name=f"Commun{n}", last_name="Sud") for n in (1, 2)]
    actor = Actor(user=organiser)
    aix = Season(actor, "aix-s", 4, [*shared, *_own("Aix")])
    nice = Season(actor, "nice-s", 4, [*shared, *_own("Nice")])
    for season, club in ((aix, clubs.club), (nice, clubs.rival)):
        season.championship.club = club
        season.championship.save(update_fields=["club"])
    league = League.objects.create(
        slug="sud", name="Coupe du Sud", season="2026", club=clubs.club, points_scale=SCALE,
        club_best=2,
    )  # fmt: skip
    return World(clubs, league, aix, nice, shared)


def _own(town: str) -> list[Player]:
    return [Player.objects.create(first_name=f"{town}{n}", last_name="Seul") for n in (3, 4)]
