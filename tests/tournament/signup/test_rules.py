"""The pure rules of sign-up (DOMAIN.md "Before the day")."""

from __future__ import annotations

import datetime

from hypothesis import given
from hypothesis import strategies as st

from tournament.signup import rules

NOW = datetime.datetime(2026, 6, 1, 12, 0, tzinfo=datetime.UTC)
HOUR = datetime.timedelta(hours=1)


def test_window_closed_without_opening_date_then_not_open_open_over():
    assert rules.window(NOW, None, None) == "closed"
    assert rules.window(NOW, NOW + HOUR, None) == "not_open"
    assert rules.window(NOW, NOW - HOUR, None) == "open"
    assert rules.window(NOW, NOW - HOUR, NOW + HOUR) == "open"
    assert rules.window(NOW, NOW - HOUR, NOW) == "over"


def test_first_come_takes_a_free_seat_else_waits_organiser_mode_is_pending():
    assert rules.on_confirm("first_come", 2, 1) == "accepted"
    assert rules.on_confirm("first_come", 2, 2) == "waiting"
    assert rules.on_confirm("first_come", None, 500) == "accepted"
    assert rules.on_confirm("organiser", 2, 0) == "pending"


def test_confirmation_link_works_24_hours_deleted_after_7_days():
    assert rules.confirmable(NOW, NOW - 23 * HOUR)
    assert not rules.confirmable(NOW, NOW - 24 * HOUR)
    assert not rules.to_delete(NOW, NOW - 6 * 24 * HOUR)
    assert rules.to_delete(NOW, NOW - 7 * 24 * HOUR)


def test_public_name_full_or_first_name_and_initial():
    assert rules.public_name("Élodie", "Lefèvre", "full") == "Élodie Lefèvre"
    assert rules.public_name("Élodie", "lefèvre", "short") == "Élodie L."


def test_psych_sheet_best_rating_first_unrated_after_in_registration_order():
    entrants = [
        rules.Entrant(key=1, rating=None, order=0),
        rules.Entrant(key=2, rating=10.0, order=1),
        rules.Entrant(key=3, rating=None, order=2),
        rules.Entrant(key=4, rating=25.0, order=3),
    ]
    assert [e.key for e in rules.psych_order(entrants)] == [4, 2, 1, 3]


@given(
    capacity=st.one_of(st.none(), st.integers(0, 50)),
    accepted=st.integers(0, 60),
    waiting=st.integers(0, 60),
)
def test_the_waiting_list_never_fills_beyond_capacity(capacity, accepted, waiting):
    moved = rules.moving_in(capacity, accepted, waiting)
    assert 0 <= moved <= waiting
    if capacity is not None:
        assert accepted + moved <= max(capacity, accepted)
        # every free seat is taken while someone waits
        assert moved == min(max(0, capacity - accepted), waiting)


@given(capacity=st.integers(0, 30), confirmations=st.integers(0, 80))
def test_confirmations_one_after_the_other_accept_exactly_capacity(capacity, confirmations):
    accepted = 0
    waiting = 0
    for _ in range(confirmations):
        if rules.on_confirm("first_come", capacity, accepted) == "accepted":
            accepted += 1
        else:
            waiting += 1
    assert accepted == min(capacity, confirmations)
    assert accepted + waiting == confirmations
