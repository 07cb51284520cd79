"""Merges, splits, "not the same" and their undo (tournament/players/changes.py)."""

from __future__ import annotations

import pytest

from tests.standings.ratings.conftest import Season
from tests.tournament.players.conftest import Clubs
from tournament.access import Actor
from tournament.errors import Conflict, InvalidInput, NotAllowed
from tournament.models import Driver, Player, PlayerChange, PlayerRating, RatingPoint
from tournament.players.changes import (
    change_undo,
    player_split,
    players_merge,
    players_not_same,
)

pytestmark = pytest.mark.django_db


def state() -> dict[str, object]:
    """Every player and every driver's player: what an undo must give back exactly."""
    return {
        "players": list(
            Player.objects.order_by("pk").values_list(
                "pk", "first_name", "last_name", "licence", "email", "name_key", "merged_into"
            )
        ),
        "drivers": list(Driver.objects.order_by("pk").values_list("pk", "player_id")),
    }


def test_a_merge_moves_the_drivers_records_who_and_is_undone_exactly(clubs: Clubs):
    old = clubs.register(clubs.season_2025, 7, "Jean", "Dupont", email="jean@example.org")
    new = clubs.register(clubs.season_2026, 12, "jean", "DUPONT")
    keep, other = old.player, new.player
    assert keep != other  # never merged by registration
    before = state()

    change = players_merge(actor=clubs.pc, keep=keep, other=other, reason="même licence club")

    assert Driver.objects.get(pk=new.pk).player == keep
    other.refresh_from_db()
    assert other.merged_into == keep
    assert (change.kind, change.player, change.other) == ("merge", keep, other)
    assert change.drivers == [new.pk]
    assert change.actor == "pc" and change.reason == "même licence club"
    assert change.undone_at is None

    undone = change_undo(actor=clubs.pc, change=change)

    assert state() == before
    assert undone.undone_at is not None and undone.undone_by == "pc"
    with pytest.raises(Conflict, match="already undone"):
        change_undo(actor=clubs.pc, change=change)


def test_one_person_drives_once_per_championship(clubs: Clubs):
    a = clubs.register(clubs.season_2026, 1, "Jean", "Dupont")
    b = clubs.register(clubs.season_2026, 2, "Jean", "Dupont")
    before = state()

    with pytest.raises(Conflict, match="one person drives once per championship"):
        players_merge(actor=clubs.admin, keep=a.player, other=b.player)

    assert state() == before
    assert not PlayerChange.objects.exists()


def test_two_licence_numbers_are_two_people(clubs: Clubs):
    a = clubs.register(clubs.season_2025, 1, "Jean", "Dupont", licence="A-1")
    b = clubs.register(clubs.season_2026, 1, "Jean", "Dupont", licence="B-2")

    with pytest.raises(Conflict, match="two licence numbers"):
        players_merge(actor=clubs.admin, keep=a.player, other=b.player)


def test_who_may_merge(clubs: Clubs):
    """An organiser of a championship of each player, or an administrator."""
    mine = clubs.register(clubs.season_2026, 3, "Zoé", "Girard")
    theirs = clubs.register(clubs.other_club, 3, "Zoe", "Girard")

    for actor in (clubs.pc, clubs.club):  # each runs only one side
        with pytest.raises(NotAllowed, match="organiser of a championship of each player"):
            players_merge(actor=actor, keep=mine.player, other=theirs.player)
    assert not PlayerChange.objects.exists()

    change = players_merge(actor=clubs.admin, keep=mine.player, other=theirs.player)
    # Undoing it asks the same: pc runs the kept side only.
    with pytest.raises(NotAllowed):
        change_undo(actor=clubs.pc, change=change)
    change_undo(actor=clubs.admin, change=change)


def test_a_player_is_not_merged_into_itself_nor_twice(clubs: Clubs):
    a = clubs.register(clubs.season_2025, 1, "Jean", "Dupont")
    b = clubs.register(clubs.season_2026, 1, "Jean", "Dupont")
    with pytest.raises(InvalidInput):
        players_merge(actor=clubs.pc, keep=a.player, other=a.player)
    players_merge(actor=clubs.pc, keep=a.player, other=b.player)
    with pytest.raises(Conflict, match="already merged"):
        players_merge(actor=clubs.pc, keep=a.player, other=b.player)


def test_a_split_gives_the_chosen_drivers_a_new_player_and_is_undone_exactly(clubs: Clubs):
    first = clubs.register(clubs.season_2025, 4, "Léo", "Bonnet", licence="L-4")
    second = clubs.register(clubs.season_2026, 9, "Léo", "Bonnet", licence="l-4 ")
    player = first.player
    assert second.player == player  # the same licence number: the same player
    before = state()

    change = player_split(actor=clubs.pc, player=player, drivers=[second.pk], reason="homonyme")

    moved = Driver.objects.get(pk=second.pk).player
    assert moved != player and moved.licence is None and moved.name == "Léo Bonnet"
    assert Driver.objects.get(pk=first.pk).player == player
    assert (change.kind, change.player, change.other, change.drivers) == (
        "split",
        player,
        moved,
        [second.pk],
    )

    change_undo(actor=clubs.pc, change=change)

    after = state()
    assert after["drivers"] == before["drivers"]
    # The player the split made stays (its record names it), without drivers, merged back.
    assert Player.objects.get(pk=moved.pk).merged_into == player
    assert [p for p in after["players"] if p[0] != moved.pk] == before["players"]


def test_a_split_leaves_a_driver_and_takes_only_the_player_s(clubs: Clubs):
    a = clubs.register(clubs.season_2025, 1, "Jean", "Dupont", licence="J-1")
    b = clubs.register(clubs.season_2026, 1, "Jean", "Dupont", licence="J-1")
    stranger = clubs.register(clubs.season_2026, 2, "Paul", "Martin")
    with pytest.raises(InvalidInput, match="at least one driver"):
        player_split(actor=clubs.pc, player=a.player, drivers=[a.pk, b.pk])
    with pytest.raises(InvalidInput, match="not this player's"):
        player_split(actor=clubs.pc, player=a.player, drivers=[stranger.pk])
    with pytest.raises(InvalidInput, match="Choose"):
        player_split(actor=clubs.pc, player=a.player, drivers=[])
    with pytest.raises(NotAllowed):
        player_split(actor=clubs.club, player=a.player, drivers=[b.pk])
    assert not PlayerChange.objects.exists()


def test_an_undo_refuses_when_a_later_change_moved_the_drivers(clubs: Clubs):
    a = clubs.register(clubs.season_2025, 1, "Jean", "Dupont")
    b = clubs.register(clubs.season_2026, 1, "Jean", "Dupont")
    merge = players_merge(actor=clubs.pc, keep=a.player, other=b.player)
    split = player_split(actor=clubs.pc, player=a.player, drivers=[b.pk])

    with pytest.raises(Conflict, match="undo them first"):
        change_undo(actor=clubs.pc, change=merge)

    change_undo(actor=clubs.pc, change=split)
    change_undo(actor=clubs.pc, change=merge)
    assert Driver.objects.get(pk=b.pk).player == b.player
    assert Player.objects.get(pk=b.player.pk).merged_into is None


def test_not_the_same_is_remembered_once_per_pair(clubs: Clubs):
    a = clubs.register(clubs.season_2025, 1, "Jean", "Dupont")
    b = clubs.register(clubs.season_2026, 1, "Jean", "Dupont")
    first = players_not_same(actor=clubs.pc, player=b.player, other=a.player)
    again = players_not_same(actor=clubs.pc, player=a.player, other=b.player)
    assert first == again
    assert (first.player_id, first.other_id) == tuple(sorted((a.player_id, b.player_id)))
    with pytest.raises(NotAllowed):
        players_not_same(actor=clubs.club, player=a.player, other=b.player)


def rated() -> dict[int, tuple[int, int]]:
    """Each rated player's races and points in the quick rules' family, as stored."""
    return {
        rating.player_id: (
            rating.races,
            RatingPoint.objects.filter(player_id=rating.player_id, family="formula_de").count(),
        )
        for rating in PlayerRating.objects.filter(family="formula_de")
    }


def test_a_merge_a_split_and_their_undo_rate_again_in_the_same_transaction(
    organiser, django_capture_on_commit_callbacks
):
    """Issue 32, item 3: after a merge the kept player's ratings stood as before (one race)
    and the merged one stayed in the ranking. Nothing runs after the commit here (the test's
    transaction never commits): the change itself rates again."""
    actor = Actor(user=organiser)
    first, second = Season(actor, "s1", 2), Season(actor, "s2", 2)
    with django_capture_on_commit_callbacks(execute=True):
        first.confirm(first.event(day=1, table_size=2), 1, [1, 2])
        second.confirm(second.event(day=8, table_size=2), 1, [2, 1])
    keep, other = first.player(1), second.player(1)
    assert rated()[keep.pk] == (1, 1) and rated()[other.pk] == (1, 1)

    merge = players_merge(actor=actor, keep=keep, other=other)

    assert rated()[keep.pk] == (2, 2)
    assert other.pk not in rated()

    change_undo(actor=actor, change=merge)

    assert rated()[keep.pk] == (1, 1) and rated()[other.pk] == (1, 1)

    merge = players_merge(actor=actor, keep=keep, other=other)
    split = player_split(actor=actor, player=keep, drivers=[second.drivers[1].pk])

    assert rated()[keep.pk] == (1, 1) and rated()[split.other_id] == (1, 1)

    change_undo(actor=actor, change=split)

    assert rated()[keep.pk] == (2, 2) and split.other_id not in rated()
