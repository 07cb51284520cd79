"""The ratings' measures: a federation's history recomputed, its ranking served stored.

``ratings_10k_tables``: 10 seasons × 10 events × 1,000 drivers at tables of 10 (10,000
tables, 100,000 places), every result confirmed and published; one full recompute of the
family (``standings.ratings.services.ratings_recompute``, ``full``: read, rate, delete, bulk
create in one transaction, as ``manage.py ratings``), timed. Each season brings its own
1,000 players, so the ranking holds 10,000 players; what a table costs does not depend on
whether its players are new.

``ratings_latest_event_10k``: what a publication asks for on that history: the latest
event's results (100 tables) published, the recompute from its first table on (its results
withdrawn and the ratings recomputed before each run, untimed); ``ratings_unchanged_10k``:
a recompute that finds nothing changed (a task sent twice).

``ratings_ranking_10k_cached``: the first page of that ranking as a phone gets it once
stored (``tournament.public.cache``), like ``standings_1000_cached``; the page as its first
visitor has it built (nothing stored) beside it, for information.

The history is written with bulk_create straight into the models, as ``bench.builder``
does: the places come from the real rule (``races.results.rules.table_classification``).
"""

from __future__ import annotations

import datetime
import os
import random
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.db import connection, transaction
from django.test import Client, override_settings
from django.urls import reverse

from bench.measures import NO_CACHE, Timings, summary, timed
from races.models import RaceTable, ResultLine, ResultStatus
from races.results.rules import Retirement, TableResult, table_classification
from standings.ratings.services import ratings_recompute
from tournament.models import Championship, Circuit, Driver, Event, Player, PlayerRating

CAUSES = ("off_track", "blocked", "body", "engine", "road_holding")


@dataclass(frozen=True)
class History:
    seasons: int = 10
    events: int = 10
    drivers: int = 1000
    table_size: int = 10
    seed: int = 1925

    @property
    def tables(self) -> int:
        return self.seasons * self.events * -(-self.drivers // self.table_size)


@transaction.atomic
def build_history(history: History) -> None:
    """The seasons' championships, players, drivers, events and confirmed results."""
    rng = random.Random(f"{history.seed}-ratings")
    circuit, _ = Circuit.objects.get_or_create(
        slug="bench-ratings",
        defaults={"name": "Monaco", "rain_from": 1, "rain_to": 4, "variable_from": 5,
                  "variable_to": 8, "sun_from": 9, "sun_to": 20},
    )  # fmt: skip
    for season in range(history.seasons):
        championship = Championship.objects.create(
            slug=f"bench-ratings-{2017 + season}",
            name=f"Fédération {2017 + season}",
            season=str(2017 + season),
        )
        players = Player.objects.bulk_create(
            Player(first_name=f"Joueur{n}", last_name=f"Saison{season}")
            for n in range(history.drivers)
        )
        drivers = Driver.objects.bulk_create(
            Driver(championship=championship, number=n, first_name=p.first_name,
                   last_name=p.last_name, player=p)
            for n, p in enumerate(players, 1)
        )  # fmt: skip
        for index in range(history.events):
            _build_event(championship, circuit, drivers, history, season, index, rng)


def _build_event(
    championship: Championship,
    circuit: Circuit,
    drivers: list[Driver],
    history: History,
    season: int,
    index: int,
    rng: random.Random,
) -> None:
    event = Event.objects.create(
        championship=championship,
        slug=f"{championship.slug}-{index + 1}",
        name=f"Grand Prix {index + 1}",
        date=datetime.date(2017 + season, 3, 1) + datetime.timedelta(days=14 * index),
        circuit=circuit,
        table_size=history.table_size,
        published_allocation=True,
        published_results=True,
    )
    seated = list(drivers)
    rng.shuffle(seated)
    grids = [
        seated[start : start + history.table_size]
        for start in range(0, len(seated), history.table_size)
    ]
    tables = RaceTable.objects.bulk_create(
        RaceTable(event=event, number=number, result_status=ResultStatus.CONFIRMED)
        for number in range(1, len(grids) + 1)
    )
    lines = []
    first_rank = 1
    for table, grid in zip(tables, grids, strict=True):
        by_number = {d.number: d for d in grid}
        numbers = list(by_number)
        retired = [numbers.pop() for _ in range(rng.choice((0, 0, 1, 2)))]
        dns = [numbers.pop()] if rng.random() < 0.05 else []
        placed = table_classification(
            TableResult(
                finish=tuple(numbers),
                retired=tuple(Retirement(n, rng.choice(CAUSES), 2) for n in retired),  # type: ignore[arg-type]
                dns=tuple(dns),
            )
        )
        lines += [
            ResultLine(
                event=event,
                table=table,
                driver=by_number[p.driver],
                position=p.position,
                place=p.position,
                rank=first_rank + p.position - 1,
                status=p.status,
                lap=p.lap,
                cause=p.cause or "",
            )
            for p in placed
        ]
        first_rank += len(grid)
    ResultLine.objects.bulk_create(lines, batch_size=5000)


def _database_cpu() -> float | None:
    """CPU seconds spent so far by this connection's PostgreSQL backend, when it runs on this
    machine (/proc); None otherwise. With this process's CPU, what a recompute costs
    whatever the others are doing on a shared machine."""
    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure_recompute(history: History, *, runs: int) -> dict[str, Any]:
    """The full recompute of the family, ``runs`` times after one untimed run; beside the
    wall clock, the CPU of this process and of the database's backend."""
    counted = RaceTable.objects.filter(event__championship__slug__startswith="bench-ratings-")
    rated: list[int] = []
    database: list[float] = []

    def recompute() -> None:
        before = _database_cpu()
        rated.append(ratings_recompute(game="formula_de", full=True))
        after = _database_cpu()
        if before is not None and after is not None:
            database.append((after - before) * 1000)

    timings = timed(recompute, runs=runs)
    return summary(
        timings,
        tables=counted.count(),
        places=ResultLine.objects.filter(table__in=counted).count(),
        players=rated[-1],
        database_cpu_median=round(statistics.median(database[1:]), 1) if database[1:] else None,
        load_average=[round(x, 2) for x in os.getloadavg()],
    )


def measure_latest_event(*, runs: int) -> dict[str, dict[str, Any]]:
    """The latest event's results published on the history, ``runs`` times; and a
    recompute that finds nothing to do."""
    latest = (
        Event.objects.filter(championship__slug__startswith="bench-ratings-")
        .order_by("-date", "-pk")
        .first()
    )
    assert latest is not None
    published = Timings()
    for _ in range(runs):
        Event.objects.filter(pk=latest.pk).update(published_results=False)
        ratings_recompute(game="formula_de")
        Event.objects.filter(pk=latest.pk).update(published_results=True)
        published.run(lambda: ratings_recompute(game="formula_de"))
    tables = RaceTable.objects.filter(event=latest).count()
    unchanged = timed(lambda: ratings_recompute(game="formula_de"), runs=runs)
    return {
        "ratings_latest_event_10k": summary(published, tables=tables),
        "ratings_unchanged_10k": summary(unchanged),
    }


def measure_ranking(*, runs: int) -> dict[str, Any]:
    """The ranking's first page, stored (and, for information, built for a first visitor)."""
    url = reverse("ratings", args=["formula_de"])
    phone = Client(HTTP_ACCEPT_ENCODING="gzip, deflate, br")
    first = phone.get(url)  # builds and stores it
    assert first.status_code == 200 and first["Content-Encoding"] == "br", first.status_code
    gzip_size = len(Client(HTTP_ACCEPT_ENCODING="gzip").get(url).content)

    def get(client: Client) -> None:
        response = client.get(url)
        assert response.status_code == 200

    cached = timed(lambda: get(phone), runs=runs)
    with override_settings(CACHES=NO_CACHE):
        built = timed(lambda: get(Client()), runs=max(3, runs // 3))
    players = PlayerRating.objects.filter(family="formula_de").count()
    return {
        "cached": summary(
            cached, players=players, bytes_br=len(first.content), bytes_gzip=gzip_size
        ),  # fmt: skip
        "built": summary(built, players=players),
    }


def measure_ratings(history: History, *, runs: int, fast_runs: int) -> dict[str, Any]:
    build_history(history)
    recompute = measure_recompute(history, runs=runs)
    latest = measure_latest_event(runs=runs)
    ranking = measure_ranking(runs=fast_runs)
    return {
        "ratings_10k_tables": recompute,
        **latest,
        "ratings_ranking_10k_cached": ranking["cached"],
        "ratings_ranking_10k_built": ranking["built"],
    }
