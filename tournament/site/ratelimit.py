"""A small limiter of failures on Django's cache: bad table links and bad API tokens.

Only failures count (an unknown referee link, an unknown or revoked API token), never
successes, and only failures are refused: after ``TOKEN_FAILURE_LIMIT`` failures from one
address within ``TOKEN_FAILURE_WINDOW`` seconds, that address gets a 429 for any unknown
link or token until the window ends, while valid links keep working. A room of referees
behind one address is thus never throttled, even by one phone's mistakes; with 192-bit
links, guessing stays hopeless and the limit stops the hammering.

The cache may be Redis: every cache call is guarded so that a cache outage lets requests
through (and counts nothing) rather than blocking a referee. Failed logins are django-axes'
job (settings ``AXES_*``); this module only tells it what to lock and what to answer.
An address is the real client's behind trusted proxies (tournament.site.client_ip).
"""

from __future__ import annotations

import hashlib
import logging
import math
import time
from collections.abc import Callable

from axes.helpers import get_cool_off
from axes.models import AccessAttempt
from django.conf import settings
from django.core.cache import DEFAULT_CACHE_ALIAS, cache, caches
from django.core.cache.backends.redis import RedisCache
from django.db.models import Sum
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from tournament.errors import ServiceError
from tournament.signup.rules import address_key
from tournament.site.client_ip import client_ip

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


def _key(request: HttpRequest) -> str:
    return PREFIX + (client_ip(request) or "unknown")


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


# --- Logins: what django-axes locks and what it answers ------------------------------------

ACCOUNT_AT_ADDRESS: list[str | list[str]] = [["username", "ip_address"]]
WHOLE_ADDRESS: list[str | list[str]] = ["ip_address"]


def address_login_failures(request: HttpRequest) -> int:
    """Failed logins from this request's address, all usernames, within the cool-off."""
    address = client_ip(request)
    if address is None:
        return 0
    since = (getattr(request, "axes_attempt_time", None) or timezone.now()) - get_cool_off(request)
    total = AccessAttempt.objects.filter(ip_address=address, attempt_time__gte=since).aggregate(
        total=Sum("failures_since_start")
    )["total"]
    return int(total or 0)


def address_locked(request: HttpRequest) -> bool:
    return address_login_failures(request) >= int(settings.LOGIN_ADDRESS_FAILURE_LIMIT)


def axes_lockout_parameters(
    request_or_attempt: object, credentials: object = None
) -> list[str | list[str]]:
    """What django-axes counts and locks (``AXES_LOCKOUT_PARAMETERS``).

    Normally one account at one address: typos elsewhere never lock the right password. Once
    an address failed ``LOGIN_ADDRESS_FAILURE_LIMIT`` times across usernames (password
    spraying), the whole address, until the cool-off ends. Axes compares its one
    ``AXES_FAILURE_LIMIT`` with the highest count among the parameters, so listing both
    (``[["username", "ip_address"], "ip_address"]``) would lock a venue's address after 5
    typos by different people; the address alone is therefore named only once it reached
    its own, higher, limit (its count is then past ``AXES_FAILURE_LIMIT`` too). A success
    resets the account at that address only.
    """
    if isinstance(request_or_attempt, HttpRequest) and address_locked(request_or_attempt):
        return WHOLE_ADDRESS
    return ACCOUNT_AT_ADDRESS


def login_locked(request: HttpRequest, credentials: object = None, *args, **kwargs) -> HttpResponse:
    """django-axes' lockout response: a clear page in the person's language, status 429."""
    cooloff = getattr(settings, "AXES_COOLOFF_TIME", None)
    minutes = 15
    if hasattr(cooloff, "total_seconds"):
        minutes = max(1, int(cooloff.total_seconds() // 60))
    if address_locked(request):
        message = _(
            "Too many failed logins from this address. "
            "Wait %(minutes)s minutes, or ask an administrator."
        ) % {"minutes": minutes}
    else:
        message = _(
            "Too many failed logins for this account from this address. "
            "Wait %(minutes)s minutes, or ask an administrator."
        ) % {"minutes": minutes}
    return render(request, "history/too_many.html", {"message": message}, status=429)


# --- Sign-up: tries per address and per e-mail (issue 29) ----------------------------------
# Successes count here too (a robot's sign-ups succeed). E-mail addresses are kept as
# digests, never as they are; a cache outage lets sign-ups through.

SIGNUP_PREFIX = "paddock:signup-tries:"


class TooManySignUps(ServiceError):
    status = 429

    def __init__(self) -> None:
        super().__init__(
            _("Too many sign-ups from here. Wait %(minutes)s minutes, then try again.")
            % {"minutes": max(1, signup_window() // 60)}
        )


def signup_window() -> int:
    return int(getattr(settings, "SIGNUP_TRY_WINDOW", 3600))


def _hit(key: str, most: int) -> bool:
    """Count one try under ``key``; True while within ``most``."""
    try:
        if cache.add(key, 1, timeout=signup_window()):
            return True
        try:
            return int(cache.incr(key)) <= most
        except ValueError:  # expired between add and incr
            cache.add(key, 1, timeout=signup_window())
            return True
    except Exception:  # noqa: BLE001 - a cache outage must never stop a sign-up
        log.warning("sign-up limiter: cache unavailable, not limiting")
        return True


def _hits_in_redis(tries: list[tuple[str, int]]) -> bool | None:
    """``_hit`` of every key in one round trip (a pipeline: each key set to 0 with the
    window's expiry when absent, then counted), or None when the cache is not Redis."""
    backend = caches[DEFAULT_CACHE_ALIAS]  # ``cache`` is a proxy: it is no RedisCache
    if not isinstance(backend, RedisCache):
        return None
    keys = [backend.make_and_validate_key(key) for key, _most in tries]
    # Django's Redis cache keeps integers raw (as ``incr`` does), under these full keys.
    pipe = backend._cache.get_client(keys[0], write=True).pipeline(transaction=False)
    for key in keys:
        pipe.set(key, 0, ex=signup_window(), nx=True)
        pipe.incr(key)
    counts = pipe.execute()[1::2]
    return all(int(n) <= most for n, (_key, most) in zip(counts, tries, strict=True))


def signup_check(request: HttpRequest, email: str) -> None:
    """Count this sign-up from the request's address and for ``email``; 429 past a limit
    (``SIGNUP_TRIES_PER_ADDRESS``, ``SIGNUP_TRIES_PER_EMAIL`` within ``SIGNUP_TRY_WINDOW``).
    An e-mail counts as the mail server delivers it: ``"victim"@CORP.example`` is
    ``victim@corp.example`` (``address_key``). Redis counts both in one round trip."""
    address = client_ip(request) or "unknown"
    mail = hashlib.sha256(address_key(email).encode()).hexdigest()
    tries = [
        (f"{SIGNUP_PREFIX}ip:{address}", int(getattr(settings, "SIGNUP_TRIES_PER_ADDRESS", 30))),
        (f"{SIGNUP_PREFIX}mail:{mail}", int(getattr(settings, "SIGNUP_TRIES_PER_EMAIL", 5))),
    ]
    try:
        within = _hits_in_redis(tries)
    except Exception:  # noqa: BLE001 - a cache outage must never stop a sign-up
        log.warning("sign-up limiter: cache unavailable, not limiting")
        within = True
    if within is None:
        within = all([_hit(key, most) for key, most in tries])  # both counted, always
    if not within:
        raise TooManySignUps()


# --- Budgets: what one club, person, address or client may do in a while (issue 49) -------
# DOMAIN.md "Bounded": a club's invitations an hour, a person's clubs a day, an address's or
# a client's account requests and password resets an hour. Every try within the budget
# counts; past it, a 429 whose ``retry_after`` says when the window that started with the
# first try ends (the API sends it as ``Retry-After``, the pages as a sentence). A cache
# outage lets everything through, as the other limits here do.

BUDGET_PREFIX = "paddock:budget:"


def wait_words(seconds: int) -> str:
    """How long to wait, in words of the active language (minutes, or hours past two)."""
    if seconds > 2 * 3600:
        hours = -(-seconds // 3600)
        return ngettext("%(n)s hour", "%(n)s hours", hours) % {"n": hours}
    minutes = max(1, -(-seconds // 60))
    return ngettext("%(n)s minute", "%(n)s minutes", minutes) % {"n": minutes}


class OverBudget(ServiceError):
    """Past a budget: 429, ``retry_after`` seconds until the window ends."""

    status = 429

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = max(1, int(retry_after))


def spend(key: str, *, most: int, window: int) -> int | None:
    """Count one try under ``key`` (its window, ``window`` seconds, starts with its first
    try); None while within ``most``, else the seconds left in the window."""
    count_key, since_key = f"{BUDGET_PREFIX}{key}", f"{BUDGET_PREFIX}{key}:since"
    now = time.time()
    try:
        if cache.add(count_key, 1, timeout=window):
            cache.set(since_key, now, timeout=window)
            count = 1
        else:
            try:
                count = int(cache.incr(count_key))
            except ValueError:  # expired between add and incr
                cache.add(count_key, 1, timeout=window)
                cache.set(since_key, now, timeout=window)
                count = 1
        if count <= most:
            return None
        since = float(cache.get(since_key) or now)
    except Exception:  # noqa: BLE001 - a cache outage must never stop a club
        log.warning("budget limiter: cache unavailable, not limiting")
        return None
    return max(1, math.ceil(since + window - now))


def spend_or_refuse(
    keys: list[str], *, most: int, window: int, message: Callable[[str], str]
) -> None:
    """``spend`` under every key (each counted, always); past any budget, ``OverBudget``
    whose sentence is ``message(how long to wait, in words)``."""
    waits = [spend(key, most=most, window=window) for key in keys]
    late = max((w for w in waits if w is not None), default=None)
    if late is not None:
        raise OverBudget(message(wait_words(late)), late)


def client_key(request: HttpRequest) -> str:
    """The budget key of the request's client (its address behind trusted proxies)."""
    return f"client:{client_ip(request) or 'unknown'}"


def address_budget_key(email: str) -> str:
    """The budget key of an e-mail address, as the mail server delivers it, as a digest."""
    return "mail:" + hashlib.sha256(address_key(email).encode()).hexdigest()
