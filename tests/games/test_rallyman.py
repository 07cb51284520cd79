"""Rallyman stage times and classifications (races/games/rallyman/rules.py) against the rules.

Article numbers refer to rules/rallyman-rules.fr.txt: ART.2 (three stages, the FEUILLE
P.C. COURSE), ART.4-2 (start orders), ART.11 (chrono mm:ss, best time wins the stage),
Règlement+ (seconds tokens subtracted, intermediate time points). No database.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from races.games.rallyman.rules import (
    ChronoError,
    StageEntry,
    draw_start_order,
    entry_of,
    entry_problems,
    format_chrono,
    games,
    next_start_order,
    parse_chrono,
    parse_splits,
    rally_classification,
    route_labels,
    route_problems,
    route_zones,
    snow_draw,
    snow_invalid,
    snow_redraw_refusal,
    stage_scratch,
    tyre_choice_open,
)


def test_art_11_chrono_mm_ss_minutes_may_exceed_59():
    assert parse_chrono("07:40") == 460
    assert parse_chrono("75:10") == 4510
    assert format_chrono(4510) == "75:10"
    assert format_chrono(65) == "01:05"
    for bad in ("7:60", "abc", "", "1:2", "-1:00"):
        with pytest.raises(ChronoError):
            parse_chrono(bad)


def test_art_2_routes_of_the_example_sheet():
    # The "Rallye des Groseilles" sheet: ES1 C8 C3-J6-J5-C4 C5, ES3 J1 J4.
    assert route_labels("C8 C3-J6-J5-C4 C5") == ["C8", "C3", "J6", "J5", "C4", "C5"]
    assert route_problems("L0 L1-C7-C6-L2-L3-V2-V3-C5 C4") == []
    assert route_problems("C8 X9") == ["X9"]


def test_reglement_plus_seconds_held_are_subtracted():
    # "Temps de la pile chrono - Nombre de secondes = Temps final réalisé dans l'ES."
    assert StageEntry("remi", chrono=parse_chrono("04:30"), seconds_held=7).time == 263


def test_art_11_best_time_wins_the_stage_and_equal_times_share_the_rank():
    scratch = stage_scratch(
        [
            StageEntry("remi", 300),
            StageEntry("olga", 290),
            StageEntry("julie", 300),
            StageEntry("charly", None, retired=True),
        ]
    )
    assert [(line.rank, line.driver) for line in scratch] == [
        (1, "olga"),
        (2, "remi"),
        (2, "julie"),
        (4, "charly"),
    ]


def test_art_4_es3_starts_in_the_es1_es2_order_ties_keep_previous_start_order():
    drivers = ["remi", "olga", "julie", "charly"]
    es1 = [
        StageEntry("remi", 300),
        StageEntry("olga", 310),
        StageEntry("julie", 320),
        StageEntry("charly", 330),
    ]
    order2 = next_start_order(drivers, rally_classification([es1], drivers=drivers))
    assert order2 == ["remi", "olga", "julie", "charly"]  # ES2 in the ES1 order
    es2 = [
        StageEntry("remi", 300),
        StageEntry("olga", 280),
        StageEntry("julie", 270),
        StageEntry("charly", 200, retired=True),
    ]
    after2 = rally_classification([es1, es2], drivers=drivers)
    assert [(line.rank, line.driver, line.total) for line in after2] == [
        (1, "olga", 590),
        (1, "julie", 590),
        (3, "remi", 600),
        (4, "charly", 330),
    ]
    # julie and olga are equal after ES1+ES2: olga started ES2 before julie.
    assert next_start_order(order2, after2) == ["olga", "julie", "remi"]


def test_art_4_a_tie_keeps_the_previous_start_order_not_the_list_order():
    """ART.4-2: equal totals keep the previous stage's start order. The drivers are listed
    julie, olga, remi, but olga started the previous stage before julie: olga first."""
    drivers = ["julie", "olga", "remi"]
    previous = ["olga", "remi", "julie"]
    es1 = [StageEntry("julie", 300), StageEntry("olga", 300), StageEntry("remi", 310)]
    lines = rally_classification([es1], drivers=drivers)
    assert [(line.rank, line.driver) for line in lines] == [
        (1, "julie"),
        (1, "olga"),
        (3, "remi"),
    ]
    assert next_start_order(previous, lines) == ["olga", "julie", "remi"]
    assert next_start_order(list(reversed(previous)), lines) == ["julie", "olga", "remi"]


def test_reglement_plus_snow_one_die_per_zone_of_the_route():
    """ "le directeur de course lance autant de dés que de ZONES constituant la spéciale":
    one answer per zone, yes or no; the system's draw gives as many."""
    zones = route_zones("C8 C3-J6-J5-C4 C5")
    assert not snow_invalid(len(zones), [False, True])
    assert snow_invalid(len(zones), [False, True, False, False, True, False])  # per label
    assert snow_invalid(2, [True, "yes"])  # not yes/no
    assert snow_invalid(2, "TT")
    drawn = snow_draw(len(zones), rng=random.Random(7))
    assert len(drawn) == len(zones) and all(isinstance(z, bool) for z in drawn)


def test_art_2_a_stage_combines_1_to_4_zones_not_one_per_junction_label():
    """ART.2: "On définit les spéciales en combinant 1, 2, 3 ou 4 ZONES (C, J, L, V)"; the
    "Rallye des Groseilles" routes write junctions (C8, C3…): ES1 "C8 C3-J6-J5-C4 C5"
    crosses zones C and J, ES2 "L0 L1-C7-C6-L2-L3-V2-V3-C5 C4" (10 labels) zones L, C and
    V, ES3 "J1 J4" zone J. Règlement+: "le DÉ 1 pour la 1ère ZONE" — the zone first
    entered — and a snowy zone is turned over whole ("Le dos des ZONES est enneigé")."""
    assert route_zones("C8 C3-J6-J5-C4 C5") == ["C", "J"]
    assert route_zones("L0 L1-C7-C6-L2-L3-V2-V3-C5 C4") == ["L", "C", "V"]
    assert route_zones("J1 J4") == ["J"]
    assert len(snow_draw(len(route_zones("L0 L1-C7-C6-L2-L3-V2-V3-C5 C4")))) == 3


@given(st.lists(st.sampled_from("CJLV"), min_size=1, max_size=12), st.integers(0, 20))
def test_a_route_has_one_to_four_zones_whatever_its_length(letters, number):
    route = "-".join(f"{letter}{(number + i) % 10}" for i, letter in enumerate(letters))
    zones = route_zones(route)
    assert 1 <= len(zones) <= 4
    assert zones == list(dict.fromkeys(letters))  # each once, in the order entered


def test_snow_is_drawn_once_a_second_draw_needs_a_reason_and_none_once_timed():
    """Règlement+: the snow is drawn "avant que ne s'élançe le premier pilote"; DOMAIN.md:
    a second draw for a stage needs a reason, like the race weather."""
    assert snow_redraw_refusal(drawn=False, timed=False, reason="") is None
    assert snow_redraw_refusal(drawn=True, timed=False, reason="  ") == "reason_required"
    assert snow_redraw_refusal(drawn=True, timed=False, reason="die off the table") is None
    assert snow_redraw_refusal(drawn=True, timed=True, reason="die off the table") == "timed"
    assert snow_redraw_refusal(drawn=False, timed=True, reason="") == "timed"


def test_reglement_plus_snow_draw_gives_snow_on_about_one_die_in_six():
    rng = random.Random(1925)
    zones = [z for _ in range(600) for z in snow_draw(10, rng=rng)]
    assert 0.12 < sum(zones) / len(zones) < 0.22


def test_reglement_plus_tyres_chosen_at_the_first_stage_and_after_a_service_park():
    """ "Au départ de la première ES et au départ des ES précédées d'une assistance, chaque
    pilote choisit sa monte pneumatique"; otherwise "les pilotes conservent les pneus de la
    spéciale précédente"."""
    assert tyre_choice_open(1, service_before=False)
    assert tyre_choice_open(3, service_before=True)
    assert not tyre_choice_open(2, service_before=False)
    kept = entry_problems(
        {7: {"chrono": "05:00", "tyres": "snow"}, 8: {"chrono": "05:00", "tyres": "asphalt"}},
        starters=[7, 8],
        tyre_choice=False,
        tyres_before={7: "asphalt", 8: "asphalt"},
    )
    assert [(p.kind, p.driver, p.value) for p in kept] == [("tyres_kept", 7, "asphalt")]
    chosen = entry_problems(
        {7: {"chrono": "05:00", "tyres": "snow"}, 8: {"chrono": "05:00", "tyres": "slicks"}},
        starters=[7, 8],
        tyre_choice=True,
        tyres_before={7: "asphalt"},
    )
    assert [(p.kind, p.driver) for p in chosen] == [("bad_tyres", 8)]


def test_retired_drivers_come_after_the_running_ones_later_retirement_first():
    drivers = [1, 2, 3]
    es1 = [StageEntry(1, 100), StageEntry(2, None, retired=True), StageEntry(3, 500)]
    es2 = [StageEntry(1, None, retired=True), StageEntry(3, 500)]
    lines = rally_classification([es1, es2], drivers=drivers)
    assert [(line.driver, line.retired_in) for line in lines] == [(3, None), (1, 2), (2, 1)]
    assert lines[1].stages == (100, None)


def test_entry_problems_name_the_driver():
    found = entry_problems(
        {
            1: {"chrono": "5:70"},
            2: {"chrono": "01:00", "seconds_held": 61},
            3: {},
            4: {"retired": True},
            9: {"chrono": "01:00"},
        },
        starters=[1, 2, 3, 4, 5],
        complete=True,
    )
    assert {(p.kind, p.driver) for p in found} == {
        ("bad_chrono", 1),
        ("seconds_exceed_chrono", 2),
        ("chrono_required", 3),
        ("not_starting", 9),
        ("missing", 5),
    }


def test_games_of_up_to_four_in_start_order():
    assert games(list(range(1, 10))) == [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
    assert games([1, 2, 3, 4, 5]) == [[1, 2, 3], [4, 5]]
    assert games([]) == []


def test_drawn_start_order_keeps_every_driver():
    assert sorted(draw_start_order([3, 1, 2], rng=random.Random(4))) == [1, 2, 3]


stage = st.lists(st.one_of(st.none(), st.integers(60, 600)), min_size=4, max_size=4)


@given(st.lists(stage, min_size=1, max_size=3))
def test_ranks_are_1_based_shared_only_on_equal_keys(stages):
    drivers = [1, 2, 3, 4]
    entries = [
        [StageEntry(d, t, retired=t is None) for d, t in zip(drivers, times, strict=True)]
        for times in stages
    ]
    lines = rally_classification(entries, drivers=drivers)
    assert lines[0].rank == 1
    assert sorted(line.driver for line in lines) == drivers

    def key(line):
        if line.retired_in is None:
            return (0, 0, line.total)
        return (1, -line.retired_in, line.total)

    for before, after in zip(lines, lines[1:], strict=False):
        assert key(before) <= key(after)
        assert (before.rank == after.rank) == (key(before) == key(after))


@given(st.lists(stage, min_size=1, max_size=3), st.randoms())
def test_next_start_order_is_a_permutation_of_the_running_drivers(stages, rnd):
    drivers = [1, 2, 3, 4]
    entries = [
        [StageEntry(d, t, retired=t is None) for d, t in zip(drivers, times, strict=True)]
        for times in stages
    ]
    previous = list(drivers)
    rnd.shuffle(previous)
    lines = rally_classification(entries, drivers=drivers)
    order = next_start_order(previous, lines)
    assert sorted(order) == sorted(line.driver for line in lines if line.retired_in is None)
    ranks = {line.driver: line.rank for line in lines}
    assert [ranks[d] for d in order] == sorted(ranks[d] for d in order)


@given(st.integers(0, 999 * 60 + 59))
def test_chrono_round_trip(seconds):
    assert parse_chrono(format_chrono(seconds)) == seconds


def test_reglement_plus_intermediate_times_are_piles_in_the_order_of_the_points():
    # Règlement+: "Un ou plusieurs points de prise de temps intermédiaires [...] chaque
    # rallyman communique son temps (pile chrono) à cet endroit de l'ES".
    entry = entry_of(1, {"chrono": "07:40", "splits": ["02:10", " ", "05:05"]})
    assert entry.splits == (130, 305)
    assert parse_splits(None) == []
    found = entry_problems(
        {
            1: {"chrono": "07:40", "splits": ["02:10", "zz"]},
            2: {"chrono": "07:40", "splits": ["05:00", "02:00"]},
            3: {"chrono": "03:00", "splits": ["04:00"]},  # beyond the stage's own pile
            4: {"retired": True, "splits": ["02:00"]},  # went past a point, then retired
            5: {"chrono": "03:00", "splits": "02:00"},
        },
        starters=[1, 2, 3, 4, 5],
    )
    assert {(p.kind, p.driver, p.value) for p in found} == {
        ("bad_split", 1, "zz"),
        ("splits_order", 2, None),
        ("splits_order", 3, None),
        ("bad_split", 5, "02:00"),
    }


@given(st.lists(st.integers(0, 999 * 60 + 59), max_size=6))
def test_splits_round_trip_and_only_increasing_ones_pass(seconds):
    texts = [format_chrono(s) for s in seconds]
    assert parse_splits(texts) == seconds
    found = entry_problems({1: {"chrono": "999:59", "splits": texts}}, starters=[1])
    assert (found == []) == (seconds == sorted(seconds))
