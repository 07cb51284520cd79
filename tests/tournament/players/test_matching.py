"""Proposed matches (tournament/players/matching.py): proposed, never merged by themselves."""

from __future__ import annotations

import pytest

from tests.tournament.players.conftest import Clubs
from tournament.models import Player, PlayerChange
from tournament.players.changes import players_merge, players_not_same
from tournament.players.matching import proposals

pytestmark = pytest.mark.django_db


def pairs(found) -> set[tuple[str, str]]:  # type: ignore[no-untyped-def]
    return {(p.player.name, p.other.name) for p in found}


def test_same_name_whatever_its_accents_case_and_order_is_proposed(clubs: Clubs):
    clubs.register(clubs.season_2025, 7, "Élodie", "Lefèvre", email="elodie@example.org")
    clubs.register(clubs.season_2026, 3, "LEFEVRE", "elodie")
    clubs.register(clubs.season_2026, 4, "Élodie", "Lefort")

    (found,) = proposals(clubs.pc)

    assert (found.player.name, found.other.name) == ("Élodie Lefèvre", "LEFEVRE elodie")
    assert found.reasons == ["same name"]
    # The evidence: championship, season, number, e-mail (the reader runs both).
    (seat,) = found.player_seats
    assert (seat.championship, seat.season, seat.number, seat.email) == (
        "Coupe de France",
        "2025",
        7,
        "elodie@example.org",
    )
    assert [s.number for s in found.other_seats] == [3]
    assert Player.objects.filter(merged_into__isnull=False).count() == 0
    assert not PlayerChange.objects.exists()


def test_same_e_mail_address_is_proposed(clubs: Clubs):
    clubs.register(clubs.season_2025, 1, "Jean", "Dupont", email="JD@Example.org")
    clubs.register(clubs.season_2026, 1, "Jean-Marc", "Dupond", email="jd@example.org")

    (found,) = proposals(clubs.pc)

    assert found.reasons == ["same e-mail address"]


def test_both_reasons_are_given_together(clubs: Clubs):
    clubs.register(clubs.season_2025, 1, "Jean", "Dupont", email="jd@example.org")
    clubs.register(clubs.season_2026, 1, "Jean", "Dupont", email="jd@example.org")

    (found,) = proposals(clubs.pc)

    assert found.reasons == ["same name", "same e-mail address"]


def test_never_proposed_two_people_of_one_championship_or_two_licences(clubs: Clubs):
    clubs.register(clubs.season_2026, 1, "Jean", "Dupont")
    clubs.register(clubs.season_2026, 2, "Jean", "Dupont")  # two Jean Dupont in one season
    clubs.register(clubs.season_2025, 5, "Paul", "Martin", licence="P-1")
    clubs.register(clubs.season_2026, 5, "Paul", "Martin", licence="P-2")

    assert proposals(clubs.admin) == []

    # A 2025 Jean Dupont may be either 2026 one: both pairs are proposed, never the 2026 pair.
    clubs.register(clubs.season_2025, 1, "Jean", "Dupont")
    found = proposals(clubs.admin)
    seasons = [sorted(seat.season for seat in (*p.player_seats, *p.other_seats)) for p in found]
    assert seasons == [["2025", "2026"], ["2025", "2026"]]


def test_not_the_same_and_merged_players_are_not_proposed_again(clubs: Clubs):
    a = clubs.register(clubs.season_2025, 1, "Jean", "Dupont")
    b = clubs.register(clubs.season_2026, 1, "Jean", "Dupont")
    c = clubs.register(clubs.other_club, 1, "Jean", "Dupont")
    assert len(proposals(clubs.admin)) == 3

    players_not_same(actor=clubs.admin, player=a.player, other=c.player)
    assert len(proposals(clubs.admin)) == 2

    players_merge(actor=clubs.admin, keep=a.player, other=b.player)
    # b's player is merged: only the kept one stands, and a/c were said two people. The
    # kept player now drives in 2026 too, with no conflict with c's club.
    assert proposals(clubs.admin) == []


def test_each_reader_sees_the_pairs_they_may_decide_and_only_their_e_mails(clubs: Clubs):
    mine = clubs.register(clubs.season_2025, 3, "Zoé", "Girard", email="zoe@example.org")
    theirs = clubs.register(clubs.other_club, 8, "Zoe", "Girard", email="zoe.g@example.org")
    assert proposals(clubs.pc) == [] and proposals(clubs.club) == []  # one side each
    (found,) = proposals(clubs.admin)
    emails = {s.email for s in (*found.player_seats, *found.other_seats)}
    assert emails == {"zoe@example.org", "zoe.g@example.org"}

    players_merge(actor=clubs.admin, keep=mine.player, other=theirs.player)
    clubs.register(clubs.season_2026, 5, "Zoé", "Girard", email="zoe.2026@example.org")

    (found,) = proposals(clubs.pc)  # pc runs a championship of each player
    seats = {s.number: s.email for s in (*found.player_seats, *found.other_seats)}
    # The other club's e-mail is not pc's to see.
    assert seats == {3: "zoe@example.org", 8: "", 5: "zoe.2026@example.org"}


def test_the_matches_of_one_championship_are_those_of_its_drivers(clubs: Clubs):
    clubs.register(clubs.season_2025, 1, "Jean", "Dupont")
    clubs.register(clubs.season_2026, 1, "Jean", "Dupont")
    clubs.register(clubs.season_2025, 2, "Zoé", "Girard")
    clubs.register(clubs.other_club, 2, "Zoé", "Girard")

    assert pairs(proposals(clubs.admin)) == {
        ("Jean Dupont", "Jean Dupont"),
        ("Zoé Girard", "Zoé Girard"),
    }
    assert pairs(proposals(clubs.admin, championship=clubs.season_2026)) == {
        ("Jean Dupont", "Jean Dupont")
    }
    assert len(proposals(clubs.admin, championship=clubs.other_club)) == 1
    assert proposals(clubs.pc, championship=clubs.other_club) == []
