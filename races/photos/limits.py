"""How many photos a table may hold, and how fast its referee link may send them.

A table link is a bearer secret printed on paper: whoever holds it may send photos, each
decoded by a worker. Two bounds keep one link (a lost sheet, a script) from filling the disk
or holding the workers: ``PHOTO_TABLE_MAX`` photos per table (front, back and a few
replacements are far fewer), and ``PHOTO_LINK_RATE`` photos sent through one link within
``PHOTO_LINK_WINDOW`` seconds. Past either, a 429 that says which and what to do.

The rate is counted on Django's cache, guarded as ``tournament.site.ratelimit`` guards its
own: a cache outage lets the referee through rather than blocking them. Every try counts,
kept or refused (a refused file was decoded too).
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from races.models import RaceTable, SheetPhoto
from tournament.access import Actor
from tournament.errors import ServiceError

log = logging.getLogger(__name__)

PREFIX = "paddock:photo-rate:"


class TooManyPhotos(ServiceError):
    """A table full of photos, or its link sending too fast: 429, saying which."""

    status = 429


def table_max() -> int:
    return int(getattr(settings, "PHOTO_TABLE_MAX", 24))


def link_rate() -> int:
    return int(getattr(settings, "PHOTO_LINK_RATE", 12))


def link_window() -> int:
    return int(getattr(settings, "PHOTO_LINK_WINDOW", 600))


def _key(table: Any) -> str:
    kind = "race" if isinstance(table, RaceTable) else "qualifying"
    # The link's digest: a regenerated link starts afresh, the old one is refused anyway.
    return f"{PREFIX}{kind}:{table.pk}:{table.token_digest[:16]}"


def check(*, actor: Actor, table: Any) -> None:
    """Raise ``TooManyPhotos`` when ``table`` holds its maximum of photos, or when the link
    ``actor`` holds sent its rate already; else count this try against the link."""
    held = SheetPhoto.objects.filter(
        **({"table": table} if isinstance(table, RaceTable) else {"qualifying_table": table})
    ).count()
    if held >= table_max():
        raise TooManyPhotos(
            _(
                "%(table)s already holds %(count)s photos, the most a table may hold: "
                "ask race control to add this one."
            )
            % {"table": table, "count": held}
        )
    if actor.table is None:
        return  # organisers and the table's referee account: no link to limit
    minutes = max(1, link_window() // 60)
    try:
        sent = int(cache.get(_key(table)) or 0)
    except Exception:  # noqa: BLE001 - a cache outage must never block a referee
        log.warning("photo rate: cache unavailable, not limiting")
        return
    if sent >= link_rate():
        raise TooManyPhotos(
            ngettext(
                "This link sent %(count)s photo within %(minutes)s minutes: wait a little, "
                "then send again.",
                "This link sent %(count)s photos within %(minutes)s minutes: wait a little, "
                "then send again.",
                sent,
            )
            % {"count": sent, "minutes": minutes}
        )
    _count(_key(table))


def _count(key: str) -> None:
    try:
        if not cache.add(key, 1, timeout=link_window()):
            try:
                cache.incr(key)
            except ValueError:  # expired between add and incr
                cache.add(key, 1, timeout=link_window())
    except Exception:  # noqa: BLE001 - a cache outage must never block a referee
        log.warning("photo rate: cache unavailable, try not counted")


def forget(table: Any) -> None:
    """Clear the link's count (tests, or race control after a false alarm)."""
    try:
        cache.delete(_key(table))
    except Exception:  # noqa: BLE001
        log.warning("photo rate: cache unavailable")
