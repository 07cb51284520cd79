"""The league's organiser pages (API.md "A season across clubs", pages): from "My clubs",
the club's leagues and a new one, a league's rounds (proposed, withdrawn after a
confirmation), the rounds proposed to a club's events (accepted, declined after a
confirmation), the proposal's mail leading there; the event's page links its leagues."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from standings.leagues.models import League, Round
from tests.security.conftest import english
from tournament.signup import mails
from tournament.signup.models import Mail

pytestmark = pytest.mark.django_db


def _as(world, username: str | None) -> Client:
    client = english(Client())
    if username:
        client.force_login(world.clubs.users[username])
    return client


def test_my_clubs_lists_the_leagues_for_the_clubs_owners_and_organisers_only(world):
    link = reverse("club-leagues", args=["aix"])
    for who in ("patronne", "orga"):
        assert link in _as(world, who).get(reverse("my-clubs")).content.decode(), who
    assert link not in _as(world, "guichet").get(reverse("my-clubs")).content.decode()


def test_the_clubs_organiser_creates_a_league_from_its_page(world):
    client = _as(world, "orga")
    page = client.get(reverse("club-leagues", args=["aix"]))
    assert page.status_code == 200 and "Coupe du Sud" in page.content.decode()
    form = {"name": "Coupe du Nord", "season": "2027", "points_scale": "10-6-4",
            "points_mode": "overall", "best_results": "", "club_best": "2"}  # fmt: skip
    response = client.post(reverse("club-leagues", args=["aix"]), form)
    assert response.status_code == 302
    assert response["Location"] == reverse("league-rounds", args=["coupe-du-nord-2027"])
    league = League.objects.get(slug="coupe-du-nord-2027")
    assert (league.club.slug, league.points_scale, league.points_mode, league.club_best) == (
        "aix", [10, 6, 4], "overall", 2,
    )  # fmt: skip
    refused = client.post(reverse("club-leagues", args=["aix"]), {**form, "points_scale": "x"})
    assert refused.status_code == 400 and "is not a number of points" in refused.content.decode()


@pytest.mark.parametrize(("who", "status"), [("guichet", 403), ("rival", 403), (None, 302)])
def test_the_club_leagues_page_is_its_owners_and_organisers(world, who, status):
    assert _as(world, who).get(reverse("club-leagues", args=["aix"])).status_code == status
    form = {"name": "X", "season": "2027", "points_scale": "1", "points_mode": "overall",
            "club_best": "1"}  # fmt: skip
    assert _as(world, who).post(reverse("club-leagues", args=["aix"]), form).status_code == status
    assert League.objects.count() == 1


def test_a_round_proposed_from_the_page_mails_the_link_to_accept_it(world):
    event = world.nice.event(day=1, table_size=4)
    client = _as(world, "orga")
    assert client.get(reverse("league-rounds", args=["sud"])).status_code == 200
    client.post(reverse("league-rounds", args=["sud"]), {"event": "", "event_slug": event.slug})
    assert Round.objects.get(event=event).status == "proposed"
    [mail] = Mail.objects.filter(kind="league")
    text, html = mails.bodies_as_sent(mail)
    assert "/clubs/nice/league-rounds/" in text and "/clubs/nice/league-rounds/" in html
    # The league's organisers may not decide it; another club is told nothing of the league.
    assert _as(world, "orga").get(reverse("club-league-rounds", args=["nice"])).status_code == 403
    assert _as(world, "rival").get(reverse("league-rounds", args=["sud"])).status_code == 404


def test_the_event_club_accepts_and_declines_after_a_confirmation(world):
    event = world.nice.event(day=1, table_size=4)
    round_ = Round.objects.create(league=world.league, event=event, status="proposed")
    client = _as(world, "rival")
    page = client.get(reverse("club-league-rounds", args=["nice"])).content.decode()
    assert "Coupe du Sud" in page and event.name in page
    client.post(reverse("club-league-round-accept", args=["nice", round_.pk]))
    assert Round.objects.get(pk=round_.pk).status == "counted"
    decline = reverse("club-league-round-decline", args=["nice", round_.pk])
    asked = client.post(decline)
    assert asked.status_code == 200 and 'name="confirmed"' in asked.content.decode()
    assert Round.objects.get(pk=round_.pk).status == "counted"
    client.post(decline, {"confirmed": "1"})
    assert Round.objects.get(pk=round_.pk).status == "declined"
    # A round of another club's event is not found through this club's page.
    assert (
        _as(world, "patronne")
        .post(reverse("club-league-round-accept", args=["aix", round_.pk]))
        .status_code
        == 404
    )


def test_the_league_withdraws_a_round_after_a_confirmation(world):
    event = world.aix.event(day=1, table_size=4)
    client = _as(world, "orga")
    client.post(reverse("league-rounds", args=["sud"]), {"event": event.slug})
    assert Round.objects.get(event=event).status == "counted"
    withdraw = reverse("league-round-withdraw", args=["sud", event.slug])
    assert client.post(withdraw).status_code == 200 and Round.objects.exists()
    assert _as(world, "rival").post(withdraw, {"confirmed": "1"}).status_code == 404
    assert client.post(withdraw, {"confirmed": "1"}).status_code == 302
    assert not Round.objects.exists()


def test_the_event_page_links_the_leagues_counting_it_and_the_league_its_rounds(world):
    counted = world.aix.event(day=1, table_size=4)
    proposed = world.nice.event(day=8, table_size=4)
    Round.objects.create(league=world.league, event=counted, status="counted")
    Round.objects.create(league=world.league, event=proposed, status="proposed")
    league_link = f'href="{reverse("league", args=["sud"])}"'
    assert league_link in Client().get(reverse("event", args=[counted.slug])).content.decode()
    assert league_link not in Client().get(reverse("event", args=[proposed.slug])).content.decode()
    page = Client().get(reverse("league", args=["sud"])).content.decode()
    assert f'href="{reverse("event", args=[counted.slug])}"' in page
