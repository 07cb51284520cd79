"""A small limiter of failures on Django's cache: bad table links and bad API tokens.

Only failures count (an unknown referee link, an unknown or revoked API token), never
successes, and only failures are refused: after ``TOKEN_FAILURE_LIMIT`` failures from one
address within ``TOKEN_FAILURE_WINDOW`` seconds, that address gets a 429 for any unknown
link or token until the window ends, while valid links keep working. A room of referees
behind one address is thus never throttled, even by one phone's mistakes; with 192-bit
links, guessing stays hopeless and the limit stops the hammering.

The cache may be Redis: every cache call is guarded so that a cache outage lets requests
through (and counts nothing) rather than blocking a referee. Failed logins are django-axes'
job (settings ``AXES_*``), not this module's.
"""

from __future__ import annotations

import ipaddress
import logging

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from tournament.errors import ServiceError

log = logging.getLogger(__name__)

PREFIX = "paddock:token-failures:"


class TooManyFailures(ServiceError):
    """Too many bad links or tokens from this address: 429 until the window ends."""

    status = 429

    def __init__(self) -> None:
        super().__init__(
            _(
                "Too many wrong links or tokens from this address. Wait %(minutes)s minutes, "
                "then try again with the link printed on your table's sheet."
            )
            % {"minutes": max(1, window() // 60)}
        )


def limit() -> int:
    return int(getattr(settings, "TOKEN_FAILURE_LIMIT", 20))


def window() -> int:
    return int(getattr(settings, "TOKEN_FAILURE_WINDOW", 600))


def client_address(request: HttpRequest) -> str | None:
    """The address as the server sees it (a proxy in front sets REMOTE_ADDR correctly).

    None when there is none (a unix socket, ``force_login``): django-axes stores it in an
    address column, where PostgreSQL refuses anything but an address.
    """
    return str(request.META.get("REMOTE_ADDR") or "")[:64] or None


def axes_client_ip(request: HttpRequest) -> str | None:
    """The address django-axes records: REMOTE_ADDR when it is one, else nothing."""
    address = request.META.get("REMOTE_ADDR") or ""
    try:
        return str(ipaddress.ip_address(address))
    except ValueError:
        return None


def _key(request: HttpRequest) -> str:
    return PREFIX + (client_address(request) or "unknown")


def failures(request: HttpRequest) -> int:
    """How many failures this address has in the current window (0 if the cache is down)."""
    try:
        return int(cache.get(_key(request)) or 0)
    except Exception:  # noqa: BLE001 - a cache outage must never block a referee
        log.warning("rate limiter: cache unavailable, not limiting")
        return 0


def check(request: HttpRequest) -> None:
    """Raise TooManyFailures when this address already failed too often."""
    if failures(request) >= limit():
        raise TooManyFailures()


def record_failure(request: HttpRequest) -> None:
    """Count one failure for this address; the window starts with the first failure."""
    key = _key(request)
    try:
        if not cache.add(key, 1, timeout=window()):
            try:
                cache.incr(key)
            except ValueError:  # expired between add and incr
                cache.add(key, 1, timeout=window())
    except Exception:  # noqa: BLE001 - a cache outage must never block a referee
        log.warning("rate limiter: cache unavailable, failure not counted")


def forget(address: str) -> None:
    """Clear the failures of ``address`` (tests, or an organiser after a false alarm)."""
    try:
        cache.delete(PREFIX + address)
    except Exception:  # noqa: BLE001 - nothing to forget when the cache is down
        log.warning("rate limiter: cache unavailable")


def too_many_page(request: HttpRequest, exc: TooManyFailures) -> HttpResponse:
    return render(request, "history/too_many.html", {"message": exc.message}, status=429)


def login_locked(request: HttpRequest, credentials: object = None, *args, **kwargs) -> HttpResponse:
    """django-axes' lockout response: a clear page in the person's language, status 429."""
    cooloff = getattr(settings, "AXES_COOLOFF_TIME", None)
    minutes = 15
    if hasattr(cooloff, "total_seconds"):
        minutes = max(1, int(cooloff.total_seconds() // 60))
    message = _(
        "Too many failed logins for this account from this address. "
        "Wait %(minutes)s minutes, or ask an administrator."
    ) % {"minutes": minutes}
    return render(request, "history/too_many.html", {"message": message}, status=429)
