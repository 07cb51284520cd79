"""``/health/`` for uptime monitors: is the database there, and the cache?

Answers ``200`` with ``{"status": "ok", ...}`` when both answer, else ``503`` naming what
failed. Nothing secret in it, nothing cached, nothing written to the database.
"""

from __future__ import annotations

import secrets

from django.core.cache import cache
from django.db import DatabaseError, connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe


def _database() -> str:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except DatabaseError as exc:
        return f"error: {type(exc).__name__}"
    return "ok"


def _cache() -> str:
    key = f"paddock:health:{secrets.token_hex(8)}"
    try:
        cache.set(key, "ok", 10)
        value = cache.get(key)
        cache.delete(key)
    except Exception as exc:  # noqa: BLE001 - any failure of the cache is the answer
        return f"error: {type(exc).__name__}"
    return "ok" if value == "ok" else "error: the value did not come back"


@never_cache
@require_safe
def health(request: HttpRequest) -> JsonResponse:
    checks = {"database": _database(), "cache": _cache()}
    healthy = all(value == "ok" for value in checks.values())
    return JsonResponse(
        {"status": "ok" if healthy else "error", **checks}, status=200 if healthy else 503
    )
