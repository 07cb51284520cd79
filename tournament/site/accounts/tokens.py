"""Secrets of accounts, kept as their hash only: organisers' API tokens, and the link that
confirms a stranger's new account (DOMAIN.md "A server open to clubs": single use, 48 hours;
what they chose kept until then, the password as Django hashes it)."""

from __future__ import annotations

import datetime
import hashlib
import secrets

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


def _hash_token(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


class ApiToken(models.Model):
    """An organiser's API token; only its hash is stored."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    digest = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        app_label = "tournament"
        verbose_name = _("API token")
        verbose_name_plural = _("API tokens")

    def __str__(self) -> str:
        return f"{self.user} ({self.created_at:%Y-%m-%d})"

    @classmethod
    def issue(cls, user: object) -> str:
        """Create a token for ``user`` and return the raw secret (shown once)."""
        raw = "pdk_" + secrets.token_urlsafe(32)
        cls.objects.create(user=user, digest=_hash_token(raw))
        return raw

    @classmethod
    def user_for(cls, raw: str) -> object | None:
        """The active user owning ``raw``, or None."""
        token = cls.objects.select_related("user").filter(digest=_hash_token(raw)).first()
        if token is None or not token.user.is_active:
            return None
        return token.user


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
