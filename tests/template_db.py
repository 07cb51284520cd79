"""Each pytest-xdist worker's PostgreSQL test database, copied from one migrated database;
and how a module empties the test database after its committed world (``empty_database``).

Migrating a test database takes seconds of CPU; with one worker per core and one more, every
worker migrated its own at the same moment. Here the first worker to get the lock migrates
``test_<name>_template`` once, and every worker (the first included) gets its database as a
copy of it (``CREATE DATABASE … TEMPLATE``), well under a second each. The copy is the
database the migrations made, byte for byte: nothing is faked.

The template stays in PostgreSQL between runs (a test database, like the workers'); the next
run's first worker drops it and migrates it again, so a changed migration is always applied.
"""

from __future__ import annotations

import fcntl
from pathlib import Path
from typing import Any

from django.core.management import call_command


def template_name(test_name: str) -> str:
    """``test_root_gw1`` → ``test_root_template``: one template for the workers of a run."""
    base, _gw, _index = test_name.rpartition("_gw")
    return f"{base or test_name}_template"


def copy_test_database(connection: Any, shared: Path) -> str:
    """Make ``connection``'s test database a copy of the run's template; its name.

    ``shared`` is a folder every worker of this run sees (pytest's base temporary folder's
    parent): the lock and the marker that the template is ready live there.
    """
    from django.conf import settings

    creation = connection.creation
    test_name = creation._get_test_db_name()
    template = template_name(test_name)
    test_settings = connection.settings_dict["TEST"]
    with open(shared / "template-db.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        ready = shared / f"{template}.ready"
        if not ready.exists():
            original, test_settings["NAME"] = test_settings.get("NAME"), template
            try:
                creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
            finally:
                test_settings["NAME"] = original
            connection.close()  # a template with a connection open cannot be copied
            ready.touch()
        with creation._nodb_cursor() as cursor:
            quoted = connection.ops.quote_name
            cursor.execute(f"DROP DATABASE IF EXISTS {quoted(test_name)}")
            cursor.execute(f"CREATE DATABASE {quoted(test_name)} TEMPLATE {quoted(template)}")
    connection.close()
    connection.settings_dict["NAME"] = test_name
    settings.DATABASES[connection.alias]["NAME"] = test_name
    return test_name


def drop_test_database(connection: Any, original_name: str) -> None:
    """Drop the worker's copy at the end of the run, even if a process the tests started
    (a server, a Celery worker) still holds a connection to it; then the settings name the
    real database again, as Django's own teardown leaves them."""
    from django.conf import settings

    test_name = connection.settings_dict["NAME"]
    connection.close()
    with connection.creation._nodb_cursor() as cursor:
        cursor.execute(
            f"DROP DATABASE IF EXISTS {connection.ops.quote_name(test_name)} WITH (FORCE)"
        )
    connection.settings_dict["NAME"] = original_name
    settings.DATABASES[connection.alias]["NAME"] = original_name


def empty_database() -> None:
    """Every table emptied after a module's committed world, as after a transactional test:
    by ``DELETE`` on PostgreSQL (``tests/postgresql``), sequences kept. ``flush`` resets them
    by default, with a ``TRUNCATE`` of every table: 0.4 to 1.3 s each time, some thirty
    times a run."""
    call_command("flush", interactive=False, verbosity=0, reset_sequences=False)
