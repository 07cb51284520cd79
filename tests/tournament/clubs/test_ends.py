"""Rights that end (DOMAIN.md "Many clubs on one server", API.md alike): guest organisers
are named by the club's owners and never among its members; a removed or lowered member
loses their guest seats on the club's championships and the invitations they sent, at once
(tokens included); an invitation whose sender may no longer invite opens nothing; a next
season is started by the club's owners and organisers, never by a guest; a member leaves."""

from __future__ import annotations

import datetime

import pytest
from django.test import Client
from django.utils import timezone

from tests.security.conftest import english
from tests.tournament.clubs.conftest import Clubs
from tournament import sealing
from tournament.models import Championship, GuestSeat, Invitation, Membership

pytestmark = pytest.mark.django_db

SECRET = "secret-of-the-mail"
EDIT = {"name": "GP d’Aix, changé"}
ACCEPT = {"token": SECRET, "username": "lea", "password": "virage-rapide-2026"}


def owner_invitation(clubs: Clubs, sender: str = "patronne") -> Invitation:
    """A pending invitation for the owner's role, sent by ``sender``."""
    return Invitation.objects.create(
        club=clubs.club,
        email="lea@example.org",
        role="owner",
        digest=sealing.link_digest(SECRET),
        invited_by=clubs.users[sender],
        expires_at=timezone.now() + datetime.timedelta(days=7),
    )


def seat_of(clubs: Clubs, username: str) -> None:
    """A guest seat held by a member (named before the rule, or before joining)."""
    clubs.championship.organisers.add(clubs.users[username])


def page_of(clubs: Clubs, username: str) -> Client:
    client = english(Client())
    client.force_login(clubs.users[username])
    return client


def test_only_the_owners_name_guest_organisers_and_never_a_member(clubs: Clubs):
    body = {"usernames": ["invitee", "guest"]}
    for who in ("orga", "guichet", "guest", "rival"):
        assert clubs.api(who).put("/championships/aix-2026/organisers", body).status_code == 403

    member = clubs.api("patronne").put(
        "/championships/aix-2026/organisers", {"usernames": ["invitee", "orga"]}
    )
    assert member.status_code == 400
    assert "“orga”" in member.json()["detail"] and "invitee" not in member.json()["detail"]
    assert list(clubs.championship.organisers.values_list("username", flat=True)) == ["guest"]

    named = clubs.api("patronne").put("/championships/aix-2026/organisers", body)
    assert named.status_code == 200 and named.json() == {"usernames": ["guest", "invitee"]}
    seat = GuestSeat.objects.get(championship=clubs.championship, user=clubs.users["invitee"])
    assert seat.given_by == clubs.users["patronne"]


@pytest.mark.parametrize("change", ["remove", "lower"])
def test_a_removed_or_lowered_member_loses_the_guest_seat_at_once(clubs: Clubs, change):
    """Issue 49, item 2: the token kept editing the event and publishing results."""
    seat_of(clubs, "orga")
    orga = clubs.api("orga")
    assert orga.patch("/events/aix-gp", EDIT).status_code == 200
    owner = clubs.api("patronne")

    if change == "remove":
        response = owner.delete("/clubs/aix/members/orga")
        assert response.json() == {"removed_guest_seats": ["aix-2026"], "withdrawn_invitations": 0}
    else:
        response = owner.patch("/clubs/aix/members/orga", {"role": "desk"})
        assert response.json() == {
            "username": "orga",
            "role": "desk",
            "removed_guest_seats": ["aix-2026"],
            "withdrawn_invitations": 0,
        }
    assert response.status_code == 200

    assert orga.patch("/events/aix-gp", EDIT).status_code == 403
    assert orga.post("/events/aix-gp/publish", {"results": True}).status_code == 403
    assert not clubs.championship.organisers.filter(username="orga").exists()
    # The guest from outside keeps the seat: only the removed member's went.
    assert clubs.api("guest").patch("/events/aix-gp", EDIT).status_code == 200


def test_nothing_held_is_a_204_and_a_raised_role_ends_nothing(clubs: Clubs):
    owner = clubs.api("patronne")
    seat_of(clubs, "guichet")
    raised = owner.patch("/clubs/aix/members/guichet", {"role": "organiser"})
    assert raised.json()["removed_guest_seats"] == []
    assert clubs.championship.organisers.filter(username="guichet").exists()
    clubs.championship.organisers.remove(clubs.users["guichet"])
    assert owner.delete("/clubs/aix/members/guichet").status_code == 204


def test_a_removed_owner_s_invitations_are_withdrawn_with_why(clubs: Clubs):
    """Issue 49, item 3: a removed owner's pending owner invitation still brought in an
    owner (201)."""
    owner_invitation(clubs)
    Membership.objects.filter(user=clubs.users["orga"]).update(role="owner")

    removed = clubs.api("orga").delete("/clubs/aix/members/patronne")

    assert removed.status_code == 200
    assert removed.json() == {"removed_guest_seats": [], "withdrawn_invitations": 1}
    [listed] = clubs.api("orga").get("/clubs/aix/invitations").json()
    assert listed["status"] == "withdrawn" and listed["sent_by"] == "patronne"
    assert listed["reason"] == "Withdrawn: its sender was removed from the club."
    accepted = clubs.api(None).post("/invitations/accept", ACCEPT)
    assert accepted.status_code == 409 and "sender was removed" in accepted.json()["detail"]
    assert not Membership.objects.filter(user__username="lea").exists()


def test_a_lowered_owner_s_invitation_is_withdrawn_too(clubs: Clubs):
    owner_invitation(clubs)
    Membership.objects.filter(user=clubs.users["orga"]).update(role="owner")
    lowered = clubs.api("orga").patch("/clubs/aix/members/patronne", {"role": "organiser"})
    assert lowered.json()["withdrawn_invitations"] == 1
    [listed] = clubs.api("orga").get("/clubs/aix/invitations").json()
    assert listed["reason"] == "Withdrawn: its sender may no longer invite to the club."


def test_an_invitation_whose_sender_may_no_longer_invite_is_409(clubs: Clubs):
    """A pending invitation left from before (its sender lowered without the withdrawal)."""
    owner_invitation(clubs)
    Membership.objects.filter(user=clubs.users["orga"]).update(role="owner")
    Membership.objects.filter(user=clubs.users["patronne"]).update(role="desk")

    accepted = clubs.api(None).post("/invitations/accept", ACCEPT)

    assert accepted.status_code == 409
    assert "may no longer invite to Club d’Aix" in accepted.json()["detail"]
    assert clubs.api("invitee").post("/invitations/accept", {"token": SECRET}).status_code == 409
    assert (
        not Membership.objects.filter(club=clubs.club, role="owner")
        .exclude(user=clubs.users["orga"])
        .exists()
    )


def test_a_next_season_is_the_club_s_and_keeps_only_the_seats_still_held(clubs: Clubs):
    """Issue 49, item 9 and item 2: a guest started a next season (201) and the next season
    copied a seat its holder no longer may hold."""
    body = {"slug": "aix-2027", "name": "Coupe d’Aix", "season": "2027"}
    assert clubs.api("guest").post("/championships/aix-2026/next-season", body).status_code == 403
    assert clubs.api("guichet").post("/championships/aix-2026/next-season", body).status_code == 403
    assert (
        clubs.api("patronne")
        .put("/championships/aix-2026/organisers", {"usernames": ["guest", "invitee"]})
        .status_code
        == 200
    )
    Membership.objects.create(club=clubs.club, user=clubs.users["invitee"], role="desk")

    made = clubs.api("orga").post("/championships/aix-2026/next-season", body)

    assert made.status_code == 201, made.content
    new = Championship.objects.get(slug="aix-2027")
    assert list(new.organisers.values_list("username", flat=True)) == ["guest"]
    assert not GuestSeat.objects.filter(championship=new, user=clubs.users["invitee"]).exists()
    page = page_of(clubs, "guest")
    assert page.get("/c/aix-2026/next-season/").status_code == 403
    assert "/c/aix-2026/next-season/" not in page.get("/c/aix-2026/").content.decode()
    assert "/c/aix-2026/next-season/" in page_of(clubs, "orga").get("/c/aix-2026/").content.decode()


def test_a_member_leaves_but_never_the_last_owner(clubs: Clubs):
    seat_of(clubs, "guichet")
    assert clubs.api("guichet").delete("/clubs/aix/members/orga").status_code == 403

    left = clubs.api("guichet").delete("/clubs/aix/members/guichet")

    assert left.status_code == 204
    assert not Membership.objects.filter(user=clubs.users["guichet"]).exists()
    assert not clubs.championship.organisers.filter(username="guichet").exists()
    last = clubs.api("patronne").delete("/clubs/aix/members/patronne")
    assert last.status_code == 409 and "last owner" in last.json()["detail"]


# --- The pages ------------------------------------------------------------------------------


def test_the_people_page_lists_guest_seats_and_pending_invitations_with_their_sender(
    clubs: Clubs,
):
    clubs.api("patronne").put("/championships/aix-2026/organisers", {"usernames": ["invitee"]})
    owner_invitation(clubs)

    html = page_of(clubs, "patronne").get("/clubs/aix/people/").content.decode()

    seats = html[html.index('id="guests-title"') : html.index('id="invite-title"')]
    assert "invitee" in seats and "Coupe d’Aix 2026" in seats and "named by patronne" in seats
    assert "lea@example.org" in html and "sent by patronne" in html


def test_lowering_a_member_on_the_page_says_what_goes_then_does_it(clubs: Clubs):
    seat_of(clubs, "orga")
    owner = page_of(clubs, "patronne")
    url = "/clubs/aix/people/orga/role/"

    asked = owner.post(url, {"role": "desk"})

    assert asked.status_code == 200
    assert "orga&#x27;s guest seat on Coupe d’Aix 2026 goes." in asked.content.decode()
    assert Membership.objects.get(user=clubs.users["orga"]).role == "organiser"
    done = owner.post(url, {"role": "desk", "confirmed": "1"})
    assert done.status_code == 302
    assert Membership.objects.get(user=clubs.users["orga"]).role == "desk"
    assert not clubs.championship.organisers.filter(username="orga").exists()


def test_removing_a_member_on_the_page_lists_the_invitations_that_go(clubs: Clubs):
    owner_invitation(clubs)
    Membership.objects.filter(user=clubs.users["orga"]).update(role="owner")
    asked = page_of(clubs, "orga").post("/clubs/aix/people/patronne/remove/")
    assert "The invitation patronne sent to lea@example.org (owner) is withdrawn." in (
        asked.content.decode()
    )
    page_of(clubs, "orga").post("/clubs/aix/people/patronne/remove/", {"confirmed": "1"})
    assert Invitation.objects.get().withdrawn_why == "sender_removed"


def test_a_member_leaves_from_my_clubs_after_a_confirmation(clubs: Clubs):
    desk = page_of(clubs, "guichet")
    html = desk.get("/clubs/").content.decode()
    assert 'action="/clubs/aix/leave/"' in html and "Leave this club" in html
    assert 'href="/clubs/"' in html  # the header's "My clubs"

    asked = desk.post("/clubs/aix/leave/")
    assert asked.status_code == 200 and "Leave Club d’Aix?" in asked.content.decode()
    assert Membership.objects.filter(user=clubs.users["guichet"]).exists()
    left = desk.post("/clubs/aix/leave/", {"confirmed": "1"}, follow=True)
    assert "You left Club d’Aix." in left.content.decode()
    assert not Membership.objects.filter(user=clubs.users["guichet"]).exists()

    last = page_of(clubs, "patronne").post("/clubs/aix/leave/", {"confirmed": "1"}, follow=True)
    assert "you are the last owner of Club d’Aix" in last.content.decode()
    assert Membership.objects.filter(user=clubs.users["patronne"]).exists()
    assert page_of(clubs, "rival").post("/clubs/aix/leave/").status_code == 404
