"""Asking for the ratings to be computed again, from below them (floor 1).

The results are confirmed, reopened and published on lower floors (``races``,
``tournament.registration``), and players are merged there too, while the ratings live
on floor 5: those floors may not import them. They ask here instead, and the task is
found by its name, as a Celery worker finds it: the task modules named in
``CELERY_IMPORTS`` (settings), loaded on first use in a process that has not loaded them.

After the commit only: a rolled-back confirmation asks for nothing, and the task reads
what was committed. Inline without Redis (eager, as every task here); when the queue
cannot be reached the recompute runs here and now rather than being lost. A failure is
logged and never undoes the confirmation that asked for it (``robust``).
"""

from __future__ import annotations

import importlib
import logging
from functools import partial

from django.db import transaction
from kombu.exceptions import OperationalError
from redis.exceptions import RedisError

from tournament.celery import app

#: The task's name (``tournament.ratings.tasks.recompute_ratings``).
TASK = "tournament.recompute_ratings"

logger = logging.getLogger(__name__)


def recompute_ratings_soon(*games: str) -> None:
    """Once the current transaction commits, compute the ratings of ``games`` (the game
    families, ``Event.game``) again from scratch; no game: every family (a merge or a split
    of players changes whose results are whose, in any game)."""
    transaction.on_commit(partial(_send, sorted(set(games))), robust=True)


def _send(games: list[str]) -> None:
    if TASK not in app.tasks:
        # The task modules a worker loads (CELERY_IMPORTS), without the worker's start-up
        # checks that ``app.loader.import_default_modules()`` would run in a web process.
        for module in app.conf.imports:
            importlib.import_module(module)
    task = app.tasks[TASK]
    try:
        task.delay(games)
    except (OperationalError, RedisError, OSError):
        logger.warning("ratings %s: task queue unreachable, computed inline", games or "all")
        task.apply(args=(games,))
