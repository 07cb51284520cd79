"""Rallyman through the API (API.md, "Other games"): stages, stage-1 start order, times,
scratch, start order of the next stages (ART.4-2), the rally classification, games of 4 in
start order, result lines for the standings, and who may write."""

from __future__ import annotations

import pytest

from races.models import ResultLine, Stage, StageTime
from tests.games.conftest import allocate, put, table_api

pytestmark = pytest.mark.django_db

ROUTES = ("C8 C3-J6-J5-C4 C5", "L0 L1-C7-C6-L2-L3-V2-V3-C5 C4", "J1 J4")


@pytest.fixture
def rally(make_event, org_api):
    event = make_event(6, slug="rally", game="rallyman", separate_teams=False)
    for number, route in enumerate(ROUTES, start=1):
        response = org_api.post(
            "/events/rally/stages",
            {"number": number, "route": route, "service_after": number < 3},
        )
        assert response.status_code == 201, response.content
    response = put(org_api, "/events/rally/stages/1/start-order", {"order": [6, 5, 4, 3, 2, 1]})
    assert response.status_code == 200, response.content
    return event


def times(api, stage: int, values: dict) -> object:
    return put(api, f"/events/rally/stages/{stage}/times", {"times": values})


def test_stage_create_refuses_a_duplicate_and_a_bad_route(rally, org_api):
    assert org_api.post("/events/rally/stages", {"number": 1, "route": "C1"}).status_code == 409
    bad = org_api.post("/events/rally/stages", {"number": 4, "route": "C1 Z9"})
    assert bad.status_code == 400 and "Z9" in bad.json()["detail"]


def test_games_of_four_come_from_the_start_order(rally, org_api):
    tables = allocate(org_api, "rally", 4)
    assert [[line["driver"]["number"] for line in t["grid"]] for t in tables] == [
        [6, 5, 4],
        [3, 2, 1],
    ]


def test_rally_round_trip_scratch_start_orders_and_final(rally, org_api, anon_api):
    allocate(org_api, "rally", 4)
    es1 = {
        "6": {"chrono": "05:10"},
        "5": {"chrono": "05:00", "seconds_held": 10},
        "4": {"chrono": "04:40"},
        "3": {"chrono": "05:20"},
        "2": {"chrono": "06:00"},
        "1": {"retired": True},
    }
    response = times(org_api, 1, es1)
    assert response.status_code == 200, response.content
    scratch = [(line["rank"], line["driver"]["number"], line["time"]) for line in response.json()]
    # Règlement+: 05:00 minus 10 seconds held is 04:50.
    assert scratch == [
        (1, 4, "04:40"),
        (2, 5, "04:50"),
        (3, 6, "05:10"),
        (4, 3, "05:20"),
        (5, 2, "06:00"),
        (6, 1, None),
    ]
    order2 = org_api.get("/events/rally/stages/2/start-order").json()
    assert [line["driver"]["number"] for line in order2] == [4, 5, 6, 3, 2]  # ART.4-2
    es2 = {
        "4": {"chrono": "05:00"},
        "5": {"chrono": "04:50"},
        "6": {"chrono": "04:20"},
        "3": {"chrono": "05:00"},
        "2": {"chrono": "75:10"},
    }
    assert times(org_api, 2, es2).status_code == 200
    after2 = org_api.get("/events/rally/rally?after=2").json()
    # Equal totals share the rank (5 and 4); the retired driver comes last.
    assert [(line["rank"], line["driver"]["number"], line["total"]) for line in after2] == [
        (1, 6, "09:30"),
        (2, 5, "09:40"),
        (2, 4, "09:40"),
        (4, 3, "10:20"),
        (5, 2, "81:10"),
        (6, 1, "00:00"),
    ]
    order3 = org_api.get("/events/rally/stages/3/start-order").json()
    # ES3 in the ES1+ES2 order; 4 and 5 are equal and keep their ES2 order (4 started first).
    assert [line["driver"]["number"] for line in order3] == [6, 4, 5, 3, 2]
    assert not ResultLine.objects.filter(event=rally).exists()
    es3 = {n: {"chrono": "03:00"} for n in ("6", "4", "5", "3", "2")}
    assert times(org_api, 3, es3).status_code == 200
    final = org_api.get("/events/rally/rally").json()
    assert final[0]["stages"] == ["05:10", "04:20", "03:00"]
    assert final[-1]["retired_in"] == 1
    lines = {r["driver"]["number"]: (r["rank"], r["status"], r["points"])
             for r in org_api.get("/events/rally/results").json()}  # fmt: skip
    assert lines == {
        6: (1, "finished", 10),
        5: (2, "finished", 8),
        4: (2, "finished", 8),
        3: (4, "finished", 0),
        2: (5, "finished", 0),
        1: (6, "retired", 0),
    }
    assert anon_api.get("/events/rally/rally").status_code == 404
    assert StageTime.history.filter(stage__event=rally).count() == 16


def test_times_problems_are_400_naming_the_driver(rally, org_api):
    response = times(
        org_api, 1, {"3": {"chrono": "5:75"}, "4": {"chrono": "01:00", "seconds_held": 90}}
    )
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert "3 " in errors["times.3"][0] and "4 " in errors["times.4"][0]
    assert not StageTime.objects.exists()


def test_a_retired_driver_does_not_start_the_next_stage(rally, org_api):
    assert times(org_api, 1, {"1": {"retired": True}}).status_code == 200
    response = times(org_api, 2, {"1": {"chrono": "04:00"}})
    assert response.status_code == 400
    body = response.json()
    assert body["detail"] == (
        "1 Pilote1 Lefèvre does not start this stage (not in the rally or retired)."
    )
    assert list(body["errors"]) == ["times.1"]
    start = org_api.get("/events/rally/stages/2/start-order").json()
    assert 1 not in [line["driver"]["number"] for line in start]
    assert not StageTime.objects.filter(stage__number=2).exists()


def test_referee_writes_only_the_drivers_of_their_game(rally, org_api, outsider_api, anon_api):
    allocate(org_api, "rally", 4)
    referee = table_api(rally, 1)  # drivers 6, 5, 4
    assert times(referee, 1, {"6": {"chrono": "05:00"}}).status_code == 200
    assert times(referee, 1, {"1": {"chrono": "05:00"}}).status_code == 403
    assert times(outsider_api, 1, {"6": {"chrono": "05:00"}}).status_code == 403
    assert times(anon_api, 1, {"6": {"chrono": "05:00"}}).status_code == 401


def test_drawn_start_order_lists_every_driver(rally, org_api):
    response = put(org_api, "/events/rally/stages/1/start-order", {"draw": True})
    assert sorted(line["driver"]["number"] for line in response.json()) == [1, 2, 3, 4, 5, 6]
    assert put(org_api, "/events/rally/stages/2/start-order", {"draw": True}).status_code == 400


def test_a_bad_intermediate_time_is_400_naming_the_driver(rally, org_api):
    response = times(org_api, 1, {"6": {"chrono": "05:10", "splits": ["02:00", "zz"]}})
    assert response.status_code == 400
    message = response.json()["errors"]["times.6"][0]
    assert message.startswith("6 Pilote6") and "zz" in message
    backwards = times(org_api, 1, {"5": {"chrono": "05:10", "splits": ["03:00", "02:00"]}})
    assert backwards.status_code == 400 and "times.5" in backwards.json()["errors"]
    assert not StageTime.objects.exists()


def test_intermediate_times_round_trip(rally, org_api):
    # Règlement+: "points de prise de temps intermédiaires", the pile at each point.
    response = times(
        org_api,
        1,
        {
            "6": {"chrono": "05:10", "splits": ["02:00", "04:15"]},
            "5": {"chrono": "05:00", "seconds_held": 10},
            "4": {"retired": True, "splits": ["01:50"]},
        },
    )
    assert response.status_code == 200, response.content
    by_driver = {line["driver"]["number"]: line["splits"] for line in response.json()}
    assert by_driver == {6: ["02:00", "04:15"], 5: [], 4: ["01:50"]}
    read = org_api.get("/events/rally/stages/1/classification").json()
    assert {line["driver"]["number"]: line["splits"] for line in read} == by_driver
    assert StageTime.objects.get(driver__number=6).splits == [120, 255]
    # Left out, the splits written before stay; [] clears them.
    assert times(org_api, 1, {"6": {"chrono": "05:11"}}).status_code == 200
    assert StageTime.objects.get(driver__number=6).splits == [120, 255]
    cleared = times(org_api, 1, {"6": {"chrono": "05:11", "splits": []}})
    assert {line["driver"]["number"]: line["splits"] for line in cleared.json()}[6] == []


def test_snow_drawn_per_stage_by_the_race_director(rally, org_api, anon_api):
    """Règlement+: before each stage, one die per ZONE of its route (ART.2: the boards C,
    J, L, V, not each junction label); a zone whose die shows the snow symbol is snowy for
    every game. Typed (the dice rolled) or by the system."""
    stage1 = put(org_api, "/events/rally/stages/1/snow", {"snow": [False, True]})
    assert stage1.status_code == 200, stage1.content
    body = stage1.json()
    assert (body["snowy_zones"], body["snow_source"]) == (["J"], "physical")
    per_label = put(org_api, "/events/rally/stages/2/snow", {"snow": [True] * 10})
    assert per_label.status_code == 400
    assert per_label.json()["detail"] == (
        "Give one answer per zone of the route (3 zones: L C V): snowy or not."
    )
    system = put(org_api, "/events/rally/stages/2/snow", {})
    assert system.status_code == 200
    assert system.json()["snow_source"] == "system" and len(system.json()["snow"]) == 3
    assert put(anon_api, "/events/rally/stages/3/snow", {}).status_code == 401
    listed = org_api.get("/events/rally/stages").json()
    assert listed[0]["snowy_zones"] == ["J"] and listed[2]["snow"] is None
    # Once the stage has times, its snow stays.
    assert times(org_api, 1, {"6": {"chrono": "05:00"}}).status_code == 200
    late = put(org_api, "/events/rally/stages/1/snow", {"snow": [False] * 2, "reason": "typo"})
    assert late.status_code == 409
    assert late.json()["detail"] == "Times are entered for stage 1: its snow can no longer change."


def test_a_second_snow_draw_needs_a_reason_and_is_recorded(rally, org_api):
    """DOMAIN.md "Rallyman snow": a second draw for a stage needs a reason, like the race
    weather; the draws stay listed in the stage's history with the reason."""
    path = "/events/rally/stages/2/snow"
    assert put(org_api, path, {"snow": [True, False, False]}).status_code == 200
    again = put(org_api, path, {})
    assert again.status_code == 409
    assert "reason" in again.json()["errors"]
    assert "already drawn (L)" in again.json()["detail"]
    assert Stage.objects.get(event=rally, number=2).snow == [True, False, False]
    long = put(org_api, path, {"snow": [False] * 3, "reason": "x" * 101})
    assert long.status_code == 400 and "reason" in long.json()["errors"]
    redrawn = put(org_api, path, {"snow": [False, False, True], "reason": "die off the table"})
    assert redrawn.status_code == 200, redrawn.content
    assert redrawn.json()["snowy_zones"] == ["V"]
    draws = Stage.history.filter(event=rally, number=2).order_by("history_date")
    assert [(h.snow, h.history_change_reason) for h in draws if h.snow] == [
        ([True, False, False], None),
        ([False, False, True], "die off the table"),
    ]


def test_tyres_chosen_at_the_first_stage_and_kept_without_a_service_park(make_event, org_api):
    """Règlement+ "Choix des pneus": at the first stage and after a service park each driver
    chooses asphalt or snow; otherwise they keep the tyres of the stage before."""
    make_event(2, slug="rally", game="rallyman", separate_teams=False)
    org_api.post("/events/rally/stages", {"number": 1, "route": "C1 C2", "service_after": False})
    org_api.post("/events/rally/stages", {"number": 2, "route": "C3", "service_after": True})
    org_api.post("/events/rally/stages", {"number": 3, "route": "C4"})
    stages = org_api.get("/events/rally/stages").json()
    assert [s["tyre_choice"] for s in stages] == [True, False, True]
    first = times(org_api, 1, {"1": {"chrono": "05:00", "tyres": "snow"}, "2": {"chrono": "05:10"}})
    assert first.status_code == 200, first.content
    assert {line["driver"]["number"]: line["tyres"] for line in first.json()} == {
        1: "snow",
        2: None,
    }
    kept = times(org_api, 2, {"1": {"chrono": "04:00", "tyres": "asphalt"}})
    assert kept.status_code == 400
    assert kept.json()["detail"] == (
        "1 Pilote1 Lefèvre keeps the tyres of the previous stage (snow): no service park "
        "before this stage (Règlement+, “Choix des pneus”)."
    )
    carried = times(org_api, 2, {"1": {"chrono": "04:00"}, "2": {"chrono": "04:10"}})
    assert {line["driver"]["number"]: line["tyres"] for line in carried.json()} == {
        1: "snow",
        2: None,
    }
    after_service = times(org_api, 3, {"1": {"chrono": "04:00", "tyres": "asphalt"}})
    assert after_service.status_code == 200, after_service.content
    bad = times(org_api, 3, {"2": {"chrono": "04:00", "tyres": "slicks"}})
    assert bad.status_code == 400
    assert bad.json()["detail"] == "2 Pilote2 Lefèvre: tyres are asphalt or snow."
