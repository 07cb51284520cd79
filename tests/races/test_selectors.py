"""Race-day reads: tables with their grids, the allocation's warnings, "where do I sit?"."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.urls import reverse

from qualifying.models import Run
from qualifying.services import session_create
from races.grid.services import allocation_run
from races.models import AllocationRecord, CarConfiguration, GridSlot, RaceTable
from races.selectors import (
    Seat,
    _seatings,
    allocation_warnings,
    seating_read,
    tables_with_grids,
    where_do_i_sit,
)
from tournament.access import Actor
from tournament.models import Driver, Event, Team

NAMES = {
    1: ("Élodie", "Lefèvre"),
    2: ("Théo", "Marchand"),
    3: ("Léa", "Morel"),
    4: ("Hugo", "Moreau"),
    5: ("Zoé", "Girard"),
    6: ("Jürgen", "Straße"),
    7: ("ÉMILE", "DURAND"),
    10: ("Lucas", "Garcia"),
    11: ("Camille", "Roux"),
    12: ("Jules", "Fournier"),
}


@pytest.fixture
def event(make_event):
    """Ten drivers without digits in their names, at two tables built by hand."""
    event = make_event(n_drivers=12)
    Driver.objects.filter(championship=event.championship, number__in=[8, 9]).delete()
    for number, (first, last) in NAMES.items():
        Driver.objects.filter(championship=event.championship, number=number).update(
            first_name=first, last_name=last
        )
    return event


def seat(event, table: RaceTable, number: int, position: int, stand=None) -> GridSlot:
    return GridSlot.objects.create(
        event=event,
        table=table,
        driver=Driver.objects.get(championship=event.championship, number=number),
        position=position,
        rank=position + 10 * (table.number - 1),
        stand=stand,
    )


@pytest.fixture
def seated(event):
    """Table 1: 3, 1, 12, 6, 7 (in grid order); table 2: 10, 4, 2, 11, 5."""
    # Created out of order on purpose: reads must sort by number and position.
    second = RaceTable.objects.create(event=event, number=2)
    first = RaceTable.objects.create(event=event, number=1)
    for position, number in reversed(list(enumerate([3, 1, 12, 6, 7], start=1))):
        seat(event, first, number, position, stand=position + 1 if position < 3 else None)
    for position, number in enumerate([10, 4, 2, 11, 5], start=1):
        seat(event, second, number, position)
    return event


# --- tables_with_grids -----------------------------------------------------------------------


def test_tables_with_grids_in_table_and_grid_order(seated):
    tables = tables_with_grids(event=seated)

    assert [t.number for t in tables] == [1, 2]
    assert [[s.driver.number for s in t.grid] for t in tables] == [
        [3, 1, 12, 6, 7],
        [10, 4, 2, 11, 5],
    ]
    assert [s.stand for s in tables[0].grid] == [2, 3, None, None, None]


def test_tables_with_grids_reads_everything_in_two_queries(seated, django_assert_num_queries):
    team = Team.objects.create(championship=seated.championship, name="Scuderia Dé")
    Driver.objects.filter(number=3).update(team=team)
    slot = GridSlot.objects.get(driver__number=3)
    CarConfiguration.objects.create(
        slot=slot, tyres=4, brakes=3, gearbox=4, body=3, engine=3, road_holding=3, stand_points=2
    )

    with django_assert_num_queries(2):
        tables = tables_with_grids(event=seated)
        seen = [
            (
                s.driver.name,
                s.driver.team.name if s.driver.team else None,
                getattr(s, "configuration", None) is not None,
            )
            for t in tables
            for s in t.grid
        ]

    assert seen[0] == ("Léa Morel", "Scuderia Dé", True)
    assert sum(1 for _, _, configured in seen if configured) == 1


def test_tables_with_grids_only_for_the_event(seated, make_event):
    other = make_event(n_drivers=0, slug="autre")
    RaceTable.objects.create(event=other, number=1)

    assert tables_with_grids(event=other)[0].grid == []
    assert len(tables_with_grids(event=seated)) == 2


# --- allocation_warnings --------------------------------------------------------------------


def test_allocation_warnings_before_any_allocation(event):
    assert allocation_warnings(event=event) == []


def test_allocation_warnings_name_the_team_mates_left_together(make_event, organiser):
    actor = Actor(user=organiser)
    event = make_event(n_drivers=4)
    team = Team.objects.create(championship=event.championship, name="Les Pneus Tendres")
    Driver.objects.filter(championship=event.championship).update(team=None)
    Driver.objects.filter(championship=event.championship, number__in=[1, 2, 3]).update(team=team)
    session = session_create(actor=actor, event=event, number=1, weather_roll=15)
    for number in (1, 2, 3, 4):
        Run.objects.create(
            session=session,
            driver=Driver.objects.get(championship=event.championship, number=number),
            tyres="hard",
            throws=10 + number,
            stopwatch_cs=5000,
        )
    allocation_run(actor=actor, event=event, table_size=2)
    record = AllocationRecord.objects.get(event=event)

    warnings = allocation_warnings(event=event)

    assert len(warnings) == 1 == len(record.conflicts)
    assert warnings[0]["table"] == record.conflicts[0]["table"]
    drivers = warnings[0]["drivers"]
    assert all(isinstance(d, Driver) for d in drivers)
    assert [d.number for d in drivers] == record.conflicts[0]["drivers"]
    assert {d.team_id for d in drivers} == {team.pk}
    # One table's answer (a stand written there) reads that table's warning only.
    tables = {t.number: t for t in RaceTable.objects.filter(event=event)}
    together = tables[warnings[0]["table"]]
    assert allocation_warnings(event=event, only=together) == warnings
    apart = next(t for number, t in tables.items() if number != together.number)
    assert allocation_warnings(event=event, only=apart) == []


def test_allocation_warnings_empty_when_every_team_mate_is_apart(event):
    AllocationRecord.objects.create(event=event, table_size=5, swaps=[], conflicts=[])
    assert allocation_warnings(event=event) == []


# --- where_do_i_sit -------------------------------------------------------------------------


def found(event, query: str) -> list[tuple[int, int, int]]:
    """(table, position, driver number) of each seat found."""
    return [
        (s.table.number, s.position, s.driver.number)
        for s in where_do_i_sit(event=event, query=query)
    ]


@pytest.mark.parametrize(
    ("query", "seats"),
    [
        ("1", [(1, 2, 1)]),  # the number itself, not 10, 11 or 12
        ("12", [(1, 3, 12)]),
        (" 4 ", [(2, 2, 4)]),
        ("lea", [(1, 1, 3)]),
        ("LÉA", [(1, 1, 3)]),
        ("Léa", [(1, 1, 3)]),
        ("léa mor", [(1, 1, 3)]),
        ("elodie", [(1, 2, 1)]),
        ("ÉLODIE LEFÈVRE", [(1, 2, 1)]),
        ("lefevre", [(1, 2, 1)]),
        ("emile", [(1, 5, 7)]),  # written in capitals
        ("durand", [(1, 5, 7)]),
        ("strasse", [(1, 4, 6)]),  # ß folds to ss
        ("jurgen", [(1, 4, 6)]),
        ("mor", [(1, 1, 3), (2, 2, 4)]),  # Morel, Moreau: table 1 first
        ("ou", [(1, 3, 12), (2, 4, 11)]),  # Fournier, Roux
    ],
)
def test_where_do_i_sit_by_number_or_part_of_the_name(seated, query, seats):
    assert found(seated, query) == seats


@pytest.mark.parametrize("query", ["", "   ", "9", "99", "Schumacher"])
def test_where_do_i_sit_finds_nobody(seated, query):
    assert where_do_i_sit(event=seated, query=query) == []


def test_where_do_i_sit_gives_the_table_position_and_stand(seated):
    (result,) = where_do_i_sit(event=seated, query="élodie")

    assert isinstance(result, Seat)
    assert result.driver.name == "Élodie Lefèvre"
    assert result.table == RaceTable.objects.get(event=seated, number=1)
    assert (result.position, result.stand) == (2, 3)


def test_where_do_i_sit_only_looks_at_the_event(seated, make_event):
    other = make_event(n_drivers=0, slug="autre")
    table = RaceTable.objects.create(event=other, number=1)
    seat(other, table, 3, 1)

    assert found(seated, "lea") == [(1, 1, 3)]
    assert found(other, "lea") == [(1, 1, 3)]
    assert where_do_i_sit(event=other, query="hugo") == []


def test_where_do_i_sit_lists_at_most_50_seats(make_event):
    event = make_event(n_drivers=60)
    Driver.objects.filter(championship=event.championship).update(
        first_name="Camille", last_name="Martin"
    )
    table = RaceTable.objects.create(event=event, number=1)
    for number in range(1, 61):
        seat(event, table, number, number)

    results = where_do_i_sit(event=event, query="martin")

    assert len(results) == 50
    assert [s.position for s in results] == list(range(1, 51))


# --- The event's seating, read once per version of its rows ------------------------------------


@pytest.fixture
def fresh_seatings():
    """No seating kept by this process from an earlier test."""
    _seatings.clear()
    yield
    _seatings.clear()


@pytest.mark.django_db(transaction=True)  # the change counters move at commit
def test_the_seating_is_read_once_per_version_of_its_rows(
    seated, fresh_seatings, django_assert_num_queries
):
    assert found(seated, "lea") == [(1, 1, 3)]
    with django_assert_num_queries(1):  # the change counters only
        assert found(seated, "mor") == [(1, 1, 3), (2, 2, 4)]

    # Renamed: found by the new name at once, no longer by the old one.
    Driver.objects.filter(championship=seated.championship, number=3).update(
        first_name="Anaïs", last_name="Vidal"
    )
    assert found(seated, "anais vidal") == [(1, 1, 3)]
    assert found(seated, "lea") == []
    # A seat moved, a driver registered, a team renamed: each seen at once.
    GridSlot.objects.filter(driver__number=3).update(position=9)
    assert found(seated, "vidal") == [(1, 9, 3)]
    late = Driver.objects.create(championship=seated.championship, number=30, first_name="Noé",
                                 last_name="Blanc")  # fmt: skip
    seated.entries.create(driver=late)
    (registered,) = where_do_i_sit(event=seated, query="blanc")
    assert (registered.kind, registered.table, registered.driver.number) == ("", None, 30)
    team = Team.objects.create(championship=seated.championship, name="Scuderia Dé")
    Driver.objects.filter(pk=late.pk).update(team=team)
    Team.objects.filter(pk=team.pk).update(name="Scuderia Bis")
    assert where_do_i_sit(event=seated, query="30")[0].driver.team.name == "Scuderia Bis"


@pytest.mark.django_db(transaction=True)
def test_another_process_reads_the_seating_from_the_shared_cache(
    seated, fresh_seatings, django_assert_num_queries
):
    where_do_i_sit(event=seated, query="lea")
    _seatings.clear()  # another process: nothing of its own yet
    with django_assert_num_queries(1):
        (result,) = where_do_i_sit(event=seated, query="élodie")
    assert result.table == RaceTable.objects.get(event=seated, number=1)
    assert (result.position, result.stand, result.driver.name) == (2, 3, "Élodie Lefèvre")
    # The table keeps its own link: a seat's table never draws a secret of its own.
    assert result.table.token == RaceTable.objects.get(event=seated, number=1).token


def test_a_seat_found_is_the_same_read_afresh_or_from_the_seating(seated):
    """Inside a transaction the seating is read afresh (its writes have not moved the
    counters yet); what a search finds in it is what the rows say."""
    seating = seating_read(event=seated)
    assert [s.driver.number for s in seating.search("ou")] == [12, 11]
    # Without the race tables: the same drivers, registered and seated nowhere else.
    assert [(s.kind, s.table) for s in seating.search("ou", race=False)] == [("", None)] * 2
    assert where_do_i_sit(event=seated, query="ou") == seating.search("ou")


@pytest.mark.django_db(transaction=True)
def test_the_plain_page_reads_the_seating_for_the_searches_that_follow(
    seated, fresh_seatings, client, django_assert_num_queries
):
    """The plain "Where do I sit?" is what a publication and a starting server build ahead of
    the phones: the phones' searches then find the seating read."""
    Event.objects.filter(pk=seated.pk).update(published_allocation=True)
    seated.refresh_from_db()
    assert client.get(reverse("where", args=[seated.slug])).status_code == 200
    with django_assert_num_queries(1):  # the change counters only
        assert found(seated, "lea") == [(1, 1, 3)]


@pytest.mark.django_db(transaction=True)
def test_threads_searching_at_once_read_the_seating_once(seated, fresh_seatings, monkeypatch):
    """The first phones of a spike, on the threads of one process: one reads, the others
    wait for it (the shared cache emptied: each would read the database)."""
    from django.core.cache import cache
    from django.db import connection

    from races import selectors

    reads = []
    read = selectors.seating_read

    def counted(**kwargs):
        reads.append(1)
        return read(**kwargs)

    monkeypatch.setattr(selectors, "seating_read", counted)
    cache.clear()
    start = threading.Barrier(4)

    def search() -> list:
        try:
            start.wait()
            return [s.driver.number for s in where_do_i_sit(event=seated, query="mor")]
        finally:
            connection.close()

    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(lambda _i: search(), range(4)))
    assert answers == [[3, 4]] * 4
    assert len(reads) == 1
