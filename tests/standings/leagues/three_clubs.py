"""Three clubs and a league (DOMAIN.md "A season across clubs"): ``aix`` runs the league
``sud-2026``, which counts an event of its own (``aix-gp``) and one of ``nice`` (``nice-gp``,
accepted); ``lyon``'s event is only proposed. ``patronne`` owns aix (the league's organiser),
``rival`` owns nice, ``lyonnais`` owns lyon. Rows are made directly: the rounds' services are
tested on their own."""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from typing import Any

from standings.leagues.models import League, Round
from tests.tournament.clubs.conftest import Api
from tournament.access import Actor
from tournament.models import ApiToken, Championship, Club, Driver, Event, Membership
from tournament.players.identity import new_player


@dataclass
class Season:
    league: League
    clubs: dict[str, Club]
    championships: dict[str, Championship]
    events: dict[str, Event]
    users: dict[str, Any]
    tokens: dict[str, str] = field(default_factory=dict)

    def api(self, username: str | None) -> Api:
        return Api(self.tokens[username] if username else None)

    def actor(self, username: str) -> Actor:
        return Actor(user=self.users[username])

    def driver(self, club: str, number: int, first: str, last: str, **more: Any) -> Driver:
        """A driver of ``club``'s championship with a player of its own (``licence`` held,
        ``claimed``: a licence number claimed)."""
        player = new_player(
            first, last, "", more.pop("licence", None), claimed_licence=more.pop("claimed", "")
        )
        return Driver.objects.create(
            championship=self.championships[club], number=number, first_name=first,
            last_name=last, player=player, **more,
        )  # fmt: skip


def build_season(django_user_model: Any) -> Season:
    """The three clubs, their people and the league (the module's docstring)."""
    owners = {"aix": "patronne", "nice": "rival", "lyon": "lyonnais"}
    users = {
        name: django_user_model.objects.create_user(name, password="pw")
        for name in (*owners.values(), "orga")
    }
    clubs, championships, events = {}, {}, {}
    for day, (slug, owner) in enumerate(owners.items(), start=1):
        club = clubs[slug] = Club.objects.create(slug=slug, name=f"Club {slug.title()}")
        Membership.objects.create(club=club, user=users[owner], role="owner")
        championships[slug] = Championship.objects.create(
            slug=f"{slug}-2026", name=f"Coupe {slug.title()}", season="2026",
            points_scale=[10, 6, 4], club=club,
        )  # fmt: skip
        events[slug] = Event.objects.create(
            championship=championships[slug], slug=f"{slug}-gp", name=f"GP {slug.title()}",
            date=datetime.date(2026, 5, day),
        )  # fmt: skip
    Membership.objects.create(club=clubs["aix"], user=users["orga"], role="organiser")
    league = League.objects.create(
        slug="sud-2026", name="Coupe du Sud", season="2026", club=clubs["aix"],
        points_scale=[10, 6, 4],
    )  # fmt: skip
    Round.objects.create(league=league, event=events["aix"], status=Round.Status.COUNTED)
    Round.objects.create(league=league, event=events["nice"], status=Round.Status.COUNTED)
    Round.objects.create(league=league, event=events["lyon"], status=Round.Status.PROPOSED)
    world = Season(league, clubs, championships, events, users)
    world.tokens = {name: ApiToken.issue(user) for name, user in users.items()}
    return world
