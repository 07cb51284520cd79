"""The pages of a club's people (DOMAIN.md "Clubs and who may do what"): "my clubs" after
login, the people page (its owners only), the invitation's page (a new person chooses a
username and a password with the first start's rules, a signed-in person joins), a person's
own page (clubs and roles, the API token shown once). Every refusal is a sentence in the
page, never a 500. The club ``aix`` of ``conftest.py``: owner ``patronne``, organiser
``orga``, desk ``guichet``; ``invitee`` belongs to no club; ``rival`` owns ``nice``."""

from __future__ import annotations

import datetime

import pytest
from django.test import Client
from django.urls import NoReverseMatch, reverse
from django.utils import timezone

from tournament import sealing
from tournament.models import ApiToken, Invitation, Membership
from tournament.signup.models import Mail

pytestmark = pytest.mark.django_db

STRONG = "virage-rapide-2026"


def _client(user=None) -> Client:
    client = Client()
    client.cookies["django_language"] = "en"
    if user is not None:
        client.force_login(user)
    return client


def _invitation(clubs, *, secret: str = "s3cret-link", role: str = "organiser", **fields):
    fields.setdefault("expires_at", timezone.now() + datetime.timedelta(days=7))
    return Invitation.objects.create(
        club=clubs.club,
        email="lea@example.org",
        role=role,
        digest=sealing.link_digest(secret),
        invited_by=clubs.users["patronne"],
        **fields,
    )


# --- My clubs -------------------------------------------------------------------------------


def test_my_clubs_shows_each_role_what_it_may_reach(clubs):
    """Owner: championships, circuits and people; organiser and desk: no people."""
    url = reverse("my-clubs")
    owner = _client(clubs.users["patronne"]).get(url).content.decode()
    assert "Coupe d’Aix" in owner and reverse("championship", args=["aix-2026"]) in owner
    assert reverse("event-desk", args=["aix-gp"]) in owner
    assert "Monaco" in owner
    assert reverse("club-people", args=["aix"]) in owner and "guichet" in owner
    for name in ("orga", "guichet"):
        page = _client(clubs.users[name]).get(url).content.decode()
        assert "Coupe d’Aix" in page
        assert reverse("club-people", args=["aix"]) not in page
    guest = _client(clubs.users["guest"]).get(url).content.decode()
    assert "Championships you organise as a guest" in guest and "Coupe d’Aix" in guest
    anonymous = _client().get(url)
    assert anonymous.status_code == 302 and reverse("login") in anonymous["Location"]


def test_a_role_reads_as_a_phrase_in_a_french_sentence(clubs):
    """Issue 51: « Vous êtes membre de l’accueil ici », never « Vous êtes accueil ici »."""
    client = _client(clubs.users["guichet"])
    client.cookies["django_language"] = "fr"
    page = client.get(reverse("my-clubs")).content.decode()
    assert "Vous êtes membre de l’accueil ici." in page and "êtes accueil" not in page


def test_an_empty_club_names_its_next_step(clubs):
    page = _client(clubs.users["rival"]).get(reverse("my-clubs")).content.decode()
    assert "create your first championship" in page
    try:
        link = reverse("club-championship-new", args=["nice"])
    except NoReverseMatch:
        link = "/clubs/nice/championships/new/"
    assert f'href="{link}"' in page


def test_the_login_lands_on_my_clubs_for_a_club_s_person(clubs):
    client = _client()
    response = client.post(reverse("login"), {"username": "guichet", "password": "pw"}, follow=True)
    assert response.redirect_chain[-1][0] == reverse("my-clubs")
    client = _client()
    response = client.post(reverse("login"), {"username": "invitee", "password": "pw"}, follow=True)
    assert response.redirect_chain[-1][0] == reverse("home")


# --- The people page ------------------------------------------------------------------------


def test_the_people_page_is_the_owners(clubs):
    url = reverse("club-people", args=["aix"])
    page = _client(clubs.users["patronne"]).get(url)
    assert page.status_code == 200
    assert "orga" in page.content.decode() and "guichet" in page.content.decode()
    for name in ("orga", "guichet", "rival", "guest"):
        assert _client(clubs.users[name]).get(url).status_code == 403
    assert _client().get(url).status_code == 302
    assert _client(clubs.users["patronne"]).get("/clubs/nowhere/people/").status_code == 404


def test_an_invitation_sent_from_the_page_leaves_through_the_outbox(clubs):
    owner = _client(clubs.users["patronne"])
    response = owner.post(
        reverse("club-invite", args=["aix"]),
        {"email": "lea@example.org", "role": "desk", "language": "fr"},
        follow=True,
    )
    assert response.status_code == 200
    assert "Invitation sent to lea@example.org" in response.content.decode()
    invitation = Invitation.objects.get()
    assert (invitation.role, invitation.language) == ("desk", "fr")
    assert Mail.objects.filter(invitation=invitation, to="lea@example.org").count() == 1
    page = owner.get(reverse("club-people", args=["aix"])).content.decode()
    assert "waiting for an answer" in page

    again = owner.post(
        reverse("club-invite", args=["aix"]), {"email": "lea@example.org", "role": "desk"}
    )
    assert again.status_code == 409
    assert "is waiting for an answer: withdraw it first" in again.content.decode()
    bad = owner.post(reverse("club-invite", args=["aix"]), {"email": "lea", "role": "chief"})
    assert bad.status_code == 400
    assert "valid email" in bad.content.decode() or "valid e-mail" in bad.content.decode()
    assert Invitation.objects.count() == 1
    refused = _client(clubs.users["orga"]).post(
        reverse("club-invite", args=["aix"]), {"email": "x@example.org", "role": "desk"}
    )
    assert refused.status_code == 403


def test_a_role_changes_but_the_last_owner_stays(clubs):
    owner = _client(clubs.users["patronne"])
    response = owner.post(
        reverse("club-member-role", args=["aix", "orga"]), {"role": "desk"}, follow=True
    )
    assert "orga is now desk member of Club d’Aix." in response.content.decode()
    assert Membership.objects.get(user__username="orga").role == "desk"

    response = owner.post(
        reverse("club-member-role", args=["aix", "patronne"]), {"role": "organiser"}, follow=True
    )
    assert response.status_code == 200
    assert "A club keeps at least one owner" in response.content.decode()
    response = owner.post(
        reverse("club-member-remove", args=["aix", "patronne"]), {"confirmed": "1"}, follow=True
    )
    assert "A club keeps at least one owner" in response.content.decode()
    assert Membership.objects.get(user__username="patronne").role == "owner"


def test_removing_a_member_asks_first(clubs):
    owner = _client(clubs.users["patronne"])
    url = reverse("club-member-remove", args=["aix", "guichet"])
    asked = owner.post(url)
    assert asked.status_code == 200 and 'name="confirmed"' in asked.content.decode()
    assert Membership.objects.filter(user__username="guichet").exists()
    done = owner.post(url, {"confirmed": "1"}, follow=True)
    assert "guichet is no longer a member of Club d’Aix." in done.content.decode()
    assert not Membership.objects.filter(user__username="guichet").exists()
    # Their rights end at once: the desk page of the club's event refuses them.
    desk = _client(clubs.users["guichet"]).get(reverse("event-desk", args=["aix-gp"]))
    assert desk.status_code == 403
    unknown = owner.post(
        reverse("club-member-remove", args=["aix", "nobody"]), {"confirmed": "1"}, follow=True
    )
    assert "nobody is not a member of Club d’Aix." in unknown.content.decode()


def test_withdrawing_an_invitation_asks_first(clubs):
    invitation = _invitation(clubs)
    owner = _client(clubs.users["patronne"])
    url = reverse("club-invitation-withdraw", args=["aix", invitation.pk])
    asked = owner.post(url)
    assert asked.status_code == 200 and "lea@example.org" in asked.content.decode()
    invitation.refresh_from_db()
    assert invitation.withdrawn_at is None
    owner.post(url, {"confirmed": "1"})
    invitation.refresh_from_db()
    assert invitation.withdrawn_at is not None
    assert _client(clubs.users["rival"]).post(url, {"confirmed": "1"}).status_code == 403


# --- The invitation's page ------------------------------------------------------------------


def test_a_new_person_joins_through_the_invitation_page(clubs):
    """The first start's rules: a weak password is refused in words, then a good one makes
    the account, logs it in and lands on "my clubs"."""
    _invitation(clubs, role="desk")
    client = _client()
    url = reverse("invitation", args=["s3cret-link"])
    page = client.get(url)
    assert page.status_code == 200
    text = page.content.decode()
    assert "Club d’Aix" in text and "as desk" in text
    assert page["Referrer-Policy"] == "same-origin"

    weak = client.post(
        url,
        {"action": "create", "username": "lea", "password": "motdepasse1",
         "password_again": "motdepasse1"},
    )  # fmt: skip
    assert weak.status_code == 400
    assert "common one with digits or signs added" in weak.content.decode()
    differ = client.post(
        url,
        {"action": "create", "username": "lea", "password": STRONG, "password_again": "other"},
    )
    assert "The two passwords differ" in differ.content.decode()
    taken = client.post(
        url,
        {"action": "create", "username": "orga", "password": STRONG, "password_again": STRONG},
    )
    assert taken.status_code == 409 and "is taken" in taken.content.decode()
    assert not Membership.objects.filter(user__username="lea").exists()

    joined = client.post(
        url,
        {"action": "create", "username": "lea", "password": STRONG, "password_again": STRONG},
        follow=True,
    )
    assert joined.redirect_chain[-1][0] == reverse("my-clubs")
    assert "Welcome to Club d’Aix" in joined.content.decode()
    assert Membership.objects.get(user__username="lea").role == "desk"
    used = _client().get(url)
    assert used.status_code == 410 and "was used already" in used.content.decode()
    again = _client().post(
        url,
        {"action": "create", "username": "lea2", "password": STRONG, "password_again": STRONG},
    )
    assert again.status_code == 410 and "was used already" in again.content.decode()


def test_a_signed_in_person_joins_with_one_tap(clubs):
    _invitation(clubs, role="organiser")
    client = _client(clubs.users["invitee"])
    url = reverse("invitation", args=["s3cret-link"])
    assert "Join as invitee" in client.get(url).content.decode()
    client.post(url, {"action": "join"})
    assert Membership.objects.get(user__username="invitee").role == "organiser"


def test_a_member_already_is_told_so(clubs):
    _invitation(clubs)
    response = _client(clubs.users["orga"]).post(
        reverse("invitation", args=["s3cret-link"]), {"action": "join"}
    )
    assert response.status_code == 409
    assert "You are a member of Club d’Aix already" in response.content.decode()


def test_expired_withdrawn_and_unknown_invitations(clubs):
    past = timezone.now() - datetime.timedelta(days=1)
    _invitation(clubs, secret="old", expires_at=past)
    _invitation(clubs, secret="gone", withdrawn_at=past)
    old = _client().get(reverse("invitation", args=["old"]))
    assert old.status_code == 410 and "has expired" in old.content.decode()
    gone = _client().get(reverse("invitation", args=["gone"]))
    assert gone.status_code == 410 and "was withdrawn" in gone.content.decode()
    assert _client().get(reverse("invitation", args=["unknown"])).status_code == 404


# --- A person's own page --------------------------------------------------------------------


def test_my_page_shows_clubs_and_a_token_once(clubs):
    ApiToken.objects.filter(user=clubs.users["orga"]).delete()
    client = _client(clubs.users["orga"])
    page = client.get(reverse("me")).content.decode()
    assert "Club d’Aix · organiser" in page
    assert reverse("password_change") in page

    made = client.post(reverse("me-token")).content.decode()
    [token] = [t for t in made.split('"token">')[1:]]
    raw = token.split("<")[0]
    assert raw.startswith("pdk_") and ApiToken.user_for(raw) == clubs.users["orga"]
    assert raw not in client.get(reverse("me")).content.decode()

    asked = client.post(reverse("me-token"))
    assert 'name="confirmed"' in asked.content.decode()
    assert ApiToken.user_for(raw) is not None
    renewed = client.post(reverse("me-token"), {"confirmed": "1"}).content.decode()
    assert ApiToken.user_for(raw) is None
    assert ApiToken.objects.filter(user=clubs.users["orga"]).count() == 1
    assert "shown this once" in renewed
    assert _client().get(reverse("me")).status_code == 302


def test_the_password_pages_are_in_the_site_s_look(clubs):
    client = _client(clubs.users["orga"])
    page = client.get(reverse("password_change")).content.decode()
    assert "Change my password" in page and "site-nav" in page
    weak = client.post(
        reverse("password_change"),
        {"old_password": "pw", "new_password1": "motdepasse1", "new_password2": "motdepasse1"},
    )
    assert weak.status_code == 200 and "common one" in weak.content.decode()
    login = _client().get(reverse("login")).content.decode()
    try:
        reset = reverse("password_reset")
    except NoReverseMatch:  # no mail set: no reset pages, and the login page offers none
        assert "Forgotten password?" not in login
    else:
        assert reset in login
        form = _client().get(reset).content.decode()
        assert "Forgotten password" in form and "site-nav" in form


# --- A new club ------------------------------------------------------------------------------


def test_a_new_club_is_made_on_its_page_by_whom_the_server_allows(clubs, settings):
    """API.md: a superuser, or anyone signed in when ``CLUBS_OPEN`` is on; the creator is its
    owner, the slug made from the name; a taken slug and a line break are said in the page."""
    url = reverse("club-new")
    settings.CLUBS_OPEN = False
    invitee = _client(clubs.users["invitee"])
    assert invitee.get(url).status_code == 403
    assert invitee.post(url, {"name": "Club de Lyon"}).status_code == 403
    assert reverse("club-new") not in invitee.get(reverse("my-clubs")).content.decode()

    settings.CLUBS_OPEN = True
    assert reverse("club-new") in invitee.get(reverse("my-clubs")).content.decode()
    broken = invitee.post(url, {"name": "Club\nde Lyon"})
    assert broken.status_code == 400 and "One line only" in broken.content.decode()
    taken = invitee.post(url, {"name": "Autre", "slug": "aix"})
    assert taken.status_code == 409 and "already exists" in taken.content.decode()
    made = invitee.post(url, {"name": "Club de Lyon d’été"})
    assert made.status_code == 302
    membership = Membership.objects.get(user=clubs.users["invitee"])
    assert (membership.club.slug, membership.club.name, membership.role) == (
        "club-de-lyon-d-ete", "Club de Lyon d’été", "owner",
    )  # fmt: skip
    # The same name again gets a slug of its own.
    invitee.post(url, {"name": "Club de Lyon d’été"})
    assert Membership.objects.filter(
        user=clubs.users["invitee"], club__slug="club-de-lyon-d-ete-2"
    ).exists()
