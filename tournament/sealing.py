"""Secrets at rest (ground floor, no model here): referee links and printed sheets.

A referee link's secret is never stored as it is. The database keeps
- its SHA-256 digest, to find the table a link opens (192 random bits: a digest cannot be
  turned back into the link, and needs no key, so links keep working whatever the key);
- a copy sealed with a key derived from ``SECRET_KEY`` (Fernet: AES-128-CBC and
  HMAC-SHA256), so that the desk prints the same link again and organisers read it in the
  API. Printing twice never breaks the QR codes already on the tables.

A copy of the database or a backup alone therefore opens no table; with the server's
``SECRET_KEY`` too, it would (the key signs sessions already: it is the server's secret).
Changing ``SECRET_KEY``: keep the old one in ``SECRET_KEY_FALLBACKS`` until every link was
renewed, or the sealed copies no longer open (``unseal`` answers None).

Printed sheets show every link: the PDF of a batch of sheets is kept sealed as well
(``SealedBinaryField``).
"""

from __future__ import annotations

import base64
import functools
import hashlib
import secrets
from contextvars import ContextVar

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.signals import request_started
from django.db import models
from django.dispatch import receiver
from django.utils.crypto import salted_hmac

#: Keeps the sealing key apart from every other use of SECRET_KEY.
_SALT = "paddock.sealing.referee-links"


class LinkSealedElsewhere(ImproperlyConfigured):
    """A referee link sealed with a key this server does not have (``token_or_none``)."""


def new_link_secret() -> str:
    """192 random bits, URL-safe: the secret inside a referee link."""
    return secrets.token_urlsafe(24)


def link_digest(secret: str) -> str:
    """The SHA-256 of a link's secret (hex): what the database keeps to find its table."""
    return hashlib.sha256(secret.encode()).hexdigest()


#: The links that opened this request's table (digest → secret): a database restored without
#: its key cannot open the sealed copies, but a referee's address holds the secret itself,
#: and the table's pages link to themselves with it.
_MET: ContextVar[dict[str, str] | None] = ContextVar("paddock_links_met", default=None)


def remember_link(secret: str) -> None:
    """``secret`` opened this request's table (its digest matched)."""
    _MET.set({**(_MET.get() or {}), link_digest(secret): secret})


def remembered_link(digest: str) -> str | None:
    """The secret of ``digest`` when this request's address held it, or None."""
    return (_MET.get() or {}).get(digest)


@receiver(request_started)
def _forget_links(**kwargs: object) -> None:
    _MET.set(None)  # each request knows the links of its own address only


@functools.lru_cache(maxsize=8)
def _fernet(keys: tuple[str, ...]) -> MultiFernet:
    return MultiFernet(
        [
            Fernet(
                base64.urlsafe_b64encode(
                    salted_hmac(_SALT, "fernet", secret=key, algorithm="sha256").digest()
                )
            )
            for key in keys
        ]
    )


def _sealer() -> MultiFernet:
    """The server's key first (it seals), then the fallbacks (they still open)."""
    return _fernet((settings.SECRET_KEY, *getattr(settings, "SECRET_KEY_FALLBACKS", [])))


def seal_bytes(data: bytes) -> bytes:
    """``data`` sealed with the server's key: unreadable, and tamper-evident, without it."""
    return _sealer().encrypt(data)


def unseal_bytes(sealed: bytes) -> bytes | None:
    """What ``seal_bytes`` sealed, or None when no key of this server opens it."""
    try:
        return _sealer().decrypt(sealed)
    except (InvalidToken, TypeError, ValueError):
        return None


def seal(secret: str) -> str:
    """A link's secret sealed, as text (140 characters for a link)."""
    return seal_bytes(secret.encode()).decode("ascii")


def unseal(sealed: str) -> str | None:
    """The secret ``seal`` sealed, or None (another server's key, or nothing sealed)."""
    if not sealed:
        return None
    opened = unseal_bytes(sealed.encode("ascii", "replace"))
    return None if opened is None else opened.decode()


class SealedBinaryField(models.BinaryField):
    """Bytes sealed in the database, plain in Python: what is read and written through the
    ORM is the document itself. A value no key of this server opens reads as None."""

    def get_db_prep_value(
        self, value: object, connection: object, prepared: bool = False
    ) -> object:
        if value is not None and not prepared:
            value = seal_bytes(bytes(value))  # type: ignore[call-overload]
        return super().get_db_prep_value(value, connection, prepared)

    def from_db_value(self, value: object, expression: object, connection: object) -> bytes | None:
        if value is None:
            return None
        return unseal_bytes(bytes(value))  # type: ignore[call-overload]
