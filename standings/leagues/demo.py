"""The league's demo, loaded by ``load_demo`` (idempotent): "Coupe du Sud (démo)", run by the
demo club, counts two Heat evenings of each of three clubs (the demo club's own, counted at
once; Nice's and Lyon's, proposed then accepted), every table confirmed and published. Two
people race for two clubs under one name (Nice and Lyon): two players until the league's
organisers join them on its matching page.

Each step runs only if its result is missing, so that loading twice changes nothing.
"""

from __future__ import annotations

import datetime

from races.games.demo import heat_evening
from standings.leagues.models import League, Round
from standings.leagues.services import league_create, round_accept, round_propose
from tournament.access import Actor
from tournament.models import Championship, Club, Event
from tournament.registration.services import (
    championship_create,
    drivers_import,
)

LEAGUE_SLUG = "demo-coupe-du-sud"
#: Each club: slug, name, its championship's slug, its drivers (number;first;last). The demo
#: club's Heat players are people of their own: race control's matching of the demo club
#: proposes none of them as one of its other championships' drivers.
CLUBS = {
    "aix": ("", "", "demo-heat-aix", ["Margot;Leroy", "Bastien;Picard", "Jeanne;Benali",
                                       "Théo;Delmas", "Zoé;Carpentier", "Malik;Aubry"]),
    "nice": ("demo-nice", "Club de Nice (démo)", "demo-heat-nice",
             ["Lina;Perrot", "Nils;Fabre", "Sacha;Moreau", "Léa;Girard", "Tom;Roux",
              "Anaïs;Lopez"]),
    "lyon": ("demo-lyon", "Club de Lyon (démo)", "demo-heat-lyon",
             ["Léa;GIRARD", "Paul;Blanc", "Emma;Faure", "Yanis;Morel", "Chloé;Henry",
              "Tom;Roux"]),
}  # fmt: skip
#: Each evening's crossing order, by grid place (one table of six).
ORDERS = ([3, 1, 5, 2, 6, 4], [2, 4, 1, 6, 3, 5])
#: Each club's day of the month for its evenings.
DAYS = {"aix": 4, "nice": 11, "lyon": 18}


def load_league(*, admin: Actor, club: Club) -> tuple[League, list[Event]]:
    """The three clubs' championships, their two evenings each with results, and the league
    (of the demo ``club``) counting the six; returns the league and its events."""
    events: list[Event] = []
    for key, (slug, name, championship_slug, drivers) in CLUBS.items():
        owner = club if key == "aix" else _club(slug, name)
        championship = Championship.objects.filter(
            slug=championship_slug
        ).first() or championship_create(
            actor=admin,
            slug=championship_slug,
            name=f"Soirées Heat {owner.name}",
            season="2026",
            points_scale=[10, 7, 5, 3, 2, 1],
            club=owner,
        )
        text = "number;first_name;last_name\n" + "".join(
            f"{n};{driver}\n" for n, driver in enumerate(drivers, start=1)
        )
        drivers_import(actor=admin, championship=championship, text=text)
        for evening, order in enumerate(ORDERS, start=1):
            events.append(
                heat_evening(
                    admin=admin,
                    championship=championship,
                    slug=f"demo-heat-{key}-{evening}",
                    number=evening,
                    date=datetime.date(2026, 3 + evening * 2, DAYS[key]),
                    order=order,
                )
            )
    league = League.objects.filter(slug=LEAGUE_SLUG).first() or league_create(
        actor=admin,
        club=club,
        slug=LEAGUE_SLUG,
        name="Coupe du Sud (démo)",
        season="2026",
        points_scale=[10, 7, 5, 3, 2, 1],
        best_results=5,
        club_best=3,
    )
    for event in events:
        round_ = Round.objects.filter(league=league, event=event).first()
        if round_ is None:
            round_ = round_propose(actor=admin, league=league, event=event)
        if round_.status == Round.Status.PROPOSED:
            round_accept(actor=admin, round_=round_)
    return league, events


def _club(slug: str, name: str) -> Club:
    return Club.objects.filter(slug=slug).first() or Club.objects.create(slug=slug, name=name)
