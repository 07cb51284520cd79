"""The ratings' task: thin, takes the games' names, safe to run twice (a recompute from
the first table that changed).

Sent by ``standings.ratings.soon`` when the floors below say that results changed
(``tournament.signals.results_changed``); a worker loads this module from ``CELERY_IMPORTS``.
"""

from __future__ import annotations

from celery import shared_task

from standings.ratings.services import ratings_recompute, stored_families
from tournament.games.selectors import families

#: The task's name, fixed: the messages queued keep it whatever module holds the task.
TASK = "tournament.recompute_ratings"


@shared_task(name=TASK, ignore_result=True)
def recompute_ratings(games: list[str] | None = None) -> dict[str, int]:
    """The ratings of ``games`` (every family when none) computed again; unknown names are
    skipped. A family no event counts in any more but still stored (a renamed game's old
    family) is computed again too: emptied. Answers how many players each family rates."""
    known = families() + [game for game in stored_families() if game not in families()]
    chosen = [game for game in known if not games or game in games]
    return {game: ratings_recompute(game=game) for game in chosen}
