"""How names fold for the matching proposals, and licence numbers as stored (pure)."""

from __future__ import annotations

import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from tournament.players.names import licence_key, name_key

#: Words as people write them: letters with and without accents, digits.
WORD = st.text(
    alphabet=st.sampled_from("abcdeéèêëfghiïîjklmnoôöpqrstuùûüvwxyzçœæ0123456789"),
    min_size=1,
    max_size=12,
)


def accented(text: str) -> str:
    """``text`` with an accent on every letter that takes one (é for e, …)."""
    return "".join(unicodedata.normalize("NFC", c + "\u0301") if c.isalpha() else c for c in text)


def test_the_order_case_and_accents_of_a_name_do_not_count():
    assert name_key("Jean", "Dupont") == name_key("DUPONT", "jean") == "dupont jean"
    assert name_key("Élodie", "Lefèvre") == name_key("elodie", "LEFEVRE")
    assert name_key("Jean-Pierre", "Dupônt") == name_key("Dupont", "Jean Pierre")
    assert name_key("Jean", "Dupont") != name_key("Jeanne", "Dupont")
    assert name_key("  ", "") == ""


@given(st.lists(WORD, min_size=1, max_size=4), st.lists(WORD, min_size=1, max_size=4))
def test_name_key_ignores_the_order_of_the_words(first: list[str], last: list[str]):
    written = name_key(" ".join(first), " ".join(last))
    assert name_key(" ".join(last), " ".join(first)) == written
    assert name_key(" ".join(reversed(first + last)), "") == written


@given(WORD, WORD)
def test_name_key_ignores_case(first: str, last: str):
    assert name_key(first.upper(), last.title()) == name_key(first, last)


@given(WORD, WORD)
def test_name_key_ignores_accents(first: str, last: str):
    assert name_key(accented(first), accented(last)) == name_key(first, last)
    assert name_key(first, last).isascii()


@given(st.text(max_size=40))
def test_a_licence_is_stored_stripped_and_upper_case_never_empty(text: str):
    stored = licence_key(text)
    if not text.strip():
        assert stored is None
    else:
        assert stored == text.strip().upper()
        assert licence_key(stored) == stored


def test_licence_examples():
    assert licence_key("  ffj-2019-42 ") == "FFJ-2019-42"
    assert licence_key("") is None
    assert licence_key(None) is None
