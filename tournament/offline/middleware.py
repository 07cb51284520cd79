"""The offline tables' middleware (one line in ``MIDDLEWARE``): writes that may be sent twice
(``idempotency``), the outbox's answers in a form a script reads, and which pages a phone
may keep for opening offline.

- A write the page's outbox sends (header ``X-Paddock-Outbox: 1``) to a table link's page
  that answers a redirect (the race table's forms, the result's sheet) is answered instead
  ``200 {"outcome": "saved"|"refused", "messages": [{"level", "text"}], "location"}``: a
  refusal is a redirect with an error message. The messages stay for the next page too.
  This answer is the one kept for the key.
- A page a phone may keep (the service worker stores only those): a ``GET`` answered ``200``
  in HTML to someone not logged in, of a table link (``/q/…``, ``/r/…``) or a players' page
  (``public_page``), gets ``Paddock-Offline: table`` or ``public``. An organiser's page, the
  admin, a login's pages never do.
"""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, JsonResponse

from tournament.offline.idempotency import TABLE_PATH, IdempotencyMiddleware

OUTBOX_HEADER = "X-Paddock-Outbox"
KEEP_HEADER = "Paddock-Offline"


def sent_by_outbox(request: HttpRequest) -> bool:
    return request.headers.get(OUTBOX_HEADER) == "1" and bool(TABLE_PATH.match(request.path))


def outcome_of(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    """A redirect answered to the outbox, as the outcome it means."""
    if not (sent_by_outbox(request) and 300 <= response.status_code < 400):
        return response
    storage = getattr(request, "_messages", None)
    queued = list(getattr(storage, "_queued_messages", []) or [])
    said = [{"level": m.level_tag or "info", "text": str(m.message)} for m in queued]
    refused = any(m.level >= messages.ERROR for m in queued)
    return JsonResponse(
        {
            "outcome": "refused" if refused else "saved",
            "messages": said,
            "location": response.get("Location", ""),
        }
    )


def keep_kind(request: HttpRequest, response: HttpResponse) -> str:
    """``table``, ``public`` or "" (not to be kept on a phone)."""
    if request.method != "GET" or response.status_code != 200:
        return ""
    if not response.get("Content-Type", "").startswith("text/html"):
        return ""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return ""
    if TABLE_PATH.match(request.path):
        return "table"
    if getattr(request, "public_page", False):
        return "public"
    return ""


class OfflineMiddleware:
    """Idempotent writes, the outbox's outcomes, the pages a phone may keep."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.writes = IdempotencyMiddleware(self._answered)

    def _answered(self, request: HttpRequest) -> HttpResponse:
        return outcome_of(request, self.get_response(request))

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method != "GET":
            return self.writes(request)
        response = self.get_response(request)
        kind = keep_kind(request, response)
        if kind:
            response[KEEP_HEADER] = kind
        return response
