"""The finishing-order game (API.md "Any racing game"): an event named by its organisers,
without a circuit; tables by rating then entry order; the crossing order through
``PUT .../tables/{t}/result``, its 400s naming the fault; points by the championship's
scale; ``GET /api/v1/games``; and a toy game registered through the registry alone."""

from __future__ import annotations

from random import Random

import pytest
from django.utils.translation import gettext_lazy
from hypothesis import given, settings
from hypothesis import strategies as st

from races.games.finishing_order import rules
from races.models import RaceTable
from races.results import rules as race_rules
from races.results.points import table_lines
from tests.games.conftest import allocate, put, table_api
from tournament.games import registry
from tournament.models import Event

pytestmark = pytest.mark.django_db

HEAT = "Heat: Pedal to the Metal"


# --- The pure rules --------------------------------------------------------------------------


def test_tables_by_rating_then_entry_order_in_balanced_sizes() -> None:
    """DOMAIN.md: tables by rating, then entry order; 10 drivers at tables of 4: 4, 3, 3."""
    seats = [rules.Seat(n, None, n) for n in range(10)] + [rules.Seat(99, 30.0, 10)]
    tables = rules.tables(seats, 4)
    assert [len(t) for t in tables] == [4, 4, 3]
    assert [s.driver for s in tables[0]] == [99, 0, 1, 2]
    assert rules.table_sizes(10, 4) == [4, 3, 3]


def test_a_drawn_grid_keeps_every_driver_once() -> None:
    table = [rules.Seat(n, None, n) for n in range(6)]
    drawn = rules.grid(table, "draw", Random(3))
    assert sorted(drawn) == list(range(6)) and drawn != list(range(6))
    assert rules.grid(table, "rating", Random(3)) == list(range(6))


def test_problems_name_each_fault() -> None:
    found = rules.problems(
        grid=[1, 2, 3, 4],
        finish=[1, 1, 9],
        retired=[{"driver": 2, "cause": "engine", "lap": 0}],
        dns=[],
        laps=2,
        complete=True,
    )
    assert [(p.kind, p.driver) for p in found] == [
        ("duplicate", 1),
        ("unknown_driver", 9),
        ("bad_cause", 2),
        ("bad_lap", 2),
        ("missing", 3),
        ("missing", 4),
    ]


def test_classification_finishers_then_the_latest_retirement_then_non_starters() -> None:
    lines = rules.classification([3, 1], [{"driver": 2}, {"driver": 4, "lap": 2}], [5])
    assert [(line.driver, line.position, line.status) for line in lines] == [
        (3, 1, "finished"),
        (1, 2, "finished"),
        (4, 3, "retired"),
        (2, 4, "retired"),
        (5, 5, "dns"),
    ]


def test_retirements_out_of_lap_order_are_refused_naming_the_later_one() -> None:
    """DOMAIN.md "Every game's evening": retirements are listed in the order they happened,
    laps never going down; on one lap, the one listed later ranks ahead."""
    retired = [{"driver": 2, "lap": 3}, {"driver": 3, "lap": 1}, {"driver": 4, "lap": 3}]
    found = rules.problems(grid=[1, 2, 3, 4], finish=[1], retired=retired, dns=[], laps=3,
                           complete=True)  # fmt: skip
    assert [(p.kind, p.driver) for p in found] == [("lap_order", 3)]
    same_lap = [{"driver": 2, "lap": 2}, {"driver": 3, "lap": 2}]
    assert [line.driver for line in rules.classification([1], same_lap, [])] == [1, 3, 2]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.none(), st.integers(1, 3)), min_size=1, max_size=7))
def test_the_finishing_order_game_and_formula_de_refuse_the_same_retirements(laps) -> None:
    """One rule for every game (``races.results.rules.lap_order``), not two copies."""
    drivers = list(range(1, len(laps) + 1))
    fd = race_rules.result_problems(
        race_rules.TableResult(
            finish=(),
            retired=tuple(
                race_rules.Retirement(d, "engine", lap)
                for d, lap in zip(drivers, laps, strict=True)
            ),
            dns=(),
        ),
        grid=drivers,
        laps=3,
        complete=False,
    )
    fo = rules.problems(
        grid=drivers,
        finish=[],
        retired=[{"driver": d, "lap": lap} for d, lap in zip(drivers, laps, strict=True)],
        dns=[],
        laps=3,
        complete=False,
    )
    assert [p.driver for p in fo if p.kind == "lap_order"] == [
        p.driver for p in fd if p.kind == "lap_order"
    ]


def _scored(sheet, disqualified, mode):
    finish, retired, dns = sheet
    placed = rules.placed(finish, retired, dns, disqualified=disqualified)
    return table_lines(placed, table=1, first_rank=1, scale=(10, 6, 4, 3), mode=mode)


@pytest.mark.parametrize("mode", ["per_table", "overall"])
def test_a_disqualified_winner_is_taken_out_before_the_table_is_scored(mode) -> None:
    """§1-2-3 and DOMAIN.md "Every game's evening": the winner 5 disqualified, 1 wins and
    scores the winner's 10, 7 the second's 6 (not 6 and 6, not 6 and 4); 5 is dsq, 0."""
    sheet = ([5, 1, 7], [{"driver": 3, "lap": 2}], [])
    lines = _scored(sheet, {5}, mode)
    assert [(x.driver, x.position, x.status, x.points) for x in lines] == [
        (1, 1, "finished", 10),
        (7, 2, "finished", 6),
        (3, 3, "retired", 0),
        (5, 4, "dsq", 0),
    ]


@st.composite
def _sheets(draw):
    drivers = draw(st.permutations(range(1, 7)))
    cut_a, cut_b = sorted(draw(st.lists(st.integers(0, 6), min_size=2, max_size=2)))
    laps = sorted(draw(st.lists(st.integers(1, 3), min_size=cut_b - cut_a, max_size=cut_b - cut_a)))
    retired = [{"driver": d, "lap": lap} for d, lap in zip(drivers[cut_a:cut_b], laps, strict=True)]
    return list(drivers[:cut_a]), retired, list(drivers[cut_b:])


@settings(max_examples=80, deadline=None)
@given(_sheets(), st.sets(st.integers(1, 6)), st.sampled_from(["per_table", "overall"]))
def test_a_disqualification_scores_as_if_the_driver_had_never_raced(sheet, dsq, mode) -> None:
    """The others' places and points are those of the same sheet without the disqualified;
    the disqualified follow, dsq, with no points."""
    finish, retired, dns = sheet
    lines = _scored(sheet, dsq, mode)
    without = (
        [d for d in finish if d not in dsq],
        [r for r in retired if r["driver"] not in dsq],
        [d for d in dns if d not in dsq],
    )
    kept = [(x.driver, x.position, x.status, x.points) for x in lines if x.driver not in dsq]
    assert kept == [(x.driver, x.position, x.status, x.points) for x in _scored(without, (), mode)]
    assert [(x.status, x.points) for x in lines[len(kept) :]] == [("dsq", 0)] * (
        len(lines) - len(kept)
    )


def test_a_disqualified_winner_of_an_evening_is_rescored(make_event, org_api):
    """Through the API, in ``overall`` mode: table 1's winner disqualified, the new winner
    scores the first points and ranks 2 and 3 no longer both score the second's."""
    event = make_event(3, slug="heat", game="finishing_order", game_name=HEAT)
    championship = event.championship
    championship.points_scale, championship.points_mode = [10, 6, 4], "overall"
    championship.save(update_fields=["points_scale", "points_mode"])
    a, b, c = [line["driver"]["number"] for line in allocate(org_api, "heat", 3)[0]["grid"]]
    body = {"version": 0, "finish": [a, b, c], "submit": True}
    assert put(table_api(event, 1), "/events/heat/tables/1/result", body).status_code == 200
    assert org_api.post("/events/heat/tables/1/confirm", {"version": 1}).status_code == 200
    sanction = {"driver": a, "kind": "disqualified", "reason": "Swapped cards"}
    assert org_api.post("/events/heat/sanctions", sanction).status_code == 201
    results = org_api.get("/events/heat/results").json()
    assert [(r["driver"]["number"], r["status"], r["points"]) for r in results] == [
        (b, "finished", 10),
        (c, "finished", 6),
        (a, "dsq", 0),
    ]


# --- An evening through the API --------------------------------------------------------------


def _create(org_api, championship, **body):
    return org_api.post(
        f"/championships/{championship.slug}/events",
        {"slug": "heat", "name": "Soirée Heat", "date": "2026-03-12", **body},
    )


def test_a_finishing_order_event_needs_its_name_and_no_circuit(org_api, championship):
    missing = _create(org_api, championship, game="finishing_order")
    assert missing.status_code == 400 and "game_name" in missing.json()["errors"]
    foreign = _create(org_api, championship, game="finishing_order", game_name=HEAT, crash_limit=2)
    assert foreign.status_code == 400 and "crash_limit" in foreign.json()["errors"]
    made = _create(org_api, championship, game="finishing_order", game_name=HEAT, grid="rating")
    assert made.status_code == 201, made.content
    assert made.json()["circuit"] is None
    assert (made.json()["game"], made.json()["game_name"], made.json()["grid"]) == (
        "finishing_order",
        HEAT,
        "rating",
    )
    # Formula Dé still needs its circuit, and has no game_name.
    assert _create(org_api, championship, slug="fd").json()["errors"] == {
        "circuit": ["This field is required."]
    }


def test_an_evening_from_tables_to_standings(make_event, org_api, anon_api):
    event = make_event(5, slug="heat", game="finishing_order", game_name=HEAT, grid="draw")
    tables = allocate(org_api, "heat", 3)
    assert [len(t["grid"]) for t in tables] == [3, 2]
    grid = [line["driver"]["number"] for line in tables[0]["grid"]]
    a, b, c = grid
    referee = table_api(event, 1)
    path = "/events/heat/tables/1/result"
    twice = put(referee, path, {"version": 0, "finish": [a, a], "submit": False})
    assert twice.status_code == 400 and str(a) in twice.json()["errors"]
    stranger = put(referee, path, {"version": 0, "finish": [a, 42], "submit": False})
    assert stranger.status_code == 400 and "42" in stranger.json()["errors"]
    short = put(referee, path, {"version": 0, "finish": [a, b], "submit": True})
    assert short.status_code == 400 and str(c) in short.json()["errors"]
    body = {
        "version": 0,
        "finish": [b, a],
        "retired": [{"driver": c, "cause": "other", "note": "spun out, heat cards gone"}],
        "submit": True,
    }
    done = put(referee, path, body)
    assert done.status_code == 200, done.content
    assert done.json()["retired"] == [
        {"driver": c, "cause": "other", "lap": None, "note": "spun out, heat cards gone"}
    ]
    assert org_api.post("/events/heat/tables/1/confirm", {"version": 1}).status_code == 200
    results = org_api.get("/events/heat/results").json()
    scale = event.championship.points_scale
    assert [(r["driver"]["number"], r["points"]) for r in results] == [
        (b, scale[0]),
        (a, scale[1]),
        (c, 0),
    ]
    standings = org_api.get(f"/championships/{event.championship.slug}/standings").json()
    assert {s["driver"]["number"]: s["points"] for s in standings}[b] == scale[0]
    assert Event.objects.get(slug="heat").family == "heat-pedal-to-the-metal"


def test_a_result_with_retirements_out_of_lap_order_is_a_400_naming_the_driver(make_event, org_api):
    event = make_event(3, slug="heat", game="finishing_order", game_name=HEAT, laps=3)
    a, b, c = [line["driver"]["number"] for line in allocate(org_api, "heat", 3)[0]["grid"]]
    body = {
        "version": 0,
        "finish": [a],
        "retired": [
            {"driver": b, "cause": "other", "lap": 3},
            {"driver": c, "cause": "other", "lap": 1},
        ],
        "submit": True,
    }
    refused = put(table_api(event, 1), "/events/heat/tables/1/result", body)
    assert refused.status_code == 400, refused.content
    assert list(refused.json()["errors"]) == [str(c)]
    body["retired"].reverse()
    assert put(table_api(event, 1), "/events/heat/tables/1/result", body).status_code == 200


def test_get_games_lists_the_registry_then_the_named_games_in_use(make_event, anon_api):
    make_event(
        2, slug="fr", game="finishing_order", game_name="Flamme Rouge", published_results=True
    )
    answer = anon_api.get("/games")
    assert answer.status_code == 200
    games = answer.json()
    assert [g["game"] for g in games[:5]] == [
        "formula_de",
        "rallyman",
        "cannes_monaco",
        "racetrack",
        "finishing_order",
    ]
    assert games[4]["result"] == "finish" and "game_name" in games[4]["settings"]
    assert games[5:] == [
        {"game": "finishing_order", "name": "Flamme Rouge", "family": "flamme-rouge"}
    ]
    assert anon_api.get("/ratings?game=flamme-rouge").status_code == 200
    assert anon_api.get("/ratings?game=monopoly").status_code == 400


# --- A toy game, through the registry alone --------------------------------------------------


def test_a_toy_game_runs_from_tables_to_standings(make_event, org_api):
    """A game added without touching a file outside its own declaration: a ``GameSpec``
    registered, an event of it allocated, its result saved, confirmed and standing."""
    toy = registry.GameSpec(
        key="toy_race",
        name=gettext_lazy("Toy race"),
        result="finish",
        settings=("laps",),
        circuit=False,
    )
    with registry.registered(toy):
        event = make_event(4, slug="toy", game="toy_race")
        event.circuit = None
        event.full_clean()
        grid = [line["driver"]["number"] for line in allocate(org_api, "toy", 4)[0]["grid"]]
        referee = table_api(event, 1)
        body = {"version": 0, "finish": grid, "submit": True}
        assert put(referee, "/events/toy/tables/1/result", body).status_code == 200
        assert org_api.post("/events/toy/tables/1/confirm", {"version": 1}).status_code == 200
        standings = org_api.get(f"/championships/{event.championship.slug}/standings").json()
        assert standings[0]["driver"]["number"] == grid[0]
        assert any(g["game"] == "toy_race" for g in org_api.get("/games").json())


def test_a_game_without_result_rules_is_refused_at_registration() -> None:
    """A game declares its result shape, and has rules for it: never Formula Dé's."""
    with pytest.raises(ValueError, match="must declare its result shape"):
        registry.register(registry.GameSpec(key="bad_race", name="Bad", result="laps"))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="'bad_race' has no result rules"):
        registry.register(registry.GameSpec(key="bad_race", name="Bad", result="squares"))
    assert not registry.is_known("bad_race")


def test_a_crossing_order_game_without_rules_of_its_own_takes_the_finishing_order_s(
    make_event, org_api, client
):
    """Without laps, Formula Dé's rules answered 500 on every save; a crossing-order game's
    rules take the result, and its referee's page opens."""
    toy = registry.GameSpec(key="toy_race", name=gettext_lazy("Toy race"), result="finish",
                            circuit=False)  # fmt: skip
    with registry.registered(toy):
        event = make_event(3, slug="toy", game="toy_race")
        Event.objects.filter(pk=event.pk).update(circuit=None, laps=None)
        a, b, c = [line["driver"]["number"] for line in allocate(org_api, "toy", 3)[0]["grid"]]
        body = {"version": 0, "finish": [a, b], "retired": [{"driver": c, "cause": "other"}],
                "submit": True}  # fmt: skip
        saved = put(table_api(event, 1), "/events/toy/tables/1/result", body)
        assert saved.status_code == 200, saved.content
        link = RaceTable.objects.get(event=event, number=1).token
        assert client.get(f"/r/{link}/finishing-order/").status_code == 200
