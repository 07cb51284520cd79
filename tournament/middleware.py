"""Language choice: French unless the person picked another language in the menu."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils import translation


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


class LinkReplacedMiddleware:
    """Turn LinkReplaced, raised by any table page, into the "this link was replaced" page
    (410), and TooManyFailures (too many bad links from one address) into a 429 page."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        from django.shortcuts import render

        from tournament.errors import LinkReplaced
        from tournament.ratelimit import TooManyFailures, too_many_page

        if isinstance(exception, LinkReplaced):
            return render(request, "races/link_replaced.html", status=410)
        if isinstance(exception, TooManyFailures):
            return too_many_page(request, exception)
        return None
