"""Tables of the games with their own table rules (races.grid.services.allocation_run through
each game's variant: rally_allocation, cannes_monaco_allocation), by the service and
``POST .../allocation``:

- Cannes–Monaco: races of 3 to 6 drivers (rules/cannes-monaco-1925-bauza-rules.fr.txt:
  "pour 3 à 6 pilotes"); the result of a table outside 3..6 is refused.
- Rallyman: games of up to 4 (rules/rallyman-rules.fr.txt ART.4-3, start procedure for 1
  to 4 pilots) formed from the start order (ART.4-2), team-mates never swapped.
"""

from __future__ import annotations

import pytest
from django.db.models import F

from races.games.table_sheet.services import game_result_save
from races.grid.services import allocation_run
from races.models import AllocationRecord, GridSlot, RaceTable, Stage
from tests.games.conftest import allocate, put, table_api
from tournament.access import Actor
from tournament.errors import InvalidInput
from tournament.models import Driver, Entry

pytestmark = pytest.mark.django_db


def grids(event) -> list[list[int]]:
    return [
        list(table.slots.order_by("position").values_list("driver__number", flat=True))
        for table in RaceTable.objects.filter(event=event).order_by("number")
    ]


def api_grids(tables: list[dict]) -> list[list[int]]:
    return [[line["driver"]["number"] for line in table["grid"]] for table in tables]


# --- Cannes–Monaco ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("drivers", "table_size", "sizes"),
    [(7, 10, [4, 3]), (4, 2, [4]), (13, 6, [5, 4, 4]), (6, 6, [6]), (12, 3, [3, 3, 3, 3])],
)
def test_cannes_monaco_tables_seat_3_to_6(make_event, org_api, drivers, table_size, sizes):
    make_event(drivers, slug="cannes", game="cannes_monaco", separate_teams=False)
    tables = allocate(org_api, "cannes", table_size)
    assert [len(grid) for grid in api_grids(tables)] == sizes


def test_cannes_monaco_refuses_fewer_than_3_drivers(make_event, org_api, organiser):
    event = make_event(2, slug="cannes", game="cannes_monaco", separate_teams=False)
    response = org_api.post("/events/cannes/allocation", {"table_size": 6})
    assert response.status_code == 400
    assert "at least 3 drivers" in response.json()["detail"]
    with pytest.raises(InvalidInput, match="2 in all"):
        allocation_run(actor=Actor(user=organiser), event=event, table_size=6)
    assert not RaceTable.objects.filter(event=event).exists()


def test_cannes_monaco_result_of_a_table_of_2_is_400(make_event, org_api, organiser):
    event = make_event(3, slug="cannes", game="cannes_monaco", separate_teams=False)
    allocate(org_api, "cannes", 6)
    # A driver leaves the table after the allocation (removed by hand): 2 cars are no race.
    GridSlot.objects.filter(event=event, driver__number=3).delete()
    response = put(
        table_api(event, 1),
        "/events/cannes/tables/1/result",
        {"version": 0, "squares": {"1": 3, "2": 5}, "submit": False},
    )
    assert response.status_code == 400
    assert "3 to 6 drivers" in response.json()["detail"]
    assert "has 2" in response.json()["detail"]
    table = RaceTable.objects.get(event=event)
    with pytest.raises(InvalidInput):
        game_result_save(actor=Actor(user=organiser), table=table, version=0, data={}, submit=False)


def test_cannes_monaco_table_of_7_is_refused_too(make_event, organiser):
    event = make_event(7, game="cannes_monaco", separate_teams=False)
    allocation_run(actor=Actor(user=organiser), event=event, table_size=6)
    first, second = RaceTable.objects.filter(event=event).order_by("number")
    # Forced by hand: 7 cars at one table.
    GridSlot.objects.filter(table=second).update(table=first, position=F("position") + 10)
    with pytest.raises(InvalidInput, match="has 7"):
        game_result_save(actor=Actor(user=organiser), table=first, version=0, data={}, submit=False)


# --- Rallyman -----------------------------------------------------------------------------


def test_rallyman_games_of_4_whatever_the_table_size(make_event, org_api):
    make_event(9, slug="rally", game="rallyman", separate_teams=False)
    tables = allocate(org_api, "rally", 10)
    assert api_grids(tables) == [[1, 2, 3], [4, 5, 6], [7, 8, 9]]  # ART.4-3, even games
    assert AllocationRecord.objects.get(event__slug="rally").table_size == 4


def test_rallyman_never_swaps_team_mates_the_start_order_decides(make_event, organiser):
    # Odd numbers share a team: the Formula Dé allocation would part 1 and 3.
    event = make_event(8, slug="rally", game="rallyman", separate_teams=True)
    Stage.objects.create(event=event, number=1, route="J1 J4", start_order=[8, 7, 6, 5, 4, 3, 2, 1])
    allocation_run(actor=Actor(user=organiser), event=event, table_size=4)
    assert grids(event) == [[8, 7, 6, 5], [4, 3, 2, 1]]
    assert not GridSlot.objects.filter(event=event, swapped=True).exists()
    record = AllocationRecord.objects.get(event=event)
    assert record.swaps == [] and record.conflicts == []


def test_rallyman_without_a_start_order_games_follow_registration(
    make_event, championship, organiser
):
    event = make_event(0, slug="rally", game="rallyman", separate_teams=True)
    for number in (5, 2, 4, 1, 3):
        driver = Driver.objects.create(
            championship=championship, number=number, first_name=f"P{number}", last_name="R"
        )
        Entry.objects.create(event=event, driver=driver)
    allocation_run(actor=Actor(user=organiser), event=event, table_size=20)
    assert grids(event) == [[5, 2, 4], [1, 3]]
    # Stage 1, when added, starts in the same order the games were formed in.
    stage = Stage.objects.create(event=event, number=1, route="J1")
    from races.games.rallyman.services import start_order_of

    assert start_order_of(stage) == [5, 2, 4, 1, 3]


def test_rallyman_checked_in_drivers_only(make_event, organiser):
    event = make_event(6, slug="rally", game="rallyman", separate_teams=False)
    Stage.objects.create(event=event, number=1, route="J1", start_order=[6, 5, 4, 3, 2, 1])
    Entry.objects.filter(event=event, driver__number__in=[1, 2, 3, 5, 6]).update(checked_in=True)
    allocation_run(actor=Actor(user=organiser), event=event, table_size=4)
    assert grids(event) == [[6, 5, 3], [2, 1]]
