"""Shared test setup: browser launch, CI strictness, small data builders."""

from __future__ import annotations

import datetime
import fcntl
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import hypothesis
import pytest
from playwright.sync_api import expect

# pytest-playwright's sync API runs an event loop in the test thread.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
# A page's state awaited in the browser: 10 s, not Playwright's 5, for a poll's or a save's
# answer from a live server that shares two cores with three test workers and their servers
# (a state, never a clock: a passing wait ends as soon as the state is there).
expect.set_options(timeout=10_000)
# Hypothesis's own clocks (a 200 ms deadline per example, the "too slow" health check of
# its data generation) fail a property on a loaded machine, not on a wrong rule: a property
# is judged by its examples, never by their speed.
hypothesis.settings.register_profile(
    "paddock",
    deadline=None,
    suppress_health_check=[hypothesis.HealthCheck.too_slow],
)
hypothesis.settings.load_profile("paddock")

#: Debian's headless shell (package chromium-headless-shell: Chromium without its windows, what
#: Playwright itself drives headless; about 40 % less CPU than the whole browser run headless),
#: else the whole browser.
CHROMIUM = (
    shutil.which("chromium-headless-shell") or shutil.which("chromium") or "/usr/bin/chromium"
)
IN_CI = bool(os.environ.get("CI"))
#: The services a test may need, and the words a skip for its absence names.
SERVICES = {"DATABASE_URL": r"postgres|DATABASE_URL", "REDIS_URL": r"redis|REDIS_URL"}
#: CI's second pass (.ci/run): a fresh machine's, without PostgreSQL and Redis.
WITHOUT_SERVICES = IN_CI and not any(os.environ.get(name) for name in SERVICES)


def pytest_sessionstart(session: pytest.Session) -> None:
    if IN_CI and not WITHOUT_SERVICES:
        missing = [name for name in SERVICES if not os.environ.get(name)]
        if missing:
            raise pytest.UsageError(
                f"CI runs against real services: set {', '.join(missing)} (or neither, for "
                "the fresh machine's pass)."
            )


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node: Any, ids: list[str]) -> None:
    # The API fuzz's items (schemathesis) share one node id per test function; pytest-xdist's
    # grouping modes schedule by node id and would run one item of each, silently. make test
    # uses worksteal; another mode must not quietly drop tests.
    dist = node.config.getoption("dist")
    if dist in ("loadfile", "loadscope", "loadgroup") and len(set(ids)) < len(ids):
        raise pytest.UsageError(
            f"--dist {dist} would run one of the tests that share a node id: use worksteal."
        )


# No process left behind: the process check, a plugin of its own (tests/leftovers.py).
pytest_plugins = ["tests.leftovers"]


def skip_reason(report: Any) -> str:
    longrepr = getattr(report, "longrepr", None)
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2])
    return str(longrepr or "")


def allowed_skip(reason: str) -> bool:
    """In CI's pass without services, a skip that names a missing service (PostgreSQL,
    Redis) is the fresh machine's; any other is a failure. With the services, none is."""
    if not WITHOUT_SERVICES:
        return False
    return any(re.search(words, reason, re.IGNORECASE) for words in SERVICES.values())


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    # In CI a test skipped for a missing service or browser is a failure, not a pass; in the
    # fresh machine's pass, but for the skips that name the services it runs without.
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skips = reporter.stats.get("skipped", []) if reporter else []
    refused = [skip for skip in skips if not allowed_skip(skip_reason(skip))]
    if IN_CI and refused and session.exitstatus == 0:
        for skip in refused[:20]:
            reporter.write_line(f"CI: skipped {skip.nodeid}: {skip_reason(skip)}", red=True)
        reporter.write_line(f"CI: {len(refused)} test(s) skipped; failing the run.", red=True)
        session.exitstatus = 1


@pytest.fixture(scope="session")
def django_db_setup(
    django_test_environment: None,
    django_db_blocker: Any,
    django_db_modify_db_settings: None,
    django_db_keepdb: bool,
    worker_id: str,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[None]:
    """The test database: under pytest-xdist on PostgreSQL, a copy of one migrated template
    (tests/template_db.py); otherwise made as pytest-django makes it."""
    from django.db import connection
    from django.test.utils import setup_databases, teardown_databases

    from tests.template_db import copy_test_database, drop_test_database

    copied = worker_id != "master" and connection.vendor == "postgresql"
    with django_db_blocker.unblock():
        if copied:
            original_name = connection.settings_dict["NAME"]
            copy_test_database(connection, tmp_path_factory.getbasetemp().parent)
        else:
            config = setup_databases(verbosity=0, interactive=False, keepdb=django_db_keepdb)
    yield
    if django_db_keepdb and not copied:
        return
    with django_db_blocker.unblock():
        if copied:
            drop_test_database(connection, original_name)
        else:
            teardown_databases(config, verbosity=0)


@pytest.fixture(scope="session")
def run_folder(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Path:
    """A folder every pytest-xdist worker of this run sees, and no other run."""
    base = tmp_path_factory.getbasetemp()
    return base if worker_id == "master" else base.parent


def made_once(path: Path, make: Callable[[Path], None]) -> Path:
    """``path``, made by ``make`` by the first worker of the run that asks for it; the others
    wait for it under a lock (what costs seconds of CPU is done once, not once a worker)."""
    with open(path.parent / f"{path.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        ready = path.parent / f"{path.name}.ready"
        if not ready.exists():
            make(path)
            ready.touch()
    return path


#: Migrates an in-memory SQLite database as this code's migrations do, and copies it out.
MIGRATED_SQLITE = """
import sqlite3, sys
import django
django.setup()
from django.core.management import call_command
from django.db import connection
call_command("migrate", verbosity=0, interactive=False)
connection.ensure_connection()
with sqlite3.connect(sys.argv[1]) as target:
    connection.connection.backup(target)
"""


@pytest.fixture(scope="session")
def migrated_sqlite(run_folder: Path) -> Path:
    """A SQLite database as this code's migrations make it (in a process of its own, whatever
    the test database is), made once for the run: copy it, never write to it."""

    def migrate(path: Path) -> None:
        root = Path(__file__).resolve().parents[1]
        env = {**os.environ, "DATABASE_URL": "sqlite://:memory:", "PYTHONPATH": str(root)}
        made = subprocess.run(
            [sys.executable, "-c", MIGRATED_SQLITE, str(path)],
            cwd=root, env=env, capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        assert made.returncode == 0, made.stderr

    return made_once(run_folder / "migrated.sqlite3", migrate)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict) -> dict:
    if not os.path.exists(CHROMIUM):
        pytest.skip("Chromium is not installed (apt-get install chromium).")
    return {
        **browser_type_launch_args,
        "executable_path": CHROMIUM,
        "args": [
            "--no-sandbox",
            "--headless",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            # A venue's plain-HTTP name, on loopback (tests/browser/test_offline.py).
            "--host-resolver-rules=MAP paddock.test 127.0.0.1",
        ],
    }


@pytest.fixture
def organiser(django_user_model):
    return django_user_model.objects.create_user("pc", password="pc-password-1")


@pytest.fixture
def championship(organiser):
    from tournament.models import Championship

    championship = Championship.objects.create(
        slug="cf", name="Coupe de France", season="2026", points_scale=[10, 8, 6]
    )
    championship.organisers.add(organiser)
    return championship


@pytest.fixture
def circuit():
    from tournament.models import Circuit

    return Circuit.objects.create(
        slug="monza",
        name="Monza",
        rain_from=1,
        rain_to=4,
        variable_from=5,
        variable_to=8,
        sun_from=9,
        sun_to=20,
    )


@pytest.fixture
def make_event(championship, circuit):
    from tournament.models import Driver, Entry, Event, Team

    def build(n_drivers: int = 6, **options):
        event = Event.objects.create(
            championship=championship,
            slug=options.pop("slug", "gp"),
            name="Grand Prix d'Été",
            date=datetime.date(2026, 7, 14),
            circuit=circuit,
            **options,
        )
        team = Team.objects.get_or_create(championship=championship, name="Écurie Étoile")[0]
        for number in range(1, n_drivers + 1):
            driver, _ = Driver.objects.get_or_create(
                championship=championship,
                number=number,
                defaults={
                    "first_name": f"Pilote{number}",
                    "last_name": "Lefèvre",
                    "team": team if number % 2 else None,
                },
            )
            Entry.objects.create(event=event, driver=driver)
        return event

    return build


@pytest.fixture(autouse=True)
def _fast_password_hasher(settings):
    # Real hashing costs ~0.3 s a user; the tests are about Paddock, not PBKDF2.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _english_outside_requests():
    """Services and pure code speak English in tests unless a test says otherwise.

    Requests still get French by default through the middleware, as in production; tests
    that read a page's words in English set the language cookie.
    """
    from django.utils import translation

    translation.activate("en")
    yield
    translation.deactivate()


@pytest.fixture(autouse=True)
def _celery_inline(request):
    """Tasks run inline in every test but those that start a real worker.

    With REDIS_URL set, nothing would consume a task sent by a page test; worker tests
    (marked ``celery_worker``) get the real broker instead.
    """
    from paddock.celery import app

    if request.node.get_closest_marker("celery_worker"):
        yield
        return
    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = previous


@pytest.fixture(autouse=True)
def _empty_cache():
    """Each test starts with an empty cache: a rolled-back test leaves the database's change
    counters where they were, so the next test's pages would meet its keys
    (tournament.public.cache)."""
    from django.core.cache import cache

    cache.clear()
    yield


@pytest.fixture(autouse=True)
def _fresh_token_failures():
    """Bad-link failures are counted per address, and every test client is 127.0.0.1:
    each test starts with none (tournament.site.ratelimit)."""
    from tournament.site import ratelimit

    ratelimit.forget("127.0.0.1")
    yield


@pytest.fixture(autouse=True)
def _no_context_copies(request: pytest.FixtureRequest) -> Iterator[None]:
    """Django's test client keeps a copy of every template's context it rendered
    (``response.context``): 5 to 30 % of a page's time in the client, for tests that read
    statuses, headers and HTML. A module that reads ``response.context`` says so with
    ``pytest.mark.keeps_context``."""
    if request.node.get_closest_marker("keeps_context"):
        yield
        return
    import django.test.client

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(django.test.client, "store_rendered_templates", lambda *a, **k: None)
        yield
