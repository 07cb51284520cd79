"""Writes that may be sent twice (API.md "Writes that may be sent twice"): a request that
carries an ``Idempotency-Key`` header is run once per key and sender; the same key again
answers the first answer.

- the same key and the same body (a digest of the method, the path and the body) answer
  the first answer again (status, body, content type), and nothing is written;
- the same key with another body: ``422``; the same key while the first request runs: ``409``;
- a first request that fails on the server's side (an exception, a 5xx) or is turned away
  before its view judged it (401, 403, 408, 413, 429) releases its key: the phone sends it
  again later as if for the first time.

The key is claimed by inserting its row in a transaction of its own before the view runs:
the database's unique constraint decides which of two requests runs. The answer is stored
after. Keys are kept ``IDEMPOTENCY_KEEP_HOURS`` (at least 24 h); older ones are purged every
``PURGE_EVERY`` claims. A row left running by a server killed mid-request is taken over
after ``IDEMPOTENCY_STALE_SECONDS``.

Which writes: every ``POST``/``PUT``/``PATCH``/``DELETE`` of the API (an organiser's token or a
table's link) and of a table link's pages (``/q/<link>/…``, ``/r/<link>/…``). The sender is the
link (its digest), the bearer token (its digest), the logged-in user, or for anyone else
their address (a keyed digest of it), so that two referees' keys never meet.

Secrets are never kept as they are (API.md, "The door and a person's data"): the path is
kept with a link's secret replaced (``stored_path``), and the answer sealed
(``tournament.sealing``): a table's link in a redirect, a registrant's own link in the
confirmation's answer, a check-out's bundle with its signing key. A replay unseals it and
answers it byte for byte.

An anonymous sender may keep ``IDEMPOTENCY_ANON_KEYS`` keys at most (counted over the time
keys are kept): past that, its writes run as if they carried no key and nothing more is
stored, so that a stranger cannot fill the table (300 rows in 12 s were seen).
"""

from __future__ import annotations

import hashlib
import itertools
import re
from collections.abc import Callable
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils import timezone
from django.utils.crypto import salted_hmac
from django.utils.translation import gettext as _

from tournament.offline.models import IdempotencyKey
from tournament.sealing import link_digest, seal_bytes, unseal_bytes
from tournament.site.client_ip import client_ip

HEADER = "Idempotency-Key"
#: Sent with an answer given again from the stored first one.
REPLAYED_HEADER = "Idempotent-Replayed"
WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})
#: A table link's pages: ``/q/<link>/…`` (qualifying) and ``/r/<link>/…`` (race).
TABLE_PATH = re.compile(r"^/(?:q|r)/(?P<token>[^/]+)/")
#: A registrant's own link in the API (``/api/v1/registrations/<link>``), not ``…/confirm``.
OWN_PATH = re.compile(r"^/api/v\d+/registrations/(?P<token>(?!confirm/?$)[^/]+)")
#: What a link's secret reads as in a kept path.
HIDDEN = "<link>"
#: How a sealed answer begins (a Fernet token: version byte 0x80, in base64).
SEALED_PREFIX = b"gAAAAA"
KEY_RE = re.compile(r"^[A-Za-z0-9_.:-]{8,100}$")
#: Answers that mean "not judged yet": the key is released, a later send runs for real.
RELEASED = frozenset({401, 403, 408, 413, 429})
PURGE_EVERY = 200
_claims = itertools.count(1)


def keep_for() -> timedelta:
    return timedelta(hours=max(24, int(getattr(settings, "IDEMPOTENCY_KEEP_HOURS", 48))))


def stale_after() -> timedelta:
    return timedelta(seconds=int(getattr(settings, "IDEMPOTENCY_STALE_SECONDS", 300)))


def anon_keys() -> int:
    return int(getattr(settings, "IDEMPOTENCY_ANON_KEYS", 100))


def applies(request: HttpRequest) -> bool:
    """True for a write of the API or of a table link's pages."""
    if request.method not in WRITES:
        return False
    return request.path.startswith("/api/") or bool(TABLE_PATH.match(request.path))


def scope_of(request: HttpRequest) -> str:
    """Who sent it: a table link, a bearer token, a logged-in user, or nobody known."""
    found = TABLE_PATH.match(request.path)
    if found:
        return f"link:{link_digest(found['token'])}"
    header = request.headers.get("Authorization", "").strip()
    scheme, _space, token = header.partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return f"token:{link_digest(token.strip())}"
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return f"user:{user.pk}"
    # Anyone else is their address, kept as a keyed digest (an address is a person's data).
    address = client_ip(request) or "unknown"
    return "anon:" + salted_hmac("paddock.idempotency.sender", address).hexdigest()[:32]


def stored_path(path: str) -> str:
    """``path`` as kept in the table: a table's or a registrant's link replaced by
    ``HIDDEN``, so that the row opens nothing."""
    for pattern in (TABLE_PATH, OWN_PATH):
        found = pattern.match(path)
        if found:
            path = path[: found.start("token")] + HIDDEN + path[found.end("token") :]
    return path[:500]


def over_anon_cap(scope: str) -> bool:
    """True when an anonymous sender keeps as many keys as it may."""
    if not scope.startswith("anon:"):
        return False
    since = timezone.now() - keep_for()
    kept = IdempotencyKey.objects.filter(scope=scope, created_at__gte=since)
    return kept.count() >= anon_keys()


def body_digest(request: HttpRequest) -> str:
    """SHA-256 of the method, the path and the body. A form's fields are read as parsed
    (the CSRF token left out: a page reloaded between two sends has another one) and its
    files by their content, so that a photo larger than what Django keeps in memory is
    digested too."""
    digest = hashlib.sha256(f"{request.method} {request.path}\n".encode())
    content_type = request.META.get("CONTENT_TYPE", "")
    if content_type.startswith(("multipart/form-data", "application/x-www-form-urlencoded")):
        for name in sorted(request.POST):
            if name == "csrfmiddlewaretoken":
                continue
            for value in request.POST.getlist(name):
                digest.update(f"{name}={value}\n".encode())
        for name in sorted(request.FILES):
            for upload in request.FILES.getlist(name):
                digest.update(f"{name}:{upload.name}:{upload.size}\n".encode())
                for chunk in upload.chunks():
                    digest.update(chunk)
                upload.seek(0)
    else:
        digest.update(request.body)
    return digest.hexdigest()


def _error(status: int, detail: str) -> JsonResponse:
    return JsonResponse({"detail": detail, "errors": {}}, status=status)


def _replay(row: IdempotencyKey) -> HttpResponse:
    """The first answer again. A redirect's ``Location`` is what its stored body holds."""
    stored = bytes(row.response)
    if stored.startswith(SEALED_PREFIX):
        opened = unseal_bytes(stored)
        if opened is None:  # sealed with a key this server no longer has
            return _error(
                422,
                _(
                    "This request was already answered, and its answer can no longer be "
                    "read here: open the page again to see what was saved."
                ),
            )
        stored = opened
    # Else an answer kept as it was before answers were sealed: given as it is.
    status = row.status or 200
    if 300 <= status < 400:
        response = HttpResponse(status=status)
        response["Location"] = stored.decode()
    else:
        response = HttpResponse(stored, status=status, content_type=row.content_type or None)
    response[REPLAYED_HEADER] = "true"
    return response


def purge_old() -> int:
    """Forget keys older than the time they are kept; answers how many."""
    deleted, _by_model = IdempotencyKey.objects.filter(
        created_at__lt=timezone.now() - keep_for()
    ).delete()
    return deleted


def claim(
    scope: str, key: str, method: str, path: str, digest: str
) -> IdempotencyKey | HttpResponse:
    """The new row of this key (the request runs), or the answer to give instead."""
    if next(_claims) % PURGE_EVERY == 0:
        purge_old()
    for _attempt in range(2):
        try:
            with transaction.atomic():
                return IdempotencyKey.objects.create(
                    scope=scope, key=key, method=method, path=stored_path(path), body_digest=digest
                )
        except IntegrityError:
            pass
        row = IdempotencyKey.objects.filter(scope=scope, key=key).first()
        if row is None:  # released between the two: try again
            continue
        if row.body_digest != digest:
            return _error(
                422,
                _("This Idempotency-Key was already used for another request: use a new key."),
            )
        if row.status is not None:
            return _replay(row)
        if row.created_at < timezone.now() - stale_after():
            # Its server was killed while it ran: take the key over.
            IdempotencyKey.objects.filter(pk=row.pk, status__isnull=True).delete()
            continue
        return _error(409, _("This request is still being processed: try again in a moment."))
    return _error(409, _("This request is still being processed: try again in a moment."))


def release(row: IdempotencyKey) -> None:
    IdempotencyKey.objects.filter(pk=row.pk, status__isnull=True).delete()


def store(row: IdempotencyKey, response: HttpResponse) -> None:
    """Keep the first answer, or release the key for an answer that judged nothing."""
    status = response.status_code
    if status >= 500 or status in RELEASED or getattr(response, "streaming", False):
        release(row)
        return
    body = response.get("Location", "").encode() if 300 <= status < 400 else response.content
    IdempotencyKey.objects.filter(pk=row.pk).update(
        status=status,
        content_type=response.get("Content-Type", "")[:100],
        response=seal_bytes(body),
        completed_at=timezone.now(),
    )


class IdempotencyMiddleware:
    """Run a write that carries an ``Idempotency-Key`` once per key and sender."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        key = request.headers.get(HEADER, "").strip()
        if not key or not applies(request):
            return self.get_response(request)
        if not KEY_RE.match(key):
            return _error(400, _("The Idempotency-Key must be 8 to 100 letters, digits or - _ . :"))
        scope = scope_of(request)
        digest = body_digest(request)
        if (
            over_anon_cap(scope)
            and not IdempotencyKey.objects.filter(scope=scope, key=key).exists()
        ):
            return self.get_response(request)  # runs, and nothing more is stored
        found = claim(scope, key, request.method or "", request.path, digest)
        if isinstance(found, HttpResponse):
            return found
        try:
            response = self.get_response(request)
        except BaseException:
            release(found)
            raise
        store(found, response)
        return response
