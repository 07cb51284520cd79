"""The race at a table (API.md, Race): the referee's start (§5-0-2: stands and
configurations in ink), race control's unlock, the weather draw undone, retirement laps in
order, allocation in mode ``draw`` while ties wait, and a swap keeping stands in grid order.

gp-race (``tests/api/test_race_tables.py``): table 1 is 5 Emma Moreau, 1 Alice Martin,
7 Gaëlle Roux, 3 Chloé Durand; table 2 is 2, 8, 4, 6. Monaco: 1-4 rain, 5-8 variable.
"""

from __future__ import annotations

import pytest

from qualifying.models import DrawRoll
from races.models import RaceTable, WeatherDraw
from tests.api.conftest import make_event
from tests.api.test_race_stands import GOOD
from tests.api.test_race_tables import (
    TABLES,
    allocate,
    build_race_event,
    put,
    start_table,
    table_api,
)
from tournament.models import Entry, Event

pytestmark = pytest.mark.django_db

START_1 = f"{TABLES}/1/start"
UNLOCK_1 = f"{TABLES}/1/unlock"
STANDS_1 = f"{TABLES}/1/stands"
CONFIGURATIONS_1 = f"{TABLES}/1/configurations"
DRAWS_1 = f"{TABLES}/1/weather-draws"
UNDO_1 = f"{DRAWS_1}/last"
ALL_STANDS_1 = {"stands": {"5": 1, "1": 2, "7": 3, "3": 4}}


def delete(api, path: str, data: dict) -> object:
    return api._send("delete", path, data)


@pytest.fixture
def allocated(championship, circuit, drivers, organiser) -> Event:
    """gp-race allocated, its race weather drawn (variable, dry start: §3-0-1 before the
    start)."""
    event = build_race_event(championship, circuit, drivers)
    allocate(organiser)
    assert organiser.post("/events/gp-race/race-weather", {"roll": 6}).status_code == 200
    return event


@pytest.fixture
def referee1(allocated):
    return table_api(allocated, 1)


def started(event: Event, number: int = 1) -> bool:
    return RaceTable.objects.get(event=event, number=number).started_at is not None


# ---------------------------------------------------------------------------
# Start and unlock (§5-0-2)
# ---------------------------------------------------------------------------


def test_start_is_refused_while_a_stand_is_missing_naming_whose(referee1, allocated):
    assert put(referee1, STANDS_1, {"stands": {"5": 1, "1": 2}}).status_code == 200
    response = referee1.post(START_1)
    assert response.status_code == 409
    body = response.json()
    assert body["detail"] == (
        "The race cannot start at Table 1 yet: no stand for 7 Gaëlle Roux, 3 Chloé Durand."
    )
    assert body["errors"] == {"7": ["No stand yet."], "3": ["No stand yet."]}
    assert not started(allocated)


def test_start_also_waits_for_configurations_when_the_event_records_them(referee1, allocated):
    Event.objects.filter(pk=allocated.pk).update(use_configurations=True)
    assert put(referee1, STANDS_1, ALL_STANDS_1).status_code == 200
    assert put(referee1, CONFIGURATIONS_1, {"configurations": {"5": GOOD}}).status_code == 200
    response = referee1.post(START_1)
    assert response.status_code == 409
    assert response.json()["detail"] == (
        "The race cannot start at Table 1 yet: no configuration for 1 Alice Martin, "
        "7 Gaëlle Roux, 3 Chloé Durand."
    )
    everyone = {"configurations": {n: GOOD for n in ("1", "7", "3")}}
    assert put(referee1, CONFIGURATIONS_1, everyone).status_code == 200
    assert referee1.post(START_1).status_code == 200


def test_the_start_writes_stands_and_configurations_in_ink(referee1, organiser, allocated):
    """§5-0-2: "au stylo bille ou au feutre, pas au crayon de papier"."""
    Event.objects.filter(pk=allocated.pk).update(use_configurations=True)
    put(referee1, STANDS_1, ALL_STANDS_1)
    put(referee1, CONFIGURATIONS_1, {"configurations": {n: GOOD for n in ("5", "1", "7", "3")}})
    response = referee1.post(START_1)
    assert response.status_code == 200, response.content
    assert response.json()["number"] == 1 and response.json()["started_at"]
    assert referee1.post(START_1).status_code == 200  # pressed twice: nothing changes
    for api in (referee1, organiser):
        stands = put(api, STANDS_1, {"stands": {"3": 4, "5": 2, "1": 1}})
        assert stands.status_code == 409
        assert stands.json()["detail"] == (
            "The race has started at Table 1: its stands are written in ink (§5-0-2). Race "
            "control may unlock the table, with a reason."
        )
        config = put(api, CONFIGURATIONS_1, {"configurations": {"5": GOOD}})
        assert config.status_code == 409
        assert "configurations are written in ink" in config.json()["detail"]
    assert organiser.get(TABLES).json()[0]["started_at"]


def test_race_control_unlocks_a_started_table_with_a_reason(referee1, organiser, allocated):
    put(referee1, STANDS_1, ALL_STANDS_1)
    referee1.post(START_1)
    assert referee1.post(UNLOCK_1, {"reason": "wrong stand"}).status_code == 403
    missing = organiser.post(UNLOCK_1, {"reason": "  "})
    assert missing.status_code == 400
    assert missing.json()["detail"] == "Say why the table is unlocked."
    assert organiser.post(UNLOCK_1, {}).status_code == 400
    response = organiser.post(UNLOCK_1, {"reason": "Stand 3 was written for stand 4"})
    assert response.status_code == 200, response.content
    assert response.json() == {"number": 1, "started_at": None}
    table = RaceTable.objects.get(event=allocated, number=1)
    assert table.unlock_reason == "Stand 3 was written for stand 4"
    last = table.history.first()
    assert (last.history_change_reason, last.history_actor) == (
        "Stand 3 was written for stand 4",
        "alice (API)",
    )
    assert put(referee1, STANDS_1, {"stands": {"7": 4, "3": 3}}).status_code == 200
    again = organiser.post(UNLOCK_1, {"reason": "twice"})
    assert again.status_code == 409
    assert again.json()["detail"] == "Table 1 has not started: nothing to unlock."


def test_start_and_unlock_permissions(anon, outsider, referee, allocated):
    assert anon.post(START_1).status_code == 401
    assert outsider.post(START_1).status_code == 403
    assert referee.post(START_1).status_code == 403  # a qualifying table's link
    assert table_api(allocated, 2).post(START_1).status_code == 403
    assert outsider.post(UNLOCK_1, {"reason": "x"}).status_code == 403
    assert anon.post(UNLOCK_1, {"reason": "x"}).status_code == 401
    assert not started(allocated)


def test_a_weather_draw_never_starts_the_table_the_first_result_save_does(
    referee1, organiser, allocated
):
    """§3-2-4: a table's draw belongs to the race; a result saved means the race was run."""
    assert referee1.post(DRAWS_1, {"roll": 12}).status_code == 409
    assert not started(allocated, 1)
    assert put(referee1, STANDS_1, {"stands": {"5": 1}}).status_code == 200  # still open
    referee2 = table_api(allocated, 2)
    response = put(referee2, f"{TABLES}/2/result", {"version": 0, "finish": [2], "submit": False})
    assert response.status_code == 200, response.content
    assert started(allocated, 2)


# ---------------------------------------------------------------------------
# A mistaken table draw, undone by race control
# ---------------------------------------------------------------------------


def test_race_control_undoes_the_last_table_draw_with_a_reason(referee1, organiser, allocated):
    start_table(referee1, allocated, 1)  # variable, dry start
    referee1.post(DRAWS_1, {"roll": 12})  # sun
    referee1.post(DRAWS_1, {"roll": 15})  # sun again: fixed
    assert organiser.get(TABLES).json()[0]["weather_fixed"] is True
    assert delete(referee1, UNDO_1, {"reason": "mistake"}).status_code == 403
    for blank in ("", " ", "\t"):  # DOMAIN.md: every undo needs a reason
        refused = delete(organiser, UNDO_1, {"reason": blank})
        assert refused.status_code == 400
        assert refused.json()["errors"] == {"reason": ["A reason is required."]}
    response = delete(organiser, UNDO_1, {"reason": "Nobody rolled 20 in 5th"})
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["number"], body["roll"], body["undo_reason"], body["undone_by"]) == (
        2,
        15,
        "Nobody rolled 20 in 5th",
        "alice (API)",
    )
    assert (body["table_weather"], body["table_track"], body["table_fixed"]) == (
        "sun",
        "dry",
        False,
    )
    # The draw stays listed, undone; the next one is number 3 and reads from draw 1.
    assert WeatherDraw.objects.filter(undone_at__isnull=False).count() == 1
    nxt = referee1.post(DRAWS_1, {"roll": 2}).json()
    assert (nxt["number"], nxt["weather"], nxt["fixed"]) == (3, "rain", False)
    delete(organiser, UNDO_1, {"reason": "again"})
    delete(organiser, UNDO_1, {"reason": "and the first"})
    table = organiser.get(TABLES).json()[0]
    assert (table["weather"], table["track"], table["weather_fixed"]) == ("variable", "dry", False)
    nothing = delete(organiser, UNDO_1, {"reason": "one more"})
    assert nothing.status_code == 409
    assert nothing.json()["detail"] == "Table 1 has no weather draw to undo."
    assert WeatherDraw.history.filter(undone_at__isnull=False).count() == 3


def test_undo_permissions(anon, outsider, allocated):
    assert delete(anon, UNDO_1, {"reason": "x"}).status_code == 401
    assert delete(outsider, UNDO_1, {"reason": "x"}).status_code == 403


# ---------------------------------------------------------------------------
# Retirements, swaps, the quick rules' draw
# ---------------------------------------------------------------------------


def test_retirement_laps_never_go_down_along_the_list(referee1):
    body = {
        "version": 0,
        "finish": [5],
        "retired": [
            {"driver": 1, "cause": "engine", "lap": 3},
            {"driver": 7, "cause": "body", "lap": 1},
        ],
        "dns": [3],
        "submit": True,
    }
    response = put(referee1, f"{TABLES}/1/result", body)
    assert response.status_code == 400
    assert response.json()["errors"] == {
        "7": [
            "7 Gaëlle Roux: retirements are listed in the order they happened, so their laps "
            "never go down; an earlier retirement is on lap 3."
        ]
    }
    body["retired"].reverse()
    assert put(referee1, f"{TABLES}/1/result", body).status_code == 200


def test_a_swap_clears_the_stands_behind_the_driver_who_arrives(referee1, organiser, allocated):
    put(referee1, STANDS_1, ALL_STANDS_1)  # 5, 1, 7, 3 → stands 1, 2, 3, 4
    # Driver 2 (rank 3) arrives at table 1 in 3rd place, ahead of 7 and 3.
    tables = organiser.post(f"{TABLES}/swap", {"a": 2, "b": 1, "reason": "friends"}).json()
    assert [(line["driver"]["number"], line["stand"]) for line in tables[0]["grid"]] == [
        (5, 1),
        (2, None),
        (7, None),
        (3, None),
    ]
    assert tables[0]["next_to_choose"]["number"] == 2


def test_mode_draw_allocation_waits_for_the_re_roll_of_a_tie(
    championship, circuit, drivers, organiser
):
    """DOMAIN.md "What the day enforces": no allocation while physical d20 ties wait."""
    event = make_event(
        championship,
        circuit,
        slug="quick",
        name="Quick",
        qualifying_mode="draw",
        laps=2,
        separate_teams=False,
    )
    for driver in drivers.values():
        Entry.objects.create(event=event, driver=driver)
    rolls = {"1": 5, "2": 5, "3": 9, "4": 12, "5": 14, "6": 17}
    drawn = organiser.post("/events/quick/draw", {"rolls": rolls})
    assert drawn.status_code == 200, drawn.content
    refused = organiser.post("/events/quick/allocation", {"table_size": 3})
    assert refused.status_code == 409
    assert refused.json()["detail"] == (
        "The d20 draw is not finished: 1 Alice Martin, 2 Bruno Petit still need a roll or a "
        "re-roll to break their tie. Record their dice first; the grid comes from them."
    )
    # Only 2 re-rolls: still tied, still refused, and 2 is not given pole meanwhile.
    organiser.post("/events/quick/draw", {"rolls": {"2": [5, 3]}})
    assert organiser.post("/events/quick/allocation", {"table_size": 3}).status_code == 409
    organiser.post("/events/quick/draw", {"rolls": {"1": [5, 11]}})
    tables = organiser.post("/events/quick/allocation", {"table_size": 3})
    assert tables.status_code == 200, tables.content
    assert [line["driver"]["number"] for line in tables.json()[0]["grid"]][:2] == [2, 1]
    assert DrawRoll.objects.get(event=event, driver__number=2).rolls == [5, 3]


# ---------------------------------------------------------------------------
# The quick rules at a table: no stands, 22 points on the car
# ---------------------------------------------------------------------------


@pytest.fixture
def quick_table(championship, circuit, drivers, organiser):
    """A quick race (mode ``draw``) recording configurations, allocated from the d20."""
    event = make_event(championship, circuit, slug="quick", qualifying_mode="draw", laps=2,
                       separate_teams=False, use_configurations=True)  # fmt: skip
    for driver in drivers.values():
        Entry.objects.create(event=event, driver=driver)
    rolls = {"1": 5, "2": 7, "3": 9, "4": 1, "5": 20, "6": 12}
    assert organiser.post("/events/quick/draw", {"rolls": rolls}).status_code == 200
    assert organiser.post("/events/quick/allocation", {"table_size": 6}).status_code == 200
    return event


ON_THE_CAR = {"tyres": 7, "brakes": 3, "gearbox": 3, "body": 3, "engine": 3, "road_holding": 3}


def test_a_quick_car_has_22_points_on_the_car_and_none_at_a_stand(quick_table, organiser):
    """Quick rules point 1 (« 22 points au total »; the stand is an optional rule left out)."""
    url = "/events/quick/tables/1/configurations"
    standard = {**ON_THE_CAR, "tyres": 5, "stand_points": 2}  # the full game's 20 + 2
    refused = put(organiser, url, {"configurations": {"4": standard}})
    assert refused.status_code == 400
    assert refused.json()["errors"] == {
        "configurations.4.stand_points": [
            "stand points: the quick rules have no stand, all 22 points go on the car "
            "(quick rules, point 1)."
        ]
    }
    for body in (ON_THE_CAR, {**ON_THE_CAR, "stand_points": 0}):
        saved = put(organiser, url, {"configurations": {"4": body}})
        assert saved.status_code == 200, saved.content


def test_an_explicit_start_at_a_quick_table_does_not_demand_stands(quick_table, organiser):
    url = "/events/quick/tables/1/configurations"
    configurations = {str(n): ON_THE_CAR for n in (1, 2, 3, 4, 5, 6)}
    assert put(organiser, url, {"configurations": configurations}).status_code == 200
    response = table_api(quick_table, 1).post("/events/quick/tables/1/start")
    assert response.status_code == 200, response.content
    assert response.json()["started_at"] is not None
