"""The bundle's format and its signature (pure: the standard library only).

A bundle is one JSON object. The way out (``paddock-event/1``) carries the event to a
laptop; the way back (``paddock-event-back/1``) carries its day home. Both are signed with
the check-out's own key: an HMAC-SHA256 over the canonical JSON of the object without its
``signature`` (sorted keys, no spaces, UTF-8). The key travels inside the way out, so the
signature proves a file unchanged since it was signed and of this check-out, not who
signed it (DOMAIN.md "The event away").
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from typing import Any

OUT = "paddock-event/1"
BACK = "paddock-event-back/1"
#: How deep a bundle's arrays and objects go at most: a row's fields inside a list of rows
#: is four; a file of a hundred thousand ``[`` is refused, not a crash of the parser.
MAX_DEPTH = 32


class BundleError(ValueError):
    """A file that is not a bundle of the expected kind, or whose signature fails."""


def new_key() -> str:
    """A check-out's signing key: 256 random bits, URL-safe text."""
    return secrets.token_urlsafe(32)


def canonical(data: Any) -> bytes:
    """The JSON every signature covers: sorted keys, no spaces, UTF-8."""
    return json.dumps(
        data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode()


def _unsigned(bundle: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in bundle.items() if key != "signature"}


def signature(bundle: dict[str, Any], key: str) -> str:
    """The HMAC-SHA256 (hex) of ``bundle`` without its ``signature``."""
    return hmac.new(key.encode(), canonical(_unsigned(bundle)), hashlib.sha256).hexdigest()


def signed(bundle: dict[str, Any], key: str) -> dict[str, Any]:
    """``bundle`` with its signature."""
    return {**_unsigned(bundle), "signature": signature(bundle, key)}


def verify(bundle: dict[str, Any], key: str) -> bool:
    """True when ``bundle`` carries the signature ``key`` gives it."""
    given = bundle.get("signature")
    return isinstance(given, str) and hmac.compare_digest(given, signature(bundle, key))


def digest(bundle: dict[str, Any]) -> str:
    """SHA-256 (hex) of the whole bundle, signature included: the same file, the same digest."""
    return hashlib.sha256(canonical(bundle)).hexdigest()


def _too_deep(data: Any) -> bool:
    """True when ``data`` nests arrays and objects past ``MAX_DEPTH`` (walked without
    recursion)."""
    level: list[Any] = [data]
    for _depth in range(MAX_DEPTH + 1):
        level = [
            inner
            for item in level
            if isinstance(item, dict | list)
            for inner in (item.values() if isinstance(item, dict) else item)
            if isinstance(inner, dict | list)
        ]
        if not level:
            return False
    return True


def parse(text: str | bytes, expected: str) -> dict[str, Any]:
    """The bundle in ``text``, of format ``expected``, or BundleError (its signature unchecked)."""
    try:
        data = json.loads(text)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise BundleError("not JSON") from exc
    if _too_deep(data):
        raise BundleError("nested too deeply")
    if not isinstance(data, dict):
        raise BundleError("not a JSON object")
    if data.get("format") != expected:
        raise BundleError(f"format {data.get('format')!r}, expected {expected!r}")
    checkout = data.get("checkout")
    if not isinstance(checkout, dict) or not isinstance(checkout.get("id"), str):
        raise BundleError("no checkout id")
    if not isinstance(data.get("event"), dict) or not isinstance(data["event"].get("slug"), str):
        raise BundleError("no event")
    return data
