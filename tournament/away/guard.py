"""The away guard: while an event is away (a hosted check-out neither cancelled nor
returned), every write of that event answers 409 ("the day runs at the venue since …"):
the API's for organiser and table tokens, and the pages' forms; its pages say so.

One place for every route: the event comes from the URL (``event`` of the API's
``/events/{event}/…``, ``slug`` of the pages under ``e/``), from a referee link (``token``
of ``q/…`` and ``r/…``, found through the ground's link lookups) or from a registrant's
link (their own page and ``/api/v1/registrations/{token}``, the confirmation page and
``POST /api/v1/registrations/confirm``, found by the link's digest): while the event is
away they read but do not write (DOMAIN.md "Corrections to 'Before the day'"). The trip's
own routes (check-out, its cancellation, the return) are left to their views.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils import formats, timezone
from django.utils.functional import SimpleLazyObject
from django.utils.translation import gettext as _

from tournament.access import table_for_link
from tournament.away.models import Checkout
from tournament.errors import NotFound
from tournament.sealing import link_digest
from tournament.signup.models import Registration
from tournament.signup.selectors import event_to_sign_up

SAFE = ("GET", "HEAD", "OPTIONS")
#: The trip's own routes: they act on an event away on purpose.
OWN = re.compile(r"^/(?:api/v1/events/[^/]+/(?:checkout|return)|e/[^/]+/away/)")
#: A registrant's links: their own page and its API (``token``), the confirmation page.
OWN_LINK = ("registrations/<str:token>/", "api/v1/registrations/<token>")
CONFIRM_LINK = "registrations/confirm/<str:token>/"
CONFIRM_API = "/api/v1/registrations/confirm"
#: A secret longer than this is no link (``signup.services``: looked up up to 100).
LINK_MAX = 100
#: A sign-up through the API (``POST /api/v1/events/{event}/registrations``).
SIGN_UP_API = re.compile(r"^/api/v1/events/[^/]+/registrations$")


def _registration_event(**digest: str) -> Any:
    """The event of the registration whose link has ``digest`` (``link_digest=…`` or
    ``confirm_digest=…``), as a lookup, or None."""
    event_id = Registration.objects.filter(**digest).values_list("event_id", flat=True).first()
    return None if event_id is None else {"event_id": event_id}


def _confirm_token(request: HttpRequest) -> str | None:
    """The token of ``POST /api/v1/registrations/confirm`` (``{token}``), or None."""
    try:
        body = json.loads(request.body or b"{}")
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    token = body.get("token") if isinstance(body, dict) else None
    return token if isinstance(token, str) else None


def _registrant_link(request: HttpRequest, route: str, token: Any) -> Callable[[], Any] | None:
    """How to find the event of a registrant's link, or None for another route."""
    if route == CONFIRM_LINK or (request.path == CONFIRM_API and request.method not in SAFE):
        if route != CONFIRM_LINK:
            token = _confirm_token(request)
        kind = "confirm_digest"
    elif route in OWN_LINK:
        kind = "link_digest"
    else:
        return None
    if not isinstance(token, str) or len(token) > LINK_MAX:
        return None
    secret = token
    return lambda: _registration_event(**{kind: link_digest(secret)})


def _event_of(request: HttpRequest, kwargs: dict[str, Any]) -> Callable[[], Any] | None:
    """How to find the request's event (a lookup by slug or id, or None), or None for a
    route of no event. A referee link's table is looked up when asked only."""
    match = request.resolver_match
    route = ((match.route if match else "") or "").lstrip("^")
    if isinstance(kwargs.get("event"), str) and request.path.startswith("/api/"):
        return lambda: {"event__slug": kwargs["event"]}
    if isinstance(kwargs.get("slug"), str) and route.startswith("e/"):
        return lambda: {"event__slug": kwargs["slug"]}
    token = kwargs.get("token")
    registrant = _registrant_link(request, route, token)
    if registrant is not None:
        return registrant
    if isinstance(token, str) and route[:2] in ("q/", "r/"):

        def by_link() -> Any:
            table = table_for_link(token)
            return None if table is None else {"event_id": table.event_id}

        return by_link
    return None


def _since(lookup: Callable[[], Any]) -> Any:
    event = lookup()
    return None if event is None else away_since(**event)


def away_since(**event: Any) -> Any:
    """When the event (``event__slug=…``, ``event_id=…`` or ``event=…``) left for the venue,
    or None when it is home."""
    return (
        Checkout.objects.filter(
            side=Checkout.Side.HOSTED,
            cancelled_at__isnull=True,
            returned_at__isnull=True,
            **event,
        )
        .values_list("at", flat=True)
        .first()
    )


def _sign_up(request: HttpRequest, slug: Any) -> HttpResponse | None:
    """A sign-up's guard: its event is read with its announcement and whether it is away,
    in the one statement its view needs (handed over as ``request.signup_event``), instead
    of a query of its own: a rush's sign-up, one query fewer."""
    try:
        event = event_to_sign_up(slug) if isinstance(slug, str) else None
    except NotFound:
        return None  # the view answers its 404
    if event is None:
        return None
    if event.away_since is not None:
        request.away_since = event.away_since  # type: ignore[attr-defined]
        return refused(request, event.away_since)
    request.signup_event = event  # type: ignore[attr-defined]
    return None


def refusal_text(since: Any) -> str:
    shown = formats.date_format(timezone.localtime(since), "DATETIME_FORMAT")
    return _("The day runs at the venue since %(since)s: this event is written there.") % {
        "since": shown
    }


def refused(request: HttpRequest, since: Any) -> HttpResponse:
    """The 409 of a write to an event away: JSON in the API, a page elsewhere."""
    detail = refusal_text(since)
    if request.path.startswith("/api/"):
        return JsonResponse(
            {"detail": detail, "errors": {}, "away_since": since.isoformat()}, status=409
        )
    return render(request, "away/refused.html", {"detail": detail}, status=409)


class AwayGuardMiddleware:
    """The guard (module docstring); ``request.away_since`` tells the pages to say so."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_view(
        self, request: HttpRequest, view: Any, args: Any, kwargs: dict[str, Any]
    ) -> HttpResponse | None:
        # A rush's confirmations: their view reads the check-out with the registration it
        # locks (``signup.selectors``) and answers this 409 itself, two queries fewer.
        if OWN.match(request.path) or (request.method == "POST" and request.path == CONFIRM_API):
            return None
        if request.method == "POST" and SIGN_UP_API.match(request.path):
            return _sign_up(request, kwargs.get("event"))
        event = _event_of(request, kwargs)
        if event is None:
            return None
        if request.method in SAFE:
            # Read when a page is built only: a public page served from the cache asks
            # nothing (its key holds the check-outs' change counter, ``public_page``).
            request.away_since = SimpleLazyObject(lambda: _since(event))  # type: ignore[attr-defined]
            return None
        since = _since(event)
        if since is None:
            return None
        request.away_since = since  # type: ignore[attr-defined]
        return refused(request, since)
