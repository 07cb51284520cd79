"""Race-day services against the database: allocation and swaps, race and table weather,
stands, car configurations, referee links, and the history each change leaves.

Rules: DOMAIN.md "Tables and grids", "Race weather", "Stands and car configuration";
article numbers refer to rules/formule-de-competition-rules.fr.txt. The circuit fixture's
scale: rain 1-4, variable 5-8, sun 9-20.
"""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction
from django.test import Client
from django.urls import reverse

from qualifying.models import DrawRoll, QualifyingTable, Run
from qualifying.seating.services import qualifying_table_set
from qualifying.services import draw_record, session_create
from races.grid.services import allocation_run, referee_link_regenerate, swap_drivers
from races.grid.start import configurations_set, stands_set, table_start, table_unlock
from races.models import (
    AllocationRecord,
    CarConfiguration,
    GridSlot,
    ManualSwap,
    RaceTable,
    RaceWeather,
    ReplacedLink,
    SheetPhoto,
    WeatherDraw,
)
from races.photos.services import photo_add
from races.weather.services import race_weather_draw, table_weather_draw
from tests.integrity.conftest import needs_postgresql
from tests.integrity.waits import meet, second_meets_first
from tests.races.photos.images import oriented_jpeg
from tournament.access import Actor
from tournament.errors import Conflict, InvalidInput, NotAllowed
from tournament.models import Driver, Entry, Team
from tournament.sealing import link_digest

SUN, VARIABLE, RAIN = 15, 6, 2  # d20 rolls on the circuit fixture's scale
VALID = {
    "tyres": 4,
    "brakes": 3,
    "gearbox": 4,
    "body": 3,
    "engine": 3,
    "road_holding": 3,
    "stand_points": 2,
}


@pytest.fixture
def actor(organiser):
    return Actor(user=organiser)


@pytest.fixture
def outsider(django_user_model):
    return django_user_model.objects.create_user("curieux")


def set_teams(event, teams: dict[int, str]) -> None:
    """Only the drivers in ``teams`` have a team; everyone else races alone."""
    championship = event.championship
    Driver.objects.filter(championship=championship).update(team=None)
    for number, name in teams.items():
        team = Team.objects.get_or_create(championship=championship, name=name)[0]
        Driver.objects.filter(championship=championship, number=number).update(team=team)


def qualify(actor, event, order: list[int], *, number: int = 1, roll: int = SUN):
    """A qualifying session whose classification is ``order`` (best first).

    Hard tyres, no placement error, no exit square, 0:50 on the stopwatch: the absolute
    time is the number of throws (§1-1-10 … §1-1-13).
    """
    session = session_create(actor=actor, event=event, number=number, weather_roll=roll)
    for index, driver_number in enumerate(order):
        Run.objects.create(
            session=session,
            driver=Driver.objects.get(championship=event.championship, number=driver_number),
            tyres="hard",
            throws=10 + index,
            stopwatch_cs=5000,
        )
    return session


def grids(event) -> list[list[int]]:
    return [
        [s.driver.number for s in table.slots.select_related("driver").order_by("position")]
        for table in RaceTable.objects.filter(event=event).order_by("number")
    ]


def slot(event, number: int) -> GridSlot:
    return GridSlot.objects.select_related("table", "driver").get(
        event=event, driver__number=number
    )


def table(event, number: int) -> RaceTable:
    return RaceTable.objects.get(event=event, number=number)


# Six drivers classified 4, 2, 5, 1, 6, 3; no team, two tables of three.
ORDER6 = [4, 2, 5, 1, 6, 3]


@pytest.fixture
def event6(make_event, actor):
    event = make_event(n_drivers=6, use_configurations=True)
    set_teams(event, {})
    qualify(actor, event, ORDER6)
    return event


@pytest.fixture
def allocated(event6, actor):
    allocation_run(actor=actor, event=event6, table_size=3)
    return event6


# --- Allocation (§1-3-2, §1-3-3) ------------------------------------------------------------


def test_allocation_puts_the_best_at_table_1_with_grids_in_rank_order(event6, actor):
    tables = allocation_run(actor=actor, event=event6, table_size=3)

    assert [t.number for t in tables] == [1, 2]
    assert grids(event6) == [[4, 2, 5], [1, 6, 3]]
    ranks = [
        [(s.position, s.rank) for s in t.slots.order_by("position")]
        for t in RaceTable.objects.filter(event=event6)
    ]
    assert ranks == [[(1, 1), (2, 2), (3, 3)], [(1, 4), (2, 5), (3, 6)]]
    assert not GridSlot.objects.filter(event=event6, swapped=True).exists()
    record = AllocationRecord.objects.get(event=event6)
    assert (record.table_size, record.swaps, record.conflicts) == (3, [], [])
    assert record.actor == "pc"


def test_allocation_uses_the_event_table_size_by_default(make_event, actor):
    event = make_event(n_drivers=6, table_size=4)
    set_teams(event, {})
    qualify(actor, event, ORDER6)

    allocation_run(actor=actor, event=event)

    # ceil(6 / 4) = 2 tables, as equal as possible.
    assert grids(event) == [[4, 2, 5], [1, 6, 3]]
    assert AllocationRecord.objects.get(event=event).table_size == 4


@pytest.mark.parametrize("size", [1, 21])
def test_allocation_refuses_a_table_size_outside_2_to_20(event6, actor, size):
    with pytest.raises(InvalidInput):
        allocation_run(actor=actor, event=event6, table_size=size)
    assert not RaceTable.objects.filter(event=event6).exists()


def test_allocation_is_for_organisers_only(event6, outsider):
    with pytest.raises(NotAllowed):
        allocation_run(actor=Actor(user=outsider), event=event6, table_size=3)
    with pytest.raises(NotAllowed):
        allocation_run(actor=Actor.anonymous(), event=event6, table_size=3)
    assert not RaceTable.objects.exists()


# Ranks 1..16 are these driver numbers; ranks 1 (5) and 2 (12) are team-mates.
ORDER16 = [5, 12, 1, 16, 3, 8, 9, 2, 14, 7, 11, 4, 6, 15, 10, 13]


def test_allocation_separates_team_mates_with_a_recorded_swap(make_event, actor):
    """DOMAIN.md's worked example: rank 2 swaps with rank 9 (tables of 8)."""
    event = make_event(n_drivers=16)
    set_teams(event, {5: "Écurie Étoile", 12: "Écurie Étoile"})
    qualify(actor, event, ORDER16)

    allocation_run(actor=actor, event=event, table_size=8)

    # Table 1: ranks 1, 3-9; table 2: ranks 2, 10-16; each grid in rank order.
    assert grids(event) == [[5, 1, 16, 3, 8, 9, 2, 14], [12, 7, 11, 4, 6, 15, 10, 13]]
    assert slot(event, 14).rank == 9 and slot(event, 14).position == 8
    assert slot(event, 12).rank == 2 and slot(event, 12).position == 1
    record = AllocationRecord.objects.get(event=event)
    assert record.swaps == [
        {"moved_down": 12, "moved_up": 14, "from_table": 1, "to_table": 2, "teammate": 5}
    ]
    assert record.conflicts == []
    swapped = set(
        GridSlot.objects.filter(event=event, swapped=True).values_list("driver__number", flat=True)
    )
    assert swapped == {12, 14}


def test_allocation_keeps_team_mates_together_when_the_event_says_so(make_event, actor):
    event = make_event(n_drivers=16, separate_teams=False)
    set_teams(event, {5: "Écurie Étoile", 12: "Écurie Étoile"})
    qualify(actor, event, ORDER16)

    allocation_run(actor=actor, event=event, table_size=8)

    assert grids(event) == [ORDER16[:8], ORDER16[8:]]
    assert AllocationRecord.objects.get(event=event).swaps == []
    assert not GridSlot.objects.filter(event=event, swapped=True).exists()


def test_allocation_records_a_conflict_no_swap_can_resolve(make_event, actor):
    """Three team-mates, two tables: two of them must share a table (warning)."""
    event = make_event(n_drivers=4)
    set_teams(event, {1: "Écurie Étoile", 2: "Écurie Étoile", 3: "Écurie Étoile"})
    qualify(actor, event, [1, 2, 3, 4])

    allocation_run(actor=actor, event=event, table_size=2)

    record = AllocationRecord.objects.get(event=event)
    assert len(record.conflicts) == 1
    conflict = record.conflicts[0]
    together = set(conflict["drivers"])
    assert len(together) == 2 and together <= {1, 2, 3}
    assert set(grids(event)[conflict["table"] - 1]) >= together


def test_allocation_uses_only_checked_in_entries_when_some_are_checked_in(event6, actor):
    Entry.objects.filter(event=event6, driver__number__in=[2, 3, 5, 6]).update(checked_in=True)

    allocation_run(actor=actor, event=event6, table_size=2)

    # Classification 4, 2, 5, 1, 6, 3 without 4 and 1; ranks stay the general ones.
    assert grids(event6) == [[2, 5], [6, 3]]
    assert [
        s.rank for s in GridSlot.objects.filter(event=event6).order_by("table", "position")
    ] == [
        2,
        3,
        5,
        6,
    ]


def test_allocation_puts_drivers_without_a_run_last(make_event, actor):
    event = make_event(n_drivers=5)
    set_teams(event, {})
    qualify(actor, event, [3, 5, 2, 4])  # driver 1 is registered but never ran

    allocation_run(actor=actor, event=event, table_size=3)

    assert grids(event) == [[3, 5, 2], [4, 1]]
    assert slot(event, 1).rank == 5


def test_allocation_refuses_an_event_without_drivers(make_event, actor):
    event = make_event(n_drivers=0)
    with pytest.raises(InvalidInput):
        allocation_run(actor=actor, event=event, table_size=3)


def test_allocating_again_clears_stands_and_configurations_and_keeps_the_links(allocated, actor):
    first, second = table(allocated, 1), table(allocated, 2)
    first.referee_name = "Marc Petit"
    first.save()
    tokens = {first.number: first.token, second.number: second.token}
    stands_set(actor=actor, table=first, stands={4: 1, 2: 2})
    configurations_set(actor=actor, table=first, configurations={4: VALID})
    assert CarConfiguration.objects.filter(slot__event=allocated).count() == 1

    allocation_run(actor=actor, event=allocated, table_size=3)

    assert (
        list(GridSlot.objects.filter(event=allocated).values_list("stand", flat=True)) == [None] * 6
    )
    assert not CarConfiguration.objects.filter(slot__event=allocated).exists()
    after = {t.number: t.token for t in RaceTable.objects.filter(event=allocated)}
    assert after == tokens
    assert table(allocated, 1).referee_name == "Marc Petit"
    assert grids(allocated) == [[4, 2, 5], [1, 6, 3]]


def test_allocating_again_with_bigger_tables_removes_the_extra_tables(allocated, actor):
    token = table(allocated, 1).token

    allocation_run(actor=actor, event=allocated, table_size=6)

    assert grids(allocated) == [ORDER6]
    assert table(allocated, 1).token == token


@pytest.mark.parametrize("status", ["draft", "submitted", "confirmed"])
def test_allocation_is_refused_once_a_result_is_entered(allocated, actor, status):
    RaceTable.objects.filter(event=allocated, number=2).update(result_status=status)
    before = grids(allocated)

    with pytest.raises(Conflict):
        allocation_run(actor=actor, event=allocated, table_size=2)

    assert grids(allocated) == before


def test_allocation_leaves_history_with_the_actor(allocated, organiser):
    record = table(allocated, 1).history.first()
    assert record.history_user == organiser
    assert record.history_actor == "pc"
    # Every grid place created has its history row, with who made it.
    rows = GridSlot.history.filter(event_id=allocated.pk)
    assert rows.count() == 6
    assert {(r.history_type, r.history_user_id) for r in rows} == {("+", organiser.pk)}


# --- Manual swaps ---------------------------------------------------------------------------


def test_swap_exchanges_two_drivers_and_records_who_when_why(allocated, actor, organiser):
    record = swap_drivers(actor=actor, event=allocated, a=2, b=6, reason="  Même club  ")

    saved = ManualSwap.objects.get()
    assert saved == record
    assert (saved.driver_a.number, saved.driver_b.number) == (2, 6)
    assert (saved.table_a, saved.table_b) == (1, 2)
    assert saved.reason == "Même club"
    assert saved.user == organiser
    assert saved.actor == "pc"
    assert saved.created_at is not None
    # Both grids sorted again by qualifying rank (6 is rank 5, 2 is rank 2).
    assert grids(allocated) == [[4, 5, 6], [2, 1, 3]]
    assert [(s.position, s.rank) for s in table(allocated, 1).slots.order_by("position")] == [
        (1, 1),
        (2, 3),
        (3, 5),
    ]


def test_swap_of_two_drivers_at_the_same_grid_position(allocated, actor):
    swap_drivers(actor=actor, event=allocated, a=4, b=1, reason="test")

    assert grids(allocated) == [[2, 5, 1], [4, 6, 3]]


def test_swap_clears_the_stands_of_the_moved_drivers_and_of_those_behind_them(allocated, actor):
    """§4-0-1: stands follow the grid. 6 arrives last at table 1: nobody behind it; 2
    arrives first at table 2 (rank 2), ahead of 1 and 3, who choose again after 2."""
    stands_set(actor=actor, table=table(allocated, 1), stands={4: 1, 2: 2, 5: 3})
    stands_set(actor=actor, table=table(allocated, 2), stands={1: 3, 6: 2, 3: 1})

    swap_drivers(actor=actor, event=allocated, a=2, b=6, reason="test")

    stands = dict(GridSlot.objects.filter(event=allocated).values_list("driver__number", "stand"))
    assert stands == {4: 1, 5: 3, 6: None, 1: None, 2: None, 3: None}


def test_swap_leaves_history_rows_with_the_actor(allocated, actor, organiser):
    swap_drivers(actor=actor, event=allocated, a=2, b=6, reason="test")

    moved = GridSlot.history.filter(driver__number__in=[2, 6], history_type="~")
    assert moved.exists()
    assert {(r.history_user_id, r.history_actor) for r in moved} == {(organiser.pk, "pc")}
    # Renumbering the grids is part of the same change: same author.
    changed = GridSlot.history.filter(history_type="~")
    assert {(r.history_user_id, r.history_actor) for r in changed} == {(organiser.pk, "pc")}


def test_swap_refuses_two_drivers_of_the_same_table(allocated, actor):
    with pytest.raises(InvalidInput, match="same table"):
        swap_drivers(actor=actor, event=allocated, a=4, b=5, reason="test")
    assert not ManualSwap.objects.exists()
    assert grids(allocated) == [[4, 2, 5], [1, 6, 3]]


def test_swap_refuses_the_same_driver_twice(allocated, actor):
    with pytest.raises(InvalidInput):
        swap_drivers(actor=actor, event=allocated, a=4, b=4, reason="test")


def test_swap_refuses_an_unknown_driver(allocated, actor):
    with pytest.raises(InvalidInput, match="99"):
        swap_drivers(actor=actor, event=allocated, a=4, b=99, reason="test")
    assert not ManualSwap.objects.exists()
    assert grids(allocated) == [[4, 2, 5], [1, 6, 3]]


def test_swap_is_refused_once_a_result_is_entered(allocated, actor):
    RaceTable.objects.filter(event=allocated, number=1).update(result_status="draft")

    with pytest.raises(Conflict):
        swap_drivers(actor=actor, event=allocated, a=2, b=6, reason="test")

    assert grids(allocated) == [[4, 2, 5], [1, 6, 3]]
    assert not ManualSwap.objects.exists()


def test_swap_is_for_organisers_only(allocated, outsider):
    with pytest.raises(NotAllowed):
        swap_drivers(actor=Actor(user=outsider), event=allocated, a=2, b=6, reason="test")
    with pytest.raises(NotAllowed):
        swap_drivers(
            actor=Actor(table=table(allocated, 1)), event=allocated, a=2, b=6, reason="test"
        )


# --- Race weather (§2-0-1, §3-2) ------------------------------------------------------------


def starts(event) -> set[tuple[str, str, bool, str]]:
    return {
        (t.weather, t.track, t.weather_fixed, t.last_draw)
        for t in RaceTable.objects.filter(event=event)
    }


@pytest.mark.parametrize(
    ("roll", "weather", "track", "fixed"),
    [
        (1, "rain", "wet", True),
        (4, "rain", "wet", True),
        (9, "sun", "dry", True),
        (20, "sun", "dry", True),
        (5, "variable", "dry", False),
        (8, "variable", "dry", False),
    ],
)
def test_race_weather_maps_the_roll_through_the_circuit_scale_and_starts_every_table(
    allocated, actor, roll, weather, track, fixed
):
    race = race_weather_draw(actor=actor, event=allocated, roll=roll)

    assert (race.roll, race.source, race.weather) == (roll, "physical", weather)
    assert RaceWeather.objects.get(event=allocated) == race
    # The only qualifying session was sunny: a variable race starts dry.
    assert starts(allocated) == {(weather, track, fixed, "")}


def test_race_weather_rolled_by_the_system(allocated, actor):
    race = race_weather_draw(actor=actor, event=allocated)

    assert race.source == "system"
    assert 1 <= race.roll <= 20
    assert race.weather == allocated.circuit.weather_scale.weather_for(race.roll)


@pytest.mark.parametrize(
    ("sessions", "track"),
    [
        ([(1, SUN), (2, RAIN)], "wet"),
        ([(1, RAIN), (2, SUN)], "dry"),
        ([(1, RAIN), (2, VARIABLE)], "dry"),
        ([(1, SUN), (2, VARIABLE), (3, RAIN)], "wet"),
        # Created out of order: the last session is the one with the highest number.
        ([(2, RAIN), (1, SUN)], "wet"),
        ([(2, SUN), (1, RAIN)], "dry"),
    ],
)
def test_variable_race_starts_on_the_track_of_the_last_qualifying_session(
    make_event, actor, sessions, track
):
    event = make_event(n_drivers=4)
    set_teams(event, {})
    for number, roll in sessions:
        qualify(actor, event, [1, 2, 3, 4], number=number, roll=roll)
    allocation_run(actor=actor, event=event, table_size=2)

    race_weather_draw(actor=actor, event=event, roll=VARIABLE)

    assert starts(event) == {("variable", track, False, "")}


def test_draw_mode_grid_comes_from_the_d20_and_a_variable_race_starts_dry(make_event, actor):
    """Quick rules §2: lowest d20 = pole; no qualifying session, so a variable race is dry."""
    event = make_event(n_drivers=4, qualifying_mode="draw")
    set_teams(event, {})
    draw_record(actor=actor, event=event, rolls={1: [17], 2: [3], 3: [11], 4: [8]})

    allocation_run(actor=actor, event=event, table_size=2)
    race_weather_draw(actor=actor, event=event, roll=VARIABLE)

    assert grids(event) == [[2, 4], [3, 1]]
    assert starts(event) == {("variable", "dry", False, "")}


# --- The quick rules' grid from the d20 (point 2; DOMAIN.md "What the day enforces") -------


def test_allocation_waits_for_a_pending_physical_d20_tie(make_event, actor):
    """Quick rules point 2 (« le plus petit nombre est en pôle position »): two physical
    3s are a tie the re-roll breaks; no grid is built while it waits, and the re-roll
    orders only the tied drivers among themselves."""
    event = make_event(n_drivers=4, qualifying_mode="draw", laps=2)
    set_teams(event, {})
    draw_record(actor=actor, event=event, rolls={1: [3], 2: [3], 3: [11], 4: [8]})

    with pytest.raises(Conflict) as refused:
        allocation_run(actor=actor, event=event, table_size=2)

    assert refused.value.errors == {
        "draw": [f"1 {driver(event, 1).name}, 2 {driver(event, 2).name}"]
    }
    assert not RaceTable.objects.filter(event=event).exists()
    draw_record(actor=actor, event=event, rolls={1: [3, 9], 2: [3, 4]})
    allocation_run(actor=actor, event=event, table_size=2)
    assert grids(event) == [[2, 1], [4, 3]]


def test_allocation_refuses_a_quick_race_with_no_d20_rolled(make_event, actor):
    """Quick rules point 2: the grid comes « selon le lancer d'un dé 20 », never in
    number order when nobody has rolled."""
    event = make_event(n_drivers=4, qualifying_mode="draw", laps=2)

    with pytest.raises(Conflict) as refused:
        allocation_run(actor=actor, event=event, table_size=2)

    assert refused.value.status == 409
    assert refused.value.errors == {"draw": ["Make the d20 draw first."]}
    assert not RaceTable.objects.filter(event=event).exists()


def test_a_roll_after_the_allocation_needs_race_controls_reason(make_event, actor):
    """DOMAIN.md (quick rules): the allocation closes the rolls; race control may rewrite
    one with a reason, recorded; a table's link may not."""
    event = make_event(n_drivers=4, qualifying_mode="draw", laps=2)
    draw_record(actor=actor, event=event, rolls={1: [17], 2: [3], 3: [11], 4: [8]})
    allocation_run(actor=actor, event=event, table_size=2)

    with pytest.raises(Conflict) as link:
        draw_record(actor=Actor(table=table(event, 1)), event=event, rolls={1: [1]})
    assert link.value.errors == {"rolls": ["Closed by the allocation."]}
    with pytest.raises(Conflict) as no_reason:
        draw_record(actor=actor, event=event, rolls={1: [1]})
    assert list(no_reason.value.errors) == ["reason"]
    assert DrawRoll.objects.get(event=event, driver__number=1).rolls == [17]

    draw_record(actor=actor, event=event, rolls={1: [1]}, reason="die read upside down")

    record = DrawRoll.history.filter(driver__number=1).first()
    assert (record.rolls, record.history_change_reason) == ([1], "die read upside down")


def driver(event, number: int) -> Driver:
    return Driver.objects.get(championship=event.championship, number=number)


def test_allocating_again_after_the_race_weather_starts_the_new_tables(event6, actor):
    """The race weather comes once the tables are built (§2-0-1); tables built again while
    no table has started take it at their start."""
    allocation_run(actor=actor, event=event6, table_size=3)
    race_weather_draw(actor=actor, event=event6, roll=RAIN)

    allocation_run(actor=actor, event=event6, table_size=2)

    assert starts(event6) == {("rain", "wet", True, "")}


def test_race_weather_is_drawn_again_only_with_a_reason_until_the_first_table_draw(
    allocated, actor
):
    race_weather_draw(actor=actor, event=allocated, roll=SUN)
    with pytest.raises(Conflict, match="already drawn"):
        race_weather_draw(actor=actor, event=allocated, roll=VARIABLE)
    race_weather_draw(actor=actor, event=allocated, roll=VARIABLE, reason="die off the table")
    assert RaceWeather.objects.get(event=allocated).weather == "variable"
    start_race(actor, allocated, 1)
    table_weather_draw(actor=actor, table=table(allocated, 1), roll=SUN)

    with pytest.raises(Conflict, match="has started"):
        race_weather_draw(actor=actor, event=allocated, roll=RAIN, reason="wrong scale")

    assert RaceWeather.objects.get(event=allocated).weather == "variable"


def test_race_weather_is_refused_once_a_result_is_entered(allocated, actor):
    RaceTable.objects.filter(event=allocated, number=2).update(result_status="draft")
    with pytest.raises(Conflict):
        race_weather_draw(actor=actor, event=allocated, roll=SUN)
    assert not RaceWeather.objects.exists()


def test_race_weather_refuses_a_roll_outside_1_to_20(allocated, actor):
    with pytest.raises(InvalidInput):
        race_weather_draw(actor=actor, event=allocated, roll=21)
    assert not RaceWeather.objects.exists()


def test_race_weather_is_for_organisers_only(allocated, outsider):
    with pytest.raises(NotAllowed):
        race_weather_draw(actor=Actor(user=outsider), event=allocated, roll=SUN)
    with pytest.raises(NotAllowed):
        race_weather_draw(actor=Actor(table=table(allocated, 1)), event=allocated, roll=SUN)


def test_race_weather_leaves_table_history_with_the_actor(allocated, actor, organiser):
    race_weather_draw(actor=actor, event=allocated, roll=RAIN)

    for number in (1, 2):
        latest = table(allocated, number).history.first()
        assert (latest.weather, latest.track, latest.weather_fixed) == ("rain", "wet", True)
        assert (latest.history_user, latest.history_actor) == (organiser, "pc")
    assert RaceWeather.history.get().history_user == organiser


# --- Weather draws at a table (§3-2-4 … §3-2-6) ---------------------------------------------


def start_race(actor, event, number: int) -> None:
    """Stands in grid order (§4-0-1), then the referee's start (§5-0-2)."""
    t = table(event, number)
    grid = t.slots.order_by("position").values_list("driver__number", flat=True)
    stands_set(actor=actor, table=t, stands={n: stand for stand, n in enumerate(grid, 1)})
    if event.use_configurations:
        configurations_set(actor=actor, table=t, configurations=dict.fromkeys(grid, VALID))
    table_start(actor=actor, table=t)


@pytest.fixture
def variable_race(allocated, actor):
    """A variable race under way at both tables (§3-2-4: the draws come during the race)."""
    race_weather_draw(actor=actor, event=allocated, roll=VARIABLE)
    start_race(actor, allocated, 1)
    start_race(actor, allocated, 2)
    return allocated


def state(event, number: int) -> tuple[str, str, bool]:
    t = table(event, number)
    return (t.weather, t.track, t.weather_fixed)


def test_table_draws_follow_3_2_6(variable_race):
    t1 = table(variable_race, 1)
    referee = Actor(table=t1)

    steps = []
    for roll in (RAIN, VARIABLE, SUN, VARIABLE, SUN, 12):
        draw = table_weather_draw(actor=referee, table=t1, roll=roll)
        steps.append((draw.number, draw.drawn, draw.weather, draw.track, draw.fixed))

    assert steps == [
        (1, "rain", "rain", "wet", False),  # 2) temporary rain wets the track
        (2, "variable", "variable", "wet", False),  # 3) the track stays wet
        (3, "sun", "sun", "dry", False),  # 5) temporary sun dries it
        (4, "variable", "variable", "dry", False),  # 3) the track stays dry
        (5, "sun", "sun", "dry", False),  # not twice in a row: still temporary
        (6, "sun", "sun", "dry", True),  # 4) sun twice in a row: fixed
    ]
    assert state(variable_race, 1) == ("sun", "dry", True)
    # Each table evolves on its own (§3-2-4).
    assert state(variable_race, 2) == ("variable", "dry", False)
    rows = list(WeatherDraw.objects.filter(table=t1).order_by("number"))
    assert [(r.roll, r.source, r.actor) for r in rows] == [
        (roll, "physical", "referee link of Table 1")
        for roll in (RAIN, VARIABLE, SUN, VARIABLE, SUN, 12)
    ]


def test_table_draw_rain_twice_in_a_row_fixes_it_then_draws_are_refused(variable_race, actor):
    t2 = table(variable_race, 2)
    table_weather_draw(actor=actor, table=t2, roll=1)
    draw = table_weather_draw(actor=actor, table=t2, roll=3)
    assert (draw.weather, draw.track, draw.fixed) == ("rain", "wet", True)

    with pytest.raises(Conflict):
        table_weather_draw(actor=actor, table=t2, roll=SUN)

    assert state(variable_race, 2) == ("rain", "wet", True)
    assert WeatherDraw.objects.filter(table=t2).count() == 2


def test_table_draw_rolled_by_the_system(variable_race, actor):
    draw = table_weather_draw(actor=actor, table=table(variable_race, 1))
    assert draw.source == "system"
    assert draw.drawn == variable_race.circuit.weather_scale.weather_for(draw.roll)
    assert draw.actor == "pc"


@pytest.mark.parametrize("race_roll", [SUN, RAIN])
def test_table_draw_is_refused_when_the_race_is_not_variable(allocated, actor, race_roll):
    race_weather_draw(actor=actor, event=allocated, roll=race_roll)

    with pytest.raises(Conflict):
        table_weather_draw(actor=actor, table=table(allocated, 1), roll=SUN)

    assert not WeatherDraw.objects.exists()


def test_table_draw_is_refused_before_the_race_weather(allocated, actor):
    with pytest.raises(Conflict):
        table_weather_draw(actor=actor, table=table(allocated, 1), roll=SUN)
    assert not WeatherDraw.objects.exists()


def test_table_draw_by_the_table_referee_account(variable_race, django_user_model):
    referee = django_user_model.objects.create_user("arbitre")
    t1 = table(variable_race, 1)
    t1.referee = referee
    t1.save()

    draw = table_weather_draw(actor=Actor(user=referee), table=t1, roll=RAIN)

    assert draw.actor == "arbitre"


def test_table_draw_refused_to_another_table_and_to_outsiders(variable_race, outsider):
    t1, t2 = table(variable_race, 1), table(variable_race, 2)
    with pytest.raises(NotAllowed):
        table_weather_draw(actor=Actor(table=t2), table=t1, roll=RAIN)
    with pytest.raises(NotAllowed):
        table_weather_draw(actor=Actor(user=outsider), table=t1, roll=RAIN)
    with pytest.raises(NotAllowed):
        table_weather_draw(actor=Actor.anonymous(), table=t1, roll=RAIN)
    assert not WeatherDraw.objects.exists()


def test_a_qualifying_table_link_is_not_a_race_table_link(variable_race, actor):
    """Same primary key, other kind of table: not this table's referee."""
    t1 = table(variable_race, 1)
    qualifying = qualifying_table_set(actor=actor, event=variable_race, number=1, drivers=[1])
    qualifying.pk = t1.pk  # the link of whichever qualifying table has the same id
    with pytest.raises(NotAllowed):
        table_weather_draw(actor=Actor(table=qualifying), table=t1, roll=RAIN)
    with pytest.raises(NotAllowed):
        stands_set(actor=Actor(table=qualifying), table=t1, stands={4: 1})


def test_table_draw_leaves_table_history_with_the_link(variable_race):
    t1 = table(variable_race, 1)
    table_weather_draw(actor=Actor(table=t1), table=t1, roll=RAIN)

    latest = table(variable_race, 1).history.first()
    assert (latest.weather, latest.track) == ("rain", "wet")
    assert latest.history_user is None
    assert latest.history_actor == "referee link of Table 1"


def test_allocating_again_clears_the_table_draws(variable_race, actor):
    table_weather_draw(actor=actor, table=table(variable_race, 1), roll=RAIN)
    with pytest.raises(Conflict, match="written in ink"):  # the tables started
        allocation_run(actor=actor, event=variable_race, table_size=3)
    table_unlock(actor=actor, table=table(variable_race, 1), reason="New grids")
    table_unlock(actor=actor, table=table(variable_race, 2), reason="New grids")

    allocation_run(actor=actor, event=variable_race, table_size=3)

    assert not WeatherDraw.objects.exists()
    assert starts(variable_race) == {("variable", "dry", False, "")}


# --- Stands (§4-0-1) ------------------------------------------------------------------------


def stands(event, number: int) -> dict[int, int | None]:
    return dict(table(event, number).slots.values_list("driver__number", "stand"))


def test_stands_set_by_the_table_link(allocated):
    t1 = table(allocated, 1)

    slots = stands_set(actor=Actor(table=t1), table=t1, stands={4: 3, 2: 1})

    assert {s.driver.number: s.stand for s in slots} == {4: 3, 2: 1, 5: None}
    assert stands(allocated, 1) == {4: 3, 2: 1, 5: None}
    latest = slot(allocated, 4).history.first()
    assert (latest.stand, latest.history_user, latest.history_actor) == (
        3,
        None,
        "referee link of Table 1",
    )


def test_stands_use_the_event_stand_numbers(make_event, actor):
    event = make_event(n_drivers=4, stand_numbers=[11, 12, 14])
    set_teams(event, {})
    qualify(actor, event, [1, 2, 3, 4])
    allocation_run(actor=actor, event=event, table_size=2)
    t1 = table(event, 1)

    stands_set(actor=actor, table=t1, stands={1: 14})
    with pytest.raises(InvalidInput, match="Stand 1 does not exist"):
        stands_set(actor=actor, table=t1, stands={2: 1})

    assert stands(event, 1) == {1: 14, 2: None}


@pytest.mark.parametrize("stand", [0, 11, 99])
def test_stands_set_refuses_a_stand_that_does_not_exist(allocated, actor, stand):
    # The event has no stand numbers of its own: stands 1 to its table size (10).
    with pytest.raises(InvalidInput) as refused:
        stands_set(actor=actor, table=table(allocated, 1), stands={4: stand})
    assert refused.value.message == (
        f"Stand {stand} does not exist here (stands: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10)."
    )
    assert list(refused.value.errors) == ["4"]
    assert stands(allocated, 1) == {4: None, 2: None, 5: None}


def test_stands_set_refuses_the_same_stand_twice_in_one_call(allocated, actor):
    with pytest.raises(InvalidInput, match="Stand 2 is already taken"):
        stands_set(actor=actor, table=table(allocated, 1), stands={4: 2, 2: 2})
    assert stands(allocated, 1) == {4: None, 2: None, 5: None}


def test_stands_set_refuses_a_stand_already_taken_at_the_table(allocated, actor):
    t1 = table(allocated, 1)
    stands_set(actor=actor, table=t1, stands={4: 2})

    with pytest.raises(InvalidInput, match="Stand 2 is already taken by 4 Pilote4 Lefèvre"):
        stands_set(actor=actor, table=t1, stands={2: 2})

    assert stands(allocated, 1) == {4: 2, 2: None, 5: None}


def test_the_same_stand_at_two_tables_is_fine(allocated, actor):
    stands_set(actor=actor, table=table(allocated, 1), stands={4: 1})
    stands_set(actor=actor, table=table(allocated, 2), stands={1: 1})
    assert stands(allocated, 1)[4] == stands(allocated, 2)[1] == 1


def test_stands_set_refuses_a_driver_not_on_this_grid(allocated, actor):
    with pytest.raises(InvalidInput, match="Not on the grid of Table 1: 1"):
        stands_set(actor=actor, table=table(allocated, 1), stands={4: 1, 1: 2})
    assert stands(allocated, 1) == {4: None, 2: None, 5: None}


def test_stands_set_exchanges_two_stands_in_one_call(allocated, actor):
    t1 = table(allocated, 1)
    stands_set(actor=actor, table=t1, stands={4: 1, 2: 2, 5: 3})

    stands_set(actor=actor, table=t1, stands={4: 2, 2: 1})

    assert stands(allocated, 1) == {4: 2, 2: 1, 5: 3}


def test_stands_set_can_free_a_stand(allocated, actor):
    t1 = table(allocated, 1)
    stands_set(actor=actor, table=t1, stands={4: 1})
    stands_set(actor=actor, table=t1, stands={4: None})
    assert stands(allocated, 1) == {4: None, 2: None, 5: None}
    with pytest.raises(InvalidInput, match="grid order"):  # the pole chooses first (§4-0-1)
        stands_set(actor=actor, table=t1, stands={4: None, 2: 1})


def test_stands_set_leaves_only_history_rows_with_the_actor(allocated, actor, organiser):
    t1 = table(allocated, 1)
    stands_set(actor=actor, table=t1, stands={4: 1, 2: 2})
    stands_set(actor=actor, table=t1, stands={4: 2, 2: 1})

    changes = GridSlot.history.filter(table_id=t1.pk, history_type="~")
    assert changes.exists()
    assert {(r.history_user_id, r.history_actor) for r in changes} == {(organiser.pk, "pc")}


def test_stands_set_refused_to_another_table_link(allocated):
    with pytest.raises(NotAllowed):
        stands_set(actor=Actor(table=table(allocated, 2)), table=table(allocated, 1), stands={4: 1})
    assert stands(allocated, 1) == {4: None, 2: None, 5: None}


def test_stands_set_refused_once_the_result_is_confirmed(allocated, actor):
    RaceTable.objects.filter(event=allocated, number=1).update(result_status="confirmed")
    with pytest.raises(Conflict):
        stands_set(actor=actor, table=table(allocated, 1), stands={4: 1})


def test_database_refuses_the_same_stand_twice_at_a_table(allocated):
    t1 = table(allocated, 1)
    GridSlot.objects.filter(table=t1, driver__number=4).update(stand=2)

    with pytest.raises(IntegrityError), transaction.atomic():
        GridSlot.objects.filter(table=t1, driver__number=5).update(stand=2)

    # Still usable after the refusal (PostgreSQL aborts the transaction otherwise).
    assert stands(allocated, 1) == {4: 2, 2: None, 5: None}
    # Any number of places may have no stand yet, and another table may use stand 2.
    GridSlot.objects.filter(table=table(allocated, 2), driver__number=1).update(stand=2)
    assert stands(allocated, 2) == {1: 2, 6: None, 3: None}


# --- Car configurations (§5) ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("values", "key", "message"),
    [
        ({**VALID, "brakes": None}, "4.brakes", "brakes: missing (§5-0-2)."),
        (
            {k: v for k, v in VALID.items() if k != "road_holding"},
            "4.road_holding",
            "road holding: missing (§5-0-2).",
        ),
        ({**VALID, "engine": "abc"}, "4.engine", "engine: a whole number is needed (§5-0-2)."),
        ({**VALID, "engine": 3.0}, "4.engine", "engine: a whole number is needed (§5-0-2)."),
        ({**VALID, "body": True}, "4.body", "body: a whole number is needed (§5-0-2)."),
        (
            {**VALID, "tyres": 0, "gearbox": 8},
            "4.tyres",
            "tyres: at least 1 point per part (§5-0-2).",
        ),
        (
            {**VALID, "gearbox": -1, "engine": 8},
            "4.gearbox",
            "gearbox: at least 1 point per part (§5-0-2).",
        ),
        (
            {**VALID, "stand_points": 3, "tyres": 3},
            "4.stand_points",
            "stand points: 0 to 2 points at the stand (§5-3).",
        ),
        (
            {**VALID, "tyres": 3},
            "4.total",
            "The parts and stand points add up to 21, not 22 (§5-0-2).",
        ),
        (
            {**VALID, "tyres": 5},
            "4.total",
            "The parts and stand points add up to 23, not 22 (§5-0-2).",
        ),
    ],
)
def test_configurations_set_names_the_part_and_the_rule(allocated, actor, values, key, message):
    with pytest.raises(InvalidInput) as refused:
        configurations_set(actor=actor, table=table(allocated, 1), configurations={4: values})

    assert refused.value.errors == {key: [message]}
    assert refused.value.message == f"Driver 4: {message}"
    assert not CarConfiguration.objects.exists()


def test_configurations_set_lists_every_problem_and_saves_nothing(allocated, actor):
    with pytest.raises(InvalidInput) as refused:
        configurations_set(
            actor=actor,
            table=table(allocated, 1),
            configurations={
                4: VALID,
                2: {**VALID, "tyres": 0, "stand_points": 5},
            },
        )
    assert refused.value.errors == {
        "2.tyres": ["tyres: at least 1 point per part (§5-0-2)."],
        "2.stand_points": ["stand points: 0 to 2 points at the stand (§5-3)."],
        "2.total": ["The parts and stand points add up to 21, not 22 (§5-0-2)."],
    }
    # All or nothing: driver 4's valid configuration is not saved either.
    assert not CarConfiguration.objects.exists()


def test_configurations_set_refuses_a_driver_not_on_this_grid(allocated, actor):
    with pytest.raises(InvalidInput, match="Not on the grid of Table 1: 1"):
        configurations_set(actor=actor, table=table(allocated, 1), configurations={1: VALID})
    assert not CarConfiguration.objects.exists()


def test_configurations_set_refused_to_another_table_link(allocated):
    with pytest.raises(NotAllowed):
        configurations_set(
            actor=Actor(table=table(allocated, 2)),
            table=table(allocated, 1),
            configurations={4: VALID},
        )
    assert not CarConfiguration.objects.exists()


def test_configurations_set_refused_when_the_event_does_not_record_them(allocated, actor):
    allocated.use_configurations = False
    allocated.save()
    with pytest.raises(Conflict):
        configurations_set(actor=actor, table=table(allocated, 1), configurations={4: VALID})
    assert not CarConfiguration.objects.exists()


def test_configurations_set_refused_once_the_result_is_confirmed(allocated, actor):
    RaceTable.objects.filter(event=allocated, number=1).update(result_status="confirmed")
    with pytest.raises(Conflict):
        configurations_set(actor=actor, table=table(allocated, 1), configurations={4: VALID})
    assert not CarConfiguration.objects.exists()


def test_configurations_set_saves_a_valid_configuration_with_its_history(allocated):
    t1 = table(allocated, 1)
    referee = Actor(table=t1)

    (saved,) = configurations_set(actor=referee, table=t1, configurations={4: VALID})
    assert saved.values() == VALID
    all_on_car = {**VALID, "tyres": 5, "brakes": 4, "stand_points": 0}
    configurations_set(actor=referee, table=t1, configurations={4: all_on_car})

    config = CarConfiguration.objects.get()
    assert config.slot == slot(allocated, 4)
    assert config.values() == all_on_car
    rows = list(config.history.order_by("history_date", "history_id"))
    assert [(r.history_type, r.tyres, r.stand_points) for r in rows] == [
        ("+", 4, 2),
        ("~", 5, 0),
    ]
    assert {r.history_actor for r in rows} == {"referee link of Table 1"}


@pytest.mark.parametrize(
    "values",
    [
        {**VALID, "tyres": 3},  # 21 in all
        {**VALID, "tyres": 5},  # 23 in all
        {**VALID, "tyres": 0, "gearbox": 8},  # a part without point, 22 in all
        {**VALID, "stand_points": 3, "tyres": 3},  # three stand points, 22 in all
    ],
)
def test_database_refuses_an_invalid_configuration(allocated, values):
    with pytest.raises(IntegrityError), transaction.atomic():
        CarConfiguration.objects.create(slot=slot(allocated, 4), **values)
    assert not CarConfiguration.objects.exists()
    CarConfiguration.objects.create(slot=slot(allocated, 4), **VALID)
    assert CarConfiguration.objects.count() == 1


def test_database_refuses_an_update_breaking_the_total(allocated):
    config = CarConfiguration.objects.create(slot=slot(allocated, 4), **VALID)
    with pytest.raises(IntegrityError), transaction.atomic():
        CarConfiguration.objects.filter(pk=config.pk).update(engine=4)
    config.refresh_from_db()
    assert config.engine == 3


# --- Referee links --------------------------------------------------------------------------


def test_referee_link_regenerated_old_link_says_replaced_new_one_works(allocated, actor):
    t1 = table(allocated, 1)
    old = t1.token

    referee_link_regenerate(actor=actor, table=t1)

    t1.refresh_from_db()
    assert t1.token != old and len(t1.token) >= 32
    assert ReplacedLink.objects.filter(
        digest=link_digest(old), kind="race", table_id=t1.pk
    ).exists()
    client = Client()
    client.cookies["django_language"] = "en"
    replaced = client.get(reverse("rtable", args=[old]))
    assert replaced.status_code == 410
    assert "This link was replaced" in replaced.content.decode()
    assert client.get(reverse("rtable-sheet", args=[old])).status_code == 410
    assert client.post(reverse("rtable-stand", args=[old, 4]), {"stand": 1}).status_code == 410
    assert client.get(reverse("rtable", args=[t1.token])).status_code == 200
    assert client.get(reverse("rtable", args=["never-issued"])).status_code == 404
    # The table's referee and everything else stay; only the link changes.
    assert grids(allocated) == [[4, 2, 5], [1, 6, 3]]


def test_referee_link_regenerated_twice_keeps_both_old_links_replaced(allocated, actor):
    t1 = table(allocated, 1)
    first = t1.token
    referee_link_regenerate(actor=actor, table=t1)
    second = t1.token
    referee_link_regenerate(actor=actor, table=t1)

    client = Client()
    assert client.get(reverse("rtable", args=[first])).status_code == 410
    assert client.get(reverse("rtable", args=[second])).status_code == 410
    assert client.get(reverse("rtable", args=[t1.token])).status_code == 200


@needs_postgresql
@pytest.mark.django_db(transaction=True)
def test_referee_link_regenerated_twice_at_once_both_succeed(allocated, actor):
    """Two renewals of one link at once (the red team's replay, issue 20: the second tried to
    replace the same old link and answered 500): the second waits for the first, then
    replaces the first's new link; both old links say they were replaced."""
    old = table(allocated, 1).token
    first, second = second_meets_first(
        lambda: referee_link_regenerate(actor=actor, table=table(allocated, 1)),
        lambda: referee_link_regenerate(actor=actor, table=table(allocated, 1)),
    )
    assert isinstance(first, RaceTable) and isinstance(second, RaceTable), (first, second)
    t1 = table(allocated, 1)
    assert t1.token == second.token != first.token
    replaced = ReplacedLink.objects.filter(table_id=t1.pk, kind="race")
    assert set(replaced.values_list("digest", flat=True)) == {
        link_digest(old),
        link_digest(first.token),
    }


@needs_postgresql
@pytest.mark.django_db(transaction=True)
def test_a_photo_of_a_table_does_not_wait_for_its_stands_being_written(allocated, actor):
    """A referee's photo commits while race control writes the table's stands: the table is
    locked for its writers only (FOR NO KEY UPDATE), not for the photo's foreign key. Locked
    FOR UPDATE, the photo waited at commit, and deadlocked when the writer then locked the
    event (the red team's replay, issue 20: a 503)."""
    t1 = table(allocated, 1)
    first = grids(allocated)[0][0]
    stands, photo, waited = meet(
        lambda: stands_set(actor=actor, table=table(allocated, 1), stands={first: 1}),
        lambda: photo_add(actor=actor, table=table(allocated, 1), data=oriented_jpeg()),
    )
    assert not isinstance(stands, Exception) and not isinstance(photo, Exception)
    assert not waited
    assert SheetPhoto.objects.filter(table=t1).count() == 1


@needs_postgresql
@pytest.mark.django_db(transaction=True)
def test_a_tables_stands_and_configurations_do_not_wait_for_another_tables(allocated, actor):
    """Twelve phones sending their outboxes in the same second (issue 31): table 2's stands
    and configurations commit while table 1's are being written. The event's row was locked
    with each table's, and every table of the event waited for the others in turn."""
    (first, *_rest), (second, *_others) = grids(allocated)

    def other_table():
        t2 = table(allocated, 2)
        stands_set(actor=actor, table=t2, stands={second: 1})
        return configurations_set(actor=actor, table=t2, configurations={second: VALID})

    stands, configurations, waited = meet(
        lambda: stands_set(actor=actor, table=table(allocated, 1), stands={first: 1}),
        other_table,
    )
    assert not isinstance(stands, Exception), stands
    assert not isinstance(configurations, Exception), configurations
    assert not waited
    assert GridSlot.objects.get(event=allocated, driver__number=second).stand == 1


def _ready(actor, event, number: int) -> RaceTable:
    """Stands and configurations of a table, its race not started."""
    t = table(event, number)
    grid = t.slots.order_by("position").values_list("driver__number", flat=True)
    stands_set(actor=actor, table=t, stands={n: stand for stand, n in enumerate(grid, 1)})
    configurations_set(actor=actor, table=t, configurations=dict.fromkeys(grid, VALID))
    return t


@needs_postgresql
@pytest.mark.django_db(transaction=True)
def test_two_tables_start_at_once_and_a_new_race_weather_waits_for_them(allocated, actor):
    """Two starts at once do not wait for each other (each holds its event FOR SHARE); the
    race weather drawn again meanwhile waits for a start, then sees the race under way
    (§2-0-1): it is refused, and the started table keeps the weather it started with."""
    race_weather_draw(actor=actor, event=allocated, roll=SUN)
    one, two = _ready(actor, allocated, 1), _ready(actor, allocated, 2)

    started, other, waited = meet(
        lambda: table_start(actor=actor, table=one), lambda: table_start(actor=actor, table=two)
    )
    assert isinstance(started, RaceTable) and isinstance(other, RaceTable), (started, other)
    assert not waited

    RaceTable.objects.filter(event=allocated).update(started_at=None, started_by="")
    started, redraw, waited = meet(
        lambda: table_start(actor=actor, table=one),
        lambda: race_weather_draw(actor=actor, event=allocated, roll=RAIN, reason="wrong die"),
    )
    assert isinstance(started, RaceTable), started
    assert waited
    assert isinstance(redraw, Conflict) and "commencé" in str(redraw), redraw
    assert (RaceWeather.objects.get(event=allocated).weather, table(allocated, 1).weather) == (
        "sun",
        "sun",
    )


def test_referee_link_of_a_qualifying_table(allocated, actor):
    qualifying = qualifying_table_set(actor=actor, event=allocated, number=1, drivers=[1, 2])
    old = qualifying.token

    referee_link_regenerate(actor=actor, table=qualifying)

    qualifying = QualifyingTable.objects.get(pk=qualifying.pk)
    assert qualifying.token != old
    assert ReplacedLink.objects.filter(digest=link_digest(old), kind="qualifying").exists()
    client = Client()
    assert client.get(reverse("qtable", args=[old])).status_code == 410
    assert client.get(reverse("qtable", args=[qualifying.token])).status_code == 200


def test_referee_link_is_regenerated_by_organisers_only(allocated, outsider):
    t1 = table(allocated, 1)
    old = t1.token
    with pytest.raises(NotAllowed):
        referee_link_regenerate(actor=Actor(user=outsider), table=t1)
    with pytest.raises(NotAllowed):
        referee_link_regenerate(actor=Actor(table=t1), table=t1)
    assert table(allocated, 1).token == old
    assert not ReplacedLink.objects.exists()


def test_referee_link_regenerated_leaves_history_with_the_actor(allocated, actor, organiser):
    t1 = table(allocated, 1)
    referee_link_regenerate(actor=actor, table=t1)

    latest = table(allocated, 1).history.first()
    assert latest.token_digest == link_digest(t1.token)  # history keeps the digest only
    assert (latest.history_user, latest.history_actor) == (organiser, "pc")


# --- The demo's race day --------------------------------------------------------------------


def test_demo_race_day_is_allocated_with_a_swap_and_a_wet_variable_start(db):
    """load_demo: 24 drivers at tables of 8, team-mates 1 and 2 parted, variable sky after a
    rainy last session (session 2) so every table starts wet."""
    from django.core.management import call_command

    from tournament.models import Event

    call_command("load_demo", "--quiet")
    call_command("load_demo", "--quiet")  # idempotent

    event = Event.objects.get(slug="demo-grand-prix-de-printemps")
    assert [len(g) for g in grids(event)] == [8, 8, 8]
    record = AllocationRecord.objects.get(event=event)
    assert record.swaps and record.conflicts == []
    assert GridSlot.objects.filter(event=event, swapped=True).count() == 2 * len(record.swaps)
    for t in RaceTable.objects.filter(event=event):
        ranks = list(t.slots.order_by("position").values_list("rank", flat=True))
        assert ranks == sorted(ranks)
        teams = [s.driver.team_id for s in t.slots.select_related("driver") if s.driver.team_id]
        assert len(teams) == len(set(teams)), f"team-mates together at {t}"
    assert RaceWeather.objects.get(event=event).weather == "variable"
    assert starts(event) == {("variable", "wet", False, "")}
    assert event.published_allocation
