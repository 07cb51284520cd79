"""What the base template needs for the offline tables: which kind of page this is (a
table's, a players' page, neither), the table link's scope and when the page was made."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.utils import timezone

from tournament.offline.idempotency import TABLE_PATH


def offline(request: HttpRequest) -> dict[str, Any]:
    """``offline_kind``: ``table`` (the outbox and its counter), ``public`` (kept for
    opening offline), or ""; ``offline_scope``: the table link's pages (``/r/<link>/``)."""
    found = TABLE_PATH.match(request.path)
    if found:
        kind, scope = "table", found.group(0)
    elif getattr(request, "public_page", False):
        kind, scope = "public", ""
    else:
        return {"offline_kind": ""}
    return {
        "offline_kind": kind,
        "offline_scope": scope,
        "offline_served_at": timezone.now().isoformat(timespec="seconds"),
    }
