"""Run as ``python -m tests.faults.sqlite_day``: the SQLite file of ``PADDOCK_DATA_DIR``
migrated with the settings' own SQLite options (WAL, as ``make venue`` has it), the fault
tests' race day built in it (``tests.faults.world``), printed as one ``WORLD {json}`` line.

A process of its own because settings are read at import: the suite's database may be
PostgreSQL. With the production's password hasher: the servers started on this file log
race control in. The SQLite tests copy the file this leaves, once per test.
"""

from __future__ import annotations

import json
import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "paddock.settings")
django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402

from tests.faults.world import race_day  # noqa: E402

call_command("migrate", verbosity=0, interactive=False)
world = race_day()
with connection.cursor() as cursor:  # one file to copy: the write-ahead log folded into it
    cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)")
connection.close()
print("WORLD " + json.dumps(world))
