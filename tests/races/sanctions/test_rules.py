"""Sanctions (races/sanctions/rules.py) against the competition rules.

§1-2-3 of rules/formule-de-competition-rules.fr.txt: "Si le pilote ne respecte pas
l'injonction d'un commissaire, l'organisateur décidera des conséquences à donner." The
consequences Paddock records are DOMAIN.md's: a warning, throws added to a qualifying run,
points removed for the event, a disqualification. No database: plain functions.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from races.sanctions.rules import (
    KINDS,
    Sanction,
    SanctionProblem,
    championship_total,
    disqualified,
    points_removed,
    sanction_problems,
    throws_added,
)


@pytest.mark.parametrize(
    ("kind", "value", "session"),
    [("warning", None, None), ("throws", 2, 1), ("points", 5, None), ("disqualified", None, None)],
)
def test_1_2_3_each_kind_the_organisers_decide(kind, value, session):
    assert sanction_problems(kind=kind, value=value, session=session, reason="ignored") == []


def test_1_2_3_every_sanction_has_a_reason():
    assert sanction_problems(kind="warning", value=None, session=None, reason="  ") == [
        SanctionProblem("reason", "reason_required")
    ]
    long = sanction_problems(kind="warning", value=None, session=None, reason="x" * 201)
    assert long == [SanctionProblem("reason", "reason_too_long")]


def test_what_each_kind_needs():
    assert sanction_problems(kind="throws", value=None, session=None, reason="r") == [
        SanctionProblem("value", "value_required"),
        SanctionProblem("session", "session_required"),
    ]
    assert sanction_problems(kind="points", value=0, session=2, reason="r") == [
        SanctionProblem("value", "value_required"),
        SanctionProblem("session", "session_not_allowed"),
    ]
    assert sanction_problems(kind="warning", value=3, session=None, reason="r") == [
        SanctionProblem("value", "value_not_allowed")
    ]
    assert sanction_problems(kind="points", value=True, session=None, reason="r") == [
        SanctionProblem("value", "value_required")
    ]
    assert sanction_problems(kind="fine", value=None, session=None, reason="r") == [
        SanctionProblem("kind", "bad_kind")
    ]


def test_what_the_sanctions_in_force_do():
    in_force = [
        Sanction(7, "throws", 2, 1),
        Sanction(7, "throws", 1, 1),
        Sanction(7, "throws", 3, 2),
        Sanction(8, "points", 4),
        Sanction(8, "points", 1),
        Sanction(9, "disqualified"),
        Sanction(10, "warning"),
    ]
    assert throws_added(in_force) == {(7, 1): 3, (7, 2): 3}
    assert points_removed(in_force) == {8: 5}
    assert disqualified(in_force) == {9}


@given(
    st.lists(
        st.builds(
            Sanction,
            st.integers(1, 5),
            st.sampled_from(KINDS),
            st.integers(1, 9),
            st.integers(1, 3),
        ),
        max_size=12,
    )
)
def test_every_sanction_counts_once_in_what_it_changes(sanctions):
    assert sum(throws_added(sanctions).values()) == sum(
        s.value for s in sanctions if s.kind == "throws"
    )
    assert sum(points_removed(sanctions).values()) == sum(
        s.value for s in sanctions if s.kind == "points"
    )
    assert disqualified(sanctions) == {s.driver for s in sanctions if s.kind == "disqualified"}


def test_1_2_3_points_removed_come_off_the_total_in_full_even_from_a_0_point_result():
    """§1-2-3 ("l'organisateur décidera des conséquences"), as DOMAIN.md decides it: points
    removed come off the championship total after best-K, in full even where the event
    scored fewer points; the total may go below zero. A driver who retired (0 points) and
    lost 5 points ends at -5, not 0: the sanction does not vanish."""
    assert championship_total([0], 5) == -5
    assert championship_total([10, 2], 4) == 8
    assert championship_total([], 3) == -3
    assert championship_total([7], 0) == 7
    with pytest.raises(ValueError):
        championship_total([7], -1)


@given(st.lists(st.integers(0, 25), max_size=8), st.integers(0, 50))
def test_a_points_sanction_always_costs_its_whole_value(counted, removed):
    assert championship_total(counted, removed) == championship_total(counted, 0) - removed
