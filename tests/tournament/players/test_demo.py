"""The demo's players: the next season carries them over, so careers hold two seasons."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from races.models import RaceTable, ResultStatus
from tournament.access import Actor
from tournament.models import Driver, Player, PlayerChange
from tournament.players.matching import proposals

pytestmark = pytest.mark.django_db


def test_the_demo_s_next_season_shares_its_players_and_proposes_one_match():
    call_command("load_demo", "--quiet")
    players = Player.objects.count()
    call_command("load_demo", "--quiet")
    assert Player.objects.count() == players  # loading twice makes no player

    seasons = {
        slug: dict(
            Driver.objects.filter(championship__slug=slug).values_list("number", "player_id")
        )
        for slug in ("demo", "demo-2027")
    }
    assert len(seasons["demo"]) == 24 and len(seasons["demo-2027"]) == 25
    assert all(seasons["demo-2027"][n] == p for n, p in seasons["demo"].items())
    assert Player.objects.get(pk=seasons["demo"][1]).licence == "FFJ-2019-0042"
    opening = RaceTable.objects.filter(event__slug="demo-2027-grand-prix-d-ouverture")
    assert opening.count() == 3
    assert set(opening.values_list("result_status", flat=True)) == {ResultStatus.CONFIRMED}

    organiser = Actor(user=get_user_model().objects.get(username="organisateur"))
    (found,) = proposals(organiser)
    assert {found.player.name, found.other.name} == {"Rémi Vidal"}
    assert {s.championship for s in (*found.player_seats, *found.other_seats)} == {
        "Championnat de France de Formula Dé (démo)",
        "Club des jeux de course (démo)",
    }
    assert not PlayerChange.objects.exists()  # proposed, not merged
