"""Builders of the integrity tests: a race day with grids, straight into the database.

``race_day`` makes an event with ``tables`` race tables of ``per_table`` drivers each (grid
positions 1..n, stands 1..n) and, for qualifying, one session and one qualifying table
holding every driver. Nothing goes through the services: these tests are about what the
database and the concurrent request paths keep, not about the setup.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass

import pytest
from django.conf import settings

from qualifying.models import QualifyingSeat, QualifyingSession, QualifyingTable
from races.models import GridSlot, RaceTable, RaceWeather
from tournament.models import Championship, Circuit, Driver, Entry, Event, Team

ON_POSTGRESQL = settings.DATABASES["default"]["ENGINE"].endswith("postgresql")
#: CI sets DATABASE_URL, so there this never skips (and a skip would fail the run anyway).
needs_postgresql = pytest.mark.skipif(
    not ON_POSTGRESQL, reason="Concurrency needs PostgreSQL: set DATABASE_URL."
)


@dataclass
class RaceDay:
    championship: Championship
    event: Event
    tables: list[RaceTable]
    drivers: list[Driver]
    session: QualifyingSession
    qualifying_table: QualifyingTable


def build_race_day(*, tables: int = 2, per_table: int = 5, slug: str = "integrity") -> RaceDay:
    championship = Championship.objects.create(
        slug=slug, name="Coupe Intégrité", season="2026", points_scale=[10, 6, 4]
    )
    circuit, _ = Circuit.objects.get_or_create(
        slug="monaco",
        defaults={
            "name": "Monaco",
            "rain_from": 1,
            "rain_to": 4,
            "variable_from": 5,
            "variable_to": 8,
            "sun_from": 9,
            "sun_to": 20,
        },
    )
    event = Event.objects.create(
        championship=championship,
        slug=f"{slug}-gp",
        name="Grand Prix d'Été",
        date=datetime.date(2026, 7, 14),
        circuit=circuit,
        table_size=per_table,
    )
    team = Team.objects.create(championship=championship, name="Écurie Étoile")
    drivers = Driver.objects.bulk_create(
        Driver(
            championship=championship,
            number=n,
            first_name=f"Pilote{n}",
            last_name="Lefèvre",
            team=team if n % 7 == 0 else None,
        )
        for n in range(1, tables * per_table + 1)
    )
    Entry.objects.bulk_create(Entry(event=event, driver=d) for d in drivers)
    race_tables = RaceTable.objects.bulk_create(
        RaceTable(event=event, number=n) for n in range(1, tables + 1)
    )
    GridSlot.objects.bulk_create(
        GridSlot(
            event=event,
            table=race_tables[i // per_table],
            driver=driver,
            position=i % per_table + 1,
            rank=i + 1,
            stand=i % per_table + 1,
        )
        for i, driver in enumerate(drivers)
    )
    session = QualifyingSession.objects.create(
        event=event, number=1, roll=12, source="physical", weather="sun", track="dry"
    )
    # Drawn by the overall pole once the tables are built (§2-0-1): results may be saved.
    RaceWeather.objects.create(event=event, roll=15, source="physical", weather="sun")
    qualifying_table = QualifyingTable.objects.create(event=event, number=1)
    QualifyingSeat.objects.bulk_create(
        QualifyingSeat(event=event, table=qualifying_table, driver=d, order=i)
        for i, d in enumerate(drivers)
    )
    return RaceDay(championship, event, race_tables, drivers, session, qualifying_table)


@pytest.fixture
def race_day(db: None) -> RaceDay:
    return build_race_day()
