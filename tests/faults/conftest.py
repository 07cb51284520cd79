"""Fixtures of the fault tests: the servers' environments, and the SQLite race day.

The SQLite race day takes a migration in a process of its own (a quarter of a minute on a
busy machine): it starts with the first fault test and runs while the PostgreSQL tests do,
each SQLite test copies the file it leaves, and the file is kept for the next runs until a
migration changes.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
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
    return paddock_environment(DATABASE_URL=database_url, PADDOCK_DATA_DIR=str(folder), **values)


#: What the SQLite race day is made of: a change to any of these builds it again.
DAY_SOURCES = ("*/migrations/*.py", "*/*/migrations/*.py", "tests/faults/world.py",
               "tests/faults/sqlite_day.py")  # fmt: skip


def day_fingerprint() -> str:
    digest = hashlib.sha256()
    for pattern in DAY_SOURCES:
        for path in sorted(ROOT.glob(pattern)):
            digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:20]


@dataclass
class SqliteDay:
    """The race day in a migrated SQLite file, built in the background.

    Kept between runs under the machine's temporary folder, named by a digest of every
    migration and of the code that builds it: a run after a change of either builds it
    again (a migration takes a quarter of a minute on a busy machine, every run).
    """

    folder: Path
    process: subprocess.Popen[bytes] | None
    kept: Path
    world: dict[str, Any] | None = None

    def ready(self) -> dict[str, Any]:
        if self.world is None and self.process is not None:
            process = self.process
            wait_until(lambda: process.poll() is not None, timeout=600, what="the SQLite day")
            output = (self.folder / "build.log").read_text()
            line = next((x for x in output.splitlines() if x.startswith("WORLD ")), None)
            assert process.returncode == 0 and line, output[-4000:]
            (self.folder / "world.json").write_text(line.removeprefix("WORLD "))
            keep(self.folder, self.kept)
        if self.world is None:
            self.world = json.loads((self.folder / "world.json").read_text())
        return self.world

    @property
    def key(self) -> str:
        return (self.folder / "key").read_text()

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


def keep(built: Path, kept: Path) -> None:
    """A copy of ``built`` at ``kept``, whole or not at all (another run may race); the
    days of other migrations left unused for a day are removed."""
    for old in kept.parent.glob("paddock-faults-day-*"):
        with contextlib.suppress(OSError):
            if old != kept and time.time() - old.stat().st_mtime > 86400:
                shutil.rmtree(old, ignore_errors=True)
    if kept.exists():
        return
    partial = Path(tempfile.mkdtemp(prefix=kept.name + ".", dir=kept.parent))
    for name in ("db.sqlite3", "world.json", "key"):
        shutil.copyfile(built / name, partial / name)
    try:
        partial.rename(kept)
    except OSError:  # another run kept it first
        shutil.rmtree(partial, ignore_errors=True)


@pytest.fixture(scope="session", autouse=True)
def sqlite_day(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SqliteDay]:
    kept = Path(tempfile.gettempdir()) / f"paddock-faults-day-{day_fingerprint()}"
    if (kept / "world.json").exists():
        kept.touch()  # in use: not removed as unused
        yield SqliteDay(kept, None, kept)
        return
    folder = tmp_path_factory.mktemp("sqlite-day")
    key = "faults-" + os.urandom(32).hex()
    (folder / "key").write_text(key)
    process = start(
        [sys.executable, "-m", "tests.faults.sqlite_day"],
        env=paddock_environment(PADDOCK_DATA_DIR=str(folder), SECRET_KEY=key),
        log=folder / "build.log",
        cwd=ROOT,
    )
    try:
        yield SqliteDay(folder, process, kept)
    finally:
        stop(process)
