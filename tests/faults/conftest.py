"""Fixtures of the fault tests: the servers' environments, and the SQLite race day.

The SQLite race day takes a migration in a process of its own (a quarter of a minute on a
busy machine): it starts with the first fault test and runs while the PostgreSQL tests do,
and each SQLite test copies the file it leaves.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.db import connection

from tests.faults.processes import ROOT, paddock_environment, start, stop, wait_until


def suite_database_url() -> str:
    """The suite's test database as a URL for a server process (PostgreSQL only)."""
    if connection.vendor != "postgresql":
        pytest.skip("runs against the suite's PostgreSQL database: set DATABASE_URL")
    s = connection.settings_dict
    password = f":{s['PASSWORD']}" if s["PASSWORD"] else ""
    return (
        f"postgres://{s['USER'] or ''}{password}@{s['HOST'] or '127.0.0.1'}:"
        f"{s['PORT'] or 5432}/{s['NAME']}"
    )


def postgresql_environment(folder: Path, database_url: str, **values: str) -> dict[str, str]:
    """A production server on ``database_url``; no Redis (a cache of its own, tasks inline)
    unless ``values`` give one."""
    return paddock_environment(
        DATABASE_URL=database_url, PADDOCK_DATA_DIR=str(folder), **values
    )


@dataclass
class SqliteDay:
    """The race day in a migrated SQLite file, built once per session in the background."""

    folder: Path
    key: str
    process: subprocess.Popen[bytes]
    world: dict[str, Any] | None = None

    def ready(self) -> dict[str, Any]:
        if self.world is None:
            wait_until(
                lambda: self.process.poll() is not None, timeout=180, what="the SQLite race day"
            )
            output = (self.folder / "build.log").read_text()
            line = next((x for x in output.splitlines() if x.startswith("WORLD ")), None)
            assert self.process.returncode == 0 and line, output[-4000:]
            self.world = json.loads(line.removeprefix("WORLD "))
        return self.world

    def environment(self, data: Path, **values: str) -> dict[str, str]:
        """``make venue``'s setup on ``data``: SQLite (WAL) and the cache in that folder."""
        return paddock_environment(
            PADDOCK_DATA_DIR=str(data), SECRET_KEY=self.key, CACHE_DIR=str(data / "cache"),
            **values,
        )  # fmt: skip

    def copy(self, data: Path) -> dict[str, Any]:
        """A fresh copy of the day's database in ``data``; answers the day."""
        world = self.ready()
        data.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(self.folder / "db.sqlite3", data / "db.sqlite3")
        return world


@pytest.fixture(scope="session", autouse=True)
def sqlite_day(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SqliteDay]:
    folder = tmp_path_factory.mktemp("sqlite-day")
    key = "faults-" + os.urandom(32).hex()
    process = start(
        [sys.executable, "-m", "tests.faults.sqlite_day"],
        env=paddock_environment(PADDOCK_DATA_DIR=str(folder), SECRET_KEY=key),
        log=folder / "build.log",
        cwd=ROOT,
    )
    day = SqliteDay(folder, key, process)
    try:
        yield day
    finally:
        stop(process)
