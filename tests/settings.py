"""The settings the suite runs under: the app's own, with each pytest-xdist worker on a
Redis database of its own.

``make test`` runs the suite on every core. pytest-django already gives each worker its own
test database (``test_<name>_gw0``, …); the cache, the Celery broker and everything a test
starts from the environment (a worker, a subprocess) must not be shared either, or one
worker's ``cache.clear()`` empties another's pages and one worker's Celery worker takes the
other's tasks. Read before ``paddock.settings``, which reads ``REDIS_URL`` once.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

#: Redis's default number of databases: one per worker at most.
REDIS_DATABASES = 16


def worker_index() -> int:
    """0 for a run on one core or for the first worker (``gw0``), n for ``gw<n>``."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    return int(worker.removeprefix("gw")) if worker.startswith("gw") else 0


def redis_url_of_worker(url: str, index: int) -> str:
    """``url`` with the database number moved by ``index`` (``redis://h:p/0`` → ``/1``)."""
    parts = urlsplit(url)
    base = int(parts.path.strip("/") or 0)
    database = base + index
    if database >= REDIS_DATABASES:
        raise RuntimeError(
            f"pytest worker {index} would use Redis database {database}: Redis has "
            f"{REDIS_DATABASES}; run fewer workers (-n) or start from a lower database."
        )
    return urlunsplit(parts._replace(path=f"/{database}"))


if os.environ.get("REDIS_URL") and worker_index():
    os.environ["REDIS_URL"] = redis_url_of_worker(os.environ["REDIS_URL"], worker_index())

from paddock.settings import *  # noqa: E402, F403

# pytest-django turns DEBUG off during the tests, and WhiteNoise then scans the whole static
# folder each time a test client loads the middleware: about 0.1 s a client, and the suite
# makes thousands of clients. Look a file up when it is asked for instead, as in development.
# Static files as production serves them are tested for real by the venue test (gunicorn with
# the production settings, in a process of its own).
WHITENOISE_AUTOREFRESH = True

# The test database is emptied by DELETE, not TRUNCATE, after a transactional test: the same
# empty tables in milliseconds instead of a second (tests/postgresql/base.py).
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":  # noqa: F405
    DATABASES["default"]["ENGINE"] = "tests.postgresql"  # noqa: F405

# Photos of the signed sheets land in a folder of this process, never in the repository;
# and the last backup's outcome (tournament.site.backup_state). Both gone when it ends.
MEDIA_ROOT = Path(tempfile.mkdtemp(prefix="paddock-test-media-"))
BACKUP_STATE_FILE = Path(tempfile.mkdtemp(prefix="paddock-test-state-")) / "backup-state.json"
for _folder in (MEDIA_ROOT, BACKUP_STATE_FILE.parent):
    atexit.register(shutil.rmtree, _folder, ignore_errors=True)
