"""A stranger's request for an account on a server open to clubs (DOMAIN.md "A server open
to clubs"): what they chose, kept until the link of its mail confirms the address (single
use, 48 hours). The password is kept as Django hashes it; the link's secret as its digest
only (``tournament.sealing.link_digest``), as invitations keep theirs."""

from __future__ import annotations

import datetime

from django.db import models
from django.utils.translation import gettext_lazy as _

#: How long the confirmation link works.
CONFIRM_HOURS = 48


class AccountRequest(models.Model):
    username = models.CharField(_("username"), max_length=150)
    email = models.EmailField(_("email"))
    #: The chosen password, hashed (``make_password``): the account gets it as it is.
    password = models.CharField(max_length=128, editable=False)
    language = models.CharField(_("language"), max_length=8, default="fr")
    #: The digest of the link's secret; empty until its mail is written, and for ever when
    #: the address had an account already (its mail then says so, and carries no link).
    digest = models.CharField(max_length=64, blank=True, default="", db_index=True)
    known_address = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(_("expires at"))
    mailed_at = models.DateTimeField(null=True, blank=True)
    confirmed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        app_label = "tournament"
        ordering = ["-created_at", "-pk"]
        verbose_name = _("account request")
        verbose_name_plural = _("account requests")

    def __str__(self) -> str:
        return self.username

    def status(self, now: datetime.datetime) -> str:
        """``confirmed``, ``expired`` (at ``now``) or ``pending``."""
        if self.confirmed_at is not None:
            return "confirmed"
        return "expired" if self.expires_at <= now else "pending"
