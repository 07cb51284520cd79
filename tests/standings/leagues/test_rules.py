"""A league's standings and clubs' cup as pure rules (DOMAIN.md "A season across clubs")."""

from __future__ import annotations

import pytest

from standings.leagues.rules import RoundLine, clubs_cup, league_standings

SCALE = [10, 6, 4, 3, 2, 1]


def line(round_, player, club, position, *, status="finished", rank=None, removed=0, place=None):
    return RoundLine(
        round=round_,
        player=player,
        club=club,
        status=status,
        position=position,
        place=position if place is None else place,
        rank=position if rank is None else rank,
        removed=removed,
    )


def test_the_league_scores_each_round_by_its_own_scale_and_mode():
    # A 2nd place at table 2 is the day's rank 5 behind a table of 3 (DOMAIN.md "Points").
    lines = [line("r1", "ann", "a", 2, rank=5)]
    per_table = league_standings(lines, rounds=["r1"], scale=SCALE, mode="per_table")
    overall = league_standings(lines, rounds=["r1"], scale=SCALE, mode="overall")
    assert per_table[0].points == 6
    assert overall[0].points == 2


def test_only_finishers_score_a_retirement_keeps_its_place_for_countback():
    # §21-1-2: a driver must cross the line to score.
    lines = [line("r1", "ann", "a", 1, status="retired")]
    (standing,) = league_standings(lines, rounds=["r1"], scale=SCALE, mode="per_table")
    assert standing.points == 0
    assert standing.countback == (1,)


def test_best_k_counts_the_best_rounds_and_the_earlier_of_equal_ones():
    lines = [
        line("r1", "ann", "a", 2),
        line("r2", "ann", "a", 1),
        line("r3", "ann", "a", 2),
    ]
    (standing,) = league_standings(lines, rounds=["r1", "r2", "r3"], scale=SCALE,
                                   mode="per_table", best=2)  # fmt: skip
    assert standing.points == 16
    assert [r.counted for r in standing.rounds] == [True, True, False]


def test_equal_points_by_countback_then_a_shared_rank():
    # DOMAIN.md "Race result and retirements": ties broken by countback over all results
    # (more 1st places at their table, then 2nd…), then a shared rank 1, 2, 2, 4.
    lines = [
        line("r1", "ann", "a", 1), line("r2", "ann", "a", 5),  # 10 + 2 = 12, one 1st
        line("r1", "bob", "b", 2), line("r2", "bob", "b", 2),  # 6 + 6 = 12, no 1st
        line("r1", "cid", "c", 3), line("r2", "cid", "c", 4),  # 4 + 3 = 7
        line("r1", "dan", "d", 4), line("r2", "dan", "d", 3),  # 3 + 4 = 7, same places
        line("r1", "eve", "e", 6),
    ]  # fmt: skip
    table = league_standings(lines, rounds=["r1", "r2"], scale=SCALE, mode="per_table")
    assert [(s.player, s.rank, s.points) for s in table] == [
        ("ann", 1, 12), ("bob", 2, 12), ("cid", 3, 7), ("dan", 3, 7), ("eve", 5, 1),
    ]  # fmt: skip


def test_a_points_sanction_comes_off_the_total_after_best_k_in_full():
    # §1-2-3: the organisers' points sanction, off the total even below zero.
    lines = [line("r1", "ann", "a", 6, removed=3)]
    (standing,) = league_standings(lines, rounds=["r1"], scale=SCALE, mode="per_table")
    assert standing.points == -2


def test_a_disqualified_player_scores_nothing_and_no_countback():
    lines = [line("r1", "ann", "a", 1, status="dsq")]
    (standing,) = league_standings(lines, rounds=["r1"], scale=SCALE, mode="per_table")
    assert (standing.points, standing.countback) == (0, ())


def test_rounds_not_of_the_league_are_left_out_and_order_follows_the_rounds():
    lines = [line("r2", "ann", "a", 1), line("r1", "ann", "b", 2), line("rx", "ann", "a", 1)]
    (standing,) = league_standings(lines, rounds=["r1", "r2"], scale=SCALE, mode="per_table")
    assert [r.round for r in standing.rounds] == ["r1", "r2"]
    assert standing.clubs == ("b", "a")
    assert standing.points == 16


def test_the_clubs_cup_counts_each_clubs_best_n_of_each_round():
    lines = [
        line("r1", "ann", "a", 1), line("r1", "amy", "a", 2), line("r1", "abe", "a", 3),
        line("r1", "bob", "b", 4), line("r1", "bea", "b", 5),
        line("r2", "bob", "b", 1), line("r2", "ann", "a", 6),
    ]  # fmt: skip
    cup = clubs_cup(lines, rounds=["r1", "r2"], scale=SCALE, mode="per_table", club_best=2)
    assert [(c.club, c.rank, c.points, c.rounds) for c in cup] == [
        ("a", 1, 17, (("r1", 16), ("r2", 1))),
        ("b", 2, 15, (("r1", 5), ("r2", 10))),
    ]


def test_equal_clubs_by_their_best_round_then_a_shared_rank():
    lines = [
        line("r1", "ann", "a", 1), line("r2", "ann", "a", 5),  # 10 + 2: best round 10
        line("r1", "bob", "b", 2), line("r2", "bob", "b", 2),  # 6 + 6
        line("r1", "cid", "c", 2), line("r2", "cid", "c", 2),  # 6 + 6: shares b's rank
    ]  # fmt: skip
    cup = clubs_cup(lines, rounds=["r1", "r2"], scale=SCALE, mode="per_table", club_best=1)
    assert [(c.club, c.rank) for c in cup] == [("a", 1), ("b", 2), ("c", 2)]


def test_a_clubs_round_never_goes_below_zero_for_a_sanction():
    lines = [line("r1", "ann", "a", 6, removed=5), line("r1", "bob", "b", 6)]
    cup = clubs_cup(lines, rounds=["r1"], scale=SCALE, mode="per_table", club_best=1)
    assert [(c.club, c.points) for c in cup] == [("b", 1), ("a", 0)]


def test_a_player_twice_at_a_round_keeps_the_better_line():
    lines = [line("r1", "ann", "a", 3), line("r1", "ann", "a", 1)]
    (standing,) = league_standings(lines, rounds=["r1"], scale=SCALE, mode="per_table")
    assert standing.points == 10


@pytest.mark.parametrize("bad", [0, -1, True, "2"])
def test_club_best_is_a_whole_number_of_at_least_one(bad):
    with pytest.raises(ValueError):
        clubs_cup([], rounds=[], scale=SCALE, mode="per_table", club_best=bad)
