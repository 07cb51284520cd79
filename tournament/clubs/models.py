"""The models of clubs: a club, its members (one role each) and the invitations its owners
send (by mail, through the sign-up outbox; the secret is stored as a digest)."""

from __future__ import annotations

import datetime

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy
from simple_history.models import HistoricalRecords

from tournament.site.actor import HistoryActor


class Role(models.TextChoices):
    """What a member may do (DOMAIN.md): the owner everything of the club, its people
    included; an organiser runs championships, events, circuits, sign-up and publication;
    the desk only the day's counter (entries, check-in, runs, results, sheets)."""

    OWNER = "owner", _("owner")
    ORGANISER = "organiser", _("organiser")
    DESK = "desk", _("desk")


#: Each role as a sentence names it ("You are %(role)s here", "as %(role)s"): the desk is
#: a "desk member" (« membre de l’accueil »), never the bare label.
ROLE_IN_SENTENCE = {
    Role.OWNER: pgettext_lazy("role in a sentence", "owner"),
    Role.ORGANISER: pgettext_lazy("role in a sentence", "organiser"),
    Role.DESK: pgettext_lazy("role in a sentence", "desk member"),
}


def role_phrase(role: str) -> str:
    """The role ``role`` as a sentence names it."""
    return str(ROLE_IN_SENTENCE[Role(role)])


class Club(models.Model):
    slug = models.SlugField(_("slug"), unique=True, max_length=60)
    name = models.CharField(_("name"), max_length=200)
    created_at = models.DateTimeField(auto_now_add=True)
    history = HistoricalRecords(bases=[HistoryActor])

    class Meta:
        app_label = "tournament"
        ordering = ["name"]
        verbose_name = _("club")
        verbose_name_plural = _("clubs")

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    """One person in one club, with one role. Removing the row removes the club's rights at
    once: every check reads it (sessions and tokens alike)."""

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    role = models.CharField(_("role"), max_length=10, choices=Role)
    since = models.DateTimeField(auto_now_add=True)
    history = HistoricalRecords(bases=[HistoryActor])

    class Meta:
        app_label = "tournament"
        ordering = ["club", "user"]
        verbose_name = _("member")
        verbose_name_plural = _("members")
        constraints = [
            models.UniqueConstraint(fields=["club", "user"], name="membership_one_per_club"),
        ]

    def __str__(self) -> str:
        return f"{self.user} ({self.role}, {self.club})"


class Withdrawal(models.TextChoices):
    """Why an invitation was withdrawn (DOMAIN.md: "listed as withdrawn, with why")."""

    OWNER = "owner", _("Withdrawn by an owner of the club.")
    SENDER_REMOVED = "sender_removed", _("Withdrawn: its sender was removed from the club.")
    SENDER_LOWERED = "sender_lowered", _("Withdrawn: its sender may no longer invite to the club.")
    SENDER_LEFT = "sender_left", _("Withdrawn: its sender left the club.")


class Invitation(models.Model):
    """An owner's invitation for one role, sent to one address: single use, valid 7 days,
    can be withdrawn. Only the digest of its secret is stored."""

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="invitations")
    email = models.EmailField(_("email"))
    role = models.CharField(_("role"), max_length=10, choices=Role)
    language = models.CharField(_("language"), max_length=8, default="fr")
    digest = models.CharField(max_length=64, unique=True, editable=False)
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    sent_at = models.DateTimeField(_("sent at"), auto_now_add=True)
    expires_at = models.DateTimeField(_("expires at"))
    accepted_at = models.DateTimeField(_("accepted at"), null=True, blank=True)
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    withdrawn_at = models.DateTimeField(_("withdrawn at"), null=True, blank=True)
    #: Why it was withdrawn (``Withdrawal``): by an owner, or its sender's role ended.
    withdrawn_why = models.CharField(
        _("why withdrawn"), max_length=20, choices=Withdrawal, blank=True, default=""
    )

    class Meta:
        app_label = "tournament"
        ordering = ["-sent_at", "-pk"]
        verbose_name = _("invitation")
        verbose_name_plural = _("invitations")

    def __str__(self) -> str:
        return f"{self.email} ({self.role}, {self.club})"

    def status(self, now: datetime.datetime) -> str:
        """``accepted``, ``withdrawn``, ``expired`` (at ``now``) or ``pending``."""
        if self.accepted_at is not None:
            return "accepted"
        if self.withdrawn_at is not None:
            return "withdrawn"
        return "expired" if self.expires_at <= now else "pending"


class GuestSeat(models.Model):
    """Who named a championship's guest organiser, and when (DOMAIN.md "Many clubs on one
    server"). The right itself is the championship's ``organisers`` row, which every check
    reads; this row keeps who gave it, for the owners' people page. A seat given before this
    record existed, or in the admin, has none."""

    championship = models.ForeignKey(
        "tournament.Championship", on_delete=models.CASCADE, related_name="guest_seats"
    )
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    given_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    given_at = models.DateTimeField(_("given at"), default=timezone.now)

    class Meta:
        app_label = "tournament"
        ordering = ["championship", "user"]
        verbose_name = _("guest seat")
        verbose_name_plural = _("guest seats")
        constraints = [
            models.UniqueConstraint(fields=["championship", "user"], name="guest_seat_once"),
        ]

    def __str__(self) -> str:
        return f"{self.user} ({self.championship})"
