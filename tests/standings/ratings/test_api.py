"""``GET /api/v1/ratings`` (standings/ratings/api.py): a game's ranking as API.md shapes it,
a page at a time, and a 400 the reader understands for a game or a page that cannot be."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.standings.ratings.test_views import rated

pytestmark = pytest.mark.django_db
URL = "/api/v1/ratings"


def get(**query):
    return Client(HTTP_ACCEPT_LANGUAGE="en").get(URL, query)


def test_the_ranking_of_a_game_best_first():
    players = rated(3)
    body = get(game="formula_de").json()
    assert [line["player"] for line in body] == [{"id": p.pk, "name": p.name} for p in players]
    assert body[0] == {
        "rank": 1,
        "player": {"id": players[0].pk, "name": "Joueur0 Test"},
        "mu": 33.0,
        "sigma": 5.0,
        "rating": 18.0,
        "races": 1,
    }
    assert get().json() == body  # formula_de unless asked otherwise
    assert get(game="racetrack").json() == []


def test_limit_and_offset_page_through_with_ranks_of_the_whole_ranking():
    rated(7)
    page = get(game="formula_de", limit=3, offset=3).json()
    assert [line["rank"] for line in page] == [4, 5, 6]
    assert [line["rank"] for line in get(limit=3, offset=6).json()] == [7]
    assert get(offset=7).json() == []
    assert len(get().json()) == 7


@pytest.mark.parametrize(
    ("query", "field", "message"),
    [
        ({"game": "monopoly"}, "game", "Use one of: 'formula_de', 'rallyman', 'cannes_monaco'"),
        ({"limit": 0}, "limit", "greater than or equal to 1"),
        ({"limit": 1001}, "limit", "less than or equal to 1000"),
        ({"offset": -1}, "offset", "greater than or equal to 0"),
        ({"limit": "abc"}, "limit", "Enter a whole number."),
    ],
)
def test_what_cannot_be_read_is_a_400_naming_the_field(query, field, message):
    response = get(**query)
    assert response.status_code == 400
    assert message in response.json()["errors"][field][0]
