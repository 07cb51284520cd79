"""A national season across clubs (issue 52): a league of ``clubs`` clubs counting ``rounds``
of their events, ``players`` people, ``results`` result lines, every round counted.

Each club runs a championship of its own; each round is an event of one club (the clubs in
turn), raced by ``round_size`` of the season's people drawn at random, seated by tens: a
person racing for several clubs is one player with a driver in each club's championship,
so the league ranks them once. Written with bulk_create straight into the models, as
``bench.ratings`` does (places from the real rule, ``races.results.rules``).

Measured against gunicorn, as ``make venue`` serves it:

- ``league_standings_page`` and ``league_standings_api``: ``requests`` GETs each of the
  public page ``/l/<league>/`` and ``GET /api/v1/leagues/<league>/standings``, one after
  the other, once warm (the public cache holds the standings built once per version of
  what they read): p95.
- ``league_publication``: the last round's results unpublished, the standings read (warm),
  then published as race control does (one ``UPDATE``, committed): the seconds until the
  API's standings show the round.

And in process: ``league_recompute``, the standings and clubs' cup built from the rows
(``standings.leagues.selectors``, nothing cached), against ``league_recompute_floor``,
one query summing the same scale's points by player over the same published lines; their
CPU ratio is recorded.
"""

from __future__ import annotations

import datetime
import random
import statistics
import time
from dataclasses import dataclass
from typing import Any

import httpx
from django.db import transaction
from django.db.models import Case, IntegerField, Sum, Value, When

from bench.load import Gunicorn
from bench.measures import cpu_ratio, summary, timed_pair
from races.models import RaceTable, ResultLine, ResultStatus
from races.results.rules import Retirement, TableResult, table_classification
from standings.leagues import selectors
from standings.leagues.models import League, Round
from tournament.clubs.models import Club
from tournament.models import DEFAULT_POINTS_SCALE, Championship, Circuit, Driver, Event, Player

SLUG = "bench-national"
CAUSES = ("off_track", "blocked", "body", "engine", "road_holding")


@dataclass(frozen=True)
class Season:
    clubs: int = 10
    rounds: int = 40
    players: int = 600
    round_size: int = 300
    table_size: int = 10
    best_results: int = 30
    seed: int = 1925

    @property
    def results(self) -> int:
        return self.rounds * self.round_size


@transaction.atomic
def build_season(season: Season) -> League:
    """The clubs, their championships, the people, the rounds' events and results, and the
    league (of the first club) counting every round."""
    rng = random.Random(f"{season.seed}-league")
    circuit, _ = Circuit.objects.get_or_create(
        slug="bench-league",
        defaults={"name": "Magny-Cours", "rain_from": 1, "rain_to": 4, "variable_from": 5,
                  "variable_to": 8, "sun_from": 9, "sun_to": 20},
    )  # fmt: skip
    clubs = Club.objects.bulk_create(
        Club(slug=f"bench-club-{n}", name=f"Club {n}") for n in range(season.clubs)
    )
    championships = [
        Championship.objects.create(
            slug=f"bench-league-club-{n}", name=f"Saison du club {n}", season="2026", club=club
        )
        for n, club in enumerate(clubs)
    ]
    people = Player.objects.bulk_create(
        Player(first_name=f"Pilote{n}", last_name=f"National{n % 97}")
        for n in range(season.players)
    )
    wanted: dict[tuple[int, int], None] = {}  # (club index, person index), in order
    draws = []
    for index in range(season.rounds):
        club = index % season.clubs
        raced = rng.sample(range(season.players), season.round_size)
        draws.append((club, raced))
        wanted |= dict.fromkeys((club, person) for person in raced)
    made = Driver.objects.bulk_create(
        Driver(championship=championships[club], number=person + 1,
               first_name=people[person].first_name, last_name=people[person].last_name,
               player=people[person])
        for club, person in wanted
    )  # fmt: skip
    drivers = dict(zip(wanted, made, strict=True))
    league = League.objects.create(
        slug=SLUG, name="Championnat national", season="2026", club=clubs[0],
        points_scale=list(DEFAULT_POINTS_SCALE), best_results=season.best_results,
    )  # fmt: skip
    events = []
    for index, (club, raced) in enumerate(draws):
        event = Event.objects.create(
            championship=championships[club],
            slug=f"{SLUG}-{index + 1}",
            name=f"Manche {index + 1}",
            date=datetime.date(2026, 1, 4) + datetime.timedelta(days=7 * index),
            circuit=circuit,
            table_size=season.table_size,
            published_allocation=True,
            published_results=True,
        )
        _results(event, [drivers[(club, person)] for person in raced], season, rng)
        events.append(event)
    Round.objects.bulk_create(
        Round(league=league, event=event, status="counted") for event in events
    )
    return league


def _results(event: Event, seated: list[Driver], season: Season, rng: random.Random) -> None:
    grids = [seated[s : s + season.table_size] for s in range(0, len(seated), season.table_size)]
    tables = RaceTable.objects.bulk_create(
        RaceTable(event=event, number=n, result_status=ResultStatus.CONFIRMED)
        for n in range(1, len(grids) + 1)
    )
    lines, first_rank = [], 1
    for table, grid in zip(tables, grids, strict=True):
        by_number = {driver.number: driver for driver in grid}
        numbers = list(by_number)
        retired = [numbers.pop() for _ in range(rng.choice((0, 0, 1, 2)))]
        placed = table_classification(
            TableResult(
                finish=tuple(numbers),
                retired=tuple(Retirement(n, rng.choice(CAUSES), 2) for n in retired),  # type: ignore[arg-type]
                dns=(),
            )
        )
        lines += [
            ResultLine(event=event, table=table, driver=by_number[p.driver], position=p.position,
                       place=p.position, rank=first_rank + p.position - 1, status=p.status,
                       lap=p.lap, cause=p.cause or "")
            for p in placed
        ]  # fmt: skip
        first_rank += len(grid)
    ResultLine.objects.bulk_create(lines, batch_size=5000)


# --- In process: the recompute and its floor --------------------------------------------------


def _floor(league: League) -> list[tuple[int, int]]:
    """The same scale's points summed by player over the counted rounds' published lines, in
    one query: what reading and adding them costs at the least."""
    scale = league.points_scale
    points = Case(
        *(When(position=place, then=Value(p)) for place, p in enumerate(scale, 1)),
        default=Value(0),
        output_field=IntegerField(),
    )
    return list(
        ResultLine.objects.filter(
            event__league_rounds__league=league,
            event__league_rounds__status="counted",
            event__published_results=True,
        )
        .values("driver__player_id")
        .annotate(points=Sum(points))
        .order_by("-points")
        .values_list("driver__player_id", "points")
    )


def measure_recompute(league: League, *, runs: int) -> dict[str, Any]:
    """The standings and clubs' cup built from the rows (nothing cached), and the floor, in
    turns; the CPU ratio of one to the other."""
    built = selectors._build(league)
    floor = _floor(league)
    assert len(built["lines"]) == len(floor), (len(built["lines"]), len(floor))
    page, bottom = timed_pair(lambda: selectors._build(league), lambda: _floor(league), runs=runs)
    return {
        "league_recompute": summary(
            page,
            players=len(floor),
            results=ResultLine.objects.filter(event__league_rounds__league=league).count(),
            cpu_vs_floor=cpu_ratio(page, bottom),
        ),
        "league_recompute_floor": summary(bottom, players=len(floor)),
    }


# --- On the server: warm p95 and a publication --------------------------------------------


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return round(ordered[max(0, -(-95 * len(ordered) // 100) - 1)], 1)


def _gets(client: httpx.Client, path: str, requests: int) -> dict[str, Any]:
    for _ in range(3):  # warm: built once, then read from the public cache
        assert client.get(path).status_code == 200, path
    times, errors = [], 0
    for _ in range(requests):
        started = time.perf_counter()
        response = client.get(path)
        times.append((time.perf_counter() - started) * 1000)
        errors += response.status_code != 200
    return {
        "requests": requests,
        "errors": errors,
        "p50_ms": round(statistics.median(times), 1),
        "p95_ms": _p95(times),
        "max_ms": round(max(times), 1),
    }


def _shows(client: httpx.Client, path: str, event: str) -> bool:
    lines = client.get(path).json()
    return any(score["event"] == event for line in lines[:50] for score in line["rounds"])


def measure_served(league: League, *, env: dict[str, str], requests: int) -> dict[str, Any]:
    last = Round.objects.filter(league=league).order_by("-event__date").first()
    assert last is not None
    api = f"/api/v1/leagues/{league.slug}/standings"
    with Gunicorn(env) as server, httpx.Client(base_url=server.url, timeout=30) as client:
        page = _gets(client, f"/l/{league.slug}/", requests)
        standings = _gets(client, api, requests)
        Event.objects.filter(pk=last.event_id).update(published_results=False)
        while _shows(client, api, last.event.slug):
            time.sleep(0.05)
        started = time.perf_counter()
        Event.objects.filter(pk=last.event_id).update(published_results=True)  # committed
        reads = 0
        while not _shows(client, api, last.event.slug):
            reads += 1
            if time.perf_counter() - started > 60:
                break
        seconds = round(time.perf_counter() - started, 3)
        workers, threads = server.workers, server.threads
    return {
        "league_standings_page": page,
        "league_standings_api": standings,
        "league_publication": {"seconds": seconds, "reads_before": reads},
        "league_server": f"gunicorn {workers} workers × {threads} threads (gthread), 127.0.0.1",
    }


def measure_league(
    season: Season, *, env: dict[str, str] | None, runs: int, requests: int
) -> dict[str, Any]:
    started = time.perf_counter()
    league = build_season(season)
    out: dict[str, Any] = {
        "league_season": {
            "clubs": season.clubs,
            "rounds": season.rounds,
            "players": season.players,
            "results": ResultLine.objects.filter(event__league_rounds__league=league).count(),
            "build_s": round(time.perf_counter() - started, 1),
        }
    }
    out.update(measure_recompute(league, runs=runs))
    if env is not None:
        out.update(measure_served(league, env=env, requests=requests))
    return out


def league_targets(measured: dict[str, Any]) -> list[tuple]:
    """The issue's targets (rows as ``bench.run.checks_of`` takes them)."""
    rows: list[tuple] = []
    recompute = measured.get("league_recompute")
    if recompute:
        rows.append(
            ("league: recompute vs one-query floor (CPU), recorded",
             recompute["cpu_vs_floor"], "×", True)
        )  # fmt: skip
    for key, what in (("league_standings_page", "page"), ("league_standings_api", "API")):
        served = measured.get(key)
        if served:
            rows += [
                (f"league: standings {what} p95 ≤ 150 ms warm", served["p95_ms"], "ms", 150),
                (f"league: standings {what} 0 errors", served["errors"], "", served["errors"] == 0),
            ]
    published = measured.get("league_publication")
    if published:
        rows.append(("league: a round's publication shown ≤ 5 s", published["seconds"], "s", 5))
    return rows
