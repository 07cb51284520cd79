"""Every invariant the database can hold, held by the database (issue 5, STYLE.md §5).

Each case writes straight through the ORM, past the services and forms, and expects the
database itself to refuse: the services check these rules first, but two requests racing
each other, a script or an admin edit only meet the constraint. On PostgreSQL in CI.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.db import IntegrityError, transaction

from qualifying.models import DrawRoll, QualifyingSeat, QualifyingSession, QualifyingTable, Run
from races.models import (
    CarConfiguration,
    GridSlot,
    RaceResult,
    RaceTable,
    ResultLine,
    SheetBatch,
    Stage,
    StageTime,
)
from tests.integrity.conftest import RaceDay
from tournament.models import Driver, Entry, Event, Team

pytestmark = pytest.mark.django_db


def _run(day: RaceDay, driver: Driver, **fields: object) -> Run:
    values: dict[str, object] = {"tyres": "hard", "throws": 20, "stopwatch_cs": 10500}
    values.update(fields)
    return Run.objects.create(session=day.session, driver=driver, **values)


def _slot(day: RaceDay, index: int) -> GridSlot:
    return GridSlot.objects.get(driver=day.drivers[index])


def _line(day: RaceDay, index: int, **fields: object) -> ResultLine:
    values: dict[str, object] = {
        "event": day.event,
        "table": day.tables[0],
        "driver": day.drivers[index],
        "position": index + 1,
        "rank": index + 1,
        "status": "finished",
        "points": 0,
    }
    values.update(fields)
    return ResultLine.objects.create(**values)


def _config(slot: GridSlot, **fields: int) -> CarConfiguration:
    values = {
        "tyres": 4,
        "brakes": 3,
        "gearbox": 4,
        "body": 3,
        "engine": 3,
        "road_holding": 3,
        "stand_points": 2,
    }
    values.update(fields)
    return CarConfiguration.objects.create(slot=slot, **values)


def _stage_time(day: RaceDay, **fields: object) -> StageTime:
    stage, _ = Stage.objects.get_or_create(event=day.event, number=1, defaults={"route": "C8"})
    values: dict[str, object] = {"stage": stage, "driver": day.drivers[0], "chrono": 95}
    values.update(fields)
    return StageTime.objects.create(**values)


def second_grid_position(day: RaceDay) -> None:
    # Driver 2 takes driver 1's grid position at table 1.
    GridSlot.objects.filter(pk=_slot(day, 1).pk).update(position=1)


def second_stand(day: RaceDay) -> None:
    GridSlot.objects.filter(pk=_slot(day, 1).pk).update(stand=1)


def driver_on_two_grids(day: RaceDay) -> None:
    GridSlot.objects.create(
        event=day.event, table=day.tables[1], driver=day.drivers[0], position=9, rank=99
    )


def second_counted_run(day: RaceDay) -> None:
    _run(day, day.drivers[0])
    _run(day, day.drivers[0], throws=18)


def second_result_for_a_table(day: RaceDay) -> None:
    RaceResult.objects.create(table=day.tables[0], finish=[1, 2])
    RaceResult.objects.create(table=day.tables[0], finish=[2, 1])


def two_lines_at_one_position(day: RaceDay) -> None:
    _line(day, 0, position=1)
    _line(day, 1, position=1)


def two_lines_for_one_driver(day: RaceDay) -> None:
    _line(day, 0)
    _line(day, 0, position=2, table=day.tables[1])


def points_to_a_retired_driver(day: RaceDay) -> None:
    _line(day, 0, status="retired", points=10)


def configuration_over_22(day: RaceDay) -> None:
    _config(_slot(day, 0), tyres=5)


def configuration_part_at_zero(day: RaceDay) -> None:
    _config(_slot(day, 0), tyres=0, brakes=7)


def driver_seated_twice(day: RaceDay) -> None:
    other = QualifyingTable.objects.create(event=day.event, number=2)
    QualifyingSeat.objects.create(event=day.event, table=other, driver=day.drivers[0])


def driver_entered_twice(day: RaceDay) -> None:
    Entry.objects.create(event=day.event, driver=day.drivers[0])


def driver_number_taken(day: RaceDay) -> None:
    Driver.objects.create(championship=day.championship, number=1, first_name="A", last_name="B")


def team_name_taken(day: RaceDay) -> None:
    Team.objects.create(championship=day.championship, name="Écurie Étoile")


def event_slug_taken(day: RaceDay) -> None:
    Event.objects.create(
        championship=day.championship,
        slug=day.event.slug,
        name="Twin",
        date=day.event.date,
        circuit=day.event.circuit,
    )


def table_number_taken(day: RaceDay) -> None:
    RaceTable.objects.create(event=day.event, number=1)


def qualifying_table_number_zero(day: RaceDay) -> None:
    QualifyingTable.objects.create(event=day.event, number=0)


def session_number_taken(day: RaceDay) -> None:
    QualifyingSession.objects.create(
        event=day.event, number=1, roll=3, source="system", weather="rain", track="wet"
    )


def session_roll_off_the_die(day: RaceDay) -> None:
    QualifyingSession.objects.create(
        event=day.event, number=2, roll=21, source="system", weather="sun", track="dry"
    )


def session_unknown_weather(day: RaceDay) -> None:
    QualifyingSession.objects.create(
        event=day.event, number=2, roll=3, source="system", weather="snow", track="dry"
    )


def run_unknown_tyres(day: RaceDay) -> None:
    _run(day, day.drivers[0], tyres="slick")


def run_without_stopwatch(day: RaceDay) -> None:
    _run(day, day.drivers[0], stopwatch_cs=None)


def run_version_zero(day: RaceDay) -> None:
    _run(day, day.drivers[0], version=0)


def two_draws_for_one_driver(day: RaceDay) -> None:
    DrawRoll.objects.create(event=day.event, driver=day.drivers[0], rolls=[3], source="system")
    DrawRoll.objects.create(event=day.event, driver=day.drivers[0], rolls=[4], source="system")


def two_batches_of_a_kind(day: RaceDay) -> None:
    SheetBatch.objects.create(event=day.event, kind="race")
    SheetBatch.objects.create(event=day.event, kind="race")


def two_stage_times(day: RaceDay) -> None:
    _stage_time(day)
    _stage_time(day, chrono=90)


def stage_time_without_chrono(day: RaceDay) -> None:
    _stage_time(day, chrono=None)


VIOLATIONS: list[Callable[[RaceDay], None]] = [
    second_grid_position,
    second_stand,
    driver_on_two_grids,
    second_counted_run,
    second_result_for_a_table,
    two_lines_at_one_position,
    two_lines_for_one_driver,
    points_to_a_retired_driver,
    configuration_over_22,
    configuration_part_at_zero,
    driver_seated_twice,
    driver_entered_twice,
    driver_number_taken,
    team_name_taken,
    event_slug_taken,
    table_number_taken,
    qualifying_table_number_zero,
    session_number_taken,
    session_roll_off_the_die,
    session_unknown_weather,
    run_unknown_tyres,
    run_without_stopwatch,
    run_version_zero,
    two_draws_for_one_driver,
    two_batches_of_a_kind,
    two_stage_times,
    stage_time_without_chrono,
]


@pytest.mark.parametrize("violation", VIOLATIONS, ids=lambda f: f.__name__)
def test_database_refuses(race_day: RaceDay, violation: Callable[[RaceDay], None]) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        violation(race_day)


def test_cancelled_runs_do_not_count_against_the_one_run_rule(race_day: RaceDay) -> None:
    """§ open format: a cancelled run stays on record and the driver runs again."""
    driver = race_day.drivers[0]
    _run(race_day, driver, cancelled=True, cancel_reason="Redo")
    _run(race_day, driver, cancelled=True, cancel_reason="Second redo")
    _run(race_day, driver)
    assert Run.objects.filter(driver=driver).count() == 3
    with pytest.raises(IntegrityError), transaction.atomic():
        _run(race_day, driver, throws=17)


def test_stands_may_stay_unchosen_at_several_places(race_day: RaceDay) -> None:
    GridSlot.objects.filter(event=race_day.event).update(stand=None)
    assert GridSlot.objects.filter(table=race_day.tables[0], stand__isnull=True).count() == 5
    # Once chosen, a stand is unique at its table but free at another table.
    GridSlot.objects.filter(pk=_slot(race_day, 0).pk).update(stand=3)
    GridSlot.objects.filter(pk=_slot(race_day, 5).pk).update(stand=3)


def test_a_valid_configuration_and_eliminated_run_are_accepted(race_day: RaceDay) -> None:
    _config(_slot(race_day, 0))
    _run(race_day, race_day.drivers[1], eliminated=True, throws=None, stopwatch_cs=None)
    assert CarConfiguration.objects.count() == 1
