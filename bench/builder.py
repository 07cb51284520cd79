"""A seeded synthetic championship, written with bulk_create straight into the models.

Same seed, same championship: drivers in teams, events with two qualifying sessions of
runs, race tables allocated by the real allocation rule, and confirmed results whose
places and points come from the real pure rules (``races.results.rules``,
``races.results.points``).
An optional extra event has its race tables allocated but no result yet: the load test's
referees fill it in through the API.

No service is called (they would write history rows and take far longer); what is built is
what the services would have stored.
"""

from __future__ import annotations

import datetime
import random
from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone

from qualifying.models import QualifyingSession, Run
from races.grid.allocation import RankedDriver, allocate
from races.models import GridSlot, RaceResult, RaceTable, RaceWeather, ResultLine, ResultStatus
from races.results.points import table_lines
from races.results.rules import Retirement, TableResult, table_classification
from tournament.models import (
    DEFAULT_POINTS_SCALE,
    Championship,
    Circuit,
    Driver,
    Entry,
    Event,
    Team,
)

FIRST_NAMES = ("Léa", "Hugo", "Chloé", "Noé", "Zoé", "Jérôme", "Gaëlle", "Aurélien", "Inès", "Loïc")
LAST_NAMES = ("Lefèvre", "Roux", "Müller", "Dubois", "Garçon", "Nguyen", "Benoît", "Faure")
CAUSES = ("off_track", "blocked", "body", "engine", "road_holding")


@dataclass(frozen=True)
class Size:
    """How big the synthetic championship is."""

    drivers: int = 1000
    teams: int = 200
    events: int = 10
    table_size: int = 10
    sessions: int = 2
    seed: int = 1925

    @property
    def tables(self) -> int:
        """Race tables per event."""
        return -(-self.drivers // self.table_size)


@dataclass
class LoadTable:
    """A race table of the load event, as a referee holding its link sees it."""

    number: int
    token: str
    grid: list[int]  # driver numbers in grid order


@dataclass
class Built:
    championship: Championship
    events: list[Event]
    load_event: Event | None = None
    load_tables: list[LoadTable] = field(default_factory=list)


def _circuit() -> Circuit:
    circuit, _ = Circuit.objects.get_or_create(
        slug="bench-monza",
        defaults={
            "name": "Monza",
            "laps": 3,
            "rain_from": 1,
            "rain_to": 4,
            "variable_from": 5,
            "variable_to": 8,
            "sun_from": 9,
            "sun_to": 20,
        },
    )
    return circuit


@transaction.atomic
def build_championship(*, slug: str, size: Size, load_tables: int = 0) -> Built:
    """Build the championship ``slug`` of ``size``; ``load_tables`` tables left to fill."""
    rng = random.Random(f"{size.seed}-{slug}")
    circuit = _circuit()
    championship = Championship.objects.create(
        slug=slug,
        name=f"Championnat synthétique {size.drivers}",
        season="2026",
        points_scale=DEFAULT_POINTS_SCALE,
        # Best-K makes the standings do their real work (which results count).
        best_results=max(1, size.events - 2),
    )
    teams = Team.objects.bulk_create(
        Team(
            championship=championship,
            name=f"Écurie {n:03d}",
            colour=f"#{n * 2654435 % 0xFFFFFF:06x}",
        )
        for n in range(1, size.teams + 1)
    )
    team_of = [teams[n % size.teams] for n in range(size.drivers)]
    rng.shuffle(team_of)
    drivers = Driver.objects.bulk_create(
        Driver(
            championship=championship,
            number=n,
            first_name=rng.choice(FIRST_NAMES),
            last_name=f"{rng.choice(LAST_NAMES)}-{n}",
            team=team_of[n - 1],
        )
        for n in range(1, size.drivers + 1)
    )
    events = [
        _build_event(championship, circuit, drivers, size, index, rng)
        for index in range(size.events)
    ]
    built = Built(championship=championship, events=events)
    if load_tables:
        built.load_event, built.load_tables = _build_load_event(
            championship, circuit, drivers[: load_tables * size.table_size], size
        )
    return built


def _build_event(
    championship: Championship,
    circuit: Circuit,
    drivers: list[Driver],
    size: Size,
    index: int,
    rng: random.Random,
) -> Event:
    event = Event.objects.create(
        championship=championship,
        slug=f"{championship.slug}-{index + 1}",
        name=f"Grand Prix {index + 1}",
        date=datetime.date(2026, 3, 1) + datetime.timedelta(days=14 * index),
        circuit=circuit,
        table_size=size.table_size,
        published_qualifying=True,
        published_allocation=True,
        published_results=True,
    )
    Entry.objects.bulk_create(Entry(event=event, driver=d, checked_in=True) for d in drivers)
    _build_qualifying(event, drivers, size, rng)

    # The grid: a seeded qualifying order through the real allocation (team-mates apart).
    order = list(drivers)
    rng.shuffle(order)
    allocation = allocate(
        [RankedDriver(driver=d.pk, rank=rank, team=d.team_id) for rank, d in enumerate(order, 1)],
        capacity=size.table_size,
    )
    by_pk = {d.pk: d for d in drivers}
    rank_of = {d.pk: rank for rank, d in enumerate(order, 1)}
    tables = RaceTable.objects.bulk_create(
        RaceTable(
            event=event,
            number=number,
            referee_name=f"Arbitre {number}",
            weather="sun",
            track="dry",
            result_status=ResultStatus.CONFIRMED,
        )
        for number in range(1, len(allocation.tables) + 1)
    )
    slots, results, lines = [], [], []
    now = timezone.now()
    first_rank = 1
    for table, grid in zip(tables, allocation.tables, strict=True):
        slots += [
            GridSlot(
                event=event,
                table=table,
                driver=by_pk[pk],
                position=position,
                rank=rank_of[pk],
                stand=position,
            )
            for position, pk in enumerate(grid, 1)
        ]
        numbers = [by_pk[pk].number for pk in grid]
        rng.shuffle(numbers)
        retired = []
        if len(numbers) > 2 and rng.random() < 0.4:
            retired.append(
                {"driver": numbers.pop(), "cause": rng.choice(CAUSES), "lap": 2, "note": ""}
            )
        dns = [numbers.pop()] if len(numbers) > 2 and rng.random() < 0.05 else []
        results.append(
            RaceResult(
                table=table,
                version=2,
                finish=numbers,
                retired=retired,
                dns=dns,
                submitted_at=now,
                confirmed_at=now,
            )
        )
        placed = table_classification(
            TableResult(
                finish=tuple(numbers),
                retired=tuple(Retirement(r["driver"], r["cause"], r["lap"]) for r in retired),
                dns=tuple(dns),
            )
        )
        by_number = {by_pk[pk].number: by_pk[pk] for pk in grid}
        for line in table_lines(
            placed,
            table=table.number,
            first_rank=first_rank,
            scale=championship.points_scale,
            mode=championship.points_mode,  # type: ignore[arg-type]
        ):
            lines.append(
                ResultLine(
                    event=event,
                    table=table,
                    driver=by_number[line.driver],
                    position=line.position,
                    place=line.table_place,
                    rank=line.rank,
                    status=line.status,
                    cause=line.cause or "",
                    lap=line.lap,
                    points=line.points,
                )
            )
        first_rank += len(grid)
    GridSlot.objects.bulk_create(slots)
    RaceResult.objects.bulk_create(results)
    ResultLine.objects.bulk_create(lines)
    return event


def _build_qualifying(event: Event, drivers: list[Driver], size: Size, rng: random.Random) -> None:
    sessions = QualifyingSession.objects.bulk_create(
        QualifyingSession(
            event=event, number=n, roll=12, source="physical", weather="sun", track="dry"
        )
        for n in range(1, size.sessions + 1)
    )
    start = timezone.make_aware(datetime.datetime.combine(event.date, datetime.time(9)))
    runs = []
    for session in sessions:
        for order, driver in enumerate(drivers):
            eliminated = rng.random() < 0.02
            runs.append(
                Run(
                    session=session,
                    driver=driver,
                    tyres=rng.choice(("hard", "soft")),
                    throws=None if eliminated else rng.randint(8, 20),
                    placement_errors=rng.randint(0, 2),
                    exit_squares=rng.randint(0, 3),
                    stopwatch_cs=None if eliminated else rng.randint(3000, 15000),
                    eliminated=eliminated,
                    performed_at=start
                    + datetime.timedelta(hours=session.number * 3, seconds=order * 7),
                )
            )
    Run.objects.bulk_create(runs)


def _build_load_event(
    championship: Championship, circuit: Circuit, drivers: list[Driver], size: Size
) -> tuple[Event, list[LoadTable]]:
    """An event whose tables are allocated and published, every result still empty."""
    event = Event.objects.create(
        championship=championship,
        slug=f"{championship.slug}-load",
        name="Grand Prix de charge",
        date=datetime.date(2026, 12, 1),
        circuit=circuit,
        table_size=size.table_size,
        published_allocation=True,
    )
    Entry.objects.bulk_create(Entry(event=event, driver=d, checked_in=True) for d in drivers)
    # The overall pole's draw comes before any result (§2-0-1): sun at every table.
    RaceWeather.objects.create(event=event, roll=15, source="physical", weather="sun")
    grids = [drivers[i : i + size.table_size] for i in range(0, len(drivers), size.table_size)]
    tables = RaceTable.objects.bulk_create(
        RaceTable(event=event, number=n, referee_name=f"Arbitre {n}", weather="sun", track="dry")
        for n in range(1, len(grids) + 1)
    )
    GridSlot.objects.bulk_create(
        GridSlot(event=event, table=table, driver=d, position=p, rank=table.number * 100 + p)
        for table, grid in zip(tables, grids, strict=True)
        for p, d in enumerate(grid, 1)
    )
    return event, [
        LoadTable(number=t.number, token=t.token, grid=[d.number for d in grid])
        for t, grid in zip(tables, grids, strict=True)
    ]
