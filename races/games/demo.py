"""The other games' demo events, loaded by ``load_demo`` (idempotent).

A separate "Club" championship, so that the Formula Dé demo's standings stay as they are:

* "Course rapide" — Formula Dé quick rules: d20 draw, 2 laps, a standard car; results in.
* "Rallye des Groseilles" — Rallyman: the rule's example stages (ART.2), games of 4 in
  start order, the snow drawn before each stage (Règlement+: snow on ES2), tyres chosen,
  the three stages timed.
* "Coupe Cannes–Monaco" — Cannes–Monaco 1925: two tables, results confirmed.
* "Grand Prix sur papier" — Racetrack: one table, results confirmed.
* "Soirée Heat" — a finishing-order game the organisers named "Heat: Pedal to the Metal"
  (no circuit: the game's own track), two tables by rating then entry order; table 1
  confirmed (a retirement with its note), table 2 sent to race control (a non-starter).

Each step runs only if its result is missing, so that loading twice changes nothing.
"""

from __future__ import annotations

import datetime
from typing import Any

from qualifying.models import DrawRoll
from qualifying.services import draw_record
from races.games.finishing_order import services as finishing_order
from races.games.rallyman import services as rally_services
from races.games.table_sheet import services as sheet_services
from races.grid.services import allocation_run
from races.models import RaceResult, RaceTable, ResultStatus, Stage
from races.results.services import result_confirm, result_save
from tournament.access import Actor
from tournament.models import Championship, Circuit, Club, Event
from tournament.registration.circuits import circuit_create
from tournament.registration.services import (
    championship_create,
    drivers_import,
    entries_register,
    event_create,
    event_publish,
)

CLUB_SLUG = "demo-club"
CLUB_DRIVERS = """number;first_name;last_name;team;email
1;Rémi;Vidal;;
2;Olga;Ferrand;;
3;Julie;Caron;;
4;Charly;Masson;;
5;Inès;Barbier;;
6;Hugo;Renaud;;
7;Lina;Perrot;;
8;Nils;Fabre;;
"""
STANDARD_CAR = {
    "tyres": 7, "brakes": 3, "gearbox": 3, "body": 3, "engine": 3, "road_holding": 3,
    "stand_points": 0,
}  # fmt: skip
RALLY_ROUTES = (  # ART.2's example sheet, the "Rallye des Groseilles"
    ("C8 C3-J6-J5-C4 C5", True),
    ("L0 L1-C7-C6-L2-L3-V2-V3-C5 C4", True),
    ("J1 J4", False),
)
RALLY_TIMES = {  # chrono, seconds held per driver and stage; None = retired
    1: {1: ("07:40", 0), 2: ("07:20", 5), 3: ("08:10", 0), 4: ("07:50", 0),
        5: ("07:30", 0), 6: ("08:00", 3), 7: ("07:40", 0), 8: ("09:00", 0)},
    2: {1: ("12:30", 0), 2: ("12:50", 0), 3: ("12:10", 8), 4: None,
        5: ("12:40", 0), 6: ("13:00", 0), 7: ("12:20", 0), 8: ("14:10", 0)},
    3: {1: ("04:10", 0), 2: ("04:20", 0), 3: ("04:00", 0),
        5: ("04:30", 2), 6: ("04:10", 0), 7: ("04:20", 0), 8: ("05:00", 0)},
}  # fmt: skip
# Règlement+: one die per zone before each stage (ES1 C J, ES2 L C V, ES3 J); ES2's
# zone C came out snowy.
RALLY_SNOW = {1: [False, False], 2: [False, True, False], 3: [False]}
RALLY_TYRES = {1: {3: "snow"}, 2: {3: "snow", 7: "snow"}}  # the others: not recorded


def _event(
    admin: Actor, club: Championship, circuit: Circuit | None, slug: str, **fields: Any
) -> Event:
    event = Event.objects.filter(slug=slug).first()
    if event is None:
        event = event_create(actor=admin, championship=club, slug=slug, circuit=circuit, **fields)
        entries_register(actor=admin, event=event, numbers=range(1, 9))
    return event


def belongs_to(club: Club | None, championship: Championship) -> None:
    """A demo championship loaded before clubs existed joins the demo club."""
    if club is not None and championship.club_id is None:
        championship.club = club
        championship.save(update_fields=["club"])


def load_other_games(*, admin: Actor, club: Club | None) -> list[Event]:
    """The Club championship (of the demo ``club``) and its five events, with results;
    returns the events."""
    games = Championship.objects.filter(slug=CLUB_SLUG).first() or championship_create(
        actor=admin,
        slug=CLUB_SLUG,
        name="Club des jeux de course (démo)",
        season="2026",
        points_scale=[10, 8, 6, 5, 4, 3, 2, 1],
        club=club,
    )
    belongs_to(club, games)
    drivers_import(actor=admin, championship=games, text=CLUB_DRIVERS)
    circuit = Circuit.objects.filter(slug="table-de-jeu").first() or circuit_create(
        actor=admin,
        slug="table-de-jeu",
        name="Table de jeu",
        laps=2,
        weather_scale={"rain": [1, 4], "variable": [5, 8], "sun": [9, 20]},
        club=club,
    )
    events = [
        _quick(admin, games, circuit),
        _rally(admin, games, circuit),
        _cannes(admin, games, circuit),
        _racetrack(admin, games, circuit),
        _heat(admin, games),
    ]
    for event in events:
        if not (event.published_allocation and event.published_results):
            event_publish(actor=admin, event=event, allocation=True, results=True)
    return events


def _quick(admin: Actor, club: Championship, circuit: Circuit) -> Event:
    event = _event(
        admin, club, circuit, "demo-course-rapide", name="Course rapide (règles de base)",
        date=datetime.date(2026, 3, 7), qualifying_mode=Event.QualifyingMode.DRAW, laps=2,
        table_size=8, standard_configuration=STANDARD_CAR,
    )  # fmt: skip
    if not DrawRoll.objects.filter(event=event).exists():
        draw_record(actor=admin, event=event, rolls={n: [21 - 2 * n] for n in range(1, 9)})
    if not event.race_tables.exists():
        allocation_run(actor=admin, event=event)
    for table in RaceTable.objects.filter(event=event):
        if table.result_status == ResultStatus.CONFIRMED:
            continue
        grid = list(table.slots.order_by("position").values_list("driver__number", flat=True))
        if table.result_status != ResultStatus.SUBMITTED:
            stored = RaceResult.objects.filter(table=table).first()
            result_save(
                actor=admin, table=table, version=stored.version if stored else 0,
                finish=grid[1:], retired=[
                    {"driver": grid[0], "cause": "off_track", "lap": 2, "note": ""}
                ], dns=[], submit=True,
            )  # fmt: skip
        result_confirm(actor=admin, table=table)
    return event


def _rally(admin: Actor, club: Championship, circuit: Circuit) -> Event:
    event = _event(
        admin, club, circuit, "demo-rallye-des-groseilles", name="Rallye des Groseilles",
        date=datetime.date(2026, 4, 25), game=Event.Game.RALLYMAN, table_size=4,
        separate_teams=False,
    )  # fmt: skip
    for number, (route, service) in enumerate(RALLY_ROUTES, start=1):
        if not Stage.objects.filter(event=event, number=number).exists():
            rally_services.stage_create(
                actor=admin, event=event, number=number, route=route, service_after=service
            )
    first = Stage.objects.get(event=event, number=1)
    if not first.start_order:
        rally_services.start_order_set(actor=admin, stage=first, order=[4, 1, 7, 2, 5, 8, 3, 6])
    if not event.race_tables.exists():
        allocation_run(actor=admin, event=event, table_size=4)
    for number, times in RALLY_TIMES.items():
        stage = Stage.objects.get(event=event, number=number)
        if stage.times.exists():
            continue
        if not stage.snow:
            rally_services.stage_snow_set(actor=admin, stage=stage, snow=RALLY_SNOW[number])
        tyres = RALLY_TYRES.get(number, {})
        rally_services.stage_times_set(
            actor=admin,
            stage=stage,
            times={
                driver: {"retired": True}
                if value is None
                else {"chrono": value[0], "seconds_held": value[1], "tyres": tyres.get(driver)}
                for driver, value in times.items()
            },
        )
    return event


def _table_results(admin: Actor, event: Event, sheets: dict[int, Any]) -> None:
    for table in RaceTable.objects.filter(event=event).order_by("number"):
        if table.result_status == ResultStatus.CONFIRMED:
            continue
        if table.result_status != ResultStatus.SUBMITTED:
            grid = list(table.slots.order_by("position").values_list("driver__number", flat=True))
            stored = RaceResult.objects.filter(table=table).first()
            sheet_services.game_result_save(
                actor=admin,
                table=table,
                version=stored.version if stored else 0,
                data=sheets[table.number](grid),
                submit=True,
            )
        result_confirm(actor=admin, table=table)


def _cannes(admin: Actor, club: Championship, circuit: Circuit) -> Event:
    event = _event(
        admin, club, circuit, "demo-coupe-cannes-monaco", name="Coupe Cannes–Monaco 1925",
        date=datetime.date(2026, 5, 16), game=Event.Game.CANNES_MONACO, table_size=4,
        qualifying_mode=Event.QualifyingMode.DRAW, separate_teams=False,
    )  # fmt: skip
    if not event.race_tables.exists():
        allocation_run(actor=admin, event=event, table_size=4)

    def sheet(squares: list[int]) -> Any:
        # The rule's example at table 1: 30 (last, 0 points), 34 (4 points), over the line
        # (6 + 3 = 9 points).
        def build(grid: list[int]) -> dict[str, Any]:
            crossed = [n for n, s in zip(grid, squares, strict=False) if s >= 36]
            return {
                "squares": {n: min(s, 36) for n, s in zip(grid, squares, strict=False)},
                "crossed": crossed,
            }

        return build

    _table_results(admin, event, {1: sheet([36, 34, 30, 31]), 2: sheet([29, 36, 22, 22])})
    return event


def _racetrack(admin: Actor, club: Championship, circuit: Circuit) -> Event:
    event = _event(
        admin, club, circuit, "demo-grand-prix-sur-papier", name="Grand Prix sur papier",
        date=datetime.date(2026, 6, 6), game=Event.Game.RACETRACK, table_size=8,
        qualifying_mode=Event.QualifyingMode.DRAW, separate_teams=False,
    )  # fmt: skip
    if not event.race_tables.exists():
        allocation_run(actor=admin, event=event, table_size=8)

    def runs(grid: list[int]) -> dict[str, Any]:
        # turns, margin, crashes, finished, eliminated; at turn 18 the sixth car runs into
        # the seventh: a collision eliminates both, the car hit without a crash of its own.
        lines = [
            (42, 3, 0, True, False), (42, 2, 0, True, False), (43, 1, 0, True, False),
            (43, 1, 0, True, False), (40, 0, 0, False, False), (18, 0, 1, False, True),
            (18, 0, 0, False, True), (25, 0, 1, False, True),
        ]  # fmt: skip
        return {
            "runs": {
                n: dict(
                    zip(("turns", "margin", "crashes", "finished", "eliminated"), line, strict=True)
                )
                for n, line in zip(grid, lines, strict=False)
            }
        }

    _table_results(admin, event, {1: runs})
    return event


HEAT = "Heat: Pedal to the Metal"
#: Each table's sheet, by grid position (1 = pole): the crossing order, the retirements
#: (grid position, lap, note) in the order they happened, the non-starters.
HEAT_SHEETS = {
    1: ([2, 4, 1], [(3, 2, "Moteur en surchauffe\u00a0: plus de cartes chaleur")], []),
    2: ([3, 1], [(4, 1, "Sortie de route au premier virage")], [2]),
}


def _heat(admin: Actor, club: Championship) -> Event:
    event = _event(
        admin, club, None, "demo-soiree-heat", name="Soirée Heat",
        date=datetime.date(2026, 6, 20), game=Event.Game.FINISHING_ORDER, game_name=HEAT,
        grid="rating", laps=2, table_size=4, separate_teams=False,
    )  # fmt: skip
    if not event.race_tables.exists():
        allocation_run(actor=admin, event=event, table_size=4)
    for table in RaceTable.objects.filter(event=event).order_by("number"):
        if table.result_status == ResultStatus.CONFIRMED:
            continue
        grid = list(table.slots.order_by("position").values_list("driver__number", flat=True))
        finish, retired, dns = HEAT_SHEETS[table.number]
        if table.result_status != ResultStatus.SUBMITTED:
            stored = RaceResult.objects.filter(table=table).first()
            finishing_order.result_save(
                actor=admin,
                table=table,
                version=stored.version if stored else 0,
                finish=[grid[p - 1] for p in finish],
                retired=[
                    {"driver": grid[p - 1], "cause": "other", "lap": lap, "note": note}
                    for p, lap, note in retired
                ],
                dns=[grid[p - 1] for p in dns],
                submit=True,
            )
        if table.number == 1:  # table 2 waits for race control, as on the evening
            result_confirm(actor=admin, table=table)
    return event


def heat_evening(
    *,
    admin: Actor,
    championship: Championship,
    slug: str,
    number: int,
    date: datetime.date,
    order: list[int],
) -> Event:
    """A Heat evening of ``championship``'s drivers 1 to 6, one table by rating, crossed in
    ``order`` (grid places), confirmed and published: the demo league's rounds
    (standings/leagues/demo.py). Each step runs only if its result is missing."""
    event = Event.objects.filter(slug=slug).first()
    if event is None:
        event = event_create(
            actor=admin, championship=championship, slug=slug, circuit=None,
            name=f"Soirée Heat n° {number} ({championship.club.name})", date=date,
            game=Event.Game.FINISHING_ORDER, game_name=HEAT, grid="rating", laps=2,
            table_size=6, separate_teams=False,
        )  # fmt: skip
        entries_register(actor=admin, event=event, numbers=range(1, 7))
    if not event.race_tables.exists():
        allocation_run(actor=admin, event=event, table_size=6)
    for table in RaceTable.objects.filter(event=event).order_by("number"):
        if table.result_status == ResultStatus.CONFIRMED:
            continue
        if table.result_status != ResultStatus.SUBMITTED:
            grid = list(table.slots.order_by("position").values_list("driver__number", flat=True))
            stored = RaceResult.objects.filter(table=table).first()
            finishing_order.result_save(
                actor=admin, table=table, version=stored.version if stored else 0,
                finish=[grid[p - 1] for p in order if p <= len(grid)], retired=[], dns=[],
                submit=True,
            )  # fmt: skip
        result_confirm(actor=admin, table=table)
    if not (event.published_allocation and event.published_results):
        event_publish(actor=admin, event=event, allocation=True, results=True)
    return event
