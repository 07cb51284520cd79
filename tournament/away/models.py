"""The models of the event away: a check-out, on the server it left (``hosted``) and on
the laptop that loaded its bundle (``venue``)."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Checkout(models.Model):
    """One trip of one event. Hosted: the event is away while its check-out is neither
    cancelled nor returned. Venue: the bundle loaded here, whose key signs the way back."""

    class Side(models.TextChoices):
        HOSTED = "hosted", _("checked out from here")
        VENUE = "venue", _("loaded here")

    event = models.ForeignKey(
        "tournament.Event", on_delete=models.CASCADE, related_name="checkouts"
    )
    side = models.CharField(max_length=6, choices=Side)
    #: The check-out's id, the same on both sides (carried by the bundle).
    uid = models.UUIDField(default=uuid.uuid4)
    at = models.DateTimeField(auto_now_add=True)
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    #: The check-out's own signing key, sealed at rest (``tournament.sealing``).
    key = models.TextField(editable=False)
    #: Numbers the day may give to drivers created at the door.
    reserved_numbers = models.JSONField(default=list)
    cancelled_at = models.DateTimeField(null=True, blank=True)
    cancel_reason = models.TextField(blank=True, default="")
    returned_at = models.DateTimeField(null=True, blank=True)
    #: SHA-256 of the returned bundle, and the answer it got: sent again, the same answer.
    return_digest = models.CharField(max_length=64, blank=True, default="")
    return_answer = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["-at", "-pk"]
        verbose_name = _("check-out")
        verbose_name_plural = _("check-outs")
        constraints = [
            models.UniqueConstraint(fields=["uid", "side"], name="checkout_unique_uid"),
            # At most one trip under way per event on the hosted side.
            models.UniqueConstraint(
                fields=["event"],
                condition=models.Q(
                    side="hosted", cancelled_at__isnull=True, returned_at__isnull=True
                ),
                name="checkout_one_away_per_event",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.event} – {self.uid}"


class ArrivedRegistration(models.Model):
    """On the laptop: the hosted id of a registration a bundle brought, so that the way back
    says which registration came to the door (``present``) and which driver it became."""

    registration = models.OneToOneField(
        "tournament.Registration", on_delete=models.CASCADE, related_name="+"
    )
    hosted_id = models.PositiveIntegerField()

    class Meta:
        verbose_name = _("registration brought by a bundle")
        verbose_name_plural = _("registrations brought by a bundle")

    def __str__(self) -> str:
        return f"{self.registration_id} ← {self.hosted_id}"


class ArrivedPlayer(models.Model):
    """On the laptop: the hosted id of a player a bundle brought, so that the way back names
    the player of a driver created at the door by that id when the laptop joined them (a
    licence typed, a match confirmed), never by name."""

    player = models.OneToOneField("tournament.Player", on_delete=models.CASCADE, related_name="+")
    hosted_id = models.PositiveIntegerField(db_index=True)

    class Meta:
        verbose_name = _("player brought by a bundle")
        verbose_name_plural = _("players brought by a bundle")

    def __str__(self) -> str:
        return f"{self.player_id} ← {self.hosted_id}"
