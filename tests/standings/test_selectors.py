"""The championship standings read from the stored result lines
(standings/selectors.py): the championship's points mode decides the countback
and a place shared at a table (Racetrack, Cannes–Monaco) counts the same place (DOMAIN.md,
"What the day enforces": countback on equal championship points)."""

from __future__ import annotations

import datetime

import pytest

from races.models import RaceTable, ResultLine
from standings.selectors import standings_for
from tournament.models import Driver, Entry, Event

pytestmark = pytest.mark.django_db


def event_with(championship, circuit, slug: str, lines: list[tuple]) -> Event:
    """An event whose confirmed lines are (driver, table, position, place, rank, points)."""
    event = Event.objects.create(
        championship=championship,
        slug=slug,
        name=slug,
        date=datetime.date(2026, 6, 1),
        circuit=circuit,
        game="racetrack" if "rt" in slug else "formula_de",
        published_results=True,
    )
    tables = {}
    for driver, table, position, place, rank, points in lines:
        if table not in tables:
            tables[table] = RaceTable.objects.create(
                event=event, number=table, result_status="confirmed"
            )
        Entry.objects.create(event=event, driver=driver)
        ResultLine.objects.create(
            event=event,
            table=tables[table],
            driver=driver,
            position=position,
            place=place,
            rank=rank,
            status="finished",
            points=points,
        )
    return event


@pytest.fixture
def drivers(championship):
    return [
        Driver.objects.create(
            championship=championship, number=n, first_name=f"P{n}", last_name="Test"
        )  # fmt: skip
        for n in (1, 2)
    ]


@pytest.mark.parametrize(
    "mode, ahead", [("per_table", 1), ("overall", 2)], ids=["per_table", "overall"]
)
def test_the_championship_mode_decides_the_countback(championship, circuit, drivers, mode, ahead):
    """Equal points: driver 1 won table 2 (day rank 9), driver 2 was 8th at table 1 (day
    rank 8). Per table, a 1st place beats an 8th; overall, rank 8 beats rank 9."""
    one, two = drivers
    event_with(championship, circuit, "gp", [(two, 1, 8, 8, 8, 3), (one, 2, 1, 1, 9, 3)])
    championship.points_mode = mode
    championship.save()

    lines = standings_for(championship=championship)

    assert [(line.driver.number, line.rank) for line in lines.lines] == [
        (ahead, 1),
        (3 - ahead, 2),
    ]


def test_a_racetrack_tie_is_shared_in_the_standings(championship, circuit, drivers):
    """Racetrack "Fin du jeu": equal turns and margin is a tie ("égalité"); both drivers
    hold 1st place (positions 1 and 2 at the table), so the countback cannot part them:
    a shared rank, 1 and 1."""
    one, two = drivers
    event_with(championship, circuit, "rt", [(one, 1, 1, 1, 1, 10), (two, 1, 2, 1, 1, 10)])

    lines = standings_for(championship=championship).lines

    assert [(line.driver.number, line.rank, line.countback) for line in lines] == [
        (1, 1, (1,)),
        (2, 1, (1,)),
    ]
