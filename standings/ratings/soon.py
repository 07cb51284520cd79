"""The ratings follow the results: the receivers of ``tournament.signals.results_changed``
and of an event's own changes, connected by ``standings.apps``.

The results are confirmed, reopened and published on lower floors (``races``,
``tournament.registration``), and players are merged there too, while the ratings live
here, above them: those floors may not import them. They send ``results_changed`` instead
(``results_changed_soon``, ``results_changed_here``), and this module answers it.

After the commit only: a rolled-back confirmation asks for nothing, and the task reads
what was committed. Inline without Redis (eager, as every task here); when the queue
cannot be reached the recompute runs here and now rather than being lost. A failure is
logged and never undoes the confirmation that asked for it (``robust``).

Once per transaction: what one request asks for (a publication and a change of date, the
events of a deleted championship, the old and the new game of an event) is gathered and
sent as one task when it commits. A game asked for in a savepoint rolled back since may
still go with the others: a recompute too many, never one missing.

Besides what the services ask, an event's own changes ask here too, whoever makes them (the
pages, the API, the admin, a championship deleted with its events): the receivers below,
connected by ``standings.apps``. An event counts in the ratings by its results once
published, its date (the order of the tables) and its game (the family): a change of one of
them, the withdrawal of its results, or its deletion recomputes what it counted in.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from typing import Any

from django.db import transaction
from kombu.exceptions import OperationalError
from redis.exceptions import RedisError

from standings.ratings.tasks import recompute_ratings
from tournament.games import registry

logger = logging.getLogger(__name__)


ALL = "*"  # every family
#: This thread's sender waiting for its transaction's commit, if any.
_waiting = threading.local()


class _Asked:
    """What one transaction asked for, sent once when it commits."""

    def __init__(self) -> None:
        self.games: set[str] = set()
        self.sent = False

    def __call__(self) -> None:
        self.sent = True
        _send([] if ALL in self.games else sorted(self.games))


def ratings_changed(sender: Any, *, games: Sequence[str], now: bool, **kwargs: Any) -> None:
    """``results_changed``: the ratings of ``games`` (none: every family) computed again,
    after the commit or, ``now``, inside the caller's transaction."""
    if now:
        recompute_ratings_here(*games)
    else:
        recompute_ratings_soon(*games)


def recompute_ratings_soon(*games: str) -> None:
    """Once the current transaction commits, compute the ratings of ``games`` (the game
    families, ``Event.game``) again from scratch; no game: every family (a merge or a split
    of players changes whose results are whose, in any game)."""
    asked: _Asked | None = getattr(_waiting, "asked", None)
    # Still in Django's list of what runs at the commit: this transaction asked already (a
    # rollback empties the list, and with it what it asked).
    waiting = transaction.get_connection().run_on_commit
    games_asked = set(games) if games else {ALL}
    if asked is not None and not asked.sent and any(func is asked for _s, func, _r in waiting):
        asked.games |= games_asked
        return
    asked = _waiting.asked = _Asked()
    asked.games = games_asked  # before on_commit, which runs it at once outside a transaction
    transaction.on_commit(asked, robust=True)


# --- An event's own changes ------------------------------------------------------------------

#: What of an event its ratings read (``standings.ratings.services.family_tables``).
COUNTED = ("date", "game", "game_name", "published_results")


def event_saving(
    sender: type[Any], instance: Any, update_fields: Any = None, **kwargs: Any
) -> None:
    """``pre_save`` of an event: a counted event whose date or game changes, or whose results
    are published or withdrawn (outside ``event_publish`` too), asks for its old and new
    families. A new event has no results yet: nothing to ask."""
    if instance.pk is None or kwargs.get("raw"):
        return
    if update_fields is not None and not set(update_fields) & set(COUNTED):
        return
    before = sender._default_manager.filter(pk=instance.pk).values(*COUNTED).first()
    if before is None:
        return
    if not (before["published_results"] or instance.published_results):
        return  # counted neither before nor after
    if any(before[name] != getattr(instance, name) for name in COUNTED):
        was = registry.spec_of(str(before["game"])).family(str(before["game_name"]))
        recompute_ratings_soon(was, instance.family)


def event_deleted(sender: type[Any], instance: Any, **kwargs: Any) -> None:
    """``post_delete`` of an event: its results counted no more."""
    if instance.published_results:
        recompute_ratings_soon(instance.family)


def recompute_ratings_here(*games: str) -> None:
    """Compute the ratings of ``games`` (none: every family) again now, inside the caller's
    transaction: a merge, a split or their undo changes whose results are whose, and the
    career page, the API and the ranking read the ratings as soon as it commits (never the
    kept player without ratings and the merged one still ranked). A failure undoes the
    change with it."""
    recompute_ratings(sorted(games) if games else [])


def _send(games: list[str]) -> None:
    task = recompute_ratings
    try:
        task.delay(games)
    except (OperationalError, RedisError, OSError):
        logger.warning("ratings %s: task queue unreachable, computed inline", games or "all")
        task.apply(args=(games,))
