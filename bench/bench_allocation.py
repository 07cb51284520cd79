"""Time races.allocation.allocate on an event-sized field (not a test, no Django).

1,000 drivers in 200 teams of 5, shuffled with a fixed seed, seated at tables of 10
with team-mates kept apart. Prints one line of JSON: median, min and max of 20 runs
in milliseconds. Run from the repository root:

    .venv/bin/python bench/bench_allocation.py
"""

from __future__ import annotations

import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from races.allocation import RankedDriver, allocate  # noqa: E402

DRIVERS = 1000
TEAMS = 200
CAPACITY = 10
RUNS = 20
SEED = 1925


def field() -> list[RankedDriver]:
    teams = [number % TEAMS for number in range(DRIVERS)]
    random.Random(SEED).shuffle(teams)
    return [RankedDriver(driver=n, rank=n, team=team) for n, team in enumerate(teams, start=1)]


def main() -> None:
    drivers = field()
    allocate(drivers, capacity=CAPACITY)  # warm-up
    timings = []
    for _ in range(RUNS):
        start = time.perf_counter()
        allocate(drivers, capacity=CAPACITY)
        timings.append((time.perf_counter() - start) * 1000)
    print(
        json.dumps(
            {
                "name": "allocation_1000",
                "median_ms": round(statistics.median(timings), 3),
                "min_ms": round(min(timings), 3),
                "max_ms": round(max(timings), 3),
            }
        )
    )


if __name__ == "__main__":
    main()
