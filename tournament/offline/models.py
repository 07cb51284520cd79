"""The model of writes that may be sent twice: one row per (scope, Idempotency-Key)."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _


class IdempotencyKey(models.Model):
    """A write's key and, once it is answered, its answer. ``status`` is null while the
    first request runs (another with the same key then gets a 409). Kept at least 24 h."""

    #: Who sent it: ``user:<id>``, ``link:<digest>`` (a table's link) or ``anon``.
    scope = models.CharField(max_length=100)
    key = models.CharField(max_length=100)
    method = models.CharField(max_length=8)
    path = models.CharField(max_length=500)
    #: SHA-256 of the body (and of the method and path): another body with this key: 422.
    body_digest = models.CharField(max_length=64)
    status = models.PositiveSmallIntegerField(null=True, blank=True)
    content_type = models.CharField(max_length=100, blank=True, default="")
    response = models.BinaryField(blank=True, default=b"")
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("write sent twice")
        verbose_name_plural = _("writes sent twice")
        constraints = [
            models.UniqueConstraint(fields=["scope", "key"], name="idempotency_unique_key"),
        ]

    def __str__(self) -> str:
        return f"{self.method} {self.path} ({self.key})"
