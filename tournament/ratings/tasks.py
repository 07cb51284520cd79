"""The ratings' task: thin, takes the games' names, safe to run twice (a recompute from
the first table that changed).

Sent by name from the floors below (``tournament.ratings.soon``); a worker loads this
module from ``CELERY_IMPORTS``.
"""

from __future__ import annotations

from celery import shared_task

from tournament.games.selectors import families
from tournament.ratings.services import ratings_recompute, stored_families
from tournament.ratings.soon import TASK


@shared_task(name=TASK, ignore_result=True)
def recompute_ratings(games: list[str] | None = None) -> dict[str, int]:
    """The ratings of ``games`` (every family when none) computed again; unknown names are
    skipped. A family no event counts in any more but still stored (a renamed game's old
    family) is computed again too: emptied. Answers how many players each family rates."""
    known = families() + [game for game in stored_families() if game not in families()]
    chosen = [game for game in known if not games or game in games]
    return {game: ratings_recompute(game=game) for game in chosen}
