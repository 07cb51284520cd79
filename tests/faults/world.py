"""The race day the fault tests write into.

``race_day`` builds it with the ORM in the calling process: an event whose drivers sit at
tables of two, race control's API token, every table's referee link, and half of the
tables' results already submitted (race control confirms those while the other half are
saved). The tests on PostgreSQL build it in the test database, which the servers they start
read; ``sqlite_day.py`` builds it in the SQLite file the SQLite tests copy.
"""

from __future__ import annotations

import datetime
from typing import Any

from django.contrib.auth import get_user_model

from races.grid.services import allocation_run
from races.models import RaceTable
from races.results.services import result_save
from races.weather.services import race_weather_draw
from tournament.access import Actor
from tournament.models import ApiToken, Championship, Circuit, Driver, Entry, Event

#: Tables of two; results of tables 1..SUBMITTED submitted, the others empty.
TABLES = 100
SUBMITTED = TABLES // 2
SLUG = "gp-faults"


def race_day(*, tables: int = TABLES) -> dict[str, Any]:
    organiser = get_user_model().objects.create_user("chef", password="chef-password-2026")
    championship = Championship.objects.create(
        slug="cf-faults", name="Coupe des pannes", season="2026", points_scale=[10, 6]
    )
    championship.organisers.add(organiser)
    circuit = Circuit.objects.create(
        slug="spa", name="Spa", laps=2, rain_from=1, rain_to=4, variable_from=5,
        variable_to=8, sun_from=9, sun_to=20,
    )  # fmt: skip
    event = Event.objects.create(
        championship=championship, slug=SLUG, name="GP des pannes",
        date=datetime.date(2026, 6, 14), circuit=circuit, table_size=2, separate_teams=False,
    )  # fmt: skip
    for number in range(1, 2 * tables + 1):
        driver = Driver.objects.create(
            championship=championship, number=number, first_name="Pilote", last_name=str(number)
        )
        Entry.objects.create(event=event, driver=driver)
    actor = Actor(user=organiser)
    allocation_run(actor=actor, event=event, table_size=2)
    race_weather_draw(actor=actor, event=event, roll=15)  # §2-0-1: before any result
    world: dict[str, Any] = {
        "event": SLUG,
        "championship": championship.slug,
        "organiser": ApiToken.issue(organiser),
        "tables": {},
    }
    for table in RaceTable.objects.filter(event=event).order_by("number"):
        grid = list(table.slots.order_by("position").values_list("driver__number", flat=True))
        if table.number <= tables // 2:
            result_save(
                actor=actor, table=table, version=0, finish=grid, retired=[], dns=[], submit=True
            )
        world["tables"][str(table.number)] = {"token": table.token, "grid": grid}
    return world
