"""``GET /api/v1/players/{id}`` (standings/careers/api.py): the career as JSON, the same
reads as the page; published events only for anonymous readers and other tokens."""

from __future__ import annotations

import pytest
from django.test import Client

from tournament.models import ApiToken, Player

pytestmark = pytest.mark.django_db


def get(player_id: object, token: str | None = None) -> tuple[int, dict]:
    headers = {"HTTP_ACCEPT_LANGUAGE": "en"}
    if token:
        headers["HTTP_AUTHORIZATION"] = f"Bearer {token}"
    response = Client(**headers).get(f"/api/v1/players/{player_id}")
    return response.status_code, response.json()


def test_anonymous_readers_get_both_published_seasons(seasons):
    status, body = get(seasons.player.pk)
    assert status == 200
    assert (body["id"], body["name"], body["licence"]) == (
        seasons.player.pk,
        "Élodie Lefèvre",
        None,  # the licence number is for organisers
    )
    assert [(c["slug"], c["season"], c["number"]) for c in body["championships"]] == [
        ("cf-2027", "2027", 7),
        ("cf", "2026", 1),
    ]
    (opener,) = body["championships"][0]["events"]  # the unpublished event left out
    assert opener | {"qualifying": None} == {
        "event": "opener-2027",
        "name": "Ouverture 2027",
        "date": "2027-03-14",
        "game": "formula_de",
        "qualifying": None,
        "table": 1,
        "position": 3,
        "rank": 3,
        "status": "finished",
        "points": 6,
        "counted": True,
    }
    assert opener["qualifying"] == {
        "rank": 3, "status": "ok", "absolute_time": None, "stopwatch": None
    }  # fmt: skip
    (gp,) = body["championships"][1]["events"]
    assert gp["qualifying"] == {
        "rank": 1, "status": "ok", "absolute_time": 11, "stopwatch": "1:00.01"
    }  # fmt: skip
    assert (gp["table"], gp["position"], gp["points"]) == (1, 1, 10)
    assert body["championships"][1]["standing"] == {"rank": 1, "points": 10, "drivers": 4}


def test_ratings_carry_their_history_up_to_what_the_reader_may_see(seasons):
    _status, body = get(seasons.player.pk)
    (rating,) = body["ratings"]
    assert rating["game"] == "formula_de"
    assert [(p["event"], p["place"]) for p in rating["history"]] == [("gp", 1), ("opener-2027", 3)]
    # The current figure is the last table the public may see, not the unpublished one's.
    assert (rating["rating"], rating["races"]) == (pytest.approx(9.4), 2)


def test_an_organiser_s_token_sees_the_unpublished_event_and_the_licence(seasons, organiser):
    token = ApiToken.issue(organiser)
    _status, body = get(seasons.player.pk, token)
    assert body["licence"] == "FD-0042"
    assert [e["event"] for e in body["championships"][0]["events"]] == [
        "opener-2027",
        "later-2027",
    ]
    (rating,) = body["ratings"]
    assert (rating["rating"], rating["races"], len(rating["history"])) == (12.0, 3, 3)


def test_a_merged_player_is_a_404_naming_the_one_it_was_merged_into(seasons):
    twin = Player.objects.create(first_name="E", last_name="L", merged_into=seasons.player)
    status, body = get(twin.pk)
    assert status == 404
    assert body["detail"] == (
        f"Player {twin.pk} was merged into player {seasons.player.pk}: ask for that one."
    )
    assert body["errors"] == {"id": [f"Merged into player {seasons.player.pk}."]}


@pytest.mark.parametrize("player_id", [987654, 0, -1, 2**40])
def test_an_unknown_player_is_a_404(db, player_id):
    status, body = get(player_id)
    assert status == 404 and body["detail"] == f"Unknown player {player_id}."


def test_a_player_id_that_is_not_a_number_is_a_400(db):
    status, body = get("élodie")
    assert status == 400 and body["detail"]
