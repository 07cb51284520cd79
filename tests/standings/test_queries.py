"""The standings read a constant number of queries whatever the number of drivers.

Built with bulk_create: two published events with a hundred-odd drivers take a blink.
Each check runs at 10 and at 1,000 drivers and asserts the same count at both sizes.
"""

from __future__ import annotations

import datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from races.models import RaceTable, ResultLine
from standings.selectors import standings_for, team_standings_for
from tournament.models import Championship, Circuit, Driver, Entry, Event, Team

TABLE = 10
SCALE = [25, 18, 15, 12, 10, 8, 6, 4, 2, 1]


def build(size: int) -> Championship:
    """A championship of ``size`` drivers in 4 teams, two published events of full tables."""
    championship = Championship.objects.create(
        slug=f"c{size}", name=f"Coupe {size}", season="2026", points_scale=SCALE, best_results=1
    )
    circuit, _ = Circuit.objects.get_or_create(
        slug="monza",
        defaults=dict(
            name="Monza",
            rain_from=1,
            rain_to=4,
            variable_from=5,
            variable_to=8,
            sun_from=9,
            sun_to=20,
        ),
    )
    teams = Team.objects.bulk_create(
        Team(championship=championship, name=f"Team {n}", colour="#336699") for n in range(4)
    )
    drivers = Driver.objects.bulk_create(
        Driver(
            championship=championship,
            number=n,
            first_name=f"Pilote{n}",
            last_name="Test",
            team=teams[n % 4],
        )
        for n in range(1, size + 1)
    )
    for day in range(2):
        event = Event.objects.create(
            championship=championship,
            slug=f"c{size}-e{day}",
            name=f"Event {day}",
            date=datetime.date(2026, 5 + day, 1),
            circuit=circuit,
            published_results=True,
            published_allocation=True,
        )
        Entry.objects.bulk_create(Entry(event=event, driver=d) for d in drivers)
        order = drivers if day == 0 else drivers[::-1]
        tables = RaceTable.objects.bulk_create(
            RaceTable(event=event, number=n + 1, result_status="confirmed")
            for n in range(-(-size // TABLE))
        )
        ResultLine.objects.bulk_create(
            ResultLine(
                event=event,
                table=tables[rank // TABLE],
                driver=driver,
                position=rank % TABLE + 1,
                rank=rank + 1,
                status="finished" if rank % 7 else "retired",
                cause="" if rank % 7 else "engine",
                lap=None if rank % 7 else 2,
                points=SCALE[rank % TABLE] if rank % 7 else 0,
            )
            for rank, driver in enumerate(order)
        )
    return championship


def page_queries(client, name: str, size: int, django_assert_max_num_queries, **query) -> int:
    championship = build(size)
    args = [championship.slug] if name != "event-results" else [f"{championship.slug}-e1"]
    if name == "driver":
        args.append(size // 2)
    # The driver's page reads the driver's sanctions too (§1-2-3), and every page the change
    # counters that key the public cache (one query).
    with django_assert_max_num_queries(9 if name == "driver" else 8) as captured:
        response = client.get(reverse(name, args=args), query)
    assert response.status_code == 200
    if name in ("standings", "event-results") and not query:
        # Every row on one page: no pagination slipped in (django-tables2 paginates by 25
        # when a table is built with ``request=``).
        assert response.content.decode().count("<tr data-number=") == size
    return len(captured)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "name, query",
    [
        ("standings", {}),
        ("standings", {"_export": "csv"}),
        ("standings", {"sort": "-total"}),
        ("team-standings", {}),
        ("standings-projector", {}),
        ("event-results", {}),
        ("driver", {}),
    ],
)
def test_page_queries_do_not_grow_with_drivers(client, django_assert_max_num_queries, name, query):
    small = page_queries(client, name, 10, django_assert_max_num_queries, **query)
    large = page_queries(client, name, 1000, django_assert_max_num_queries, **query)

    assert small == large


@pytest.mark.django_db
def test_standings_page_queries_as_organiser(
    client, django_user_model, django_assert_max_num_queries
):
    user = django_user_model.objects.create_user("pc")
    counts = []
    for size in (10, 1000):
        championship = build(size)
        championship.organisers.add(user)
        client.force_login(user)
        with django_assert_max_num_queries(7) as captured:
            response = client.get(reverse("standings", args=[championship.slug]))
        assert response.status_code == 200
        assert response.content.decode().count("<tr data-number=") == size
        counts.append(len(captured))

    assert counts[0] == counts[1]


@pytest.mark.django_db
def test_standings_for_takes_three_queries(django_assert_num_queries):
    counts = []
    for size in (10, 1000):
        championship = build(size)
        with CaptureQueriesContext(connection) as captured:
            standings = standings_for(championship=championship, published_only=True)
            team_standings_for(championship=championship, standings=standings)
        assert len(standings.lines) == size
        counts.append(len(captured))

    assert counts == [3, 3]


@pytest.mark.django_db
def test_a_driver_whose_entry_was_removed_after_racing_keeps_the_points():
    championship = build(10)
    Entry.objects.filter(driver__championship=championship, driver__number=3).delete()

    standings = standings_for(championship=championship, published_only=True)

    three = next(line for line in standings.lines if line.driver.number == 3)
    assert len(standings.lines) == 10
    assert three.points > 0
