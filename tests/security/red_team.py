"""The red team's kinds of requests (issue 20), as data: what is sent, and how an answer is
judged. No server here: ``test_red_team_replay.py`` starts one and plays them.

A request is a :class:`Shot` (its kind named for the report, its method, path, headers and
body); :func:`judge` says what is wrong with an answer: a server error (5xx), a traceback's
text, an encoding the client refused, a ``304`` to validators that cannot match.

The variants follow the findings: headers that once poisoned the public cache (``HX-Request``),
query strings and cookies that once grew it, encodings refused, validators garbled, languages
that do not exist, methods nobody sends, bodies that are not what the API reads, and the
names of ``hostile.py`` typed into every form.
"""

from __future__ import annotations

import json
import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import Any

from tests.security.hostile import HOSTILE_NAMES

#: A CSRF secret of the client's own (Django reads an unmasked 32-character secret sent
#: back in the header): the forms' POSTs reach the views instead of stopping at the check.
CSRF = "redteamredteamredteamredteam0123"


@dataclass(frozen=True)
class Shot:
    kind: str
    method: str
    path: str
    role: str
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes | None = None

    def header(self, name: str) -> str | None:
        for key, value in self.headers:
            if key.lower() == name.lower():
                return value
        return None

    def __str__(self) -> str:
        odd = " ".join(f"{k}: {v[:60]}" for k, v in self.headers if k.lower() != "cookie")
        body = f" body={self.body[:80]!r}" if self.body else ""
        return f"[{self.kind}] {self.role} {self.method} {self.path[:160]} {odd}{body}"


# --- Variants of a page's GET ---------------------------------------------------------------

#: kind → headers added to a GET.
HEADERS: dict[str, dict[str, str]] = {
    "hx-request": {"HX-Request": "true"},
    "hx-target": {"HX-Request": "1", "HX-Target": "#<script>x</script>", "HX-Trigger": "'\""},
    "hx-boosted": {"HX-Request": "true", "HX-Boosted": "true", "HX-Current-URL": "javascript:1"},
    "hx-garbage": {"HX-Request": "false", "HX-History-Restore-Request": "true"},
    "enc-identity-refused": {"Accept-Encoding": "identity;q=0"},
    "enc-br-refused": {"Accept-Encoding": "br;q=0, gzip"},
    "enc-all-refused": {"Accept-Encoding": "gzip;q=0, br;q=0, deflate;q=0"},
    "enc-star": {"Accept-Encoding": "*"},
    "enc-garbage": {"Accept-Encoding": "gzip;q=abc, br;q=1e999, ;;;, zstd"},
    "ims-garbage": {"If-Modified-Since": "yesterday, <script>"},
    "ims-future": {"If-Modified-Since": "Fri, 01 Jan 2100 00:00:00 GMT"},
    "inm-garbage": {"If-None-Match": 'W/"x", "\\"", garbage'},
    "inm-star": {"If-None-Match": "*", "If-Match": "garbage"},
    "ius-past": {"If-Unmodified-Since": "Thu, 01 Jan 1970 00:00:00 GMT", "If-Range": "x"},
    "lang-garbage": {"Accept-Language": "xx-YY, ../../etc/passwd;q=0.5, <b>;q=abc"},
    "lang-refused": {"Accept-Language": "fr;q=0, en;q=0, *;q=0"},
    "lang-long": {"Accept-Language": ",".join(f"x{i}-y;q=0.{i % 10}" for i in range(400))},
    "forwarded-garbage": {
        "X-Forwarded-For": "not-an-ip, ::ffff:999.1.1.1, , 127.0.0.1:80",
        "X-Forwarded-Proto": "gopher",
        "X-Real-IP": "999.999.1.1",  # not a control character: gunicorn refuses those itself
        "Forwarded": "for=unknown;proto=https",
    },
    "host-foreign": {"Host": "evil.example"},
    "authorization-garbage": {"Authorization": "Bearer x y z"},
    "range": {"Range": "bytes=-1,99999999999999999999-"},
}

#: kind → query string (unknown, repeated, long, not UTF-8, out of range, garbage).
QUERIES: dict[str, str] = {
    "query-unknown": "utm_source=poster&fbclid=x&_=1",
    "query-repeated": "sort=name&sort=-name&page=1&page=2",
    "query-long": "q=" + "A" * 3000,
    "query-too-long": "q=" + "B" * 9000,  # past gunicorn's request line
    "query-not-utf8": "name=%ff%fe%c0%af&%ff=1",
    "query-nul": "page=%00&sort=%00",
    "query-page-negative": "page=-1",
    "query-page-huge": "page=99999999999999999999999&per_page=99999999999",
    "query-sort-garbage": "sort=%3Cscript%3E__class__",
    "query-sort-dunder": "sort=-__dict__",
    "export-xlsx": "_export=xlsx",
    "export-csv": "_export=csv&sort=-name",
    "export-garbage": "_export=%ff..%2F..%2Fetc",
}

#: kind → cookies added to the caller's (a session garbled replaces the caller's own).
COOKIES: dict[str, dict[str, str]] = {
    "cookie-me-garbage": {"paddock_me": "../../cf:1;<script>"},
    "cookie-me-other": {"paddock_me": "cf:999999"},
    "cookie-me-valid": {"paddock_me": "cf:1"},
    "cookie-me-huge": {"paddock_me": "cf:" + "9" * 3000},
    "cookie-session-garbage": {"sessionid": "garbage'\"<>"},
    "cookie-session-empty": {"sessionid": ""},
    "cookie-language-garbage": {"django_language": "../../xx<script>"},
    "cookie-messages-garbage": {"messages": "W10:1tampered:abc"},
    "cookie-csrf-garbage": {"csrftoken": "short"},
    "cookie-huge": {"filler": "z" * 9000},  # past gunicorn's header field
    "cookie-many": {f"c{i}": "v" for i in range(150)},
}

#: Methods a browser does not send to a page.
METHODS = ("HEAD", "OPTIONS", "PUT", "PATCH", "DELETE", "TRACE", "PROPFIND")

#: Every variant of a GET: (kind, extra headers, extra cookies, query).
GET_VARIANTS: list[tuple[str, dict[str, str], dict[str, str], str]] = [
    *((kind, headers, {}, "") for kind, headers in HEADERS.items()),
    *((kind, {}, {}, query) for kind, query in QUERIES.items()),
    *((kind, {}, cookies, "") for kind, cookies in COOKIES.items()),
]


def cookie_header(cookies: dict[str, str]) -> str:
    return "; ".join(f"{name}={value}" for name, value in cookies.items())


def with_query(path: str, query: str) -> str:
    if not query:
        return path
    return f"{path}{'&' if '?' in path else '?'}{query}"


def get_variant(
    path: str, role: str, cookies: dict[str, str], index: int, extra: dict[str, str] | None = None
) -> Shot:
    """The ``index``-th variant (cycling) of a GET of ``path`` by ``role``."""
    kind, headers, more_cookies, query = GET_VARIANTS[index % len(GET_VARIANTS)]
    all_headers = {**(extra or {}), **headers}
    jar = {**cookies, **more_cookies}
    if jar:
        all_headers["Cookie"] = cookie_header(jar)
    return Shot(kind, "GET", with_query(path, query), role, tuple(all_headers.items()))


# --- Bodies the API does not read -----------------------------------------------------------


def _mangle(value: Any, how: str) -> Any:
    """``value`` with every leaf replaced as ``how`` says (a shape kept, its contents odd)."""
    if isinstance(value, dict):
        return {k: _mangle(v, how) for k, v in value.items()}
    if isinstance(value, list):
        return [_mangle(v, how) for v in value] or [_mangle(1, how)]
    if how == "types":
        return {"x": [value]} if isinstance(value, str | bool) else "NaN"
    if how == "huge":
        return 10**30 if isinstance(value, int) else "É" * 100_000
    if how == "negative":
        return -(2**63) if isinstance(value, int) else ""
    if how == "nul":
        return f"a\x00{value}" if isinstance(value, str) else value
    if how == "hostile" and isinstance(value, str):
        return HOSTILE_NAMES[len(value) % len(HOSTILE_NAMES)]
    if how == "hostile":
        return value
    raise AssertionError(how)


def _surrogate(value: Any) -> bytes:
    """``value`` as JSON whose strings hold a lone surrogate (valid JSON, not valid UTF-8
    once decoded and encoded again)."""
    text = json.dumps(_mangle(value, "nul")).replace("\\u0000", "\\ud800")
    return text.encode()


JSON = "application/json"


def api_bodies(valid: Any) -> Iterator[tuple[str, str, bytes]]:
    """(kind, content type, body) of what the red team sent where ``valid`` is read."""
    try:
        json.dumps(valid)
    except TypeError:  # a photo upload: its multipart kinds are photo_bodies'
        valid = None
    shape = valid if isinstance(valid, dict) else {"name": "x", "number": 1}
    yield "api-json-broken", JSON, b'{"name": "x", '
    yield "api-json-array", JSON, b"[1, 2, 3]"
    yield "api-json-null", JSON, b"null"
    yield "api-json-deep", JSON, b"[" * 50_000 + b"]" * 50_000
    yield "api-json-nan", JSON, b'{"number": NaN, "version": Infinity, "throws": -Infinity}'
    yield "api-json-types", JSON, json.dumps(_mangle(shape, "types")).encode()
    yield "api-json-huge", JSON, json.dumps(_mangle(shape, "huge")).encode()
    yield "api-json-negative", JSON, json.dumps(_mangle(shape, "negative")).encode()
    yield "api-json-nul", JSON, json.dumps(_mangle(shape, "nul")).encode()
    yield "api-json-surrogate", JSON, _surrogate(shape)
    yield "api-json-hostile", JSON, json.dumps(_mangle(shape, "hostile")).encode()
    yield "api-json-not-utf8", JSON, b'{"name": "\xff\xfe\xc0\xaf", "reason": "\xed\xa0\x80"}'
    yield "api-json-duplicate-keys", JSON, b'{"version": 1, "version": "x", "a": 1}'
    yield "api-body-empty", JSON, b""
    yield "api-text-plain", "text/plain", json.dumps(shape).encode()
    yield "api-form-urlencoded", "application/x-www-form-urlencoded", b"name=x&number=%ff"
    yield "api-multipart-no-boundary", "multipart/form-data", b"--x\r\n\r\n"
    yield (
        "api-multipart-garbage",
        "multipart/form-data; boundary=zz",
        b'--zz\r\nContent-Disposition: form-data; name="file"; filename="../../a.jpg"\r\n'
        b"Content-Type: image/jpeg\r\n\r\n\xff\xd8\xff\xe0garbage\r\n--zz--\r\n",
    )
    yield "api-content-type-garbage", "application/json; charset=klingon", b'{"a": 1}'


def _png_claiming(width: int, height: int) -> bytes:
    """A PNG's header saying ``width`` × ``height`` pixels, and no pixels (a bomb's fuse)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = struct.pack(">I", zlib.crc32(kind + data))
        return struct.pack(">I", len(data)) + kind + data + crc

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunks = chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"")) + chunk(b"IEND", b"")
    return b"\x89PNG\r\n\x1a\n" + chunks


#: Files sent as a signed sheet's photo: not images, truncated, or claiming a huge size.
PHOTOS: dict[str, tuple[str, str, bytes]] = {
    "photo-not-an-image": ("sheet.jpg", "image/jpeg", b"<?php echo 1; ?>"),
    "photo-truncated-jpeg": ("sheet.jpg", "image/jpeg", b"\xff\xd8\xff\xe0\x00\x10JFIF\x00"),
    "photo-bomb-png": ("sheet.png", "image/png", _png_claiming(40_000, 40_000)),
    "photo-svg": ("sheet.svg", "image/svg+xml", b"<svg xmlns='http://www.w3.org/2000/svg'/>"),
    "photo-empty": ("../../sheet.jpg", "image/jpeg", b""),
}


#: Authorization headers that are not a token.
AUTHORIZATIONS = {
    "api-auth-bare-bearer": "Bearer",
    "api-auth-basic": "Basic Zm9vOmJhcg==",
    "api-auth-long": "Bearer " + "x" * 6000,
    "api-auth-latin1": "Bearer \xe9t\xe9",
    "api-auth-spaces": "Bearer a b",
}


# --- Forms, filled with hostile names --------------------------------------------------------


@dataclass
class Form:
    action: str
    method: str
    fields: list[tuple[str, str, str]]  # (type, name, value)


class FormParser(HTMLParser):
    """The forms of a page, with their fields (select: its first option's value)."""

    def __init__(self, page: str) -> None:
        super().__init__()
        self.page = page
        self.forms: list[Form] = []
        self._select: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form":
            self.forms.append(Form(a.get("action") or self.page, a.get("method", "get"), []))
        elif not self.forms:
            return
        elif tag in ("input", "textarea") and a.get("name"):
            kind = a.get("type", "text") if tag == "input" else "textarea"
            self.forms[-1].fields.append((kind.lower(), a["name"], a.get("value", "")))
        elif tag == "select" and a.get("name"):
            self._select = a["name"]
            self.forms[-1].fields.append(("select", a["name"], ""))
        elif tag == "option" and self._select and self.forms[-1].fields:
            kind, name, value = self.forms[-1].fields[-1]
            if name == self._select and not value:
                self.forms[-1].fields[-1] = (kind, name, a.get("value", ""))

    def handle_endtag(self, tag: str) -> None:
        if tag == "select":
            self._select = None


#: Values for a form's fields: its names hostile, or its numbers and hidden fields odd.
ODD_NUMBERS = ["99999999999999999999", "-1", "1e5", "²", "abc", ""]
ODD_TEXT = ["a\x00b", "É" * 20_000, "\ud800".encode("utf-8", "surrogatepass").decode("latin-1")]


def filled(form: Form, how: str, seed: int) -> list[tuple[str, str]]:
    """The form's fields as ``how`` fills them: ``hostile`` (text fields hostile names, the
    rest as the page gave them) or ``odd`` (numbers out of range, hidden fields garbled,
    text with NUL, very long)."""
    data = []
    for index, (kind, name, value) in enumerate(form.fields):
        if name == "csrfmiddlewaretoken" or kind in ("file", "submit", "button", "image"):
            if kind != "file":
                data.append((name, value))
            continue
        pick = seed + index
        if how == "hostile":
            if kind in ("text", "textarea", "search", "email", "password", "url"):
                value = HOSTILE_NAMES[pick % len(HOSTILE_NAMES)]
            elif kind in ("number", "select") and not value:
                value = "1"
        elif kind in ("number", "hidden", "select", "radio", "range"):
            value = ODD_NUMBERS[pick % len(ODD_NUMBERS)]
        elif kind in ("text", "textarea", "search", "email", "password", "url"):
            value = ODD_TEXT[pick % len(ODD_TEXT)]
        elif kind in ("date", "time", "datetime-local"):
            value = ["2026-02-30", "99:99", "0000-00-00T00:00"][pick % 3]
        data.append((name, value))
    return data


# --- Judging an answer -----------------------------------------------------------------------

TRACEBACK_SIGNS = (b"Traceback (most recent call last)", b'File "/', b"django.db.utils.")


def refused_encodings(accept: str | None) -> set[str]:
    """The codings ``accept`` refuses by name (``gzip;q=0``)."""
    refused = set()
    for token in (accept or "").split(","):
        name, *parameters = (part.strip().lower() for part in token.split(";"))
        for parameter in parameters:
            key, _, value = parameter.partition("=")
            if key.strip() == "q" and value.strip() in ("0", "0.0", "0.00", "0.000"):
                refused.add(name)
    return refused


def judge(shot: Shot, status: int, headers: dict[str, str], content: bytes) -> list[str]:
    """What is wrong with the answer to ``shot`` (nothing: ``[]``)."""
    wrong = []
    if status >= 500:
        wrong.append(f"{status} for {shot}")
    if any(sign in content for sign in TRACEBACK_SIGNS):
        wrong.append(f"a traceback's text in the answer to {shot}")
    coding = headers.get("content-encoding", "").lower()
    if coding and coding in refused_encodings(shot.header("Accept-Encoding")):
        wrong.append(f"{coding}, which the client refused, for {shot}")
    # The replay sends a page's real ETag only as ``cache-etag``; else only "*" (any page
    # that exists) may match.
    if status == 304 and shot.kind != "cache-etag" and shot.header("If-None-Match") != "*":
        wrong.append(f"304 without a validator that matches, for {shot}")
    return wrong
