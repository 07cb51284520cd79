"""The next season (tournament/registration/seasons.py) and its API
(``POST /api/v1/championships/{slug}/next-season``)."""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from tests.api.conftest import Api
from tests.tournament.players.conftest import Clubs
from tournament.errors import Conflict, InvalidInput, NotAllowed
from tournament.models import ApiToken, Championship, Driver, Entry, Event, Player, Team
from tournament.registration.seasons import championship_next_season, next_season_defaults

pytestmark = pytest.mark.django_db


@pytest.fixture
def season(clubs: Clubs, circuit) -> Championship:
    """2025 with best-2 of an overall scale, two teams, three drivers, an event."""
    old = clubs.season_2025
    Championship.objects.filter(pk=old.pk).update(
        points_scale=[25, 18, 15], points_mode="overall", best_results=2
    )
    old.refresh_from_db()
    red = Team.objects.create(championship=old, name="Rouge", colour="#ff0000")
    Team.objects.create(championship=old, name="Bleu")
    one = clubs.register(old, 1, "Élodie", "Lefèvre", team="Rouge", licence="F-1")
    clubs.register(old, 7, "Théo", "Marchand", team="Bleu", email="theo@example.org")
    clubs.register(old, 12, "Zoé", "Girard")
    event = Event.objects.create(
        championship=old, slug="gp-2025", name="GP", date=datetime.date(2025, 5, 1),
        circuit=circuit,
    )  # fmt: skip
    Entry.objects.create(event=event, driver=one)
    assert red.drivers.count() == 1
    return old


def snapshot(championship: Championship) -> dict[str, Any]:
    """Everything of a season that next season could touch."""
    return {
        "championship": Championship.objects.filter(pk=championship.pk).values().get(),
        "organisers": list(championship.organisers.values_list("pk", flat=True)),
        "teams": list(Team.objects.filter(championship=championship).order_by("pk").values()),
        "drivers": list(Driver.objects.filter(championship=championship).order_by("pk").values()),
        "players": list(Player.objects.order_by("pk").values()),
        "events": list(Event.objects.filter(championship=championship).values_list("pk", "slug")),
        "entries": list(Entry.objects.order_by("pk").values()),
        "history": championship.history.count(),
    }


def test_next_season_copies_settings_organisers_teams_and_drivers_with_their_players(
    clubs: Clubs, season: Championship
):
    before = snapshot(season)

    new = championship_next_season(
        actor=clubs.pc, championship=season, slug="cf-2026b", name="Coupe", season="2026"
    )

    assert snapshot(season) == before  # nothing of the old season changed
    assert (new.slug, new.name, new.season) == ("cf-2026b", "Coupe", "2026")
    assert (new.points_scale, new.points_mode, new.best_results) == ([25, 18, 15], "overall", 2)
    assert list(new.organisers.all()) == list(season.organisers.all())
    assert sorted(Team.objects.filter(championship=new).values_list("name", "colour")) == [
        ("Bleu", ""),
        ("Rouge", "#ff0000"),
    ]
    old_drivers = Driver.objects.filter(championship=season).order_by("number")
    new_drivers = Driver.objects.filter(championship=new).order_by("number")
    fields = ("number", "first_name", "last_name", "email", "player_id", "team__name")
    assert list(new_drivers.values_list(*fields)) == list(old_drivers.values_list(*fields))
    assert all(d.team is None or d.team.championship == new for d in new_drivers)
    assert not Event.objects.filter(championship=new).exists()
    assert Player.objects.count() == len(before["players"])  # the same players, no new one


def test_a_taken_slug_is_a_conflict_and_creates_nothing(clubs: Clubs, season: Championship):
    count = Championship.objects.count()
    with pytest.raises(Conflict) as refused:
        championship_next_season(
            actor=clubs.pc, championship=season, slug="cf", name="X", season="2027"
        )
    assert list(refused.value.errors) == ["slug"]
    with pytest.raises(InvalidInput):
        championship_next_season(
            actor=clubs.pc, championship=season, slug="Pas Un Slug", name="X", season="2027"
        )
    with pytest.raises(InvalidInput):
        championship_next_season(
            actor=clubs.pc, championship=season, slug="ok-slug", name="  ", season="2027"
        )
    assert Championship.objects.count() == count
    assert not Team.objects.filter(championship__slug="ok-slug").exists()


def test_a_season_that_already_follows_is_a_conflict_and_creates_nothing(
    api: Api, clubs: Clubs, season: Championship
):
    """Issue 32, item 2: 2026 of the Coupe de France exists (``cf``): a second one is refused
    (page and API), naming the one that exists, whatever the new slug and the case."""
    count = Championship.objects.count()
    with pytest.raises(Conflict, match="Coupe de France 2026 already exists") as refused:
        championship_next_season(
            actor=clubs.pc, championship=season, slug="cf-2026b", name="COUPE DE FRANCE",
            season=" 2026",
        )  # fmt: skip
    assert list(refused.value.errors) == ["season"] and "“cf”" in refused.value.message
    response = api.post(
        "/championships/cf-2025/next-season",
        {"slug": "cf-2026b", "name": "Coupe de France", "season": "2026"},
    )
    assert response.status_code == 409
    assert list(response.json()["errors"]) == ["season"]
    assert Championship.objects.count() == count


def test_another_club_s_season_of_the_same_name_is_not_followed(clubs: Clubs, season: Championship):
    """DOMAIN.md "Every game's evening": a next season follows its own club's championship,
    never another club's of the same name and season."""
    from tournament.clubs.models import Club

    Championship.objects.filter(slug="cf").update(slug="cf-2026")  # ours, renamed
    ours = Championship.objects.get(slug="cf-2026")
    other = Club.objects.create(slug="autre-club", name="Autre club")
    Championship.objects.filter(pk=ours.pk).update(club=other)  # now another club's
    new = championship_next_season(
        actor=clubs.pc, championship=season, slug="cf-2026b", name="Coupe de France",
        season="2026",
    )  # fmt: skip
    assert new.club_id == season.club_id and new.pk != ours.pk


def test_only_its_organisers_start_the_next_season(clubs: Clubs, season: Championship):
    with pytest.raises(NotAllowed):
        championship_next_season(
            actor=clubs.club, championship=season, slug="x-2026", name="X", season="2026"
        )


@pytest.mark.parametrize(
    ("slug", "name", "season", "expected"),
    [
        ("cf-2025", "Coupe 2025", "2025", ("cf-2026", "Coupe 2026", "2026")),
        ("hiver-2025-2026", "Hiver", "2025-2026", ("hiver-2026-2027", "Hiver", "2026-2027")),
        ("club", "Club", "Printemps", ("club-next", "Club", "Printemps 2")),
        ("club-next", "Club", "Printemps 2", ("club-next-next", "Club", "Printemps 3")),
    ],
)
def test_the_form_proposes_the_years_one_later(slug, name, season, expected):
    championship = Championship(slug=slug, name=name, season=season)
    proposed = next_season_defaults(championship)
    assert (proposed["slug"], proposed["name"], proposed["season"]) == expected


# --- API ----------------------------------------------------------------------------------


@pytest.fixture
def api(clubs: Clubs) -> Api:
    return Api(issued(clubs.pc.user))


def issued(user) -> str:  # type: ignore[no-untyped-def]
    return ApiToken.issue(user)


def test_api_next_season_answers_the_new_championship_and_its_drivers_players(
    api: Api, clubs: Clubs, season: Championship
):
    before = snapshot(season)
    response = api.post(
        "/championships/cf-2025/next-season",
        {"slug": "cf-2026b", "name": "Coupe de l’Ouest", "season": "2026"},
    )
    assert response.status_code == 201, response.content
    assert response.json() == api.get("/championships/cf-2026b").json()
    assert response.json() == {
        "slug": "cf-2026b",
        "name": "Coupe de l’Ouest",
        "season": "2026",
        "points_scale": [25, 18, 15],
        "points_mode": "overall",
        "best_results": 2,
        "club": None,
    }
    old = {d["number"]: d["player"]["id"] for d in api.get("/championships/cf-2025/drivers").json()}
    new = {
        d["number"]: d["player"]["id"] for d in api.get("/championships/cf-2026b/drivers").json()
    }
    assert new == old and len(set(new.values())) == 3 and None not in new.values()
    assert snapshot(season) == before


def test_api_next_season_refusals(api: Api, clubs: Clubs, season: Championship):
    body = {"slug": "cf", "name": "Coupe", "season": "2027"}
    taken = api.post("/championships/cf-2025/next-season", body)
    assert taken.status_code == 409
    assert list(taken.json()["errors"]) == ["slug"]
    missing = api.post("/championships/cf-2025/next-season", {"slug": "cf-2027"})
    assert missing.status_code == 400
    assert set(missing.json()["errors"]) >= {"name", "season"}
    bad = api.post(
        "/championships/cf-2025/next-season", {"slug": "<b>", "name": "C", "season": "2027"}
    )
    assert bad.status_code == 400 and "slug" in bad.json()["errors"]
    assert api.post("/championships/nope/next-season", body).status_code == 404
    assert Api().post("/championships/cf-2025/next-season", body).status_code == 401
    club = Api(issued(clubs.club.user))
    refused = club.post(
        "/championships/cf-2025/next-season", {"slug": "z", "name": "Z", "season": "1"}
    )
    assert refused.status_code == 403
    assert not Championship.objects.filter(slug__in=["cf-2027", "z"]).exists()
