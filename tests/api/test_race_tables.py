"""Race tables: allocation, GET tables, swaps, referee links and race-table tokens.

Also the helpers of the other ``test_race_*`` modules: a qualified event ``gp-race`` whose
general classification is known, an ``allocate`` shortcut and ``put``.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import override_settings

from qualifying.models import QualifyingSession, QualifyingTable, Run
from races.grid.services import referee_link_regenerate
from races.models import ManualSwap, RaceTable
from tests.api.conftest import Api, make_event, player_of
from tournament.access import Actor
from tournament.models import Championship, Circuit, Driver, Entry, Event, Team

pytestmark = pytest.mark.django_db

EVENT = "/events/gp-race"
ALLOCATION = f"{EVENT}/allocation"
TABLES = f"{EVENT}/tables"
SWAP = f"{TABLES}/swap"

#: The general classification of gp-race, best first (driver numbers). 1 and 2 are
#: team-mates (Ferrari) ranked 2 and 3.
QUALIFYING_ORDER = [5, 1, 2, 7, 3, 8, 4, 6]
#: Tables of 4: rank 3 (driver 2) swaps with rank 5 (driver 3), the closest in rank at table
#: 2 (§1-3-3, DOMAIN.md); each grid is then in qualifying order.
TABLE_1 = [5, 1, 7, 3]
TABLE_2 = [2, 8, 4, 6]


def put(api: Api, path: str, data: Any = None, **kwargs: Any) -> Any:
    return api._send("put", path, data, **kwargs)


def open_session(event: Event, number: int, weather: str) -> QualifyingSession:
    return QualifyingSession.objects.create(
        event=event,
        number=number,
        roll={"rain": 2, "variable": 6, "sun": 12}[weather],
        source="physical",
        weather=weather,
        track="wet" if weather == "rain" else "dry",
    )


def build_race_event(
    championship: Championship, circuit: Circuit, drivers: dict[int, Driver]
) -> Event:
    """``gp-race``: drivers 1-8 qualified in :data:`QUALIFYING_ORDER` in one sunny session."""
    for number, (first, last) in {7: ("Gaëlle", "Roux"), 8: ("Hugo", "Blanc")}.items():
        drivers[number] = Driver.objects.create(
            championship=championship, number=number, first_name=first, last_name=last
        )
    event = make_event(championship, circuit, slug="gp-race", name="GP Race", table_size=4)
    for number in sorted(drivers):
        Entry.objects.create(event=event, driver=drivers[number])
    session = open_session(event, 1, "sun")
    for index, number in enumerate(QUALIFYING_ORDER):
        Run.objects.create(
            session=session, driver=drivers[number], tyres="hard", throws=20 + index,
            stopwatch_cs=9000,
        )  # fmt: skip
    return event


def allocate(api: Api, **body: Any) -> list[dict]:
    response = api.post(ALLOCATION, body)
    assert response.status_code == 200, response.content
    return response.json()


def table_api(event: Event, number: int) -> Api:
    """The bearer of race table ``number``'s referee link."""
    return Api(RaceTable.objects.get(event=event, number=number).token)


def start_table(api: Api, event: Event, number: int) -> None:
    """Stands in grid order (§4-0-1), then the referee's start (§5-0-2): the race is on at
    table ``number`` (the race weather drawn first, §3-0-1)."""
    grid = RaceTable.objects.get(event=event, number=number).slots.order_by("position")
    stands = {str(slot.driver.number): stand for stand, slot in enumerate(grid, start=1)}
    assert put(api, f"{TABLES}/{number}/stands", {"stands": stands}).status_code == 200
    response = api.post(f"{TABLES}/{number}/start")
    assert response.status_code == 200, response.content


def grid_numbers(tables: list[dict]) -> list[list[int]]:
    return [[line["driver"]["number"] for line in table["grid"]] for table in tables]


@pytest.fixture
def race(championship, circuit, drivers) -> Event:
    return build_race_event(championship, circuit, drivers)


@pytest.fixture
def allocated(race, organiser) -> Event:
    allocate(organiser)
    return race


def set_result_status(event: Event, number: int, status: str) -> None:
    RaceTable.objects.filter(event=event, number=number).update(result_status=status)


# ---------------------------------------------------------------------------
# Allocation
# ---------------------------------------------------------------------------


@override_settings(SITE_URL="https://paddock.example.org/")
def test_allocation_keeps_team_mates_apart_and_grids_in_rank_order(organiser, race):
    tables = allocate(organiser)
    assert grid_numbers(tables) == [TABLE_1, TABLE_2]
    assert [[line["rank"] for line in t["grid"]] for t in tables] == [[1, 2, 4, 5], [3, 6, 7, 8]]
    assert [[line["position"] for line in t["grid"]] for t in tables] == [[1, 2, 3, 4]] * 2
    token = RaceTable.objects.get(event=race, number=1).token
    assert tables[0] == {
        "number": 1,
        "referee": "",
        "referee_link": f"https://paddock.example.org/r/{token}/",
        "referee_token": token,
        "weather": None,
        "track": None,
        "weather_fixed": False,
        "result_status": "empty",
        "grid": [
            {
                "position": 1,
                "driver": {
                    "number": 5,
                    "name": "Emma Moreau",
                    "team": None,
                    "player": player_of(5),
                },
                "stand": None,
                "rank": 1,
                "swapped": False,
                "configuration": None,
            },
            {
                "position": 2,
                "driver": {
                    "number": 1,
                    "name": "Alice Martin",
                    "team": "Ferrari",
                    "player": player_of(1),
                },
                "stand": None,
                "rank": 2,
                "swapped": False,
                "configuration": None,
            },
            {
                "position": 3,
                "driver": {
                    "number": 7,
                    "name": "Gaëlle Roux",
                    "team": None,
                    "player": player_of(7),
                },
                "stand": None,
                "rank": 4,
                "swapped": False,
                "configuration": None,
            },
            {
                "position": 4,
                "driver": {
                    "number": 3,
                    "name": "Chloé Durand",
                    "team": None,
                    "player": player_of(3),
                },
                "stand": None,
                "rank": 5,
                "swapped": True,
                "configuration": None,
            },
        ],
        "warnings": [],
        "started_at": None,
        "next_to_choose": {
            "number": 5,
            "name": "Emma Moreau",
            "team": None,
            "player": player_of(5),
        },
    }
    assert tables[1]["grid"][0] == {
        "position": 1,
        "driver": {"number": 2, "name": "Bruno Petit", "team": "Ferrari", "player": player_of(2)},
        "stand": None,
        "rank": 3,
        "swapped": True,
        "configuration": None,
    }
    assert organiser.get(TABLES).json() == tables


def test_allocation_without_separating_teams_keeps_the_classification(organiser, race):
    Event.objects.filter(pk=race.pk).update(separate_teams=False)
    tables = allocate(organiser)
    assert grid_numbers(tables) == [QUALIFYING_ORDER[:4], QUALIFYING_ORDER[4:]]
    # Not a conflict when the event does not keep team-mates apart.
    assert [t["warnings"] for t in tables] == [[], []]


def test_table_size_in_the_body_overrides_the_event(organiser, race):
    tables = allocate(organiser, table_size=8)
    assert grid_numbers(tables) == [QUALIFYING_ORDER]
    assert tables[0]["warnings"] == ["Team-mates at the same table: 1 Alice Martin, 2 Bruno Petit."]
    # Allocating again with fewer drivers per table replaces the tables.
    assert len(allocate(organiser, table_size=3)) == 3
    assert RaceTable.objects.filter(event=race).count() == 3


def test_unresolved_conflict_is_a_warning_until_a_swap_parts_them(organiser, race, drivers):
    # A third Ferrari at table 2: no swap can part 1 and 2 (DOMAIN.md).
    drivers[3].team = Team.objects.get(name="Ferrari")
    drivers[3].save()
    tables = allocate(organiser)
    assert grid_numbers(tables) == [QUALIFYING_ORDER[:4], QUALIFYING_ORDER[4:]]
    assert [t["warnings"] for t in tables] == [
        ["Team-mates at the same table: 1 Alice Martin, 2 Bruno Petit."],
        [],
    ]
    response = organiser.post(SWAP, {"a": 2, "b": 8, "reason": "Ferrari"})
    assert response.status_code == 200, response.content
    assert response.json()[0]["warnings"] == []


@pytest.mark.parametrize("size", [0, 1, 21, -3, "4", 4.0, True, 2**40])
def test_bad_table_size_is_400(organiser, race, size):
    response = organiser.post(ALLOCATION, {"table_size": size})
    assert response.status_code == 400, response.content
    assert list(response.json()["errors"]) == ["table_size"]
    assert not RaceTable.objects.exists()


def test_allocation_with_an_empty_body_uses_the_event_size(organiser, race):
    response = organiser.post(ALLOCATION, raw=b"")
    assert response.status_code == 200, response.content
    assert grid_numbers(response.json()) == [TABLE_1, TABLE_2]


def test_allocation_after_a_result_is_409(organiser, allocated):
    set_result_status(allocated, 2, "draft")
    response = organiser.post(ALLOCATION, {})
    assert response.status_code == 409
    assert response.json()["detail"] == (
        "Results are already being entered: the tables can no longer change."
    )
    assert grid_numbers(organiser.get(TABLES).json()) == [TABLE_1, TABLE_2]


def test_allocation_permissions(anon, referee, outsider, admin, allocated):
    assert anon.post(ALLOCATION, {}).status_code == 401
    assert referee.post(ALLOCATION, {}).status_code == 403  # a qualifying table's link
    assert table_api(allocated, 1).post(ALLOCATION, {}).status_code == 403
    response = outsider.post(ALLOCATION, {})
    assert response.status_code == 403
    assert response.json() == {
        "detail": "Only the organisers of this championship may do this.",
        "errors": {},
    }
    assert admin.post(ALLOCATION, {}).status_code == 200


def test_unknown_event_is_404(organiser, race):
    for response in (
        organiser.post("/events/nope/allocation", {}),
        organiser.get("/events/nope/tables"),
        organiser.post("/events/nope/tables/swap", {"a": 1, "b": 2}),
        organiser.post("/events/Not_A_Slug/tables/1/referee-link"),
    ):
        assert response.status_code == 404
        assert response.json()["detail"]


# ---------------------------------------------------------------------------
# Reading the tables
# ---------------------------------------------------------------------------


def test_anonymous_reads_tables_once_published(anon, organiser, allocated):
    response = anon.get(TABLES)
    assert response.status_code == 404
    assert response.json()["detail"] == "Unknown event “gp-race”."
    organiser.post(f"{EVENT}/publish", {"allocation": True})
    tables = anon.get(TABLES).json()
    assert grid_numbers(tables) == [TABLE_1, TABLE_2]
    assert {(t["referee_link"], t["referee_token"]) for t in tables} == {(None, None)}


def test_table_token_reads_its_own_table_until_published(organiser, allocated):
    mine = table_api(allocated, 2)
    tables = mine.get(TABLES).json()
    assert grid_numbers(tables) == [TABLE_2]
    assert tables[0]["referee_token"] is None and tables[0]["referee_link"] is None
    organiser.post(f"{EVENT}/publish", {"allocation": True})
    assert grid_numbers(mine.get(TABLES).json()) == [TABLE_1, TABLE_2]


def test_outsiders_and_other_events_tokens_are_refused(outsider, organiser, allocated, event):
    assert outsider.get(TABLES).status_code == 403
    # A race table of another event of the same championship: told nothing, like anyone.
    other = make_event(allocated.championship, allocated.circuit, slug="other-gp")
    table = RaceTable.objects.create(event=other, number=1)
    assert Api(table.token).get(TABLES).status_code == 404
    # A qualifying table's link of another event.
    qualifying = QualifyingTable.objects.get(event=event, number=1)
    assert Api(qualifying.token).get(TABLES).status_code == 404


def test_tables_before_any_allocation_is_an_empty_list(organiser, race):
    response = organiser.get(TABLES)
    assert response.status_code == 200
    assert response.json() == []


# ---------------------------------------------------------------------------
# Swaps
# ---------------------------------------------------------------------------


def test_swap_keeps_both_grids_in_rank_order(organiser, allocated):
    stands = {"stands": {"5": 1, "1": 3, "7": 2, "3": 4}}
    assert put(table_api(allocated, 1), f"{TABLES}/1/stands", stands).status_code == 200
    response = organiser.post(SWAP, {"a": 7, "b": 8, "reason": "Asked to sit with friends"})
    assert response.status_code == 200, response.content
    tables = response.json()
    assert grid_numbers(tables) == [[5, 1, 3, 8], [2, 7, 4, 6]]
    assert [[line["position"] for line in t["grid"]] for t in tables] == [[1, 2, 3, 4]] * 2
    # A moved driver chooses a stand again, and so do the drivers behind them on the grid
    # (§4-0-1: stands follow the grid); those ahead keep theirs. Driver 8 arrives last at
    # table 1; driver 7 arrives second at table 2, ahead of nobody with a stand.
    assert [line["stand"] for line in tables[0]["grid"]] == [1, 3, 4, None]
    assert tables[0]["next_to_choose"]["number"] == 8
    assert tables[1]["grid"][1]["stand"] is None
    swap = ManualSwap.objects.get()
    assert (swap.driver_a.number, swap.driver_b.number, swap.table_a, swap.table_b) == (7, 8, 1, 2)
    assert (swap.reason, swap.actor) == ("Asked to sit with friends", "alice (API)")


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"a": 7}, "b"),
        ({"a": "7", "b": 8}, "a"),
        ({"a": 0, "b": 8}, "a"),
        ({"a": 7, "b": 8, "reason": "x" * 201}, "reason"),
        # DOMAIN.md: swaps need a reason.
        ({"a": 7, "b": 8}, "reason"),
        ({"a": 7, "b": 8, "reason": "   "}, "reason"),
    ],
)
def test_invalid_swap_body_is_400(organiser, allocated, body, field):
    response = organiser.post(SWAP, body)
    assert response.status_code == 400
    assert list(response.json()["errors"]) == [field]


@pytest.mark.parametrize(
    ("a", "b", "detail"),
    [
        (7, 7, "Choose two different drivers."),
        (5, 1, "These two drivers already sit at the same table."),
        (7, 99, "Not on any table of this event: 99."),
    ],
)
def test_impossible_swap_is_400(organiser, allocated, a, b, detail):
    response = organiser.post(SWAP, {"a": a, "b": b, "reason": "friends"})
    assert response.status_code == 400
    assert response.json()["detail"] == detail


def test_swap_after_a_result_is_409(organiser, allocated):
    set_result_status(allocated, 1, "draft")
    response = organiser.post(SWAP, {"a": 7, "b": 8, "reason": "friends"})
    assert response.status_code == 409
    assert grid_numbers(organiser.get(TABLES).json()) == [TABLE_1, TABLE_2]
    assert not ManualSwap.objects.exists()


def test_swap_permissions(anon, outsider, allocated):
    assert anon.post(SWAP, {"a": 7, "b": 8}).status_code == 401
    assert outsider.post(SWAP, {"a": 7, "b": 8}).status_code == 403
    assert table_api(allocated, 1).post(SWAP, {"a": 7, "b": 8}).status_code == 403


# ---------------------------------------------------------------------------
# Referee links and race-table tokens
# ---------------------------------------------------------------------------


@override_settings(SITE_URL="https://paddock.example.org")
def test_regenerated_link_replaces_the_old_token(organiser, allocated):
    old = table_api(allocated, 1)
    old_token = RaceTable.objects.get(event=allocated, number=1).token
    response = organiser.post(f"{TABLES}/1/referee-link")
    assert response.status_code == 200, response.content
    body = response.json()
    new_token = RaceTable.objects.get(event=allocated, number=1).token
    assert new_token != old_token
    assert body == {
        "number": 1,
        "referee_link": f"https://paddock.example.org/r/{new_token}/",
        "referee_token": new_token,
    }
    replaced = old.get(TABLES)
    assert replaced.status_code == 401
    assert replaced.json() == {
        "detail": "This link was replaced: ask race control for the new one.",
        "errors": {},
    }
    assert replaced["WWW-Authenticate"].startswith("Bearer")
    assert put(old, f"{TABLES}/1/stands", {"stands": {"5": 1}}).status_code == 401
    assert grid_numbers(Api(new_token).get(TABLES).json()) == [TABLE_1]


def test_replaced_qualifying_link_is_401_too(admin, event):
    table = QualifyingTable.objects.get(event=event, number=1)
    old = Api(table.token)
    assert old.get("/events/monaco-2025/qualifying-tables").status_code == 200
    root = get_user_model().objects.get(username="root")
    referee_link_regenerate(actor=Actor(user=root), table=table)
    response = old.get("/events/monaco-2025/qualifying-tables")
    assert response.status_code == 401
    assert response.json()["detail"] == "This link was replaced: ask race control for the new one."


def test_race_table_token_writes_nothing_of_qualifying(allocated):
    QualifyingSession.objects.filter(event=allocated).delete()
    mine = table_api(allocated, 1)
    assert mine.get("/events/gp-race/tables").status_code == 200  # its own table
    assert mine.get("/events/gp-race").status_code == 404  # the event itself: unpublished
    assert mine.post("/events/gp-race/sessions", {"number": 1}).status_code == 403
    open_session(allocated, 1, "sun")
    run = {"driver": 5, "tyres": "hard", "throws": 20, "stopwatch": "1:30"}
    assert mine.post("/events/gp-race/sessions/1/runs", run).status_code == 403


def test_referee_link_permissions_and_unknown_table(anon, outsider, organiser, allocated):
    link = f"{TABLES}/1/referee-link"
    assert anon.post(link).status_code == 401
    assert outsider.post(link).status_code == 403
    assert table_api(allocated, 1).post(link).status_code == 403
    for number in (3, 0, 99999):
        response = organiser.post(f"{TABLES}/{number}/referee-link")
        assert response.status_code == 404
        assert response.json()["detail"]
