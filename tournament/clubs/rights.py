"""Who may do what over a club and its championships (DOMAIN.md "Clubs and who may do what"):
the one place that decides. ``tournament.access`` (``Actor``) and ``Championship.is_organiser``
ask here; no other module reads a role to decide.

- ``owner``: everything of the club, its people included;
- ``organiser``: runs the club's championships, events, circuits, sign-up, publication;
- ``desk``: the day's counter only (entries, check-in, runs, results entered and confirmed,
  sheets);
- a championship's guest organisers (``Championship.organisers``) run that championship alone;
- a superuser (the server's operator) may do everything.

Rights are read from the ``Membership`` rows at each call, never kept: a removed member loses
the club's rights at once, whether they come by a session or an API token.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Q

from tournament.clubs.models import Club, Membership, Role

#: What a person may do over one championship: run it, or keep its counter on the day.
ORGANISE = "organise"
DESK = "desk"

#: The club roles that run its championships and circuits.
RUNNING = (Role.OWNER, Role.ORGANISER)


def _person(user: Any) -> bool:
    return bool(getattr(user, "is_authenticated", False)) and bool(getattr(user, "is_active", True))


def role_in(user: Any, club: Club | int | None) -> str | None:
    """``user``'s role in ``club`` (``owner``, ``organiser``, ``desk``), or None."""
    if club is None or not _person(user):
        return None
    club_id = club if isinstance(club, int) else club.pk
    return (
        Membership.objects.filter(club_id=club_id, user_id=user.pk)
        .values_list("role", flat=True)
        .first()
    )


def championship_rights(user: Any, championship: Any) -> str | None:
    """What ``user`` may do over ``championship``: ``ORGANISE`` (a superuser, the owner or an
    organiser of its club, one of its guest organisers), ``DESK`` (a desk member of its
    club), or None."""
    if not _person(user):
        return None
    if getattr(user, "is_superuser", False):
        return ORGANISE
    role = role_in(user, championship.club_id)
    if role in RUNNING:
        return ORGANISE
    if championship.organisers.filter(pk=user.pk).exists():
        return ORGANISE
    return DESK if role == Role.DESK else None


def may_organise(user: Any, championship: Any) -> bool:
    return championship_rights(user, championship) == ORGANISE


def may_desk(user: Any, championship: Any) -> bool:
    """The day's counter: the desk, and whoever organises."""
    return championship_rights(user, championship) in (ORGANISE, DESK)


def may_run_club(user: Any, club: Club | None) -> bool:
    """Create the club's championships and circuits, change its circuits, name a
    championship's guest organisers: its owners and organisers (and a superuser).
    ``club`` None is the operator's (things made before clubs): a superuser only."""
    if not _person(user):
        return False
    if getattr(user, "is_superuser", False):
        return True
    return role_in(user, club) in RUNNING


def may_manage_people(user: Any, club: Club) -> bool:
    """Invite, change a role, remove a member: the club's owners (and a superuser)."""
    if not _person(user):
        return False
    return bool(getattr(user, "is_superuser", False)) or role_in(user, club) == Role.OWNER


def organised_filter(user: Any) -> Q:
    """A filter of ``Championship`` rows: those ``user`` organises (not for a superuser,
    who organises them all: callers say so first)."""
    running = Q(
        club__memberships__user_id=user.pk, club__memberships__role__in=[str(r) for r in RUNNING]
    )
    return Q(organisers__pk=user.pk) | running


def running_clubs(user: Any) -> list[Club]:
    """The clubs where ``user`` may create championships and circuits."""
    if not _person(user):
        return []
    return list(
        Club.objects.filter(
            memberships__user_id=user.pk, memberships__role__in=[str(r) for r in RUNNING]
        )
    )
