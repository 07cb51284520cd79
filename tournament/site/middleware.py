"""Language choice (French unless the person picked another language in the menu), bodies
too large, replaced links and too many failures, pages no cache may keep: answers given
before or around a view."""

from __future__ import annotations

import re
from collections.abc import Callable

from django.conf import settings
from django.contrib.auth import get_user
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.template.defaultfilters import filesizeformat
from django.utils import translation
from django.utils.translation import gettext as _

from tournament.access import table_for_link
from tournament.errors import LinkReplaced
from tournament.models import ApiToken
from tournament.site import ratelimit
from tournament.site.ratelimit import TooManyFailures, too_many_page


class LanguageMiddleware:
    """Activate the language of the menu's cookie, else French.

    Browsers' Accept-Language is ignored on pages on purpose: a venue's phones and laptops
    come in every language, and the tournament runs in French unless someone switches.
    API clients choose with Accept-Language.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.supported = {code for code, _name in settings.LANGUAGES}

    def __call__(self, request: HttpRequest) -> HttpResponse:
        language = request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME, "")
        if request.path.startswith("/api/") and not language:
            language = translation.get_language_from_request(request)
        language = (language or "")[:2].lower()
        if language not in self.supported:
            language = settings.LANGUAGE_CODE
        translation.activate(language)
        request.LANGUAGE_CODE = language
        response = self.get_response(request)
        response.headers.setdefault("Content-Language", language)
        return response


class BodySizeMiddleware:
    """A body over ``DATA_UPLOAD_MAX_MEMORY_SIZE`` is refused before anything reads it: 413,
    the API's JSON error on ``/api/``, a page elsewhere. Photos of the signed sheets are sent
    to their own paths (``PHOTO_UPLOAD_PATHS``), which take up to ``PHOTO_REQUEST_MAX_BYTES``.

    Django itself would raise ``RequestDataTooBig`` when the body is read: a traceback in
    the API with ``DEBUG`` on, a bare 400 page with it off. Uploaded files count too: a CSV
    of drivers (1,000 drivers take about 50 kB) elsewhere.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0  # Django reads no body then
        if (
            limit is not None
            and length > limit
            and request.method == "POST"
            and re.match(settings.PHOTO_UPLOAD_PATHS, request.path)
        ):
            # Photos' larger bodies only for a caller known before the body is read (issue
            # 32): a stranger's 160 MB is never spooled to learn that it is refused.
            if not photo_sender_known(request):
                return unknown_sender(request)
            limit = settings.PHOTO_REQUEST_MAX_BYTES
        if limit is not None and length > limit:
            return too_large(request, limit)
        return self.get_response(request)


#: The referee link in a photo page's path (``/r/<secret>/photos/``, ``/q/<secret>/photos/``).
_LINK_IN_PATH = re.compile(r"^/[rq]/(?P<token>[^/]+)/photos/")


def photo_sender_known(request: HttpRequest) -> bool:
    """True when a photo upload comes from someone who may send one somewhere, known from its
    headers and path alone: a logged-in session, a valid API token or table token, or a
    valid referee link in the path. Each view still checks the very table or event."""
    header = request.headers.get("Authorization", "").strip()
    scheme, _space, token = header.partition(" ")
    token = token.strip()
    well_formed = scheme.lower() == "bearer" and 0 < len(token) <= 200 and "\x00" not in token
    if well_formed and (ApiToken.user_for(token) or table_for_link(token)) is not None:
        return True
    found = _LINK_IN_PATH.match(request.path)
    if found is not None and table_for_link(found["token"]) is not None:
        return True
    return bool(get_user(request).is_authenticated)


def unknown_sender(request: HttpRequest) -> HttpResponse:
    """A large photo upload from nobody known: refused before its body is read."""
    if request.path.startswith("/api/"):
        detail = _("This needs a token: send “Authorization: Bearer <token>”.")
        response = JsonResponse({"detail": detail, "errors": {}}, status=401)
        response["WWW-Authenticate"] = 'Bearer realm="paddock"'
        return response
    return render(request, "403.html", status=403)


def too_large(request: HttpRequest, limit: int) -> HttpResponse:
    detail = _("The request is too large: %(size)s at most. Send less at once.") % {
        "size": filesizeformat(limit)
    }
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": detail, "errors": {}}, status=413)
    return render(request, "413.html", {"message": detail}, status=413)


#: A registrant's links: the confirmation's and their own, as pages and in the API
#: (``/registrations/confirm/<secret>/``, ``/registrations/<secret>/``,
#: ``/api/v1/registrations/confirm``, ``/api/v1/registrations/<secret>``).
REGISTRANT_PATH = re.compile(r"^/(?:api/v\d+/)?registrations/")


def wrong_registrant_link(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    """A registrant's link that opens nothing (404) counts as a failure of the address, as a
    wrong table link does (``tournament.site.ratelimit``); past the limit the answer is a 429.
    A link that works is never limited: the count is read only once the link failed."""
    if response.status_code != 404 or not REGISTRANT_PATH.match(request.path):
        return response
    if ratelimit.failures(request) < ratelimit.limit():
        ratelimit.record_failure(request)
        return response
    detail = _(
        "Too many wrong links from this address. Wait %(minutes)s minutes, then try again "
        "with the link of your last mail."
    ) % {"minutes": max(1, ratelimit.window() // 60)}
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": detail, "errors": {}}, status=429)
    return render(request, "history/too_many.html", {"message": detail}, status=429)


class LinkReplacedMiddleware:
    """Turn LinkReplaced, raised by any table page, into the "this link was replaced" page
    (410), and TooManyFailures (too many bad links from one address) into a 429 page; count
    a registrant's wrong links (``wrong_registrant_link``)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return wrong_registrant_link(request, self.get_response(request))

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, LinkReplaced):
            return render(request, "races/link_replaced.html", status=410)
        if isinstance(exception, TooManyFailures):
            return too_many_page(request, exception)
        return None


def kept_private(request: HttpRequest) -> bool:
    """True for an answer no cache may keep: a registrant's pages (their link is in the
    address), an organiser's (logged in), an API answer to a token."""
    if REGISTRANT_PATH.match(request.path):
        return True
    if request.path.startswith("/api/") and request.headers.get("Authorization"):
        return True
    user = getattr(request, "user", None)
    return user is not None and user.is_authenticated


class NoStoreMiddleware:
    """``Cache-Control: private, no-store`` on a person's pages (``kept_private``): a shared
    computer's browser or a proxy keeps no copy of a registrant's name and status or of what
    race control sees."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if kept_private(request):
            # Replaces what a view set (a public page's no-cache): no-store says more.
            response["Cache-Control"] = "private, no-store"
        return response
