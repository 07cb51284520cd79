"""Public pages under a publication spike: built once, served compressed, never stale.

When race control publishes the tables, a few hundred phones open the same handful of
pages within seconds. ``public_page`` keeps each page's answer in the cache under a key made
of the database's change counters of the tables the page reads (``tournament.public.freshness``):
a confirmation, a publication, a new points scale or a renamed driver moves a counter, the
next visitor gets a page built after it. No time-to-live decides: a page is never stale.

Who gets the cached page: visitors without a session (players, the projector). Anyone
logged in (race control, a referee account) gets the page built for them, uncached: it may
show what the public does not see, and carries their name and a CSRF token.

Compression without BREACH: the stored page is compressed once per encoding, when the first
phone asking for it comes or when it is built ahead of them (browsers offer brotli over HTTPS
only: on the venue's plain-HTTP Wi-Fi every phone asks for gzip), and only such pages are
compressed. They carry no secret
(no CSRF token: the language switch is a link, and ``request.public_page`` tells the base
template to leave the token out), so an attacker reflecting text into one learns nothing by
its size.

Conditional requests: each stored page has an ``ETag`` (a digest of its body) and a
``Last-Modified``; a phone that asks again with them gets ``304 Not Modified`` and no body.

Built before the phones come: publishing an event (``tournament.public.tasks.warm_event_pages``,
after the commit) builds its public pages as a phone would ask for them (``warm``), so the
room opening them a second later finds them stored. The cache must then be shared by the
server's processes: Redis when hosted, a folder (``CACHE_DIR``, ``tournament.public.shared_cache``)
for ``make venue``.

Django, brotli and the standard library only; the pages declare their tables as model
labels.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import io
import logging
import threading
import time
from collections.abc import Callable, Iterable
from functools import partial, wraps
from typing import Any
from urllib.parse import urlsplit

import brotli
from django.conf import settings
from django.core.cache import cache
from django.core.handlers.base import BaseHandler
from django.core.handlers.wsgi import WSGIRequest
from django.db import connection, connections
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.utils import timezone
from django.utils.cache import get_conditional_response, patch_vary_headers
from django.utils.http import http_date
from django.utils.translation import get_language
from django_htmx.middleware import HtmxDetails

from tournament.public import freshness, players
from tournament.site.accounts.laptop import guarded

#: How long a page stays when nothing changes (its key changes with the data anyway).
TIMEOUT = 3600
#: Variants of one page kept at most per version of its data: its query strings (a sort, a
#: name searched) and, on a page that shows "your table", the player this phone remembers.
#: Beyond, a variant is built for its visitor and not kept; the plain page always is. Without
#: a bound, every new query string stored another page (300 requests: 7.8 MB).
MAX_VARIANTS = 100
#: Bytes of variants kept at most, all pages and versions together, per ``TIMEOUT`` (a page
#: kept lives that long): 100 variants per page and version multiplied across the players'
#: pages and every version of their data (issue 32). Beyond, variants are built for their
#: visitor and not kept until the window ends; the plain pages, which only race control's
#: changes multiply, always are. Their compressed copies are added to a page kept later,
#: so twice this and its two encodings bound what the variants take in the cache.
MAX_VARIANT_BYTES = 32 * 2**20
VARIANT_BYTES = "paddock:public:variant-bytes"
#: A query value longer than this is not kept (a name searched is cut at 60 characters).
MAX_VALUE = 100
BROTLI_QUALITY = 5  # fast enough to build under a spike, close to the best ratio for HTML
GZIP_LEVEL = 6

View = Callable[..., HttpResponseBase]
logger = logging.getLogger(__name__)

#: Builds of one page by several processes at once: how long a build may hold the page's lock
#: in the shared cache (a build that died with its process frees it then), how long another
#: process waits for that build before building the page itself, and how often it looks.
BUILD_LOCK_SECONDS = 30
WAIT_SECONDS = 10.0
WAIT_STEP = 0.01
#: Counters of the public pages' builds and of the requests that waited for another's build.
BUILDS = "paddock:public:builds"
WAITS = "paddock:public:waits"

_locks: dict[str, threading.Lock] = {}
_locks_guard = threading.Lock()


def is_public_request(request: HttpRequest) -> bool:
    """A visitor without a session reading a page, with no message waiting for them."""
    return (
        request.method in ("GET", "HEAD")
        and settings.SESSION_COOKIE_NAME not in request.COOKIES
        and "messages" not in request.COOKIES
    )


def _variant(request: HttpRequest, params: frozenset[str], personal: bool) -> str | None:
    """What makes this request's answer a variant of the page: the query parameters the page
    reads, and the player remembered on a page that shows "your table". "" for the plain
    page; None when the answer must not be kept (a parameter the page does not read, a
    parameter twice, a value too long to be a real one)."""
    items = sorted(request.GET.lists())
    if any(name not in params or len(values) != 1 for name, values in items):
        return None
    if any(len(values[0]) > MAX_VALUE for _name, values in items):
        return None
    query = "&".join(f"{name}={values[0]}" for name, values in items)
    me = players.remembered_value(request) if personal else ""
    return f"{query}\x1f{me}" if query or me else ""


def _digest(*parts: str) -> str:
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:40]


def _key(request: HttpRequest, view_name: str, counters: tuple[int, ...], variant: str) -> str:
    version = ".".join(str(c) for c in counters)
    # As django-htmx reads it (request.htmx): a fragment only for "true". Any other value
    # (1, false, TRUE) gets the whole page, so it must be stored as the whole page.
    hx = "hx" if HtmxDetails(request) else ""
    # Under make venue's guard a phone's header says where race control logs in, the
    # laptop's offers the login (tournament.site.context): never the one to the other.
    phone = "phone" if guarded(request) else ""
    parts = (view_name, get_language() or "", hx, phone, request.path, variant, version)
    return f"paddock:page:{_digest(*parts)}"


def _room_for(request: HttpRequest, view_name: str, counters: tuple[int, ...], size: int) -> bool:
    """Whether one more variant of this page, at this version of its data, of ``size``
    bytes, may be kept: within the page's bound and the whole cache's."""
    version = ".".join(str(c) for c in counters)
    key = f"paddock:variants:{_digest(view_name, request.path, version)}"
    try:
        cache.add(key, 0, TIMEOUT)
        if cache.incr(key) > MAX_VARIANTS:
            return False
        cache.add(VARIANT_BYTES, 0, TIMEOUT)
        return bool(cache.incr(VARIANT_BYTES, size) <= MAX_VARIANT_BYTES)
    except Exception:  # noqa: BLE001 - a cache outage: nothing is kept anyway
        return False


def _lock_for(key: str) -> threading.Lock:
    with _locks_guard:
        return _locks.setdefault(key, threading.Lock())


def _release(key: str) -> None:
    with _locks_guard:
        _locks.pop(key, None)


def _stored(request: HttpRequest, response: HttpResponse) -> dict[str, Any] | None:
    """What is kept of a page: its body raw, brotli and gzip, and its validators; None for
    an answer that must not be shared (an error, a cookie, a CSRF token, not HTML)."""
    if (
        request.META.get("CSRF_COOKIE_NEEDS_UPDATE")  # a token was rendered: a secret
        or response.status_code != 200
        or response.streaming
        or response.cookies
        or not response.get("Content-Type", "").startswith("text/html")
    ):
        return None
    body = response.content
    now = int(timezone.now().timestamp())
    return {
        "body": body,
        "content_type": response["Content-Type"],
        "etag": '"' + hashlib.sha256(body).hexdigest()[:32] + '"',
        "modified": now,
        "last_modified": http_date(now),
    }


def _accepted(token: str) -> str:
    """``gzip`` for ``gzip`` or ``gzip;q=0.5``; "" for ``gzip;q=0`` (refused, RFC 9110)."""
    name, *parameters = (part.strip().lower() for part in token.split(";"))
    for parameter in parameters:
        key, _, value = parameter.partition("=")
        if key.strip() == "q":
            try:
                if float(value) <= 0:
                    return ""
            except ValueError:
                return ""
    return name


def _encoding(request: HttpRequest) -> str:
    accepted = {_accepted(token) for token in request.headers.get("Accept-Encoding", "").split(",")}
    if "br" in accepted:
        return "br"
    if "gzip" in accepted:
        return "gzip"
    return ""


def _compressed(key: str | None, page: dict[str, Any], encoding: str) -> bytes:
    """The page's body in ``encoding``, compressed the first time it is asked for and
    stored with the page under ``key`` (a race between two threads costs one compression
    more); None for a page not kept."""
    if encoding not in page:
        body = page["body"]
        if encoding == "br":
            page[encoding] = brotli.compress(body, quality=BROTLI_QUALITY, mode=brotli.MODE_TEXT)
        else:
            page[encoding] = gzip.compress(body, compresslevel=GZIP_LEVEL, mtime=0)
        if key is not None:
            _cache_set(key, page)
    return bytes(page[encoding])


def _answer(request: HttpRequest, key: str | None, page: dict[str, Any]) -> HttpResponseBase:
    response = HttpResponse(content_type=page["content_type"])
    response["ETag"] = page["etag"]
    response["Last-Modified"] = page["last_modified"]
    # Ask again each time (the 304 costs nothing): a page must never look stale.
    response["Cache-Control"] = "no-cache"
    # HX-Request too: htmx's fragments and the whole pages are different answers.
    patch_vary_headers(response, ("Accept-Encoding", "Cookie", "HX-Request"))
    # By the ETag only: a page can change twice within the second that Last-Modified
    # counts in, and a client asking "modified since" that second would be told it was not.
    conditional = get_conditional_response(request, etag=page["etag"], response=response)
    if conditional is not response:  # 304 Not Modified: no body to compress
        return conditional
    encoding = _encoding(request)
    if encoding:
        response["Content-Encoding"] = encoding
        response.content = _compressed(key, page, encoding)
    else:
        response.content = page["body"]
    return response


def public_page(
    *depends: str, params: Iterable[str] = (), personal: bool = False
) -> Callable[[View], View]:
    """Cache a public page under the change counters of the tables it reads.

    ``depends``: the ``"app_label.Model"`` of every table the page's queries touch
    (``tests/tournament/public/test_cache.py`` checks the list against the queries of each
    page: a page that starts reading another table fails there until it is added).
    ``params``: the query parameters the page reads; a request with any other is answered
    uncached (``?_export=``'s files included). ``personal``: the page shows the player this
    phone remembers (``tournament.public.players``), who is then part of its key.
    The view receives ``request.public_page = True`` when its answer is to be shared.
    """
    read = frozenset(params)
    # Every page of an event away says so (its banner): a check-out, its cancellation or its
    # return builds the pages again (tournament.away.guard).
    depends = (*depends, "tournament.Checkout")

    def decorator(view: View) -> View:
        name = f"{view.__module__}.{view.__qualname__}"
        tables: list[str] = []

        @wraps(view)
        def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
            variant = _variant(request, read, personal)
            if variant is None or not is_public_request(request):
                return view(request, *args, **kwargs)
            # Said before the cache answers too: a phone may keep the page (tournament.offline).
            request.public_page = True  # type: ignore[attr-defined]
            if not tables:
                tables.extend(freshness.table_of(label) for label in depends)
            counters = freshness.versions(connection, tables)
            if counters is None:
                return view(request, *args, **kwargs)
            key = _key(request, name, counters, variant)
            page = _cache_get(key)
            if page is None:
                # One build per page and process: the others wait for it, then share it;
                # across processes and servers, _single_flight does the same.
                try:
                    with _lock_for(key):
                        page = _cache_get(key)
                        if page is None:
                            build = _Build(view, request, args, kwargs)
                            if variant:  # the plain page is always kept
                                build.room = partial(_room_for, request, name, counters)
                            page = _single_flight(key, build)
                            if page is None:
                                return build.response
                            if not build.keep:
                                return _answer(request, None, page)  # built, not kept
                finally:
                    _release(key)
            return _answer(request, key, page)

        wrapped.public_tables = depends  # type: ignore[attr-defined]
        wrapped.public_params = read  # type: ignore[attr-defined]
        return wrapped

    return decorator


class _Build:
    """A page built by its view for ``_single_flight`` and stored, unless ``room`` says there
    is none for one more variant (``keep`` is then False); ``response``: the view's answer,
    for a page that cannot be stored (an error, a cookie, not HTML)."""

    def __init__(self, view: View, request: HttpRequest, args: Any, kwargs: Any) -> None:
        self.view, self.request, self.args, self.kwargs = view, request, args, kwargs
        self.room: Callable[[int], bool] | None = None
        self.keep = True
        self.response: HttpResponseBase | None = None

    def __call__(self, key: str) -> dict[str, Any] | None:
        self.request.public_page = True  # type: ignore[attr-defined]
        self.response = self.view(self.request, *self.args, **self.kwargs)
        _count(BUILDS)
        if not isinstance(self.response, HttpResponse):
            return None
        page = _stored(self.request, self.response)
        if page is not None:
            self.keep = self.room is None or self.room(len(page["body"]))
            if self.keep:
                _cache_set(key, page)
        return page


def _single_flight(key: str, build: _Build) -> dict[str, Any] | None:
    """The page at ``key``, built once whatever the number of processes and servers asking.

    The first to take the page's lock in the shared cache builds and stores it; the others
    wait for it (a restarted server's workers, two servers behind a proxy, a thousand
    phones at once): one build where each would have built its own, every thread busy
    with the same query. A lock left by a build that died expires; a waiter that waited
    ``WAIT_SECONDS`` builds the page itself; a page not kept (a variant beyond the bound,
    an error) is built by each of them, as before; a cache that fails lets everyone build.
    """
    lock = f"{key}:building"
    waited = False
    give_up = time.monotonic() + WAIT_SECONDS
    while True:
        if _acquire(lock):
            try:
                # A waiter may take the lock just after the build it waited for stored the
                # page and let go (between its last look and this one): it is there.
                if waited and (page := _cache_get(key)) is not None:
                    return page
                return build(key)
            finally:
                with contextlib.suppress(Exception):
                    cache.delete(lock)
        if not waited:
            waited = True
            _count(WAITS)
        time.sleep(WAIT_STEP)
        page = _cache_get(key)
        if page is not None:
            return page
        if time.monotonic() > give_up:
            return build(key)


def _acquire(lock: str) -> bool:
    try:
        return bool(cache.add(lock, 1, BUILD_LOCK_SECONDS))
    except Exception:  # noqa: BLE001 - no shared cache: each builds its own, as before
        return True


def _count(counter: str) -> None:
    """One more build (or wait) of a public page, counted in the shared cache: what the
    bench reports of a spike, and what the tests read of several processes."""
    with contextlib.suppress(Exception):
        cache.add(counter, 0, None)
        cache.incr(counter)


def counted(counter: str) -> int:
    """``BUILDS`` or ``WAITS`` so far (0 when the cache cannot say)."""
    try:
        return int(cache.get(counter) or 0)
    except Exception:  # noqa: BLE001
        return 0


def fragment(name: str, depends: Iterable[str], build: Callable[[], str], *parts: object) -> str:
    """A piece of HTML built once per version of the tables it reads (``depends``: model
    labels, as ``public_page``'s), per ``parts`` (the event it shows) and language.

    For a page built for each logged-in visitor whose largest part changes only with the
    data: race control's desk lists every entry with its check-in buttons (300 rows, half
    the desk's time), reloaded all day and unchanged but for a check-in. What is personal in
    it (a CSRF token) must be left out of ``build`` and put in by the caller.
    """
    if connection.in_atomic_block:
        # Inside a transaction, its own writes have not moved the counters yet (they move at
        # commit on PostgreSQL): what is stored for the version read may not show them.
        return build()
    counters = freshness.versions(connection, [freshness.table_of(label) for label in depends])
    if counters is None:
        return build()
    version = ".".join(str(c) for c in counters)
    key = "paddock:fragment:" + _digest(name, get_language() or "", *map(str, parts), version)
    html = _cache_get(key)
    if not isinstance(html, str):
        html = build()
        with contextlib.suppress(Exception):  # a cache outage: built each time, as before
            cache.set(key, html, TIMEOUT)
    return html


def _cache_get(key: str) -> dict[str, Any] | None:
    try:
        return cache.get(key)
    except Exception:  # noqa: BLE001 - a cache outage costs a rebuild, never an error page
        return None


def _cache_set(key: str, page: dict[str, Any]) -> None:
    with contextlib.suppress(Exception):  # same: the page is served all the same
        cache.set(key, page, TIMEOUT)


def tables_of(labels: Iterable[str]) -> set[str]:
    """The database tables of ``labels`` (for the tests' check of each page's list)."""
    return {freshness.table_of(label) for label in labels}


# --- Building pages before anyone asks ---------------------------------------------------------


def _phone_request(path: str, language: str, encoding: str) -> WSGIRequest:
    """A GET of ``path`` as a phone without a session sends it, to the site's own address
    (``SITE_URL``: a host the server allows, its scheme, so no redirect to HTTPS)."""
    site = urlsplit(settings.SITE_URL)
    https = site.scheme == "https"
    environ = {
        "REQUEST_METHOD": "GET",
        "PATH_INFO": path,
        "SCRIPT_NAME": "",
        "QUERY_STRING": "",
        "SERVER_NAME": site.hostname or "localhost",
        "SERVER_PORT": str(site.port or (443 if https else 80)),
        "SERVER_PROTOCOL": "HTTP/1.1",
        "HTTP_HOST": site.netloc or "localhost",
        "HTTP_ACCEPT_LANGUAGE": language,
        "HTTP_ACCEPT_ENCODING": encoding,
        # A phone's address, not the laptop's: under make venue's guard the phones' pages
        # are not the laptop's (_key). An address for documentation (RFC 5737), never reached.
        "REMOTE_ADDR": "192.0.2.1",
        "wsgi.url_scheme": site.scheme or "http",
        "wsgi.input": io.BytesIO(b""),
        "wsgi.errors": io.StringIO(),
    }
    if https:  # behind the proxy, as the proxy tells it
        environ["HTTP_X_FORWARDED_PROTO"] = "https"
    return WSGIRequest(environ)


def warm(
    paths: Iterable[str], *, language: str | None = None, budget: float | None = None
) -> list[str]:
    """Build and store the public pages at ``paths`` now, through the whole middleware
    stack as a phone would get them (in ``language``, the site's by default); none begun
    after ``budget`` seconds.

    In a thread of its own, even when called from a request (tasks run inline without
    Redis): the pages' requests must not touch the caller's language, history user or
    database transaction. Answers the paths that could not be stored (not public, an
    error); never raises: a page not built now is built by its first visitor.
    """
    missed: list[str] = []
    give_up = None if budget is None else time.monotonic() + budget
    worker = threading.Thread(
        target=_build, args=(list(paths), language or settings.LANGUAGE_CODE, missed, give_up)
    )
    worker.start()
    worker.join()
    return missed


def _build(paths: list[str], language: str, missed: list[str], give_up: float | None) -> None:
    try:
        handler = BaseHandler()
        handler.load_middleware()
        for index, path in enumerate(paths):
            if give_up is not None and time.monotonic() > give_up:
                missed.extend(paths[index:])
                break
            try:
                # Built with the first, compressed in the other: phones then only read.
                for encoding in ("gzip", "br"):
                    response = handler.get_response(_phone_request(path, language, encoding))
                    if response.status_code != 200:
                        break
            except Exception:  # noqa: BLE001 - the first visitor builds it then
                logger.exception("Could not build %s ahead of the phones", path)
                missed.append(path)
                continue
            if response.status_code != 200:
                missed.append(path)
    finally:
        connections.close_all()  # this thread's own connections
