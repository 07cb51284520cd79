"""How a name is folded to match players: accents, case, punctuation and the order of the
words left out ("Dupont Jean" and "jean DUPONT" and "Jean Dupônt" fold alike). Pure."""

from __future__ import annotations

import re
import unicodedata

_WORD = re.compile(r"[a-z0-9]+")


def name_key(first_name: str, last_name: str) -> str:
    """The folded key of a name: its words without accents, lower case, sorted."""
    text = unicodedata.normalize("NFKD", f"{first_name} {last_name}".casefold())
    text = "".join(c for c in text if not unicodedata.combining(c))
    return " ".join(sorted(_WORD.findall(text)))


#: The longest licence number a player holds (``Player.licence``).
LICENCE_MAX = 30


def licence_key(text: str | None) -> str | None:
    """A licence number as stored: stripped and upper-cased; None when none is given
    (never "": the column is unique when given)."""
    licence = (text or "").strip().upper()
    return licence or None


def driver_name(first_name: str, last_name: str) -> str:
    """First and last name as players write them (also for rows read without a model)."""
    return f"{first_name} {last_name}".strip()
