"""Organisers' API tokens: only their hash is stored."""

from __future__ import annotations

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
