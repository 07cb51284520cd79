"""The clubs' API as API.md "Clubs and their people" writes it: its paths, fields, values and
statuses; bad input a sentence in the caller's language and a 4xx, never a 500 (issue 41,
"Bad input"). DOMAIN.md "Clubs and who may do what" decides who may."""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone

from qualifying.models import QualifyingSession
from qualifying.services import session_create
from tests.tournament.clubs.conftest import Api, Clubs
from tournament import sealing
from tournament.access import Actor
from tournament.models import ApiToken, Championship, Circuit, Club, Invitation, Membership
from tournament.signup.models import Mail

pytestmark = pytest.mark.django_db

SCALE = {"rain": [1, 4], "variable": [5, 8], "sun": [9, 20]}
STRONG = "virage-rapide-2026"


def invitation(
    clubs: Clubs, *, role: str = "organiser", secret: str = "secret-of-the-mail", **fields
) -> Invitation:
    """An invitation as ``invitation_send`` stores it (its secret by digest only)."""
    return Invitation.objects.create(
        club=clubs.club,
        email="new@example.org",
        role=role,
        digest=sealing.link_digest(secret),
        invited_by=clubs.users["patronne"],
        expires_at=fields.pop("expires_at", timezone.now() + datetime.timedelta(days=7)),
        **fields,
    )


# --- Clubs ---------------------------------------------------------------------------------


def test_a_superuser_creates_a_club_and_owns_it(clubs, django_user_model):
    root = django_user_model.objects.create_superuser("root", password="x")

    response = Api(ApiToken.issue(root)).post("/clubs", {"slug": "lyon", "name": "Club de Lyon"})

    assert response.status_code == 201, response.content
    assert response.json() == {"slug": "lyon", "name": "Club de Lyon", "role": "owner"}
    assert Membership.objects.get(club__slug="lyon").user == root


def test_a_signed_in_person_creates_a_club_only_when_the_server_is_open(clubs, settings):
    """API.md: any signed-in user when ``CLUBS_OPEN`` is on, else 403."""
    body = {"slug": "lyon", "name": "Club de Lyon"}
    settings.CLUBS_OPEN = False
    refused = clubs.api("invitee").post("/clubs", body)
    assert refused.status_code == 403 and "operator" in refused.json()["detail"]
    assert clubs.api(None).post("/clubs", body).status_code == 401

    settings.CLUBS_OPEN = True
    assert clubs.api("invitee").post("/clubs", body).status_code == 201
    again = clubs.api("rival").post("/clubs", body)
    assert again.status_code == 409 and again.json()["errors"]["slug"]
    bad = clubs.api("rival", language="fr").post("/clubs", {"slug": "Lyon !", "name": "L"})
    assert bad.status_code == 400
    assert bad.json()["errors"]["slug"] == [
        "Utilisez uniquement des minuscules, des chiffres et des tirets (a-z, 0-9, -)."
    ]


def test_the_clubs_of_the_token_and_me(clubs):
    assert clubs.api("guichet").get("/clubs").json() == [
        {"slug": "aix", "name": "Club d’Aix", "role": "desk"}
    ]
    assert clubs.api("invitee").get("/clubs").json() == []
    me = clubs.api("patronne").get("/me")
    assert me.status_code == 200
    assert me.json() == {
        "username": "patronne",
        "clubs": [{"slug": "aix", "name": "Club d’Aix", "role": "owner"}],
        "superuser": False,
    }
    assert clubs.api(None).get("/me").status_code == 401


# --- Invitations -----------------------------------------------------------------------------


def test_the_owner_invites_and_the_mail_is_queued_once(clubs, django_capture_on_commit_callbacks):
    response = clubs.api("patronne").post(
        "/clubs/aix/invitations", {"email": "lea@example.org", "role": "desk", "language": "en"}
    )

    assert response.status_code == 202, response.content
    assert response.json() == {"status": "invited"}
    sent = Invitation.objects.get()
    assert (sent.email, sent.role, sent.language) == ("lea@example.org", "desk", "en")
    valid = sent.expires_at - sent.sent_at
    assert abs(valid - datetime.timedelta(days=7)) < datetime.timedelta(seconds=5)
    [mail] = Mail.objects.filter(invitation=sent)
    # No row holds the link as it is: the bodies keep a mark, the link is sealed beside.
    assert "/invitations/" not in mail.body_text + mail.body_html and mail.link_sealed
    assert (mail.kind, mail.key, mail.registration, mail.to) == (
        "invitation",
        "invitation",
        None,
        "lea@example.org",
    )
    listed = clubs.api("patronne").get("/clubs/aix/invitations").json()
    assert [(i["email"], i["role"], i["status"]) for i in listed] == [
        ("lea@example.org", "desk", "pending")
    ]
    again = clubs.api("patronne").post(
        "/clubs/aix/invitations", {"email": "LEA@example.org", "role": "desk"}
    )
    assert again.status_code == 409 and "withdraw it first" in again.json()["detail"]


@pytest.mark.parametrize("who", ["orga", "guichet", "guest", "rival", "invitee"])
def test_only_the_owner_invites(clubs, who):
    body = {"email": "lea@example.org", "role": "desk"}
    assert clubs.api(who).post("/clubs/aix/invitations", body).status_code == 403
    assert clubs.api(who).get("/clubs/aix/invitations").status_code == 403
    assert not Invitation.objects.exists()


def test_a_role_that_does_not_exist_and_a_bad_address_are_400(clubs):
    owner = clubs.api("patronne")
    role = owner.post("/clubs/aix/invitations", {"email": "a@example.org", "role": "boss"})
    assert role.status_code == 400 and list(role.json()["errors"]) == ["role"]
    address = owner.post("/clubs/aix/invitations", {"email": "pas une adresse", "role": "desk"})
    assert address.status_code == 400
    assert address.json()["detail"] == "“pas une adresse” is not an e-mail address."
    unknown = owner.post("/clubs/nulle-part/invitations", {"email": "a@b.org", "role": "desk"})
    assert unknown.status_code == 404
    assert not Invitation.objects.exists()


def test_the_list_says_each_invitation_s_status_and_the_owner_withdraws(clubs):
    now = timezone.now()
    invitation(clubs, secret="a")
    invitation(clubs, secret="b", accepted_at=now)
    invitation(clubs, secret="c", expires_at=now - datetime.timedelta(minutes=1))
    withdrawn = invitation(clubs, secret="d")

    answer = clubs.api("patronne").delete(f"/clubs/aix/invitations/{withdrawn.pk}")

    assert answer.status_code == 200 and answer.json()["status"] == "withdrawn"
    statuses = [i["status"] for i in clubs.api("patronne").get("/clubs/aix/invitations").json()]
    assert sorted(statuses) == ["accepted", "expired", "pending", "withdrawn"]
    assert clubs.api("patronne").delete("/clubs/aix/invitations/999999").status_code == 404
    assert clubs.api("orga").delete(f"/clubs/aix/invitations/{withdrawn.pk}").status_code == 403


def test_a_new_person_accepts_with_a_username_and_a_password(clubs):
    invitation(clubs, role="desk")

    response = Api().post(
        "/invitations/accept",
        {"token": "secret-of-the-mail", "username": "lea", "password": STRONG},
    )

    assert response.status_code == 201, response.content
    assert response.json() == {"club": "aix", "role": "desk", "username": "lea"}
    member = Membership.objects.get(user__username="lea")
    assert (member.club, member.role) == (clubs.club, "desk")
    assert member.user.email == "new@example.org"  # a password reset reaches them
    assert member.user.check_password(STRONG)
    used = Api().post(
        "/invitations/accept", {"token": "secret-of-the-mail", "username": "x", "password": STRONG}
    )
    assert used.status_code == 409
    assert used.json()["detail"] == "This invitation was used already: log in with your account."


@pytest.mark.parametrize(
    ("password", "said"),
    [
        ("paddock-pc", "demo"),  # published with the code
        ("motdepasse1", "common"),  # a common one with digits added
        ("short", "too short"),
    ],
)
def test_a_weak_or_published_password_is_400_and_nothing_is_made(clubs, password, said):
    """The first start's rules (tournament.site.accounts.passwords)."""
    invitation(clubs)

    response = Api().post(
        "/invitations/accept",
        {"token": "secret-of-the-mail", "username": "lea", "password": password},
    )

    assert response.status_code == 400
    assert said in " ".join(response.json()["errors"]["password"])
    assert not Membership.objects.filter(user__username="lea").exists()
    assert Invitation.objects.get().accepted_at is None


def test_a_taken_username_is_409_and_a_bad_one_400(clubs):
    invitation(clubs)
    taken = Api().post(
        "/invitations/accept",
        {"token": "secret-of-the-mail", "username": "Orga", "password": STRONG},
    )
    assert taken.status_code == 409 and taken.json()["errors"]["username"]
    bad = Api().post(
        "/invitations/accept",
        {"token": "secret-of-the-mail", "username": "léa la belle!", "password": STRONG},
    )
    assert bad.status_code == 400 and bad.json()["errors"]["username"]
    nothing = Api().post("/invitations/accept", {"token": "secret-of-the-mail"})
    assert nothing.status_code == 400


def test_a_person_with_a_token_joins(clubs):
    invitation(clubs, role="organiser")

    response = clubs.api("rival").post("/invitations/accept", {"token": "secret-of-the-mail"})

    assert response.status_code == 201
    assert response.json() == {"club": "aix", "role": "organiser", "username": "rival"}
    assert clubs.api("rival").get("/me").json()["clubs"] == [
        {"slug": "nice", "name": "Club de Nice", "role": "owner"},
        {"slug": "aix", "name": "Club d’Aix", "role": "organiser"},
    ]


def test_a_member_already_is_told_so(clubs):
    invitation(clubs)
    response = clubs.api("guichet").post("/invitations/accept", {"token": "secret-of-the-mail"})
    assert response.status_code == 409
    assert response.json()["detail"] == "You are a member of Club d’Aix already, as desk member."


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        ({"expires_at": timezone.now() - datetime.timedelta(seconds=1)}, "expired"),
        ({"withdrawn_at": timezone.now()}, "withdrawn"),
        ({"accepted_at": timezone.now()}, "used already"),
    ],
)
def test_used_expired_or_withdrawn_is_409_saying_which(clubs, fields, said):
    invitation(clubs, **fields)
    response = clubs.api("invitee").post("/invitations/accept", {"token": "secret-of-the-mail"})
    assert response.status_code == 409
    assert said in response.json()["detail"]
    assert not Membership.objects.filter(user__username="invitee").exists()


def test_an_unknown_invitation_is_404(clubs):
    response = Api().post(
        "/invitations/accept", {"token": "nobody-got-this", "username": "x", "password": STRONG}
    )
    assert response.status_code == 404
    assert "Unknown invitation" in response.json()["detail"]


# --- Members -------------------------------------------------------------------------------


def test_members_are_listed_with_their_roles(clubs):
    expected = [
        {"username": "guichet", "role": "desk"},
        {"username": "orga", "role": "organiser"},
        {"username": "patronne", "role": "owner"},
    ]
    for who in ("patronne", "orga", "guichet"):
        assert clubs.api(who).get("/clubs/aix/members").json() == expected
    assert clubs.api("rival").get("/clubs/aix/members").status_code == 403
    assert clubs.api("guest").get("/clubs/aix/members").status_code == 403


def test_the_owner_changes_a_role_and_never_leaves_the_club_without_an_owner(clubs):
    owner = clubs.api("patronne")
    changed = owner.patch("/clubs/aix/members/guichet", {"role": "organiser"})
    assert changed.status_code == 200
    assert changed.json() == {
        "username": "guichet",
        "role": "organiser",
        "removed_guest_seats": [],
        "withdrawn_invitations": 0,
    }

    last = owner.patch("/clubs/aix/members/patronne", {"role": "desk"})
    assert last.status_code == 409 and "at least one owner" in last.json()["detail"]
    assert owner.delete("/clubs/aix/members/patronne").status_code == 409
    assert (
        clubs.api("orga").patch("/clubs/aix/members/guichet", {"role": "owner"}).status_code == 403
    )
    assert owner.patch("/clubs/aix/members/nobody", {"role": "desk"}).status_code == 404
    assert owner.patch("/clubs/aix/members/orga", {"role": "chef"}).status_code == 400

    # A second owner: now the first may step down, or leave.
    assert owner.patch("/clubs/aix/members/orga", {"role": "owner"}).status_code == 200
    assert owner.patch("/clubs/aix/members/patronne", {"role": "organiser"}).status_code == 200
    assert clubs.api("orga").delete("/clubs/aix/members/patronne").status_code == 204
    assert sorted(clubs.club.memberships.values_list("user__username", "role")) == [
        ("guichet", "organiser"),
        ("orga", "owner"),
    ]


# --- Championships, circuits, guest organisers ---------------------------------------------


def test_a_club_s_organiser_creates_its_championship_season_as_a_number(clubs):
    body = {"slug": "aix-2027", "name": "Coupe d’Aix", "season": 2027, "club": "aix"}
    response = clubs.api("orga").post("/championships", body)

    assert response.status_code == 201, response.content
    aix = {"slug": "aix", "name": "Club d’Aix"}
    assert response.json()["season"] == "2027" and response.json()["club"] == aix
    assert clubs.api(None).get("/championships/aix-2027").json()["club"] == aix
    assert Championship.objects.get(slug="aix-2027").club == clubs.club


def test_the_next_season_belongs_to_the_same_club(clubs):
    """A club's season follows it: its people run the next one too."""
    body = {"slug": "aix-2027", "name": "Coupe d’Aix", "season": "2027"}
    response = clubs.api("orga").post("/championships/aix-2026/next-season", body)
    assert response.status_code == 201, response.content
    assert response.json()["club"] == {"slug": "aix", "name": "Club d’Aix"}
    assert clubs.api("guichet").get("/events/aix-gp").status_code == 200


def test_a_championship_needs_a_club_the_caller_runs(clubs):
    body = {"slug": "x", "name": "X", "season": "2027"}
    missing = clubs.api("orga").post("/championships", body)
    assert missing.status_code == 400
    assert missing.json()["errors"]["club"] == ["Say which club it belongs to: aix."]
    assert clubs.api("guichet").post("/championships", {**body, "club": "aix"}).status_code == 403
    assert clubs.api("rival").post("/championships", {**body, "club": "aix"}).status_code == 403
    assert clubs.api("guest").post("/championships", {**body, "club": "aix"}).status_code == 403
    unknown = clubs.api("orga").post("/championships", {**body, "club": "nowhere"})
    assert unknown.status_code == 400 and unknown.json()["errors"]["club"]
    assert clubs.api("orga").post("/championships", {**body, "season": True}).status_code == 400
    assert not Championship.objects.filter(slug="x").exists()


def test_a_club_s_circuit_is_read_by_all_and_changed_by_its_club_only(clubs):
    made = clubs.api("patronne").post(
        "/circuits", {"slug": "spa", "name": "Spa", "weather_scale": SCALE, "club": "aix"}
    )
    assert made.status_code == 201 and made.json()["club"] == "aix"
    assert clubs.api(None).get("/circuits/spa").json()["club_name"] == "Club d’Aix"
    change = {"laps": 4, "weather_scale": {"rain": [1, 2], "variable": [3, 10], "sun": [11, 20]}}
    assert clubs.api("rival").patch("/circuits/spa", change).status_code == 403
    assert clubs.api("guichet").patch("/circuits/spa", change).status_code == 403
    changed = clubs.api("orga").patch("/circuits/spa", change)
    assert changed.status_code == 200
    assert changed.json()["laps"] == 4 and changed.json()["weather_scale"]["rain"] == [1, 2]
    hole = clubs.api("orga").patch(
        "/circuits/spa", {"weather_scale": {"rain": [1, 4], "variable": [6, 8], "sun": [9, 20]}}
    )
    assert hole.status_code == 400 and "missing: 5" in " ".join(
        hole.json()["errors"]["weather_scale"]
    )
    assert Circuit.objects.get(slug="spa").rain_to == 2  # nothing saved is lost


def test_a_change_of_scale_keeps_a_weather_already_drawn(clubs):
    """DOMAIN.md: a circuit's change never alters a weather already drawn."""
    session_create(
        actor=Actor(user=clubs.users["orga"]), event=clubs.event, number=1, weather_roll=3
    )
    assert QualifyingSession.objects.get().weather == "rain"

    response = clubs.api("orga").patch(
        "/circuits/monaco", {"weather_scale": {"rain": [1, 1], "variable": [2, 8], "sun": [9, 20]}}
    )

    assert response.status_code == 200
    session = QualifyingSession.objects.get()
    assert (session.roll, session.weather) == (3, "rain")
    assert clubs.api("patronne").get("/events/aix-gp/sessions").json()[0]["weather"] == "rain"


def test_the_club_names_a_championship_s_guest_organisers(clubs):
    body = {"usernames": ["invitee", "guest"]}
    assert clubs.api("guichet").put("/championships/aix-2026/organisers", body).status_code == 403
    assert clubs.api("guest").put("/championships/aix-2026/organisers", body).status_code == 403
    assert clubs.api("orga").put("/championships/aix-2026/organisers", body).status_code == 403
    response = clubs.api("patronne").put("/championships/aix-2026/organisers", body)
    assert response.status_code == 200
    assert response.json() == {"usernames": ["guest", "invitee"]}
    # A guest organiser runs that championship alone.
    event = {"slug": "aix-gp2", "name": "GP 2", "date": "2026-06-01", "circuit": "monaco"}
    assert clubs.api("invitee").post("/championships/aix-2026/events", event).status_code == 201
    unknown = clubs.api("patronne").put("/championships/aix-2026/organisers", {"usernames": ["zz"]})
    assert unknown.status_code == 400 and "“zz”" in unknown.json()["detail"]


def test_a_club_is_unknown_or_a_slug_is_odd_never_a_500(clubs):
    owner = clubs.api("patronne")
    assert owner.get("/clubs/" + "x" * 300 + "/members").status_code == 404
    assert owner.patch("/clubs/aix/members/" + "y" * 300, {"role": "desk"}).status_code == 404
    assert owner.delete("/clubs/aix/members/a%00b").status_code == 404
    assert owner.get("/clubs/a%00b/members").status_code == 404
    assert owner.post("/clubs", {"slug": "a", "name": ""}).status_code == 400
    assert not Club.objects.filter(slug="a").exists()
