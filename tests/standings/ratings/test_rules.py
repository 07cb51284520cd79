"""The ratings' pure rules (standings/ratings/rules.py): each table one multiplayer match,
openskill's Plackett–Luce, processed in a fixed order.

The order of a table is the table classification's (DOMAIN.md "Race result and
retirements", "Seasons and ratings"; article numbers refer to
rules/formule-de-competition-rules.fr.txt): finishers in the order they cross the line
(§21-1-1, §21-1-4), then the retired, the later retirement first; non-starters are no seat.
"""

from __future__ import annotations

import datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from races.results.rules import Retirement, TableResult, table_classification
from standings.ratings import rules
from standings.ratings.rules import Seat, Table

DAY = datetime.date(2026, 3, 1)


def table(event: int, number: int, *places: tuple[int, int], date=DAY) -> Table:
    """A table of (player, place) seats."""
    return Table(date, event, number, tuple(Seat(p, place) for p, place in places))


def in_order(event: int, number: int, players, date=DAY) -> Table:
    return table(event, number, *((p, i) for i, p in enumerate(players, 1)), date=date)


def test_the_classification_of_a_sheet_is_the_order_of_the_match():
    """§21-1-4: 3 crosses the line before 1; 2 retired on lap 1, 4 on lap 3: 4 went further
    and ranks better than 2 (DOMAIN.md); 5 did not start and plays no race."""
    placed = table_classification(
        TableResult(
            finish=(3, 1),
            retired=(Retirement(2, "off_track", 1), Retirement(4, "engine", 3)),
            dns=(5,),
        )
    )
    seats = [(p.driver, p.position) for p in placed if p.status != "dns"]
    skills = rules.rate([table(1, 1, *seats)]).skills
    assert sorted(skills, key=lambda p: -skills[p].mu) == [3, 1, 4, 2]
    assert 5 not in skills
    assert all(skill.races == 1 for skill in skills.values())
    # Everyone starts at the library's defaults: mu 25, sigma 25/3, rating 0.
    assert rules.Skill().rating == pytest.approx(0.0)
    assert skills[3].mu > rules.MU > skills[2].mu


def test_who_wins_every_table_ranks_above_who_is_last_at_every_table():
    tables = [in_order(e, n, [1, 2 + n, 3 + n, 4 + n, 99]) for e in (1, 2) for n in (1, 2, 3)]
    skills = rules.rate(tables).skills
    assert skills[1].rating > max(s.rating for p, s in skills.items() if p != 1)
    assert skills[99].rating < min(s.rating for p, s in skills.items() if p != 99)
    assert skills[1].races == skills[99].races == 6


def test_a_shared_place_is_a_tie():
    skills = rules.rate([table(1, 1, (1, 1), (2, 2), (3, 2), (4, 4))]).skills
    assert skills[2] == skills[3]
    assert skills[1].mu > skills[2].mu > skills[4].mu


def test_the_rating_is_conservative_mu_minus_three_sigma():
    skill = rules.rate([in_order(1, 1, [1, 2])]).skills[1]
    assert skill.rating == skill.mu - 3 * skill.sigma
    assert skill.sigma < rules.SIGMA  # one race made the estimate surer


def test_a_table_of_one_player_or_a_player_twice_plays_no_match():
    ratings = rules.rate([table(1, 1, (1, 1)), table(1, 2, (2, 1), (2, 3))])
    assert ratings.skills == {} and ratings.points == []


def test_a_player_seated_twice_keeps_the_better_place():
    assert rules.match(table(1, 1, (7, 4), (8, 2), (7, 1))) == [Seat(7, 1), Seat(8, 2)]


def test_tables_are_processed_by_date_then_event_then_number():
    late = in_order(1, 1, [2, 1], date=DAY + datetime.timedelta(days=1))
    early = [in_order(5, 2, [1, 2]), in_order(5, 1, [3, 1]), in_order(2, 9, [1, 3])]
    ordered = rules.processing_order([late, *early])
    assert [(t.event, t.number) for t in ordered] == [(2, 9), (5, 1), (5, 2), (1, 1)]
    points = rules.rate([late, *early]).points
    assert [(p.seq, p.event, p.number) for p in points if p.player == 1] == [
        (1, 2, 9),
        (2, 5, 1),
        (3, 5, 2),
        (4, 1, 1),
    ]


def test_a_table_given_twice_is_refused():
    with pytest.raises(ValueError, match="given twice"):
        rules.rate([in_order(1, 1, [1, 2]), in_order(1, 1, [2, 1])])


def test_the_last_point_of_a_career_is_the_rating():
    ratings = rules.rate([in_order(1, n, [1, 2, 3]) for n in (1, 2)])
    last = [p for p in ratings.points if p.player == 2][-1]
    assert (last.mu, last.sigma, last.rating) == (
        ratings.skills[2].mu,
        ratings.skills[2].sigma,
        ratings.skills[2].rating,
    )


# --- Determinism (hypothesis) ------------------------------------------------------------------

players = st.integers(min_value=1, max_value=12)


@st.composite
def tables(draw) -> list[Table]:
    """Up to 12 tables over 3 events, each of 2 to 6 players with places (ties possible)."""
    out = []
    keys = draw(
        st.lists(
            st.tuples(st.integers(1, 3), st.integers(1, 4)), min_size=1, max_size=12, unique=True
        )
    )
    for event, number in keys:
        seated = draw(st.lists(players, min_size=2, max_size=6, unique=True))
        places = draw(st.lists(st.integers(1, 6), min_size=len(seated), max_size=len(seated)))
        date = DAY + datetime.timedelta(days=7 * event)
        out.append(table(event, number, *zip(seated, places, strict=True), date=date))
    return out


@settings(max_examples=60, deadline=None)
@given(tables(), st.randoms(use_true_random=False))
def test_same_tables_in_any_order_give_the_same_ratings_to_the_bit(given_tables, rng):
    shuffled = list(given_tables)
    rng.shuffle(shuffled)
    assert rules.rate(shuffled) == rules.rate(given_tables)


@settings(max_examples=60, deadline=None)
@given(tables(), st.randoms(use_true_random=False))
def test_the_rows_of_a_table_in_any_order_change_nothing(given_tables, rng):
    """Same seats and places, rows read in another order (a database answers in any)."""
    permuted = []
    for t in given_tables:
        seats = list(t.seats)
        rng.shuffle(seats)
        permuted.append(Table(t.date, t.event, t.number, tuple(seats)))
    assert rules.rate(permuted) == rules.rate(given_tables)


@settings(max_examples=60, deadline=None)
@given(tables())
def test_races_count_the_tables_a_player_played_a_match_at(given_tables):
    skills = rules.rate(given_tables).skills
    played = {}
    for t in given_tables:
        for player in {s.player for s in t.seats} if rules.match(t) else ():
            played[player] = played.get(player, 0) + 1
    assert {p: s.races for p, s in skills.items()} == played


@settings(max_examples=80, deadline=None)
@given(tables(), st.data())
def test_rating_from_any_table_on_gives_the_ratings_of_the_start_to_the_bit(given_tables, data):
    """DOMAIN.md: a correction recomputes from the first table it changes. The tables after
    the k-th, rated from each player's skill after the first k, give what rating them all
    from the start gives: the same points and the same skills, float for float."""
    rated = rules.matches(given_tables)
    k = data.draw(st.integers(0, len(rated)))
    head = rules.rate([t for t, _seats in rated[:k]])
    tail = rules.rate([t for t, _seats in rated[k:]], before=head.skills, seq=k)
    whole = rules.rate(given_tables)
    assert head.points + tail.points == whole.points
    assert tail.skills == whole.skills


@settings(max_examples=60, deadline=None)
@given(tables(), st.data())
def test_unchanged_counts_the_tables_up_to_the_first_that_differs(given_tables, data):
    rated = rules.matches(given_tables)
    stored = [(t.event, t.number, tuple(seats)) for t, seats in rated]
    assert rules.unchanged(rated, stored) == len(rated)
    if not rated:
        return
    at = data.draw(st.integers(0, len(rated) - 1))
    event, number, seats = stored[at]
    changed = data.draw(
        st.sampled_from(
            [
                (event, number + 100, seats),  # another table there
                (event, number, seats[::-1]) if seats[0].place != seats[-1].place else None,
                (event, number, (*seats[:-1], Seat(seats[-1].player + 100, seats[-1].place))),
            ]
        ).filter(bool)
    )
    assert rules.unchanged(rated, [*stored[:at], changed, *stored[at + 1 :]]) == at
    assert rules.unchanged(rated, stored[:at]) == at  # fewer stored than counted
