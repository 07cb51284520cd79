"""Racetrack classification (races/games/racetrack/rules.py) against the rule text.

Sections of rules/racetrack-rules.fr.txt: "Accidents" (crash and collision eliminate, the
variants of N crashes and of no collisions), "Fin du jeu" (fewest turns, then the margin
past the line, ties). No database.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from races.games.racetrack.rules import (
    ENDS,
    Run,
    classification,
    collision_eliminates,
    problems,
    run_of,
)

SCALE = (10, 6, 4, 3, 2, 1)


def test_fin_du_jeu_example_42_turns_larger_margin_wins():
    # "si après 42 tours de jeu le joueur 1 franchit la ligne avec une position finale 2
    # carreaux derrière la ligne d'arrivée, et qu'après 42 tours également le joueur 2 [...]
    # 3 carreaux derrière la ligne, c'est le joueur 2 qui gagne la course."
    lines = classification(
        [Run(1, turns=42, margin=2, finished=True), Run(2, turns=42, margin=3, finished=True)],
        scale=SCALE,
    )
    assert [(line.driver, line.place, line.points) for line in lines] == [(2, 1, 10), (1, 2, 6)]


def test_fin_du_jeu_equal_turns_and_margin_is_a_tie_with_the_better_points():
    # "Une course peut se finir sur une égalité [...] même nombre de tours et même marge"
    lines = classification(
        [
            Run(1, turns=30, margin=1, finished=True),
            Run(2, turns=30, margin=1, finished=True),
            Run(3, turns=31, margin=5, finished=True),
        ],
        scale=SCALE,
    )
    assert [(line.place, line.points) for line in lines] == [(1, 10), (1, 10), (3, 4)]
    assert [line.position for line in lines] == [1, 2, 3]


def test_finishers_then_still_running_then_eliminated():
    lines = classification(
        [
            Run(1, crashes=1, eliminated=True),
            Run(2, turns=20),
            Run(3, turns=25, margin=0, finished=True),
        ],
        scale=SCALE,
    )
    assert [(line.driver, line.status, line.place, line.points) for line in lines] == [
        (3, "finished", 1, 10),
        (2, "running", 2, 6),
        (1, "eliminated", 3, 0),
    ]


def test_fin_du_jeu_stopping_at_the_winner_the_referee_places_the_cars_still_running():
    """ "Soit la course s'arrête lorsque le vainqueur franchit la ligne": the cars still
    running are placed by the referee (their distance to the line); they share a place
    only when the referee writes the same place. The default variant ("jusqu'à ce que
    l'avant dernier la franchisse") leaves at most one car running: they share."""
    runs = [
        Run(1, turns=20, place=2),
        Run(2, turns=30, margin=1, finished=True),
        Run(3, turns=20, place=1),
        Run(4, turns=20, place=3),
        Run(5, crashes=1, eliminated=True),
    ]
    lines = classification(runs, scale=SCALE, end="winner")
    assert [(line.driver, line.place, line.points) for line in lines] == [
        (2, 1, 10),
        (3, 2, 6),
        (1, 3, 4),
        (4, 4, 3),
        (5, 5, 0),
    ]
    shared = classification(runs, scale=SCALE)
    assert [(line.driver, line.place) for line in shared] == [
        (2, 1),
        (1, 2),
        (3, 2),
        (4, 2),
        (5, 5),
    ]


def test_fin_du_jeu_at_the_winner_a_complete_sheet_places_every_car_still_running():
    runs = {
        1: {"turns": 30, "finished": True},
        2: {"turns": 29},
        3: {"turns": 29, "place": 0},
    }
    found = problems(runs, grid=[1, 2, 3], end="winner", complete=True)
    assert [(p.kind, p.driver) for p in found] == [("place_required", 2), ("bad_number", 3)]
    # The default variant places nobody: one car at most is left running.
    assert problems({1: runs[1], 2: runs[2]}, grid=[1, 2], complete=True) == []
    draft = problems({2: {"turns": 29}}, grid=[1, 2, 3], end="winner", complete=False)
    assert draft == []


def test_accidents_a_crash_eliminates_by_default():
    # "si l'on se prend un mur on est éliminé"
    found = problems({1: {"turns": 5, "crashes": 1}}, grid=[1], complete=True)
    assert [(p.kind, p.driver) for p in found] == [("over_crash_limit", 1)]
    assert problems({1: {"crashes": 1, "eliminated": True}}, grid=[1], complete=True) == []


def test_accidents_variant_eliminated_only_after_n_crashes():
    # "n'éliminer un joueur qu'au bout d'un certain nombre de crashes"
    assert problems({1: {"turns": 9, "crashes": 2}}, grid=[1], crash_limit=3, complete=True) == []
    found = problems(
        {1: {"crashes": 2, "eliminated": True}}, grid=[1], crash_limit=3, complete=True
    )
    assert [p.kind for p in found] == ["eliminated_below_limit"]


def test_problems_name_the_driver():
    found = problems(
        {
            1: {"turns": -1},
            2: {"turns": 4, "finished": True, "eliminated": True, "crashes": 1},
            3: {"finished": True},
            9: {},
        },
        grid=[1, 2, 3, 4],
        complete=True,
    )
    assert {(p.kind, p.driver) for p in found} == {
        ("bad_number", 1),
        ("finished_and_eliminated", 2),
        ("turns_required", 3),
        ("unknown_driver", 9),
        ("missing", 4),
    }


runs = st.lists(
    st.builds(
        lambda turns, margin, state: (turns, margin, state),
        st.integers(1, 60),
        st.integers(0, 5),
        st.sampled_from(["finished", "running", "eliminated"]),
    ),
    min_size=1,
    max_size=8,
).map(
    lambda items: [
        Run(
            i,
            turns=t,
            margin=m,
            crashes=1 if s == "eliminated" else 0,
            finished=s == "finished",
            eliminated=s == "eliminated",
        )
        for i, (t, m, s) in enumerate(items)
    ]
)


def key(run: Run) -> tuple[int, int, int]:
    order = {"finished": 0, "running": 1, "eliminated": 2}[run.status]
    return (order, run.turns if run.finished else 0, -run.margin if run.finished else 0)


@given(runs)
def test_places_are_1_based_and_shared_only_on_equal_keys(race):
    lines = classification(race, scale=SCALE)
    by_driver = {run.driver: run for run in race}
    assert lines[0].place == 1
    assert sorted(line.position for line in lines) == list(range(1, len(race) + 1))
    for before, after in zip(lines, lines[1:], strict=False):
        a, b = key(by_driver[before.driver]), key(by_driver[after.driver])
        assert a <= b
        assert (before.place == after.place) == (a == b)


@given(runs)
def test_points_non_negative_eliminated_zero_shared_place_equal_points(race):
    lines = classification(race, scale=SCALE)
    assert all(line.points >= 0 for line in lines)
    assert all(line.points == 0 for line in lines if line.status == "eliminated")
    for before, after in zip(lines, lines[1:], strict=False):
        if before.place == after.place:
            assert before.points == after.points
        assert before.points >= after.points


@given(runs, st.randoms())
def test_classification_does_not_depend_on_the_order_runs_are_written(race, rnd):
    shuffled = list(race)
    rnd.shuffle(shuffled)
    places = {(line.driver, line.place, line.points) for line in classification(race, scale=SCALE)}
    assert {
        (line.driver, line.place, line.points) for line in classification(shuffled, scale=SCALE)
    } == places


def test_accidents_a_collision_eliminates_both_cars():
    # "si on se prend une autre caisse, on est éliminé aussi, en plus d'éliminer le joueur
    # que l'on accidente": the car hit is out without a crash of its own.
    sheet = {
        1: {"turns": 7, "crashes": 1, "eliminated": True},  # hit car 2
        2: {"turns": 7, "crashes": 0, "eliminated": True},  # was hit
        3: {"turns": 30, "finished": True},
    }
    assert problems(sheet, grid=[1, 2, 3], collisions=True, complete=True) == []
    lines = classification([run_of(n, values) for n, values in sheet.items()], scale=SCALE)
    assert {(line.driver, line.status, line.points) for line in lines} == {
        (3, "finished", 10),
        (1, "eliminated", 0),
        (2, "eliminated", 0),
    }


def test_accidents_a_collision_needs_the_other_car_eliminated_too():
    sheet = {1: {"turns": 7, "eliminated": True}, 2: {"turns": 30, "finished": True}}
    found = problems(sheet, grid=[1, 2], collisions=True, complete=True)
    assert [(p.kind, p.driver) for p in found] == [("collision_alone", 1)]
    # A draft may be written one car at a time.
    assert problems({1: sheet[1]}, grid=[1, 2], collisions=True, complete=False) == []


def test_accidents_variant_without_collisions_only_crashes_eliminate():
    # "plusieurs joueurs peuvent se positionner sur le même croisement en toute
    # transparence sans que cela n'implique d'accident"
    sheet = {1: {"turns": 7, "eliminated": True}, 2: {"turns": 7, "eliminated": True}}
    found = problems(sheet, grid=[1, 2], collisions=False, complete=True)
    assert {(p.kind, p.driver) for p in found} == {
        ("eliminated_without_collision", 1),
        ("eliminated_without_collision", 2),
    }
    crashed = {1: {"crashes": 1, "eliminated": True}, 2: {"turns": 9, "finished": True}}
    assert problems(crashed, grid=[1, 2], collisions=False, complete=True) == []


def test_accidents_variant_of_n_crashes_a_collision_is_a_crash_for_both():
    # "les deux joueurs ajoutent un crash à leur compteur": nobody is out below the limit.
    sheet = {1: {"crashes": 1, "eliminated": True}, 2: {"crashes": 1, "eliminated": True}}
    found = problems(sheet, grid=[1, 2], crash_limit=2, collisions=True, complete=True)
    assert [p.kind for p in found] == ["eliminated_below_limit"] * 2
    assert collision_eliminates(crash_limit=1, collisions=True)
    assert not collision_eliminates(crash_limit=2, collisions=True)
    assert not collision_eliminates(crash_limit=1, collisions=False)


@given(
    st.integers(0, 4),
    st.booleans(),
    st.integers(1, 3),
    st.booleans(),
)
def test_a_car_with_the_limit_of_crashes_is_always_eliminated(crashes, eliminated, limit, on):
    found = problems(
        {
            1: {"crashes": crashes, "eliminated": eliminated},
            2: {"crashes": limit, "eliminated": True},
            3: {"turns": 20, "finished": True},  # a winner: car 1 is not the last one left
        },
        grid=[1, 2, 3],
        crash_limit=limit,
        collisions=on,
        complete=True,
    )
    kinds = {p.kind for p in found if p.driver == 1}
    if crashes >= limit:
        assert (not kinds) == eliminated
    elif eliminated:
        # Below the limit only the rule's collision (on, a crash eliminates) puts a car out.
        assert (not kinds) == (on and limit == 1)
    else:
        assert not kinds


def test_fin_du_jeu_default_end_leaves_at_most_one_car_running():
    """ "elle continue jusqu'à ce que l'avant dernier la franchisse" (the default end): a
    complete sheet with two cars still running is refused, naming both, instead of paying
    both the second place; a draft may still have them running."""
    sheet = {
        1: {"turns": 30, "finished": True},
        2: {"turns": 30},
        3: {"turns": 30},
    }
    found = problems(sheet, grid=[1, 2, 3], complete=True)
    assert [(p.kind, p.driver, p.value) for p in found] == [
        ("too_many_running", 2, 2),
        ("too_many_running", 3, 2),
    ]
    assert problems(sheet, grid=[1, 2, 3], complete=False) == []
    # Stopped at the winner, the referee places both: accepted.
    placed = {**sheet, 2: {"turns": 30, "place": 1}, 3: {"turns": 30, "place": 2}}
    assert problems(placed, grid=[1, 2, 3], end="winner", complete=True) == []
    # One left running, or the others out: accepted.
    sheet[3] = {"crashes": 1, "eliminated": True}
    assert problems(sheet, grid=[1, 2, 3], complete=True) == []


@given(st.lists(st.sampled_from(["finished", "running", "eliminated"]), min_size=1, max_size=8))
def test_a_complete_default_sheet_is_refused_exactly_when_two_cars_still_run(states):
    sheet = {
        n: {
            "turns": 20,
            "finished": state == "finished",
            "eliminated": state == "eliminated",
            "crashes": int(state == "eliminated"),
        }
        for n, state in enumerate(states, start=1)
    }
    found = problems(sheet, grid=list(sheet), complete=True)
    running = [n for n, state in enumerate(states, start=1) if state == "running"]
    assert [p.driver for p in found if p.kind == "too_many_running"] == (
        running if len(running) > 1 else []
    )


def test_points_follow_the_day_rank_in_the_championship_overall_mode():
    """DOMAIN.md, "Points mode applies to every game": in mode ``overall`` the table's
    places become day ranks from ``first_rank``; a shared place still shares the points."""
    runs = [
        Run(1, turns=30, margin=1, finished=True),
        Run(2, turns=30, margin=1, finished=True),
        Run(3, turns=31, finished=True),
        Run(4, crashes=1, eliminated=True),
    ]
    scale = (25, 18, 15, 12, 10, 8, 6, 4, 2, 1)
    per_table = classification(runs, scale=scale, first_rank=7)
    assert [line.points for line in per_table] == [25, 25, 15, 0]
    overall = classification(runs, scale=scale, mode="overall", first_rank=7)
    # Ranks 7, 7, 9 and 10 of the day: 6, 6, 2 points; eliminated 0.
    assert [(line.place, line.points) for line in overall] == [(1, 6), (1, 6), (3, 2), (4, 0)]
    assert classification(runs, scale=scale, mode="overall") == classification(runs, scale=scale)


@given(runs, st.integers(1, 30))
def test_overall_points_are_the_scale_at_the_day_rank(race, first_rank):
    scale = tuple(range(40, 0, -1))
    lines = classification(race, scale=scale, mode="overall", first_rank=first_rank)
    for line in lines:
        expected = 0 if line.status == "eliminated" else scale[first_rank + line.place - 2]
        assert line.points == expected


def test_the_last_car_left_wins_only_once_it_completes_its_lap():
    """ "le joueur restant sera déclaré automatiquement vainqueur (sous réserve qu'il arrive
    à boucler son tour de piste)": the two others out by collision, the last car still
    running took place 1 and the winner's points. A complete sheet asks whether it crossed,
    whatever the end; crossed (finished), it wins; not crossed (eliminated), nobody does."""
    out = {"crashes": 1, "eliminated": True}
    sheet = {1: out, 2: out, 3: {"turns": 12, "place": 1}}
    for end in ENDS:
        found = problems(sheet, grid=[1, 2, 3], end=end, complete=True)  # type: ignore[arg-type]
        assert [(p.kind, p.driver) for p in found] == [("survivor_must_cross", 3)]
        assert problems(sheet, grid=[1, 2, 3], end=end, complete=False) == []  # type: ignore[arg-type]
    crossed = {**sheet, 3: {"turns": 14, "finished": True}}
    assert problems(crossed, grid=[1, 2, 3], complete=True) == []
    lines = classification([run_of(n, crossed[n]) for n in (1, 2, 3)], scale=SCALE)
    assert [(line.driver, line.place, line.points) for line in lines][0] == (3, 1, 10)
    crashed = {**sheet, 3: {"crashes": 1, "eliminated": True}}
    assert problems(crashed, grid=[1, 2, 3], complete=True) == []
    lines = classification([run_of(n, crashed[n]) for n in (1, 2, 3)], scale=SCALE)
    assert {line.points for line in lines} == {0}
    # A car that crossed ahead of it: the last one running is placed behind, not asked.
    ahead = {1: {"turns": 10, "finished": True}, 2: out, 3: {"turns": 12}}
    assert problems(ahead, grid=[1, 2, 3], complete=True) == []
