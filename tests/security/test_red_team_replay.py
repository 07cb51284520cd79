"""The red team's requests again give 0 server errors (issue 20), against Paddock served for
real: gunicorn, production settings (DEBUG off), the suite's PostgreSQL database and this
worker's Redis database.

The red team's own request set is not ours; their kinds of requests are (``red_team.py``).
Every URL pattern and API operation of the permission matrix, on the hostile event of
``hostile.py`` (published, every name markup or a formula), is sent by the organiser, a
referee's link and anonymous visitors (and, with ``RED_TEAM_DEEP=1``, by the referee
accounts and an outsider too; the in-process matrix checks what each may open):

- pages plainly (GET; POST by the organiser), then in variants cycling through the kinds:
  htmx headers, query strings unknown, repeated, long, not UTF-8, out of range and exports,
  cookies garbled and huge, encodings refused, validators garbled, languages that do not
  exist, foreign hosts, forwarded addresses; a method a browser does not send (each caller
  in turn); each path with odd arguments; odd photos to the photo pages;
- API operations plainly, then with bodies the API does not read (broken, deep, NaN, wrong
  types, huge, NUL, lone surrogates, not UTF-8, other content types, odd photos) and
  authorizations that are not tokens;
- every form the pages show (to the organiser and a table's link), filled with hostile
  names, then with numbers out of range and garbled hidden fields; last, the renewals of
  referee links (they end the links the rest uses).

No answer is a 5xx, none shows a traceback, a hostile name unescaped or an encoding the
client refused, no 304 answers a validator that cannot match, and the server logs no
error. Before that, the public pages hold against the findings on their cache: an htmx
request stores nothing a plain visitor then gets, a page's own ETag gets its 304 and another
ETag of the same second does not, and query strings, cookies and headers that change nothing
on a page store nothing more.

The tests of each finding are beside their code; this one is the "Done when" of the issue.
How many requests of each kind were sent: ``-s`` without pytest-xdist, or the file named by
``RED_TEAM_SUMMARY``.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import threading
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

import httpx
import pytest
import redis
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings
from django.urls import resolve, reverse

from tests.faults.conftest import postgresql_environment, suite_database_url
from tests.faults.processes import Gunicorn
from tests.security import red_team
from tests.security.conftest import SESSIONS, World
from tests.security.hostile import give_hostile_names, hostile_world, unescaped
from tests.security.red_team import CSRF, Shot
from tests.security.test_permission_matrix import API, PAGES, ROLES, api_path, api_token

pytestmark = pytest.mark.skipif(
    not os.environ.get("REDIS_URL"), reason="the server shares this worker's Redis database"
)

#: ``RED_TEAM_DEEP=1``: every caller of every page and operation meets more kinds (about
#: 6,400 requests, minutes); by default the replay stays near CI's minute (about 1,350).
DEEP = bool(os.environ.get("RED_TEAM_DEEP"))
#: Variants of each (caller, page): cycling through the kinds, so that a page meets several
#: kinds and a kind meets pages of every caller.
VARIANTS_PER_PAGE = 3 if DEEP else 1
#: Odd bodies sent to each write operation by its organiser and by a table's link (cycling
#: through the kinds; all of them when deep).
BODIES = {"organiser": 3, "link": 1}
#: Threads sending at once (the server: two workers of four threads).
SENDERS = 6
#: Of each public page, requests that must not store another copy of it.
GROWTH_REQUESTS = 12 if DEEP else 3
#: The pages a photo of a signed sheet is sent to (the field: ``photo``).
PHOTO_PAGES = ("rtable-photo-add", "photo-desk")
#: Callers whose sessions open pages: role → the world's user.
ACCOUNTS = {"organiser": "organiser", "account": "ref1", "other": "ref2", "outsider": "outsider"}


@dataclass
class Target:
    role: str
    path: str
    name: str
    kwargs: dict[str, Any]


@dataclass
class Api:
    method: str
    path: str  # as in the OpenAPI document
    url: str
    body: Any
    token: str | None
    role: str


@dataclass
class Replay:
    world: World
    server: Gunicorn
    pages: list[Target]
    api: list[Api]
    setup: dict[str, float]
    counts: Counter[str] = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)
    seen: list[tuple[Shot, str]] = field(default_factory=list)  # pages with forms
    lock: threading.Lock = field(default_factory=threading.Lock)

    def cookies(self, role: str) -> dict[str, str]:
        jar = {"django_language": "en"}
        if role in ACCOUNTS:
            jar["sessionid"] = SESSIONS[self.world.users[ACCOUNTS[role]].pk]
        return jar


def _targets(world: World) -> tuple[list[Target], list[Api]]:
    pages = []
    for name in sorted(PAGES):
        arguments, _expected = PAGES[name]
        for role in ROLES:
            kwargs = arguments(world, role)
            pages.append(Target(role, reverse(name, kwargs=kwargs), name, kwargs))
    api = []
    for method, path in sorted(API):
        body = API[(method, path)][0]
        body = body(world) if callable(body) else body
        url = "/api/v1" + api_path(world, path)
        for role in ROLES:
            api.append(Api(method, path, url, body, api_token(world, role, path), role))
    return pages, api


@pytest.fixture(scope="module")
def replay(
    django_db_setup: None, django_db_blocker: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Replay]:
    """The hostile event, committed, served by gunicorn with the production settings.

    The server and this process share a secret key of their own: the world's sessions and
    referee links (sealed with the key) open on the server; the published development key
    of the tests would stop a production server from starting.
    """
    started = time.monotonic()
    key = secrets.token_urlsafe(50)
    folder = tmp_path_factory.mktemp("red-team")
    with override_settings(SECRET_KEY=key), hostile_world(django_db_blocker) as world:
        with django_db_blocker.unblock():
            give_hostile_names(world)  # markup too, besides the formulas
            pages, api = _targets(world)
            database = suite_database_url()
        env = postgresql_environment(
            folder,
            database,
            SECRET_KEY=key,
            REDIS_URL=os.environ["REDIS_URL"],
            ALLOWED_HOSTS="127.0.0.1",
            SITE_URL="http://127.0.0.1",
            SECURE_HSTS_SECONDS="0",
            # The password reset pages exist (as in the permission matrix).
            EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend",
            # Every caller is 127.0.0.1: the red team's bad links and logins would lock the
            # address, and the rest of the replay would meet 429s instead of the pages.
            TOKEN_FAILURE_LIMIT="1000000",
            AXES_FAILURE_LIMIT="1000000",
            LOGIN_ADDRESS_FAILURE_LIMIT="1000000",
        )
        built = time.monotonic() - started
        with Gunicorn(env, folder, workers=2, threads=4) as server:
            setup = {"world": built, "server": time.monotonic() - started - built}
            yield Replay(world, server, pages, api, setup)


# --- Sending ------------------------------------------------------------------------------


_local = threading.local()


def _client() -> httpx.Client:
    if not hasattr(_local, "client"):
        _local.client = httpx.Client(timeout=60, follow_redirects=False)
    return _local.client


def send(replay: Replay, shot: Shot) -> httpx.Response | None:
    """``shot`` sent to the server; its answer judged and counted. None: the server closed
    the connection without a word (a problem too)."""
    client = _client()
    # A connection of its own: a connection the server dropped is then its answer to this
    # request, not a keep-alive connection closed between two.
    headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in shot.headers]
    headers.append((b"Connection", b"close"))
    try:
        response = client.request(
            shot.method, replay.server.url + shot.path, headers=headers, content=shot.body
        )
        content = response.content
    except httpx.DecodingError:
        # A body that does not decode as its Content-Encoding says: read it raw to judge.
        response = client.request(
            shot.method,
            replay.server.url + shot.path,
            headers=[*headers, (b"Accept-Encoding", b"identity")],
            content=shot.body,
        )
        content = b""
        wrong = [f"a body that is not its Content-Encoding for {shot}"]
    except httpx.TransportError as error:
        response, content, wrong = None, b"", [f"no answer ({error!r}) to {shot}"]
    else:
        wrong = []
    finally:
        client.cookies.clear()  # each shot carries its own cookies, nothing else
    if response is not None:
        wrong += red_team.judge(
            shot, response.status_code, {k.lower(): v for k, v in response.headers.items()}, content
        )
    with replay.lock:
        replay.counts[shot.kind] += 1
        replay.problems.extend(wrong)
    return response


def play(replay: Replay, shots: Iterable[Shot]) -> list[tuple[Shot, httpx.Response | None]]:
    shots = list(shots)
    with ThreadPoolExecutor(SENDERS) as pool:
        return list(zip(shots, pool.map(lambda shot: send(replay, shot), shots), strict=True))


def _cookies(jar: dict[str, str]) -> dict[str, str]:
    return {"Cookie": red_team.cookie_header(jar)} if jar else {}


def _csrf(replay: Replay, role: str) -> dict[str, str]:
    """A POST's headers that pass the CSRF check (the caller's cookies with the secret)."""
    return {"X-CSRFToken": CSRF, **_cookies({**replay.cookies(role), "csrftoken": CSRF})}


# --- The kinds of requests ------------------------------------------------------------------


def page_shots(replay: Replay) -> Iterator[Shot]:
    """Each page as each caller: plainly (GET; POST by those who write), in variants cycling
    through the kinds, and with a method a browser does not send (one caller a page)."""
    variant = 0
    for index, target in enumerate(replay.pages):
        jar, role = replay.cookies(target.role), target.role
        if DEEP or role in ("organiser", "link"):
            yield Shot("page-get", "GET", target.path, role, tuple(_cookies(jar).items()))
        if DEEP or role == "organiser":  # a link's forms are posted filled (form_shots)
            yield Shot("page-post", "POST", target.path, role, tuple(_csrf(replay, role).items()))
        if DEEP or role in ("organiser", "link", "anonymous"):
            for _ in range(VARIANTS_PER_PAGE):
                yield red_team.get_variant(target.path, role, jar, variant)
                variant += 1
        if target.name in PHOTO_PAGES and role in ("organiser", "link"):
            for kind, content_type, raw in photo_bodies("photo"):
                headers = {**_csrf(replay, role), "Content-Type": content_type}
                yield Shot(kind, "POST", target.path, role, tuple(headers.items()), raw)
        page = index // len(ROLES)
        if DEEP or index % len(ROLES) == page % len(ROLES):
            method = red_team.METHODS[page % len(red_team.METHODS)]
            headers = tuple(_csrf(replay, role).items())
            yield Shot(f"method-{method.lower()}", method, target.path, role, headers)


#: Arguments of a URL replaced by what its converter still matches, or not.
ODD_ARGUMENTS = [
    "99999999999999999999", "%ff%fe", "%00", "x" * 300, "..%2f..%2fetc", "-1", "%C2%B2",
]  # fmt: skip


def path_shots(replay: Replay) -> Iterator[Shot]:
    """Each page's path with each of its arguments odd in turn (the organiser's)."""
    variant = 0
    for target in replay.pages:
        if target.role != "organiser":
            continue
        jar = _cookies(replay.cookies("organiser"))
        for value in target.kwargs.values():
            segment = f"/{value}/"
            if segment not in target.path:
                continue
            odd = ODD_ARGUMENTS[variant % len(ODD_ARGUMENTS)]
            variant += 1
            if not DEEP and variant % 2:
                continue  # every other argument (each odd value meets both halves in turn)
            path = target.path.replace(segment, f"/{odd}/", 1)
            yield Shot("path-odd-argument", "GET", path, "organiser", tuple(jar.items()))


def _authorization(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


def api_shots(replay: Replay, *, renewals: bool = False) -> Iterator[Shot]:
    """Each operation as each caller, then bodies it does not read and tokens that are not.
    The renewals of referee links apart (``renewals``): they end the links the rest uses."""
    variant = 0
    for op in replay.api:
        if op.path.endswith("/referee-link") != renewals:
            continue
        headers = {"Accept-Language": "en", **_authorization(op.token)}
        content, content_type = _valid(op.body)
        plain = {**headers, **({"Content-Type": content_type} if content_type else {})}
        if DEEP or op.role in ("organiser", "link"):
            call = (op.method.upper(), op.url, op.role, tuple(plain.items()), content)
            yield Shot("api-call", *call)
        if op.method == "get":
            if DEEP or op.role == "organiser":
                query = list(red_team.QUERIES.values())[variant % len(red_team.QUERIES)]
                variant += 1
                yield Shot("api-get-query", "GET", red_team.with_query(op.url, query), op.role,
                           tuple(headers.items()))  # fmt: skip
            continue
        # Odd bodies as the organiser and as a table's link, who get past the door; the
        # others are refused whatever the body.
        bodies = list(red_team.api_bodies(op.body))
        if "photos" in op.path:
            bodies += list(photo_bodies())
        if DEEP and op.role not in BODIES:
            bodies = [bodies[variant % len(bodies)]]
        elif not DEEP:
            count = BODIES.get(op.role, 0)
            bodies = [bodies[(variant + i) % len(bodies)] for i in range(count)]
        variant += 1
        for kind, content_type, raw in bodies:
            yield Shot(kind, op.method.upper(), op.url, op.role,
                       tuple({**headers, "Content-Type": content_type}.items()), raw)  # fmt: skip
    kinds = list(red_team.AUTHORIZATIONS.items())
    chosen = [o for o in replay.api if o.role == "organiser"]
    for index, op in enumerate(o for o in chosen if o.path.endswith("/referee-link") == renewals):
        kind, authorization = kinds[index % len(kinds)]
        yield Shot(kind, op.method.upper(), op.url, "api", (("Authorization", authorization),))


def photo_bodies(field: str = "file") -> Iterator[tuple[str, str, bytes]]:
    """(kind, content type, body) of each odd photo, as a phone would send it (multipart)."""
    for kind, (name, content_type, raw) in red_team.PHOTOS.items():
        files = {field: (name, raw, content_type)}
        request = httpx.Request("POST", "http://127.0.0.1/", files=files)
        yield kind, request.headers["Content-Type"], request.read()


def _read(upload: SimpleUploadedFile) -> bytes:
    upload.seek(0)
    return upload.read()


def _valid(body: Any) -> tuple[bytes | None, str | None]:
    """A valid body as bytes, and its content type (photos: multipart, as a phone sends)."""
    if body is None:
        return None, None
    if isinstance(body, tuple):
        content_type, raw = body
        return raw.encode(), content_type
    if isinstance(body, dict) and any(isinstance(v, SimpleUploadedFile) for v in body.values()):
        files = {k: (v.name, _read(v), v.content_type) for k, v in body.items()}
        request = httpx.Request("POST", "http://127.0.0.1/", files=files)
        return request.read(), request.headers["Content-Type"]
    return json.dumps(body).encode(), "application/json"


def form_shots(replay: Replay) -> Iterator[Shot]:
    """Every form of the pages the organiser and a table's link were shown, posted twice:
    with hostile names, then with odd numbers and hidden fields. Logging out is left out
    (the sessions serve the whole replay)."""
    posted = set()
    seed = 0
    for shot, html in replay.seen:
        parser = red_team.FormParser(shot.path)
        parser.feed(html)
        for form in parser.forms:
            action = urljoin(shot.path, form.action)
            key = (shot.role, urlsplit(action).path, tuple(name for _k, name, _v in form.fields))
            if form.method.lower() != "post" or key in posted or "logout" in action:
                continue
            if urlsplit(action).netloc:
                continue  # another site's
            posted.add(key)
            for how in ("hostile", "odd"):
                data = httpx.Request(
                    "POST", "http://127.0.0.1/", data=dict(red_team.filled(form, how, seed))
                )
                seed += 1
                headers = {**_csrf(replay, shot.role),
                           "Content-Type": "application/x-www-form-urlencoded"}  # fmt: skip
                yield Shot(f"form-{how}", "POST", action, shot.role, tuple(headers.items()),
                           data.read())  # fmt: skip


# --- The public cache --------------------------------------------------------------------------


def page_keys(client: redis.Redis) -> int:
    return sum(1 for _ in client.scan_iter(match="*paddock:page:*", count=1000))


def cache_problems(replay: Replay, public: list[str]) -> list[str]:
    """The findings on the public cache, on each public page: an htmx request poisons
    nothing, validators say what they mean, and what changes nothing on a page stores no
    other copy of it."""
    wrong = []
    store = redis.Redis.from_url(os.environ["REDIS_URL"])
    plain = {"Accept-Encoding": "gzip"}
    for path in public:
        first = send(replay, Shot("cache-plain", "GET", path, "anonymous", tuple(plain.items())))
        hx = {**plain, "HX-Request": "true", "HX-Target": "standings"}
        send(replay, Shot("cache-hx", "GET", path, "anonymous", tuple(hx.items())))
        again = send(replay, Shot("cache-plain", "GET", path, "anonymous", tuple(plain.items())))
        if first is None or again is None:
            continue
        if again.content != first.content or b"<html" not in again.content:
            wrong.append(f"{path}: a plain visitor got another page after an htmx request")
        if "HX-Request" not in again.headers.get("Vary", ""):
            wrong.append(f"{path}: Vary without HX-Request ({again.headers.get('Vary')})")
        etag, modified = first.headers.get("ETag"), first.headers.get("Last-Modified")
        if etag is None or modified is None:
            wrong.append(f"{path}: a public page without validators")
            continue
        own = (("If-None-Match", etag),)
        same = send(replay, Shot("cache-etag", "GET", path, "anonymous", own))
        if same is not None and same.status_code != 304:
            wrong.append(f"{path}: {same.status_code}, not 304, to its own ETag")
        since = (("If-Modified-Since", modified), ("If-None-Match", '"other"'))
        changed = send(replay, Shot("cache-since", "GET", path, "anonymous", since))
        if changed is not None and changed.status_code != 200:
            wrong.append(f"{path}: {changed.status_code} to another ETag of the same second")
    before = page_keys(store)
    shots = []
    for path in public:
        for n in range(GROWTH_REQUESTS):
            unique = secrets.token_hex(6)
            headers = [
                {"Cookie": f"paddock_me={unique}; tracker={unique}"},
                {"Accept-Language": f"x{unique}"},
                {"If-None-Match": f'"{unique}"', "HX-Target": unique},
                {"User-Agent": unique, "Referer": f"http://{unique}.example/"},
            ][n % 4]
            query = f"utm_{unique}=1" if n % 3 == 0 else ""
            shots.append(Shot("cache-growth", "GET", red_team.with_query(path, query),
                              "anonymous", tuple(headers.items())))  # fmt: skip
    play(replay, shots)
    grown = page_keys(store) - before
    # One copy more per page at most (its first visitor in English asked for it).
    if grown > len(public):
        wrong.append(f"{len(shots)} requests that change nothing stored {grown} pages more")
    return wrong


def public_paths(replay: Replay) -> list[str]:
    """The anonymous paths of the pages the public cache serves (published event)."""
    found = []
    for target in replay.pages:
        if target.role == "anonymous" and hasattr(resolve(target.path).func, "public_tables"):
            found.append(target.path)
    return sorted(set(found))


# --- The test ------------------------------------------------------------------------------

ERROR_LINES = re.compile(r"Traceback \(most recent call last\)|Internal Server Error|\bERROR\b")
#: Logged as errors by Django, answered 400: a request for another site's name.
REFUSED_LINES = re.compile(r"ERROR django\.security\.DisallowedHost: ")


def test_the_red_teams_requests_get_no_server_error(replay: Replay) -> None:
    started = time.monotonic()
    public = public_paths(replay)
    assert len(public) >= 8, public
    problems = cache_problems(replay, public)
    timings = {**{f"setup: {k}": v for k, v in replay.setup.items()}}
    timings["cache"] = time.monotonic() - started

    answered = play(replay, [*page_shots(replay), *path_shots(replay), *api_shots(replay)])
    # The callers are who they say (a session or a link the server does not open would
    # replay everything as an anonymous visitor).
    statuses = {(s.role, s.path): r.status_code for s, r in answered if s.kind == "page-get" and r}
    desk = reverse("event-desk", args=[replay.world.event.slug])
    sheet = reverse("rtable", args=[replay.world.rtables[0].token])
    assert statuses[("organiser", desk)] == 200 and statuses[("link", sheet)] == 200, statuses
    for shot, response in answered:
        is_page = response is not None and response.status_code == 200
        if is_page and "text/html" in response.headers.get("Content-Type", ""):
            text = response.text
            if raw := unescaped(text):
                problems.append(f"{raw} unescaped in the answer to {shot}")
            if shot.role in ("organiser", "link") and shot.kind == "page-get" and "<form" in text:
                replay.seen.append((shot, text))
    timings["pages and API"] = time.monotonic() - started - timings["cache"]
    timings["forms and renewals"] = 0.0
    play(replay, [*form_shots(replay), *api_shots(replay, renewals=True)])
    timings["forms and renewals"] = (
        time.monotonic() - started - timings["cache"] - timings["pages and API"]
    )

    log = replay.server.log.read_text(errors="replace")
    logged = [
        line
        for line in log.splitlines()
        if ERROR_LINES.search(line) and not REFUSED_LINES.search(line)
    ]
    total = sum(replay.counts.values())
    summary = [
        f"Red team replay: {total} requests in {time.monotonic() - started:.1f} s",
        "  " + ", ".join(f"{phase} {seconds:.1f} s" for phase, seconds in timings.items()),
        *(f"  {kind:28} {count}" for kind, count in sorted(replay.counts.items())),
    ]
    print("\n" + "\n".join(summary))
    if os.environ.get("RED_TEAM_SUMMARY"):  # pytest-xdist keeps a worker's output to itself
        Path(os.environ["RED_TEAM_SUMMARY"]).write_text("\n".join(summary) + "\n")
    assert replay.problems + problems == []
    assert logged == [], "\n".join(logged[:40])
