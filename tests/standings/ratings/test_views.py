"""The ranking page (standings/ratings/views.py): public, best first, fifty a page, names
escaped, cached like the other public pages and rebuilt when the ratings change."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from standings.ratings.views import PER_PAGE
from tournament.models import Player, PlayerRating

pytestmark = pytest.mark.django_db


def english() -> Client:
    client = Client()
    client.cookies["django_language"] = "en"
    return client


def rated(count: int, game: str = "formula_de", first: str = "Joueur") -> list[Player]:
    """``count`` players rated in ``game``, the first best (rating count − i)."""
    players = Player.objects.bulk_create(
        Player(first_name=f"{first}{i}", last_name="Test") for i in range(count)
    )
    PlayerRating.objects.bulk_create(
        PlayerRating(player=p, family=game, mu=30.0 + count - i, sigma=5.0,
                     rating=15.0 + count - i, races=i + 1)
        for i, p in enumerate(players)
    )  # fmt: skip
    return players


def rows(html: str) -> list[tuple[str, str]]:
    """(rank, player's name) of each row shown."""
    return re.findall(
        r'<tr data-player="\d+"><td>(\d+)</td><td class="player"><a href="/p/\d+/">(.*?)</a></td>',
        html,
    )


def test_the_ranking_shows_the_best_first_with_shared_ranks():
    players = rated(3)
    PlayerRating.objects.filter(player=players[2]).update(rating=17.0)  # level with the 2nd
    html = english().get(reverse("ratings", args=["formula_de"])).content.decode()
    assert rows(html) == [("1", "Joueur0 Test"), ("2", "Joueur1 Test"), ("2", "Joueur2 Test")]
    assert "mu − 3" not in html and "μ − 3σ" in html  # the rating explained
    assert "results are published" in html


def test_each_game_has_its_own_ranking():
    rated(2, game="rallyman", first="Pilote")
    assert rows(english().get(reverse("ratings", args=["formula_de"])).content.decode()) == []
    html = english().get(reverse("ratings", args=["rallyman"])).content.decode()
    assert [name for _rank, name in rows(html)] == ["Pilote0 Test", "Pilote1 Test"]
    assert english().get(reverse("ratings-home")).content.decode().count("<tr data-player") == 0


def test_an_unknown_game_is_a_404():
    assert english().get(reverse("ratings", args=["monopoly"])).status_code == 404


def test_fifty_a_page_and_any_page_number_shows_a_page():
    rated(PER_PAGE + 3)
    url = reverse("ratings", args=["formula_de"])
    first = english().get(url).content.decode()
    assert len(rows(first)) == PER_PAGE and "Page 1 of 2" in first and 'rel="next"' in first
    second = rows(english().get(url, {"page": 2}).content.decode())
    assert [rank for rank, _name in second] == ["51", "52", "53"]
    for odd in ("abc", "0", "-1", "99999999999999999999"):
        response = english().get(url, {"page": odd})
        assert response.status_code == 200 and rows(response.content.decode()), odd


def test_names_are_escaped():
    player = rated(1)[0]
    Player.objects.filter(pk=player.pk).update(first_name="<script>alert(1)</script>")
    html = english().get(reverse("ratings", args=["formula_de"])).content.decode()
    assert "<script>alert(1)" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_a_phone_gets_the_stored_page_in_one_query():
    rated(5)
    url = reverse("ratings", args=["formula_de"])
    assert english().get(url).status_code == 200  # built and stored
    with CaptureQueriesContext(connection) as queries:
        again = english().get(url)
    assert again.status_code == 200 and len(queries) == 1  # the change counters only


def test_the_home_page_links_every_game_s_ranking():
    html = english().get(reverse("home")).content.decode()
    for game in ("formula_de", "rallyman", "cannes_monaco", "racetrack"):
        assert reverse("ratings", args=[game]) in html


@pytest.mark.django_db(transaction=True)
def test_a_confirmation_shows_on_the_stored_ranking_at_once(season):
    """Committed for real: the recompute runs after the confirmation's commit and the
    ratings' change counter moves, so the stored page is never served stale."""
    s = season(drivers=3)
    event = s.event(day=1, table_size=3)
    url = reverse("ratings", args=["formula_de"])
    assert rows(english().get(url).content.decode()) == []  # stored, empty
    s.confirm(event, 1, [2, 3, 1])
    names = [name for _rank, name in rows(english().get(url).content.decode())]
    assert names == ["Joueur2 S1", "Joueur3 S1", "Joueur1 S1"]


def trend_of(html: str, player: Player) -> str:
    row = re.search(rf'<tr data-player="{player.pk}">(.*?)</tr>', html, re.S)
    assert row, player
    return re.sub(r"<[^>]+>", "", re.search(r'<td class="num trend[^"]*">(.*?)</td>', row[1])[1])


def test_the_trend_is_what_the_last_race_changed(season, django_capture_on_commit_callbacks):
    # Two races: 1 wins both, 4 is last in both. The trend is the rating's move at the
    # second table (the first moved it from a newcomer's 0, which the second is not).
    cup = season(drivers=4)
    first = cup.event(day=1, table_size=4)
    with django_capture_on_commit_callbacks(execute=True):
        cup.confirm(first, 1, finish=[1, 2, 3, 4])
    after_first = {n: PlayerRating.objects.get(player=cup.player(n)).rating for n in (1, 4)}
    second = cup.event(day=8, table_size=4)
    with django_capture_on_commit_callbacks(execute=True):
        cup.confirm(second, 1, finish=[1, 2, 3, 4])
    html = english().get(reverse("ratings", args=["formula_de"])).content.decode()
    for number, sign in ((1, "▲ +"), (4, "▼ ")):
        now = PlayerRating.objects.get(player=cup.player(number)).rating
        assert trend_of(html, cup.player(number)) == f"{sign}{now - after_first[number]:.2f}"


def test_a_one_race_player_shows_no_trend_and_the_rest_waits_behind_all_columns(
    season, django_capture_on_commit_callbacks
):
    """Issue 32, item 4: a player's first race showed a "trend" from the newcomer's rating.
    On a phone, races, trend, μ and σ wait behind "All columns" (as the other tables)."""
    cup = season(drivers=2)
    with django_capture_on_commit_callbacks(execute=True):
        cup.confirm(cup.event(day=1, table_size=2), 1, finish=[1, 2])
    html = english().get(reverse("ratings", args=["formula_de"])).content.decode()
    assert trend_of(html, cup.player(1)) == "" and trend_of(html, cup.player(2)) == ""
    assert 'aria-controls="ranking-wrap"' in html and 'id="ranking-wrap"' in html
    heads = re.findall(r'<th scope="col"([^>]*)>', html)
    assert ["prio-low" in attrs for attrs in heads] == [False] * 3 + [True] * 4
