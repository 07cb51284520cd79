"""``make venue``: the organiser's pages answer on the laptop itself only.

The hall's phones reach the laptop over plain HTTP, on a Wi-Fi whose password is printed on
the poster: anyone in the room can read what crosses it, the organiser's password and
session cookie included. So, while ``ORGANISERS_LAPTOP_ONLY`` is on (``make venue`` sets it
unless the organiser starts it with ``ORGANISERS_ON_WIFI=1``), a request from any other
address than the laptop's loopback (``tournament.site.client_ip``, which trusts proxies
only as far as ``TRUSTED_PROXY_COUNT`` says):

- never acts as a logged-in user: the session's user and organisers' API tokens are not
  honoured, so every organiser page and operation refuses it as it refuses anybody;
- gets the login, account and admin pages, and any page or operation that refuses it
  (``PermissionDenied``, a redirect to the login), as a 403 page in its language saying to
  use the laptop, and how to allow the Wi-Fi: never a redirect to a login it cannot open.

Players' pages and referees' table links (their pages and the API with a link's secret)
answer as before. Hosted deployments (the setting off) are untouched.
"""

from __future__ import annotations

import functools
import ipaddress
from collections.abc import Callable

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render, resolve_url
from django.urls import get_script_prefix, get_urlconf, reverse
from django.utils.translation import gettext as _

from tournament.site.accounts.tokens import ApiToken
from tournament.site.accounts.urls import urlpatterns as account_patterns
from tournament.site.client_ip import client_ip

#: The account pages (login, logout, password change and reset, under ``/accounts/``): a
#: password typed there would cross the Wi-Fi.
ACCOUNT_PAGES = frozenset(pattern.name for pattern in account_patterns)


def on_laptop(request: HttpRequest) -> bool:
    """True when the request comes from the laptop itself (a loopback address)."""
    address = client_ip(request)
    if address is None:
        return False
    ip = ipaddress.ip_address(address)
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback


def guarded(request: HttpRequest) -> bool:
    """True when this request may not act as an organiser: the guard is on and it comes
    from another device than the laptop."""
    return bool(getattr(settings, "ORGANISERS_LAPTOP_ONLY", False)) and not on_laptop(request)


def _account_and_admin_prefixes() -> tuple[str, ...]:
    """Where the admin and the account pages live (``/admin/``, ``/accounts/``), as
    ``request.path_info`` spells them: a prefix test costs nothing, where resolving the path
    again cost half a millisecond a request.

    Kept per URL configuration and script prefix (what they follow from): a process-wide
    answer kept the first request's, so that a server behind a path (``SCRIPT_NAME``) kept
    ``/paddock/admin/`` and let ``/admin/`` through, and a changed ``ROOT_URLCONF`` (a test's
    override) was never read. ``LOGIN_URL`` plays no part: the prefixes are those of the
    URL patterns themselves."""
    return _prefixes(get_urlconf() or settings.ROOT_URLCONF, get_script_prefix())


@functools.lru_cache(maxsize=16)
def _prefixes(urlconf: object, script: str) -> tuple[str, ...]:
    def bare(path: str) -> str:  # without the script prefix, as path_info is
        return "/" + path[len(script) :] if path.startswith(script) else path

    login = bare(reverse("login", urlconf=urlconf))
    accounts = login[: login.rstrip("/").rfind("/") + 1]
    return (bare(reverse("admin:index", urlconf=urlconf)), accounts)


def _account_or_admin(request: HttpRequest) -> bool:
    return request.path_info.startswith(_account_and_admin_prefixes())


def _user_token(request: HttpRequest) -> bool:
    """True when the request carries an account's API token (not a table link's secret)."""
    scheme, _space, token = request.headers.get("Authorization", "").strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or "\x00" in token or len(token) > 200:
        return False
    return ApiToken.user_for(token) is not None


def _to_login(response: HttpResponse) -> bool:
    if response.status_code not in (301, 302, 303, 307, 308):
        return False
    login = resolve_url(settings.LOGIN_URL)
    return response.get("Location", "").split("?")[0] == login


def refusal(request: HttpRequest) -> HttpResponse:
    """403: this page answers on the laptop only; how to open it there, or allow the Wi-Fi."""
    port = request.get_port()
    laptop_url = f"http://127.0.0.1:{port}{request.path}"
    detail = _(
        "Organiser pages answer on the laptop that serves the tournament only: open "
        "%(url)s on that laptop. To allow them from the Wi-Fi, restart it with "
        "make venue ORGANISERS_ON_WIFI=1 (anyone on the Wi-Fi could then read the "
        "organiser's password)."
    ) % {"url": laptop_url}
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": detail, "errors": {}}, status=403)
    return render(
        request,
        "tournament/laptop_only.html",
        {"laptop_url": laptop_url, "message": detail},
        status=403,
    )


class LaptopOnlyMiddleware:
    """The guard (module docstring). After the authentication middleware, whose user it
    replaces for a request that is not the laptop's."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not guarded(request):
            return self.get_response(request)
        api_as_user = request.path.startswith("/api/") and _user_token(request)
        if _account_or_admin(request) or api_as_user:
            return refusal(request)
        anonymous = AnonymousUser()
        request.user = anonymous

        async def auser() -> AnonymousUser:
            return anonymous

        request.auser = auser  # type: ignore[attr-defined]
        response = self.get_response(request)
        if _to_login(response):
            return refusal(request)
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        # Every PermissionDenied of the pages says "organisers only" (tournament.access):
        # from another device, that is "on the laptop only".
        if isinstance(exception, PermissionDenied) and guarded(request):
            return refusal(request)
        return None
