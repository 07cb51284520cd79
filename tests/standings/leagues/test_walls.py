"""A league reads only what its rounds published (DOMAIN.md "A season across clubs", Walls):
for random seasons of two clubs, the standings' API (JSON and CSV), the clubs' cup and the
league's page never show a result of an unpublished round or of a round not counted, nor a
registrant's or a driver's address, nor a licence number, though every driver has both."""

from __future__ import annotations

import datetime
import itertools

import pytest
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from races.models import RaceTable, ResultLine
from standings.leagues.models import League, Round
from tournament.models import Championship, Club, Driver, Event, Player
from tournament.signup.models import Registration

pytestmark = pytest.mark.django_db

PLAYERS = 5
#: Names no other name contains, so that a name absent from a page is truly absent.
FIRST_NAMES = ["Anouk", "Bastien", "Capucine", "Dorian", "Eulalie"]

round_st = st.fixed_dictionaries(
    {
        "club": st.integers(0, 1),
        "published": st.booleans(),
        "status": st.sampled_from(["counted", "proposed", "declined"]),
        "drivers": st.lists(st.integers(0, PLAYERS - 1), min_size=1, max_size=4, unique=True),
    }
)
_seasons = itertools.count()


def _secrets(c: int, p: int) -> tuple[str, str]:
    """The address and licence number of player ``p`` in club ``c``'s championship."""
    return f"adresse-{c}-{p}@secret.example", f"LIC{c}{p}Z"


@pytest.fixture
def ground(db):
    clubs = [Club.objects.create(slug=f"w{n}", name=f"Club {n}") for n in (0, 1)]
    championships = [
        Championship.objects.create(slug=f"wch{n}", name=f"Ch {n}", season="2026", club=club)
        for n, club in enumerate(clubs)
    ]
    players = [
        Player.objects.create(first_name=name, last_name="Mur", licence=_secrets(0, p)[1])
        for p, name in enumerate(FIRST_NAMES)
    ]
    drivers = {
        (c, p): Driver.objects.create(
            championship=championships[c],
            number=p + 1,
            first_name=FIRST_NAMES[p],
            last_name="Mur",
            email=_secrets(c, p)[0],
            player=players[p],
        )  # fmt: skip
        for c in (0, 1)
        for p in range(PLAYERS)
    }
    return clubs, championships, drivers


@settings(
    max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(rounds=st.lists(round_st, min_size=1, max_size=4))
def test_a_league_shows_only_its_counted_rounds_published_results(ground, rounds):
    clubs, championships, drivers = ground
    n = next(_seasons)
    league = League.objects.create(
        slug=f"mur-{n}", name="Mur", season="2026", club=clubs[0], points_scale=[10, 6, 4, 3]
    )
    shown: set[tuple[str, int]] = set()  # (event, player) a league may show
    hidden: set[tuple[str, int]] = set()
    for r, spec in enumerate(rounds):
        c = spec["club"]
        event = Event.objects.create(
            championship=championships[c], slug=f"m{n}-{r}", name=f"Manche {r}",
            date=datetime.date(2026, 1, 1) + datetime.timedelta(days=r),
            published_results=spec["published"],
        )  # fmt: skip
        Round.objects.create(league=league, event=event, status=spec["status"])
        table = RaceTable.objects.create(event=event, number=1)
        visible = spec["published"] and spec["status"] == "counted"
        for position, p in enumerate(spec["drivers"], start=1):
            email, licence = _secrets(c, p)
            Registration.objects.create(
                event=event, first_name=FIRST_NAMES[p], last_name="Mur", email=email,
                licence=licence, status=Registration.Status.ACCEPTED, driver=drivers[(c, p)],
            )  # fmt: skip
            ResultLine.objects.create(
                event=event, table=table, driver=drivers[(c, p)], position=position,
                rank=position, status="finished", points=0,
            )  # fmt: skip
            (shown if visible else hidden).add((event.slug, drivers[(c, p)].player_id))
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    api = f"/api/v1/leagues/{league.slug}"
    lines = client.get(f"{api}/standings").json()
    listed = {(r["event"], line["player"]["id"]) for line in lines for r in line["rounds"]}
    assert listed == shown
    cup = client.get(f"{api}/clubs").json()
    assert {r["event"] for line in cup for r in line["rounds"]} <= {e for e, _p in shown}
    texts = [
        client.get(f"{api}/standings").content.decode(),
        client.get(f"{api}/standings", {"format": "csv"}).content.decode(),
        client.get(f"{api}/clubs").content.decode(),
        client.get(f"/l/{league.slug}/").content.decode(),
    ]
    secrets = {text for c in (0, 1) for p in range(PLAYERS) for text in _secrets(c, p)}
    assert [s for s in secrets for text in texts if s in text] == []
    # A player with no published result of a counted round is on none of these.
    unseen = {p for _e, p in hidden} - {p for _e, p in shown}
    names = {player.first_name for player in Player.objects.filter(pk__in=unseen)}
    assert [name for name in names for text in texts if name in text] == []
