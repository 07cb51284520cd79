"""The rules of sign-up, pure (DOMAIN.md "Before the day"): the registration window, what a
confirmation becomes, how many of the waiting list move in, a name in public, the psych
sheet's order. Plain values in and out: no Django, no database here."""

from __future__ import annotations

import datetime
import functools
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from email.errors import HeaderParseError
from email.headerregistry import Address
from typing import Literal

#: How long a confirmation link works, and when an unconfirmed registration is deleted.
CONFIRM_WITHIN = datetime.timedelta(hours=24)
DELETE_AFTER = datetime.timedelta(days=7)

Window = Literal["closed", "not_open", "open", "over"]
Confirmed = Literal["accepted", "waiting", "pending"]


def window(
    now: datetime.datetime,
    opens_at: datetime.datetime | None,
    closes_at: datetime.datetime | None,
) -> Window:
    """Where the registration window stands: ``closed`` while it has no opening date,
    ``not_open`` before it, ``over`` from its closing date on, else ``open``."""
    if opens_at is None:
        return "closed"
    if now < opens_at:
        return "not_open"
    if closes_at is not None and now >= closes_at:
        return "over"
    return "open"


def free_seats(capacity: int | None, accepted: int) -> int | None:
    """Seats left (never below 0); None when the event has no limit."""
    if capacity is None:
        return None
    return max(0, capacity - accepted)


def on_confirm(approval: str, capacity: int | None, accepted: int, waiting: int = 0) -> Confirmed:
    """What a registration becomes once its address is confirmed: in mode ``organiser`` it
    awaits race control; in mode ``first_come`` it takes a free seat, else it waits. While
    anyone waits, a newcomer waits behind them, free seat or not (DOMAIN.md "Corrections":
    a freed seat always goes to the waiting list)."""
    if approval == "organiser":
        return "pending"
    seats = free_seats(capacity, accepted)
    return "accepted" if waiting == 0 and (seats is None or seats > 0) else "waiting"


def moving_in(capacity: int | None, accepted: int, waiting: int) -> int:
    """How many of the waiting list move in (the first ones, in order): as many as there
    are free seats, and no more than are waiting."""
    seats = free_seats(capacity, accepted)
    return waiting if seats is None else min(seats, waiting)


def may_accept(capacity: int | None, accepted: int) -> bool:
    """Race control may accept one more only while a seat is free."""
    seats = free_seats(capacity, accepted)
    return seats is None or seats > 0


def capacity_floor(capacity: int | None, accepted: int) -> bool:
    """A new capacity is allowed only at or above the number accepted (none: no limit);
    race control refuses or moves people first (DOMAIN.md "Corrections")."""
    return capacity is None or capacity >= accepted


def may_edit(now: datetime.datetime, edit_until: datetime.datetime | None) -> bool:
    """The registrant changes or cancels until the edit deadline (no deadline: always)."""
    return edit_until is None or now < edit_until


def confirmable(now: datetime.datetime, created_at: datetime.datetime) -> bool:
    """A confirmation link works for 24 h after the sign-up."""
    return now - created_at < CONFIRM_WITHIN


def to_delete(now: datetime.datetime, created_at: datetime.datetime) -> bool:
    """An unconfirmed registration is deleted 7 days after its sign-up."""
    return now - created_at >= DELETE_AFTER


@functools.lru_cache(maxsize=1024)  # a sign-up asks it thrice (limit, lookup, save)
def address_key(address: str) -> str:
    """An address as the mail server delivers it: the local part's quotes and escapes undone
    (``"vi\\ctim"@CORP.EXAMPLE`` is ``victim@corp.example``), then lower case, as every
    address of this site has been compared. An address that does not parse: stripped and
    lower case."""
    text = address.strip()
    try:
        parsed = Address(addr_spec=text)
    except (HeaderParseError, ValueError, IndexError, TypeError):
        return text.casefold()
    return f"{parsed.username}@{parsed.domain}".casefold()


def one_line(text: str) -> bool:
    """Names are one line (API.md): no line break of any kind (``\\n``, ``\\r``, U+2028…)."""
    return "".join(text.splitlines()) == text


def public_name(first_name: str, last_name: str, choice: str) -> str:
    """The name as the registrant chose to show it: ``Élodie Lefèvre`` or ``Élodie L.``."""
    first, last = first_name.strip(), last_name.strip()
    if choice == "short" and last:
        return f"{first} {last[0].upper()}."
    return f"{first} {last}".strip()


@dataclass(frozen=True)
class Entrant:
    """One accepted registrant as the psych sheet orders them."""

    key: int
    #: Conservative rating for the event's game, None when unrated.
    rating: float | None
    #: Order of registration (confirmation): smaller first.
    order: int


def psych_order(entrants: Sequence[Entrant]) -> list[Entrant]:
    """Best rating first (ties in registration order), then the unrated in registration
    order."""
    rated = sorted(
        (e for e in entrants if e.rating is not None), key=lambda e: (-e.rating, e.order)
    )  # type: ignore[operator]
    unrated = sorted((e for e in entrants if e.rating is None), key=lambda e: e.order)
    return rated + unrated


#: Format characters a name may keep: the joiners some scripts and emoji need.
_JOINERS = frozenset("\u200c\u200d")


def plain_line(text: str) -> bool:
    """A name shown in mails and pages as its owner wrote it: one line, and no control or
    format character (a right-to-left override U+202E would turn the words around it)."""
    return one_line(text) and not any(
        unicodedata.category(c) in ("Cc", "Cf") and c not in _JOINERS for c in text
    )
