"""The players' API: merge, split and undo (tournament/players/change_api.py)."""

from __future__ import annotations

import pytest

from tests.api.conftest import Api
from tests.tournament.players.conftest import Clubs
from tournament.models import ApiToken, Driver, PlayerChange

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(clubs: Clubs) -> Api:
    return Api(ApiToken.issue(clubs.pc.user))


def test_merge_split_and_undo_through_the_api(api: Api, clubs: Clubs):
    old = clubs.register(clubs.season_2025, 7, "Jean", "Dupont")
    new = clubs.register(clubs.season_2026, 3, "Jean", "Dupont")

    merged = api.post(
        "/players/merge", {"keep": old.player_id, "merge": new.player_id, "reason": "même"}
    )

    assert merged.status_code == 201, merged.content
    body = merged.json()
    assert body["kind"] == "merge" and body["by"].startswith("pc")
    assert body["player"] == {"id": old.player_id, "name": "Jean Dupont"}
    assert body["other"] == {"id": new.player_id, "name": "Jean Dupont"}
    assert body["drivers"] == [{"championship": "cf", "number": 3}]
    assert body["reason"] == "même" and body["undone_at"] is None
    drivers = api.get("/championships/cf/drivers").json()
    assert [d["player"]["id"] for d in drivers] == [old.player_id]

    split = api.post(  # API.md's shape: one driver
        f"/players/{old.player_id}/split", {"driver": {"championship": "cf", "number": 3}}
    )
    assert split.status_code == 201, split.content
    assert split.json()["kind"] == "split"
    assert Driver.objects.get(pk=new.pk).player_id == split.json()["other"]["id"]

    later_first = api.post(f"/players/changes/{body['id']}/undo")
    assert later_first.status_code == 409
    assert api.post(f"/players/changes/{split.json()['id']}/undo").status_code == 200
    undone = api.post(f"/players/changes/{body['id']}/undo")
    assert undone.status_code == 200 and undone.json()["undone_by"].startswith("pc")
    assert Driver.objects.get(pk=new.pk).player_id == new.player_id
    assert api.post(f"/players/changes/{body['id']}/undo").status_code == 409


def test_the_api_refuses_clearly(api: Api, clubs: Clubs):
    a = clubs.register(clubs.season_2026, 1, "Jean", "Dupont")
    b = clubs.register(clubs.season_2026, 2, "Jean", "Dupont")
    other_club = clubs.register(clubs.other_club, 1, "Jean", "Dupont")

    same_season = api.post("/players/merge", {"keep": a.player_id, "merge": b.player_id})
    assert same_season.status_code == 409
    assert "once per championship" in same_season.json()["detail"]
    not_mine = api.post("/players/merge", {"keep": a.player_id, "merge": other_club.player_id})
    assert not_mine.status_code == 403
    assert api.post("/players/merge", {"keep": a.player_id}).status_code == 400
    assert api.post("/players/merge", {"keep": a.player_id, "merge": 999999}).status_code == 404
    wrong = api.post(
        f"/players/{a.player_id}/split", {"drivers": [{"championship": "cf", "number": 2}]}
    )
    assert wrong.status_code == 400 and list(wrong.json()["errors"]) == ["drivers"]
    alone = api.post(
        f"/players/{a.player_id}/split", {"drivers": [{"championship": "cf", "number": 1}]}
    )
    assert alone.status_code == 400  # one driver must stay
    assert api.post(f"/players/{a.player_id}/split", {"drivers": []}).status_code == 400
    assert Api().post("/players/merge", {"keep": 1, "merge": 2}).status_code == 401
    assert not PlayerChange.objects.exists()
