"""Who may do what (DOMAIN.md "Clubs and who may do what"): one decision
(``tournament.clubs.rights``) behind ``Actor`` and ``Championship.is_organiser``, read from
the memberships at each request: a removed member's session and token lose the club's
rights at once."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.tournament.clubs.conftest import Clubs
from tournament.access import Actor
from tournament.clubs import rights
from tournament.models import Championship, Entry, Membership

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("who", "organise", "desk", "role"),
    [
        ("patronne", True, True, "owner"),
        ("orga", True, True, "organiser"),
        ("guichet", False, True, "desk"),
        ("guest", True, True, None),  # the championship's own guest organiser
        ("rival", False, False, None),  # another club's owner
        ("invitee", False, False, None),
    ],
)
def test_each_role_over_the_club_s_championship(clubs: Clubs, who, organise, desk, role):
    actor = Actor(user=clubs.users[who])
    assert actor.can_organise(clubs.championship) is organise
    assert actor.can_desk(clubs.championship) is desk
    assert actor.role_in(clubs.club) == role
    assert clubs.championship.is_organiser(clubs.users[who]) is organise


def test_a_guest_organiser_runs_that_championship_alone(clubs: Clubs):
    other = Championship.objects.create(
        slug="aix-2027", name="Autre", season="2027", club=clubs.club
    )
    guest = Actor(user=clubs.users["guest"])
    assert guest.can_organise(clubs.championship)
    assert not guest.can_organise(other) and not guest.can_desk(other)
    assert not guest.can_run_club(clubs.club)  # no championship nor circuit of the club


def test_a_table_link_and_nobody_have_no_club_rights(clubs: Clubs, django_user_model):
    for actor in (Actor.anonymous(), Actor(table=object(), user=clubs.users["patronne"])):
        assert not actor.can_organise(clubs.championship)
        assert not actor.can_desk(clubs.championship)
        assert actor.role_in(clubs.club) is None
    root = django_user_model.objects.create_superuser("root", password="x")
    assert Actor(user=root).can_organise(clubs.championship)
    assert Actor(user=root).can_manage_people(clubs.club)


def test_an_inactive_member_has_no_rights(clubs: Clubs):
    user = clubs.users["orga"]
    user.is_active = False
    user.save()
    assert rights.championship_rights(user, clubs.championship) is None


def test_the_desk_keeps_the_counter_and_is_refused_the_rest(clubs: Clubs):
    """API.md: the desk enters, checks in; never settings, publication, people: 403."""
    desk = clubs.api("guichet")
    assert desk.post("/events/aix-gp/entries", {"numbers": [1]}).status_code == 200
    assert desk.post("/events/aix-gp/checkin", {"numbers": [1]}).status_code == 200
    assert desk.get("/events/aix-gp").status_code == 200  # unpublished: the desk reads it
    driver = {"number": 7, "first_name": "Léa", "last_name": "Morel"}
    assert desk.post("/championships/aix-2026/drivers", driver).status_code == 201
    refused = desk.patch("/events/aix-gp", {"name": "Autre"})
    assert refused.status_code == 403
    assert "desk" in refused.json()["detail"]
    assert desk.post("/events/aix-gp/publish", {"results": True}).status_code == 403
    assert desk.post("/events/aix-gp/sessions", {"number": 1}).status_code == 403
    assert desk.post("/championships/aix-2026/teams", {"name": "Rouge"}).status_code == 403
    invite = {"email": "a@example.org", "role": "desk"}
    assert desk.post("/clubs/aix/invitations", invite).status_code == 403
    event = {"slug": "gp2", "name": "GP 2", "date": "2026-08-01", "circuit": "monaco"}
    assert desk.post("/championships/aix-2026/events", event).status_code == 403


def test_a_removed_member_s_token_and_session_lose_the_rights_at_once(clubs: Clubs):
    """DOMAIN.md: a removed member loses the club's rights at once, tokens included."""
    desk = clubs.api("guichet")
    page = Client()
    page.force_login(clubs.users["guichet"])
    assert desk.post("/events/aix-gp/checkin", {"numbers": [1]}).status_code == 200
    assert page.get("/e/aix-gp/desk/").status_code == 200

    removed = clubs.api("patronne").delete("/clubs/aix/members/guichet")

    assert removed.status_code == 204
    assert desk.post("/events/aix-gp/checkin", {"numbers": [2]}).status_code == 403
    assert desk.get("/clubs/aix/members").status_code == 403
    assert page.get("/e/aix-gp/desk/").status_code == 403
    assert not Entry.objects.get(event=clubs.event, driver__number=2).checked_in
    assert not Membership.objects.filter(user=clubs.users["guichet"]).exists()


def test_the_desk_page_shows_the_desk_its_counter_only(clubs: Clubs):
    page = Client()
    page.force_login(clubs.users["guichet"])
    html = page.get("/e/aix-gp/desk/").content.decode()
    assert "/e/aix-gp/desk/register/" in html  # entries and check-in
    assert "/e/aix-gp/settings/" not in html  # the organisers' settings
    organiser = Client()
    organiser.force_login(clubs.users["orga"])
    assert "/e/aix-gp/settings/" in organiser.get("/e/aix-gp/desk/").content.decode()
