"""Writes of clubs and their people (DOMAIN.md "Clubs and who may do what"): a club made,
an invitation sent (its mail through the sign-up outbox, exactly once), withdrawn or
accepted (a new account, or a person with one), a member's role changed, a member removed
(never the last owner), a championship's guest organisers named. Who may is asked of
``tournament.access`` (``Actor``), which reads ``tournament.clubs.rights``.

Every refusal is a ``ServiceError`` with one sentence in the active language: the pages show
it, the API answers it (400, 403, 404, 409).
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from tournament import sealing
from tournament.access import Actor
from tournament.clubs import mails
from tournament.clubs.models import (
    Club,
    GuestSeat,
    Invitation,
    Membership,
    Role,
    Withdrawal,
    role_phrase,
)
from tournament.errors import Conflict, InvalidInput, NotAllowed, NotFound
from tournament.models import Championship
from tournament.signup import tasks
from tournament.signup.rules import plain_line
from tournament.site import ratelimit

#: How long an invitation opens its page (DOMAIN.md: 7 days).
INVITATION_DAYS = 7
_SLUG = re.compile(r"^[a-z0-9-]{1,60}$")


def is_slug(text: str) -> bool:
    """A club's slug may be this (lowercase letters, digits, hyphens; 60 at most)."""
    return bool(_SLUG.match(text))


def role_checked(role: str) -> str:
    """``role`` if it is one of the three, else a 400 naming them."""
    if role not in Role.values:
        message = _("“%(role)s” is not a role: choose owner, organiser or desk.") % {
            "role": str(role)[:40]
        }
        raise InvalidInput(message, {"role": [message]})
    return role


def _require_people(actor: Actor, club: Club) -> None:
    if not actor.can_manage_people(club):
        raise NotAllowed(
            _("Only the owners of %(club)s invite, change and remove its members.")
            % {"club": club.name}
        )


# --- Clubs --------------------------------------------------------------------------------


def may_create_club(actor: Actor) -> bool:
    """A superuser, or any signed-in person when the server's ``CLUBS_OPEN`` is on."""
    if actor.is_superuser():
        return True
    return actor.table is None and actor.is_authenticated and settings.CLUBS_OPEN


@transaction.atomic
def club_create(*, actor: Actor, slug: str, name: str) -> Club:
    """A new club, its creator its owner."""
    if not may_create_club(actor):
        raise NotAllowed(_("Only the server's operator creates clubs here: ask them for yours."))
    slug, name = (slug or "").strip(), (name or "").strip()
    errors: dict[str, list[str]] = {}
    if not _SLUG.match(slug):
        errors["slug"] = [_("Use only lowercase letters, digits and hyphens (a-z, 0-9, -).")]
    if not name or len(name) > 200:
        errors["name"] = [_("Give the club a name (200 characters at most).")]
    elif not plain_line(name):
        errors["name"] = [_("One line only: no line break, no control or direction character.")]
    if errors:
        raise InvalidInput(next(iter(errors.values()))[0], errors)
    if Club.objects.filter(slug=slug).exists():
        message = _("A club with the slug “%(slug)s” already exists.") % {"slug": slug}
        raise Conflict(message, {"slug": [message]})
    if settings.CLUBS_OPEN and not actor.is_superuser():  # DOMAIN.md "Bounded"
        ratelimit.spend_or_refuse(
            [f"clubs-of:{actor.user.pk}"],
            most=settings.CLUBS_PER_PERSON_PER_DAY,
            window=24 * 3600,
            message=lambda wait: (
                _("You made %(most)s clubs today already: try again in %(wait)s.")
                % {"most": settings.CLUBS_PER_PERSON_PER_DAY, "wait": wait}
            ),
        )
    club = actor.stamp(Club(slug=slug, name=name))
    club.save()
    actor.stamp(Membership(club=club, user=actor.user, role=Role.OWNER)).save()
    return club


def club_for_new(*, actor: Actor, slug: str | None) -> Club | None:
    """The club a new championship or circuit belongs to, from the slug sent: required
    unless the actor is a superuser, and one the actor runs (owner or organiser)."""
    if not slug:
        if actor.is_superuser():
            return None
        mine = actor_clubs(actor, running=True)
        if not mine:
            raise NotAllowed(
                _(
                    "Only a club's owner or organiser creates championships and circuits: "
                    "ask your club's owner for that role."
                )
            )
        message = _("Say which club it belongs to: %(clubs)s.") % {
            "clubs": ", ".join(club.slug for club in mine)
        }
        raise InvalidInput(message, {"club": [message]})
    club = Club.objects.filter(slug=slug).first() if _SLUG.match(slug) else None
    if club is None:
        message = _("Unknown club “%(slug)s”.") % {"slug": slug[:60]}
        raise InvalidInput(message, {"club": [message]})
    if not actor.can_run_club(club):
        raise NotAllowed(
            _("Only the owners and organisers of %(club)s create its championships and circuits.")
            % {"club": club.name}
        )
    return club


def actor_clubs(actor: Actor, *, running: bool = False) -> list[Club]:
    """The clubs of ``actor``'s person (those they run, with ``running``), by name."""
    if actor.table is not None or not actor.is_authenticated:
        return []
    memberships = Membership.objects.filter(user=actor.user)
    if running:
        memberships = memberships.filter(role__in=[Role.OWNER, Role.ORGANISER])
    return list(Club.objects.filter(memberships__in=memberships).order_by("name"))


# --- Invitations ----------------------------------------------------------------------------


@transaction.atomic
def invitation_send(
    *,
    actor: Actor,
    club: Club,
    email: str,
    role: str,
    language: str | None = None,
    now: datetime.datetime | None = None,
) -> Invitation:
    """Invite ``email`` to ``club`` for ``role`` (its owners): single use, valid 7 days;
    its mail, in ``language`` (else the active one), leaves through the outbox once."""
    _require_people(actor, club)
    role = role_checked(role)
    email = (email or "").strip()
    try:
        validate_email(email)
    except ValidationError:
        message = _("“%(email)s” is not an e-mail address.") % {"email": email[:254]}
        raise InvalidInput(message, {"email": [message]}) from None
    now = now or timezone.now()
    if pending(Invitation.objects.filter(club=club, email__iexact=email), now).exists():
        message = _(
            "An invitation to %(email)s is waiting for an answer: withdraw it first to send "
            "another."
        ) % {"email": email}
        raise Conflict(message, {"email": [message]})
    ratelimit.spend_or_refuse(  # DOMAIN.md "Bounded"
        [f"invitations-of:{club.pk}"],
        most=settings.CLUB_INVITATIONS_PER_HOUR,
        window=3600,
        message=lambda wait: (
            _("%(club)s sent %(most)s invitations this hour: try again in %(wait)s.")
            % {"club": club.name, "most": settings.CLUB_INVITATIONS_PER_HOUR, "wait": wait}
        ),
    )
    languages = dict(settings.LANGUAGES)
    language = language if language in languages else translation_language()
    secret = sealing.new_link_secret()
    invitation = Invitation(
        club=club,
        email=email,
        role=role,
        language=language,
        digest=sealing.link_digest(secret),
        invited_by=actor.user,
        expires_at=now + datetime.timedelta(days=INVITATION_DAYS),
    )
    invitation.save()
    mail = mails.queue(invitation, secret=secret)
    tasks.send_soon([mail.pk])
    return invitation


def pending(invitations: Any, now: datetime.datetime) -> Any:
    """The invitations of ``invitations`` (a query) still waiting for an answer at ``now``."""
    return invitations.filter(
        accepted_at__isnull=True, withdrawn_at__isnull=True, expires_at__gt=now
    )


def translation_language() -> str:
    """The active language, if the site has it, else the site's."""
    active = (translation.get_language() or "").split("-")[0]
    return active if active in dict(settings.LANGUAGES) else settings.LANGUAGE_CODE


@transaction.atomic
def invitation_withdraw(*, actor: Actor, invitation: Invitation) -> Invitation:
    """Withdraw a pending invitation (its club's owners); withdrawing twice keeps the first."""
    _require_people(actor, invitation.club)
    invitation = Invitation.objects.select_for_update().get(pk=invitation.pk)
    if invitation.accepted_at is not None:
        raise Conflict(_("This invitation was accepted already: remove the member instead."))
    if invitation.withdrawn_at is None:
        invitation.withdrawn_at = timezone.now()
        invitation.withdrawn_why = Withdrawal.OWNER
        invitation.save(update_fields=["withdrawn_at", "withdrawn_why"])
    return invitation


def invitation_for_token(token: str) -> Invitation:
    """The invitation of a mail's link, whatever its state; 404 when unknown."""
    found = None
    if token and len(token) <= 200 and "\x00" not in token:
        found = (
            Invitation.objects.select_related("club")
            .filter(digest=sealing.link_digest(token))
            .first()
        )
    if found is None:
        raise NotFound(_("Unknown invitation: check the link in the mail."))
    return found


def invitation_refusal(invitation: Invitation, now: datetime.datetime) -> Conflict | None:
    """Why ``invitation`` opens nothing any more (used, withdrawn, expired), or None."""
    status = invitation.status(now)
    if status == "accepted":
        return Conflict(_("This invitation was used already: log in with your account."))
    if status == "withdrawn":
        if invitation.withdrawn_why in ("", Withdrawal.OWNER):
            return Conflict(_("This invitation was withdrawn by the club's owner."))
        return Conflict(
            _("%(why)s Ask an owner of the club for a new invitation.")
            % {"why": Withdrawal(invitation.withdrawn_why).label}
        )
    if status == "expired":
        return Conflict(_("This invitation has expired: ask the club's owner to send a new one."))
    if not sender_may_invite(invitation):
        return Conflict(
            _(
                "The person who sent this invitation may no longer invite to %(club)s: ask an "
                "owner of the club for a new one."
            )
            % {"club": invitation.club.name}
        )
    return None


def sender_may_invite(invitation: Invitation) -> bool:
    """DOMAIN.md: an invitation is accepted only while its sender may still invite for its
    role (the club's owners, or a superuser; a deleted account invites nobody)."""
    sender = invitation.invited_by
    return sender is not None and Actor(user=sender).can_manage_people(invitation.club)


def invitation_accept(
    *,
    token: str,
    actor: Actor | None = None,
    username: str | None = None,
    password: str | None = None,
    now: datetime.datetime | None = None,
) -> Membership:
    """Accept an invitation: a new account (``username``, ``password``: the first start's
    rules, the demo's and common passwords refused), or ``actor``'s person joins. Single use
    (under the invitation's row lock): used, withdrawn or expired is a 409 saying which."""
    now = now or timezone.now()
    found = invitation_for_token(token)
    refusal = invitation_refusal(found, now)
    if refusal is not None:
        raise refusal
    new_account = bool(username or password)
    joining = actor is not None and actor.table is None and actor.is_authenticated
    if not new_account and not joining:
        raise InvalidInput(
            _("Choose a username and a password, or log in to join with your account."),
            {
                "username": [_("This field is required.")],
                "password": [_("This field is required.")],
            },
        )
    User = get_user_model()
    if new_account:
        username, password = (username or "").strip(), password or ""
        _check_new_account(User, username, password)
    with transaction.atomic():
        invitation = Invitation.objects.select_for_update().get(pk=found.pk)
        refusal = invitation_refusal(invitation, now)
        if refusal is not None:
            raise refusal
        if new_account:
            try:
                with transaction.atomic():
                    user = User.objects.create_user(
                        username=username, password=password, email=invitation.email
                    )
            except IntegrityError:
                raise _username_taken(username) from None
        else:
            user = actor.user  # type: ignore[union-attr]
        held = Membership.objects.filter(club=invitation.club, user=user).first()
        if held is not None:
            raise Conflict(
                _("You are a member of %(club)s already, as %(role)s.")
                % {"club": invitation.club.name, "role": role_phrase(held.role)}
            )
        membership = Membership(club=invitation.club, user=user, role=invitation.role)
        membership._history_user = user  # type: ignore[attr-defined]
        membership.save()
        invitation.accepted_at = now
        invitation.accepted_by = user
        invitation.save(update_fields=["accepted_at", "accepted_by"])
    return membership


def _username_taken(username: str) -> Conflict:
    message = _("The username “%(username)s” is taken: choose another.") % {
        "username": username[:150]
    }
    return Conflict(message, {"username": [message]})


def _check_new_account(User: Any, username: str, password: str) -> None:  # noqa: N803
    """The first start's rules: a valid username nobody has, a password Django's validators
    take (not the demo's, not a common one with digits added)."""
    errors: dict[str, list[str]] = {}
    field = User._meta.get_field(User.USERNAME_FIELD)
    if not username:
        errors["username"] = [_("Choose a username.")]
    else:
        try:
            field.run_validators(username)
            if len(username) > (field.max_length or 150):
                raise ValidationError(_("A username has 150 characters at most."))
        except ValidationError as exc:
            errors["username"] = [str(m) for m in exc.messages]
    if not password:
        errors["password"] = [_("Choose a password.")]
    else:
        try:
            validate_password(password, User(username=username))
        except ValidationError as exc:
            errors["password"] = [str(m) for m in exc.messages]
    if errors:
        raise InvalidInput(next(iter(errors.values()))[0], errors)
    if User.objects.filter(**{f"{User.USERNAME_FIELD}__iexact": username}).exists():
        raise _username_taken(username)


# --- Members ----------------------------------------------------------------------------------


def member_of(club: Club, username: str) -> Membership:
    """``username``'s membership of ``club``; 404 when they are not a member."""
    found = (
        Membership.objects.select_related("user").filter(club=club, user__username=username).first()
        if username and len(username) <= 150 and "\x00" not in username
        else None
    )
    if found is None:
        raise NotFound(
            _("%(username)s is not a member of %(club)s.")
            % {"username": (username or "")[:150], "club": club.name}
        )
    return found


def _owners_locked(club: Club) -> list[Membership]:
    """The club's owners, their rows locked (two owners removing each other wait in turn)."""
    return list(
        Membership.objects.select_for_update().filter(club=club, role=Role.OWNER).order_by("pk")
    )


def _last_owner() -> Conflict:
    return Conflict(
        _(
            "A club keeps at least one owner: make another member owner first, then change "
            "or remove this one."
        )
    )


#: The roles from the most rights to the fewest: a step down is a lowered role.
_RANK = {Role.OWNER: 3, Role.ORGANISER: 2, Role.DESK: 1}


@dataclass(frozen=True)
class Ends:
    """What a member's removal or lowered role ends (DOMAIN.md "A right ends with the role
    that gave it"): the guest seats they hold on the club's championships, and the pending
    invitations they sent."""

    guest_seats: list[Championship] = field(default_factory=list)
    invitations: list[Invitation] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.guest_seats or self.invitations)


def member_ends(
    *, membership: Membership, role: str | None = None, now: datetime.datetime | None = None
) -> Ends:
    """What removing ``membership`` (``role`` None), or changing its role to ``role``, ends:
    nothing when the role stays or rises."""
    if role is not None and _RANK.get(role, 0) >= _RANK.get(membership.role, 0):
        return Ends()
    invitations = Invitation.objects.filter(
        club_id=membership.club_id, invited_by_id=membership.user_id
    )
    return Ends(
        guest_seats=list(
            Championship.objects.filter(
                club_id=membership.club_id, organisers=membership.user_id
            ).order_by("slug")
        ),
        invitations=list(pending(invitations, now or timezone.now()).order_by("pk")),
    )


def _end(ends: Ends, *, user: Any, why: str) -> None:
    """Remove ``ends``' guest seats of ``user`` and withdraw its invitations, saying ``why``."""
    seats = [championship.pk for championship in ends.guest_seats]
    Championship.organisers.through.objects.filter(
        championship_id__in=seats, user_id=user.pk
    ).delete()
    GuestSeat.objects.filter(championship_id__in=seats, user_id=user.pk).delete()
    Invitation.objects.filter(
        pk__in=[invitation.pk for invitation in ends.invitations],
        accepted_at__isnull=True,
        withdrawn_at__isnull=True,
    ).update(withdrawn_at=timezone.now(), withdrawn_why=why)


@transaction.atomic
def member_role_set(
    *, actor: Actor, club: Club, username: str, role: str
) -> tuple[Membership, Ends]:
    """Change a member's role (the club's owners); never the last owner's. A lowered role
    ends the member's guest seats on the club's championships and withdraws the invitations
    they sent (answered with the membership)."""
    _require_people(actor, club)
    role = role_checked(role)
    owners = _owners_locked(club)
    membership = member_of(club, username)
    if membership.role == role:
        return membership, Ends()
    if membership.role == Role.OWNER and [m.pk for m in owners] == [membership.pk]:
        raise _last_owner()
    ends = member_ends(membership=membership, role=role)
    membership.role = role
    actor.stamp(membership).save(update_fields=["role"])
    _end(ends, user=membership.user, why=Withdrawal.SENDER_LOWERED)
    return membership, ends


def leaving(actor: Actor, username: str) -> bool:
    """True when ``actor``'s person is ``username``: a member leaving on their own."""
    return actor.table is None and actor.is_authenticated and actor.user.get_username() == username


@transaction.atomic
def member_remove(*, actor: Actor, club: Club, username: str) -> Ends:
    """Remove a member (the club's owners), or a member leaves (themself); never the last
    owner. Their rights end at once: every check reads the membership (sessions and tokens
    alike), their guest seats on the club's championships go and the invitations they sent
    are withdrawn (answered)."""
    itself = leaving(actor, username)
    if not itself:
        _require_people(actor, club)
    owners = _owners_locked(club)
    membership = member_of(club, username)
    if membership.role == Role.OWNER and [m.pk for m in owners] == [membership.pk]:
        if itself:
            raise Conflict(
                _(
                    "A club keeps at least one owner, and you are the last owner of "
                    "%(club)s: make another member owner first, then leave."
                )
                % {"club": club.name}
            )
        raise _last_owner()
    ends = member_ends(membership=membership)
    user = membership.user
    actor.stamp(membership).delete()
    _end(ends, user=user, why=Withdrawal.SENDER_LEFT if itself else Withdrawal.SENDER_REMOVED)
    return ends


# --- A championship's guest organisers ------------------------------------------------------


@transaction.atomic
def championship_organisers_set(
    *, actor: Actor, championship: Any, usernames: Iterable[str]
) -> list[Any]:
    """Name ``championship``'s guest organisers (its club's owners, or a superuser): people
    from outside the club, who run that championship alone; a member of the club is refused
    (400 naming them). Who named each is kept (``GuestSeat``). Answers them by username."""
    if not actor.can_manage_people(championship.club):
        raise NotAllowed(_("Only the owners of the championship's club name its guest organisers."))
    wanted = list(dict.fromkeys(str(name).strip() for name in usernames if str(name).strip()))
    User = get_user_model()
    users = list(
        User.objects.filter(username__in=[n for n in wanted if len(n) <= 150], is_active=True)
    )
    unknown = sorted(set(wanted) - {u.get_username() for u in users})
    if unknown:
        message = _("No active account is named %(usernames)s.") % {
            "usernames": ", ".join(f"“{name[:150]}”" for name in unknown)
        }
        raise InvalidInput(message, {"usernames": [message]})
    members = sorted(
        Membership.objects.filter(club_id=championship.club_id, user__in=users).values_list(
            "user__username", flat=True
        )
    )
    if members:
        message = _(
            "%(usernames)s: a member of %(club)s runs its championships by their role; guest "
            "organisers come from outside the club."
        ) % {
            "usernames": ", ".join(f"“{name}”" for name in members),
            "club": championship.club.name,
        }
        raise InvalidInput(message, {"usernames": [message]})
    before = set(championship.organisers.values_list("pk", flat=True))
    championship.organisers.set(users)
    GuestSeat.objects.filter(championship=championship).exclude(user__in=users).delete()
    GuestSeat.objects.bulk_create(
        [
            GuestSeat(championship=championship, user=user, given_by=actor.user)
            for user in users
            if user.pk not in before
        ],
        ignore_conflicts=True,
    )
    return sorted(users, key=lambda u: u.get_username())
