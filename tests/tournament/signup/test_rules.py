"""The pure rules of sign-up (DOMAIN.md "Before the day")."""

from __future__ import annotations

import datetime

from hypothesis import given, settings
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


# No deadline: pure rules, and a loaded machine must not fail them (issue 40, "The suite").
@settings(deadline=None)
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


@settings(deadline=None)
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


def test_the_window_opens_exactly_at_opens_at_and_closes_exactly_at_closes_at():
    """DOMAIN.md "Before the day": the boundary instants. At ``opens_at`` it is open, a
    microsecond before not yet; at ``closes_at`` it is over."""
    tick = datetime.timedelta(microseconds=1)
    assert rules.window(NOW, NOW, None) == "open"
    assert rules.window(NOW - tick, NOW, None) == "not_open"
    assert rules.window(NOW, NOW - HOUR, NOW + tick) == "open"
    assert rules.window(NOW, NOW - HOUR, NOW) == "over"


def test_changes_end_exactly_at_edit_until():
    """DOMAIN.md "Before the day": the registrant changes or cancels until ``edit_until``;
    at that instant, no longer."""
    tick = datetime.timedelta(microseconds=1)
    assert rules.may_edit(NOW - tick, NOW)
    assert not rules.may_edit(NOW, NOW)
    assert rules.may_edit(NOW, None)


def test_a_newcomer_waits_while_anyone_waits_even_with_a_free_seat():
    """DOMAIN.md "Corrections": a newcomer never confirms into a seat while someone waits."""
    assert rules.on_confirm("first_come", 5, 2, waiting=0) == "accepted"
    assert rules.on_confirm("first_come", 5, 2, waiting=1) == "waiting"
    assert rules.on_confirm("first_come", None, 2, waiting=1) == "waiting"
    assert rules.on_confirm("organiser", 5, 2, waiting=1) == "pending"


@settings(deadline=None)
@given(
    capacity=st.one_of(st.none(), st.integers(0, 30)),
    accepted=st.integers(0, 40),
    waiting=st.integers(1, 40),
)
def test_nobody_confirms_past_the_waiting_list(capacity, accepted, waiting):
    assert rules.on_confirm("first_come", capacity, accepted, waiting) == "waiting"


def test_the_capacity_never_goes_below_the_number_accepted():
    """DOMAIN.md "Corrections": race control refuses or moves people first."""
    assert rules.capacity_floor(3, 3) and rules.capacity_floor(4, 3)
    assert not rules.capacity_floor(2, 3)
    assert rules.capacity_floor(None, 300)
