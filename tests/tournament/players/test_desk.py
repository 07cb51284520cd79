"""Race control's pages on players (tournament/players/desk.py) and "Start next season"
(tournament/registration/views.py)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from tests.security.hostile import HOSTILE_NAMES, unescaped
from tests.tournament.players.conftest import Clubs
from tournament.models import Championship, Driver, NotSamePlayer, Player, PlayerChange, Team

pytestmark = pytest.mark.django_db


def client_of(user) -> Client:  # type: ignore[no-untyped-def]
    client = Client()
    client.force_login(user)
    client.cookies["django_language"] = "en"
    return client


@pytest.fixture
def pc(clubs: Clubs) -> Client:
    return client_of(clubs.pc.user)


@pytest.fixture
def pair(clubs: Clubs) -> tuple[Driver, Driver]:
    """One person registered in two seasons, not merged yet."""
    return (
        clubs.register(clubs.season_2025, 7, "Élodie", "Lefèvre", email="elodie@example.org"),
        clubs.register(clubs.season_2026, 3, "Elodie", "LEFEVRE"),
    )


def test_the_matches_page_shows_the_evidence_and_same_person_merges(pc, pair):
    old, new = pair
    page = pc.get(reverse("player-matches"))
    html = page.content.decode()
    assert page.status_code == 200
    assert "same name" in html and "elodie@example.org" in html
    assert "Coupe de France (2025) · n° 7" in html and "Coupe de France (2026) · n° 3" in html
    assert not PlayerChange.objects.exists()  # showing proposes, never merges

    done = pc.post(
        reverse("player-merge"), {"keep": old.player_id, "other": new.player_id}, follow=True
    )

    assert Driver.objects.get(pk=new.pk).player_id == old.player_id
    change = PlayerChange.objects.get()
    assert (change.kind, change.actor) == ("merge", "pc")
    assert "are now one player" in done.content.decode()
    assert "No possible match to check." in done.content.decode()


def test_not_the_same_is_remembered(pc, pair):
    old, new = pair
    pc.post(reverse("player-not-same"), {"player": old.player_id, "other": new.player_id})
    assert NotSamePlayer.objects.count() == 1
    assert "No possible match" in pc.get(reverse("player-matches")).content.decode()
    assert Driver.objects.get(pk=new.pk).player_id != old.player_id


def test_a_refused_merge_says_why_and_changes_nothing(clubs: Clubs, pc):
    a = clubs.register(clubs.season_2026, 1, "Jean", "Dupont")
    b = clubs.register(clubs.season_2026, 2, "Jean", "Dupont")
    page = pc.post(
        reverse("player-merge"), {"keep": a.player_id, "other": b.player_id}, follow=True
    )
    assert "one person drives once per championship" in page.content.decode()
    for keep, other in (("x", ""), ("²", "3"), ("9" * 40, "1")):
        gone = pc.post(reverse("player-merge"), {"keep": keep, "other": other}, follow=True)
        assert "no longer exist" in gone.content.decode()
    odd = pc.post(reverse("player-split", args=[a.player_id]), {"drivers": ["²", "x"]})
    assert "Choose the drivers" in odd.content.decode()
    assert not PlayerChange.objects.exists()


def test_hostile_names_are_escaped_on_the_players_pages(clubs: Clubs, pc):
    for number, name in enumerate(HOSTILE_NAMES, start=1):
        clubs.register(clubs.season_2025, number, name, name, email=f"{number}@example.org")
        clubs.register(clubs.season_2026, number, name, name)
    page = pc.get(reverse("player-matches")).content.decode()
    assert page.count("<strong>same name</strong>") == len(HOSTILE_NAMES)
    assert unescaped(page) == []
    first = Driver.objects.filter(championship=clubs.season_2025).order_by("number").first()
    other = Driver.objects.get(championship=clubs.season_2026, number=1)
    pc.post(reverse("player-merge"), {"keep": first.player_id, "other": other.player_id})
    for url in (reverse("player-changes"), reverse("player-split", args=[first.player_id])):
        html = pc.get(url).content.decode()
        assert "&lt;script&gt;" in html or "=HYPERLINK" in html
        assert unescaped(html) == []


def test_changes_page_undoes_and_the_split_page_splits(clubs: Clubs, pc, pair):
    old, new = pair
    pc.post(reverse("player-merge"), {"keep": old.player_id, "other": new.player_id})
    merge = PlayerChange.objects.get()
    html = pc.get(reverse("player-changes")).content.decode()
    assert "Elodie LEFEVRE merged into Élodie Lefèvre" in html

    split_page = pc.get(reverse("player-split", args=[old.player_id])).content.decode()
    assert f'value="{new.pk}"' in split_page and f'value="{old.pk}"' in split_page
    pc.post(reverse("player-split", args=[old.player_id]), {"drivers": [str(new.pk)]})
    split = PlayerChange.objects.get(kind="split")
    assert Driver.objects.get(pk=new.pk).player_id == split.other_id

    refused = pc.post(reverse("player-change-undo", args=[merge.pk]), follow=True)
    assert "undo them first" in refused.content.decode()
    pc.post(reverse("player-change-undo", args=[split.pk]))
    pc.post(reverse("player-change-undo", args=[merge.pk]))
    assert Driver.objects.get(pk=new.pk).player_id == new.player_id
    assert PlayerChange.objects.filter(undone_at__isnull=False).count() == 2
    html = pc.get(reverse("player-changes")).content.decode()
    assert html.count("Undone by pc") == 2


def test_change_lines_tell_two_players_of_one_name_apart(clubs: Clubs, pc):
    """Issue 32, item 9: "Jean Dupont merged into Jean Dupont" said nothing; each side
    shows its seats (championship and number)."""
    old = clubs.register(clubs.season_2025, 7, "Jean", "Dupont")
    new = clubs.register(clubs.season_2026, 12, "Jean", "Dupont")
    pc.post(reverse("player-merge"), {"keep": old.player_id, "other": new.player_id})

    html = pc.get(reverse("player-changes")).content.decode()

    assert "Jean Dupont merged into Jean Dupont" in html
    assert "Jean Dupont · Coupe de France (2026) · n° 12<br>" in html  # the merged one
    assert "Jean Dupont · Coupe de France (2025) · n° 7</small>" in html  # the kept one


def test_an_organiser_of_another_club_sees_none_of_this(clubs: Clubs, pair):
    club = client_of(clubs.club.user)
    old, new = pair
    assert "No possible match" in club.get(reverse("player-matches")).content.decode()
    assert club.get(reverse("player-split", args=[old.player_id])).status_code == 403
    club.post(reverse("player-merge"), {"keep": old.player_id, "other": new.player_id})
    assert not PlayerChange.objects.exists()
    assert Client().get(reverse("player-matches")).status_code == 403


# --- Start next season ----------------------------------------------------------------------


def test_start_next_season_is_a_prefilled_form_then_the_new_championship(clubs: Clubs, pc):
    Team.objects.create(championship=clubs.season_2025, name="Rouge")
    clubs.register(clubs.season_2025, 1, "Élodie", "Lefèvre", team="Rouge")
    page = pc.get(reverse("championship", args=["cf-2025"])).content.decode()
    url = reverse("championship-next-season", args=["cf-2025"])
    assert url in page

    form = pc.get(url).content.decode()
    assert 'value="cf-2026"' in form and 'value="2026"' in form

    taken = pc.post(url, {"slug": "cf", "name": "Coupe", "season": "2026"})
    assert taken.status_code == 200
    assert "already exists" in taken.content.decode()
    assert Championship.objects.count() == 3

    done = pc.post(url, {"slug": "cf-2026b", "name": "Coupe de l’Ouest", "season": "2026"})
    assert done.status_code == 302 and done["Location"] == reverse(
        "championship", args=["cf-2026b"]
    )
    new = Championship.objects.get(slug="cf-2026b")
    (driver,) = Driver.objects.filter(championship=new)
    assert driver.team.name == "Rouge" and driver.team.championship == new
    assert driver.player == Driver.objects.get(championship__slug="cf-2025").player
    assert Player.objects.count() == 1


def test_start_next_season_says_the_next_season_exists_and_links_to_it(clubs: Clubs, pc):
    """Issue 32, item 2: "Start next season" of 2025 made a second "Coupe de France 2026"
    when 2026 existed, without a word. Said on the form before the click, refused after."""
    url = reverse("championship-next-season", args=["cf-2025"])
    link = f'href="{reverse("championship", args=["cf"])}"'

    form = pc.get(url).content.decode()
    assert 'id="season-exists"' in form and link in form

    again = pc.post(url, {"slug": "cf-2026b", "name": "coupe de france", "season": "2026"})
    page = again.content.decode()
    assert again.status_code == 200 and link in page
    assert "Coupe de France 2026 already exists" in page
    assert not Championship.objects.filter(slug="cf-2026b").exists()

    other = pc.get(reverse("championship-next-season", args=["cf"])).content.decode()
    assert 'id="season-exists"' not in other  # 2027 is free


def test_start_next_season_is_for_its_organisers(clubs: Clubs):
    url = reverse("championship-next-season", args=["cf-2025"])
    assert client_of(clubs.club.user).get(url).status_code == 403
    assert (
        client_of(clubs.club.user).post(url, {"slug": "z", "name": "Z", "season": "1"}).status_code
        == 403
    )
    assert not Championship.objects.filter(slug="z").exists()
    page = client_of(clubs.club.user).get(reverse("championship", args=["cf-2025"]))
    assert url not in page.content.decode()
