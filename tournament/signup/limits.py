"""Rate limits of the sign-up form and API: so many tries per address (the client's, behind
trusted proxies: tournament.site.client_ip) and per e-mail address within a window, on
Django's cache. A cache outage lets sign-ups through (and counts nothing): a venue without
Redis must still take entries. E-mail addresses are kept as digests, never as they are."""

from __future__ import annotations

import hashlib
import logging

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest
from django.utils.translation import gettext as _

from tournament.errors import ServiceError
from tournament.site.client_ip import client_ip

log = logging.getLogger(__name__)
PREFIX = "paddock:signup-tries:"


class TooManyTries(ServiceError):
    status = 429

    def __init__(self) -> None:
        super().__init__(
            _("Too many sign-ups from here. Wait %(minutes)s minutes, then try again.")
            % {"minutes": max(1, window() // 60)}
        )


def window() -> int:
    return int(getattr(settings, "SIGNUP_TRY_WINDOW", 3600))


def _hit(key: str, limit: int) -> bool:
    """Count one try; True while within ``limit``."""
    try:
        if cache.add(key, 1, timeout=window()):
            return True
        try:
            return int(cache.incr(key)) <= limit
        except ValueError:  # expired between add and incr
            cache.add(key, 1, timeout=window())
            return True
    except Exception:  # noqa: BLE001 - a cache outage must never stop a sign-up
        log.warning("sign-up limiter: cache unavailable, not limiting")
        return True


def check(request: HttpRequest, email: str) -> None:
    """Count this try from the request's address and for ``email``; 429 past a limit."""
    address = client_ip(request) or "unknown"
    mail = hashlib.sha256(email.strip().lower().encode()).hexdigest()
    per_address = int(getattr(settings, "SIGNUP_TRIES_PER_ADDRESS", 30))
    per_email = int(getattr(settings, "SIGNUP_TRIES_PER_EMAIL", 5))
    ok_address = _hit(f"{PREFIX}ip:{address}", per_address)
    ok_email = _hit(f"{PREFIX}mail:{mail}", per_email)
    if not (ok_address and ok_email):
        raise TooManyTries()
