"""API v1, Clubs and their people (API.md "Clubs and their people"): clubs, invitations,
members and their roles, a championship's guest organisers, and who the token is (``/me``).
The services (``tournament.clubs.services``) decide who may; this translates HTTP."""

from __future__ import annotations

import datetime
from typing import Annotated, Any, Literal

from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext as _
from ninja import Router, Schema
from ninja.responses import Status
from pydantic import Field

from tournament.access import Actor
from tournament.apikit import ERRORS, ErrorOut, Unauthorized, actor_of, get_championship
from tournament.clubs import services
from tournament.clubs.models import Club, Invitation, Membership, Withdrawal
from tournament.errors import NotAllowed, NotFound
from tournament.site import ratelimit

router = Router(tags=["Clubs"])
RoleName = Literal["owner", "organiser", "desk"]
Slug = Annotated[str, Field(min_length=1, max_length=60)]


def _link_refused() -> NotAllowed:
    return NotAllowed(_("A table's link acts for its table only: use a person's token."))


def _person(actor: Actor) -> Actor:
    """The token's person: 401 without a token, 403 for a table's link (not a person)."""
    if actor.table is not None:
        raise _link_refused()
    if not actor.is_authenticated:
        raise Unauthorized(_("This needs a token: send “Authorization: Bearer <token>”."))
    return actor


def _club(slug: str) -> Club:
    club = Club.objects.filter(slug=slug).first() if services.is_slug(slug) else None
    if club is None:
        raise NotFound(_("Unknown club “%(slug)s”.") % {"slug": slug[:60]})
    return club


def _member_club(actor: Actor, slug: str) -> Club:
    """The club, if the token's person is one of its members (or a superuser)."""
    club = _club(slug)
    if not actor.is_superuser() and actor.role_in(club) is None:
        raise NotAllowed(_("You are not a member of %(club)s.") % {"club": club.name})
    return club


class ClubIn(Schema):
    slug: Slug
    name: Annotated[str, Field(min_length=1, max_length=200)]


class ClubOut(Schema):
    slug: str
    name: str
    role: RoleName | None = Field(description="The token's person's role in it.")


def club_out(club: Club, role: str | None) -> dict[str, Any]:
    return {"slug": club.slug, "name": club.name, "role": role}


def _my_clubs(actor: Actor) -> list[dict[str, Any]]:
    memberships = Membership.objects.filter(user=actor.user).select_related("club")
    return [
        club_out(m.club, m.role) for m in sorted(memberships, key=lambda m: m.club.name.casefold())
    ]


@router.post("/clubs", response={201: ClubOut, 429: ErrorOut, **ERRORS})
def club_create(request: HttpRequest, payload: ClubIn) -> Status[Any]:
    """Create a club (a superuser; any signed-in person when the server's ``CLUBS_OPEN`` is
    on, 3 a day at most: 429 with ``Retry-After``): its creator is its owner."""
    actor = _person(actor_of(request))
    club = services.club_create(actor=actor, slug=payload.slug, name=payload.name)
    return Status(201, club_out(club, "owner"))


@router.get("/clubs", response={200: list[ClubOut], **ERRORS})
def club_list(request: HttpRequest) -> list[dict[str, Any]]:
    """The clubs of the token's person, with their role in each."""
    return _my_clubs(_person(actor_of(request)))


class InvitationIn(Schema):
    email: Annotated[str, Field(min_length=1, max_length=254)]
    role: RoleName
    language: Literal["fr", "en"] | None = Field(
        None, description="The invitee's language (the mail's); else the request's."
    )


class InvitedOut(Schema):
    status: Literal["invited"]


class InvitationOut(Schema):
    id: int
    email: str
    role: str
    status: Literal["pending", "accepted", "expired", "withdrawn"]
    sent_at: datetime.datetime
    expires_at: datetime.datetime
    sent_by: str | None = Field(description="The username of who sent it.")
    reason: str | None = Field(
        description="Why it was withdrawn (by an owner, or its sender's role ended); else null."
    )


def invitation_out(invitation: Invitation, now: datetime.datetime) -> dict[str, Any]:
    status = invitation.status(now)
    sender = invitation.invited_by
    return {
        "id": invitation.pk,
        "email": invitation.email,
        "role": invitation.role,
        "status": status,
        "sent_at": invitation.sent_at,
        "expires_at": invitation.expires_at,
        "sent_by": sender.get_username() if sender is not None else None,
        "reason": (
            str(Withdrawal(invitation.withdrawn_why or Withdrawal.OWNER).label)
            if status == "withdrawn"
            else None
        ),
    }


@router.post("/clubs/{club}/invitations", response={202: InvitedOut, 429: ErrorOut, **ERRORS})
def invitation_create(request: HttpRequest, club: str, payload: InvitationIn) -> Status[Any]:
    """Invite someone by mail for one role (the club's owners): single use, 7 days. The
    mail carries ``<SITE_URL>/invitations/<token>/``. A club sends 20 an hour at most (429
    with ``Retry-After``)."""
    actor = _person(actor_of(request))
    services.invitation_send(
        actor=actor,
        club=_club(club),
        email=payload.email,
        role=payload.role,
        language=payload.language or getattr(request, "LANGUAGE_CODE", None),
    )
    return Status(202, {"status": "invited"})


def _owned_club(actor: Actor, slug: str) -> Club:
    club = _club(slug)
    if not actor.can_manage_people(club):
        raise NotAllowed(
            _("Only the owners of %(club)s invite, change and remove its members.")
            % {"club": club.name}
        )
    return club


@router.get("/clubs/{club}/invitations", response={200: list[InvitationOut], **ERRORS})
def invitation_list(request: HttpRequest, club: str) -> list[dict[str, Any]]:
    """The club's invitations, the latest first (its owners: they carry addresses)."""
    found = _owned_club(_person(actor_of(request)), club)
    now = timezone.now()
    invitations = Invitation.objects.filter(club=found).select_related("invited_by")
    return [invitation_out(i, now) for i in invitations]


@router.delete("/clubs/{club}/invitations/{id}", response={200: InvitationOut, **ERRORS})
def invitation_withdraw(request: HttpRequest, club: str, id: int) -> dict[str, Any]:  # noqa: A002
    """Withdraw an invitation (the club's owners): its link opens nothing any more."""
    actor = _person(actor_of(request))
    found = _owned_club(actor, club)
    invitation = Invitation.objects.filter(club=found, pk=id).first()
    if invitation is None:
        raise NotFound(_("This club has no invitation %(id)s.") % {"id": id})
    withdrawn = services.invitation_withdraw(actor=actor, invitation=invitation)
    return invitation_out(withdrawn, timezone.now())


class AcceptIn(Schema):
    token: Annotated[str, Field(min_length=1, max_length=200)]
    username: Annotated[str, Field(max_length=150)] | None = None
    password: Annotated[str, Field(max_length=4096)] | None = None


class AcceptedOut(Schema):
    club: str
    role: RoleName
    username: str


@router.post("/invitations/accept", response={201: AcceptedOut, 429: ErrorOut, **ERRORS})
def invitation_accept(request: HttpRequest, payload: AcceptIn) -> Status[Any]:
    """Accept an invitation: a new account (``username`` and ``password``: a weak, common or
    published password is a 400, as at the first start), or, with a person's token instead,
    that person joins. Used, expired or withdrawn: 409 saying which; unknown: 404."""
    actor = actor_of(request)
    if actor.table is not None:
        raise _link_refused()
    try:
        membership = services.invitation_accept(
            token=payload.token,
            actor=actor,
            username=payload.username,
            password=payload.password,
        )
    except NotFound:
        # Guessing tokens is limited, as with tables' links (429 past the limit).
        ratelimit.check(request)
        ratelimit.record_failure(request)
        raise
    return Status(
        201,
        {
            "club": membership.club.slug,
            "role": membership.role,
            "username": membership.user.get_username(),
        },
    )


class MemberOut(Schema):
    username: str
    role: RoleName


class MemberIn(Schema):
    role: RoleName


def member_out(membership: Membership) -> dict[str, Any]:
    return {"username": membership.user.get_username(), "role": membership.role}


@router.get("/clubs/{club}/members", response={200: list[MemberOut], **ERRORS})
def member_list(request: HttpRequest, club: str) -> list[dict[str, Any]]:
    """The club's members and their roles (its members read it)."""
    found = _member_club(_person(actor_of(request)), club)
    members = Membership.objects.filter(club=found).select_related("user")
    return [member_out(m) for m in sorted(members, key=lambda m: m.user.get_username())]


class EndsOut(Schema):
    removed_guest_seats: list[str] = Field(
        description="The slugs of the club's championships whose guest seat the member lost."
    )
    withdrawn_invitations: int = Field(description="How many of their invitations went.")


class MemberChangedOut(MemberOut, EndsOut):
    pass


def ends_out(ends: services.Ends) -> dict[str, Any]:
    return {
        "removed_guest_seats": [championship.slug for championship in ends.guest_seats],
        "withdrawn_invitations": len(ends.invitations),
    }


@router.patch("/clubs/{club}/members/{username}", response={200: MemberChangedOut, **ERRORS})
def member_update(request: HttpRequest, club: str, username: str, payload: MemberIn) -> Any:
    """Change a member's role (the club's owners); the last owner stays owner (409). A
    lowered role ends the member's guest seats on the club's championships and withdraws
    the invitations they sent: the answer says which."""
    actor = _person(actor_of(request))
    membership, ends = services.member_role_set(
        actor=actor, club=_club(club), username=username, role=payload.role
    )
    return {**member_out(membership), **ends_out(ends)}


@router.delete("/clubs/{club}/members/{username}", response={200: EndsOut, 204: None, **ERRORS})
def member_remove(request: HttpRequest, club: str, username: str) -> Status[Any]:
    """Remove a member (the club's owners; never the last owner: 409), or leave the club
    (the member themself: 204). Their sessions and tokens lose the club's rights at once;
    their guest seats on the club's championships go and the invitations they sent are
    withdrawn: ``{removed_guest_seats, withdrawn_invitations}``, or 204 when none."""
    actor = _person(actor_of(request))
    itself = services.leaving(actor, username)
    ends = services.member_remove(actor=actor, club=_club(club), username=username)
    if itself or not ends:
        return Status(204, None)
    return Status(200, ends_out(ends))


class OrganisersIn(Schema):
    usernames: list[Annotated[str, Field(max_length=150)]]


class OrganisersOut(Schema):
    usernames: list[str]


@router.put("/championships/{slug}/organisers", response={200: OrganisersOut, **ERRORS})
def championship_organisers(request: HttpRequest, slug: str, payload: OrganisersIn) -> Any:
    """Set the championship's guest organisers (its club's owners: 403 for others): people
    from outside the club, who run this championship alone; a member of the club is a 400
    naming them."""
    actor = _person(actor_of(request))
    users = services.championship_organisers_set(
        actor=actor, championship=get_championship(slug), usernames=payload.usernames
    )
    return {"usernames": [u.get_username() for u in users]}


class MeOut(Schema):
    username: str
    clubs: list[ClubOut]
    superuser: bool


@router.get("/me", response={200: MeOut, **ERRORS})
def me(request: HttpRequest) -> dict[str, Any]:
    """Who the token is: the username, each club with its role, and whether a superuser."""
    actor = _person(actor_of(request))
    return {
        "username": actor.user.get_username(),
        "clubs": _my_clubs(actor),
        "superuser": actor.is_superuser(),
    }
