"""Who is who in a league (standings/leagues/matching.py, API.md "A season across clubs"):
proposed side by side, joined on purpose by the league's organisers, split back as before."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from standings.leagues.matching import league_join, league_matches
from tests.standings.leagues.three_clubs import Season, build_season
from tournament.models import Driver, Player, PlayerChange
from tournament.players.changes import player_split
from tournament.players.matching import proposals


@pytest.fixture
def season(db: None, django_user_model: Any) -> Season:
    return build_season(django_user_model)


def partition() -> set[frozenset[int]]:
    """Which drivers are one player: the drivers' ids grouped by player."""
    groups: dict[int, set[int]] = {}
    for pk, player in Driver.objects.values_list("pk", "player_id"):
        groups.setdefault(player, set()).add(pk)
    return {frozenset(group) for group in groups.values()}


def test_drivers_of_counted_rounds_are_proposed_side_by_side(season: Season):
    season.driver("aix", 7, "Élodie", "Lefèvre")
    season.driver("nice", 3, "LEFEVRE", "elodie", public_name_choice="short")
    season.driver("lyon", 4, "Elodie", "Lefevre")  # lyon's round is only proposed
    season.driver("aix", 9, "Marc", "Roux", licence="FFJ-9")
    season.driver("nice", 2, "Marco", "Rossi", claimed="FFJ-9")
    season.driver("nice", 5, "Zoé", "Girard")  # alone

    found = league_matches(league=season.league)

    assert [m.why for m in found] == ["licence", "name"]
    seats = [
        [(d.club, d.championship, d.season, d.number, d.name) for d in m.drivers] for m in found
    ]
    assert seats[1] == [
        ("aix", "aix-2026", "2026", 7, "Élodie Lefèvre"),
        ("nice", "nice-2026", "2026", 3, "LEFEVRE E."),  # the name it chose to show
    ]
    assert [d.licence for d in found[0].drivers] == ["FFJ-9", "FFJ-9"]
    assert not PlayerChange.objects.exists()  # a proposal is only a proposal


def test_the_api_answers_the_league_organisers_only(season: Season):
    season.driver("aix", 7, "Élodie", "Lefèvre", licence="L-1")
    season.driver("nice", 3, "Elodie", "Lefevre")

    response = season.api("orga").get("/leagues/sud-2026/matches")

    assert response.status_code == 200, response.content
    assert response.json() == [
        {
            "why": "name",
            "drivers": [
                {"championship": "aix-2026", "club": "aix", "season": "2026", "number": 7,
                 "name": "Élodie Lefèvre", "licence": "L-1"},
                {"championship": "nice-2026", "club": "nice", "season": "2026", "number": 3,
                 "name": "Elodie Lefevre"},
            ],
        }
    ]  # fmt: skip
    assert season.api("rival").get("/leagues/sud-2026/matches").status_code == 403
    assert season.api(None).get("/leagues/sud-2026/matches").status_code == 401
    assert season.api("orga").get("/leagues/nope/matches").status_code == 404


def test_a_join_is_recorded_and_split_back_as_it_was(season: Season):
    mine = season.driver("aix", 7, "Élodie", "Lefèvre")
    theirs = season.driver("nice", 3, "Elodie", "Lefevre")
    before = partition()
    api = season.api("patronne")

    response = api.post(
        "/leagues/sud-2026/matches",
        {"drivers": [{"championship": "aix-2026", "number": 7},
                     {"championship": "nice-2026", "number": 3}], "reason": "même licenciée"},
    )  # fmt: skip

    assert response.status_code == 201, response.content
    assert response.json() == {"id": mine.player_id, "name": "Élodie Lefèvre"}
    theirs.refresh_from_db()
    assert theirs.player_id == mine.player_id
    (change,) = PlayerChange.objects.all()
    assert (change.kind, change.reason) == ("merge", "même licenciée")
    assert change.actor == "patronne (API)"
    assert league_matches(league=season.league) == []

    split = api.post(
        f"/players/{mine.player_id}/split",
        {"driver": {"championship": "nice-2026", "number": 3}, "reason": "deux personnes"},
    )
    assert split.status_code == 201, split.content
    assert partition() == before


def test_a_join_names_drivers_of_counted_rounds_once_per_championship(season: Season):
    season.driver("aix", 7, "Élodie", "Lefèvre")
    season.driver("aix", 8, "Élodie", "Lefèvre")
    season.driver("nice", 3, "Elodie", "Lefevre", licence="A-1")
    season.driver("lyon", 4, "Elodie", "Lefevre")
    api = season.api("patronne")

    def join(*seats: tuple[str, int], who: str = "patronne") -> int:
        drivers = [{"championship": c, "number": n} for c, n in seats]
        answer = season.api(who).post("/leagues/sud-2026/matches", {"drivers": drivers})
        assert answer.json()["detail"]
        return answer.status_code

    assert join(("aix-2026", 7), ("lyon-2026", 4)) == 400  # lyon's round is not counted
    assert join(("aix-2026", 7), ("aix-2026", 8)) == 400  # one championship: two people
    assert join(("aix-2026", 7), ("nice-2026", 99)) == 400  # no such driver
    assert join(("aix-2026", 7)) == 400
    assert join(("aix-2026", 7), ("nice-2026", 3), who="rival") == 403  # not the league's
    assert api.post("/leagues/sud-2026/matches", {"drivers": "x"}).status_code == 400
    assert not PlayerChange.objects.exists()


def test_the_league_organisers_decide_about_its_counted_rounds_only(season: Season):
    aix = season.driver("aix", 7, "Élodie", "Lefèvre")
    lyon = season.driver("lyon", 4, "Elodie", "Lefevre")
    nice = season.driver("nice", 3, "Elodie", "Lefevre")

    def merge(who: str, other: Driver) -> int:
        sent = {"keep": aix.player_id, "merge": other.player_id}
        return season.api(who).post("/players/merge", sent).status_code

    # The ground's merge: a league's organiser reaches the drivers of its counted rounds only,
    # another club's owner none of the league's.
    assert merge("patronne", lyon) == 403
    assert merge("rival", nice) == 403
    assert merge("patronne", nice) == 201


def test_a_clubs_own_matching_never_reaches_another_clubs_drivers(season: Season):
    season.driver("aix", 7, "Élodie", "Lefèvre", email="e@example.org")
    season.driver("nice", 3, "Elodie", "Lefevre", email="e@example.org")

    # Race control of either club: nothing (one side only); the league's matching: the pair.
    assert proposals(season.actor("patronne")) == []
    assert proposals(season.actor("rival")) == []
    assert len(league_matches(league=season.league)) == 1


def test_a_league_organiser_changes_nothing_of_a_rounds_event(season: Season):
    api = season.api("patronne")
    assert api.patch("/events/nice-gp", {"name": "Renamed"}).status_code in (403, 404)
    assert api.post("/events/nice-gp/publish", {"results": True}).status_code in (403, 404)
    season.events["nice"].refresh_from_db()
    assert season.events["nice"].name == "GP Nice"


names = st.sampled_from([("Jean", "Dupont"), ("jean", "DUPONT"), ("Zoé", "Girard"), ("Ana", "Li")])


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    aix=st.lists(names, min_size=1, max_size=3),
    nice=st.lists(names, min_size=1, max_size=3),
    pick=st.tuples(st.integers(0, 2), st.integers(0, 2)),
)
def test_a_join_followed_by_a_split_leaves_the_players_as_they_were(
    season: Season, aix: list[tuple[str, str]], nice: list[tuple[str, str]], pick: tuple[int, int]
):
    with transaction.atomic():
        drivers = {
            club: [season.driver(club, n + 1, *name) for n, name in enumerate(chosen)]
            for club, chosen in (("aix", aix), ("nice", nice))
        }
        one = drivers["aix"][pick[0] % len(aix)]
        two = drivers["nice"][pick[1] % len(nice)]
        before = partition()
        names_before = dict(Player.objects.values_list("pk", "name_key"))
        actor = season.actor("orga")

        player = league_join(
            actor=actor,
            league=season.league,
            drivers=[("aix-2026", one.number), ("nice-2026", two.number)],
        )
        assert set(player.drivers.values_list("pk", flat=True)) == {one.pk, two.pk}
        player_split(actor=actor, player=player, drivers=[two.pk], reason="two people")

        assert partition() == before
        after = {d.pk: d.player.name_key for d in Driver.objects.select_related("player")}
        assert all(after[d.pk] == names_before[d.player_id] for ds in drivers.values() for d in ds)
        transaction.set_rollback(True)


def test_the_matching_page_joins_on_purpose_and_tells_others_nothing(season: Season, client):
    season.driver("aix", 7, "Élodie", "Lefèvre")
    season.driver("nice", 3, "Elodie<>", "Lefevre")  # names are hostile input
    client.force_login(season.users["orga"])

    page = client.get("/l/sud-2026/matches/", HTTP_ACCEPT_LANGUAGE="fr")
    assert page.status_code == 200
    assert "nice-2026:3" in page.content.decode() and "Elodie<>" not in page.content.decode()

    joined = client.post(
        "/l/sud-2026/matches/", {"seat": ["aix-2026:7", "nice-2026:3"], "reason": "vu"}
    )
    assert joined.status_code == 302
    assert PlayerChange.objects.get().reason == "vu"
    assert client.post("/l/sud-2026/matches/", {"seat": ["x:y", "aix-2026:7"]}).status_code == 302

    client.force_login(season.users["rival"])
    assert client.get("/l/sud-2026/matches/").status_code == 404


def test_a_league_splits_none_of_what_one_club_joined_among_its_own(season: Season):
    """DOMAIN.md "A season across clubs": the league joins people across clubs. What one
    club's race control joined among its own championships is that club's: the league's
    organisers split it back no more than another club would (the sixth pass's wall)."""
    from standings.leagues.models import Round
    from tournament.models import Championship, Event

    second = Championship.objects.create(
        slug="nice-b-2026", name="Coupe Nice B", season="2026", points_scale=[10, 6, 4],
        club=season.clubs["nice"],
    )  # fmt: skip
    event = Event.objects.create(
        championship=second, slug="nice-b-gp", name="GP Nice B", date=season.events["nice"].date
    )
    Round.objects.create(league=season.league, event=event, status=Round.Status.COUNTED)
    season.championships["nice-b"] = second
    first = season.driver("nice", 5, "Paul", "Martin")
    other = season.driver("nice-b", 5, "Paul", "Martin")
    joined = {"keep": first.player_id, "merge": other.player_id}
    assert season.api("rival").post("/players/merge", joined).status_code == 201  # Nice's own

    split = {"driver": {"championship": "nice-b-2026", "number": 5}}
    for organiser in ("patronne", "orga"):  # the league's club's owner and organiser
        assert (
            season.api(organiser).post(f"/players/{first.player_id}/split", split).status_code
            == 403
        )
    assert Driver.objects.get(pk=other.pk).player_id == first.player_id
    assert season.api("rival").post(f"/players/{first.player_id}/split", split).status_code == 201
