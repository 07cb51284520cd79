"""What the lower floors tell the floors above them, without importing them (ARCHITECTURE.md,
"Signals").

``results_changed``: results that the readers across events count changed: a table
confirmed or reopened, a sanction's rescore, results published or withdrawn, an event's date
or game, a return from a laptop, a merge or a split of players (whose results are whose).
Sent with ``games``, the game families concerned (``Event.family``; empty: every family),
and ``now``: False asks for the work once the current transaction commits (once per
transaction, whatever was asked in it), True for it inside the caller's transaction (a
merge's ratings must commit with the merge). ``standings`` connects it in its ``ready()``
(``standings.ratings.soon``: the ratings' recompute); nothing here knows who listens.
"""

from __future__ import annotations

from django.dispatch import Signal

results_changed = Signal()


def results_changed_soon(*games: str) -> None:
    """Once the current transaction commits, what reads the results of ``games`` (no game:
    every family) follows them: the ratings are computed again."""
    results_changed.send(sender=None, games=games, now=False)


def results_changed_here(*games: str) -> None:
    """Now, inside the caller's transaction: what reads the results of ``games`` (none:
    every family) follows them before the transaction commits; a failure undoes it."""
    results_changed.send(sender=None, games=games, now=True)


#: ``players_deciders``: asked by ``tournament.players.changes`` whether ``actor``, who does not
#: organise a championship of each side, may still merge, split, undo or dismiss players whose
#: drivers are in ``sides`` (sets of championship ids); one receiver answering True allows it.
#: ``standings.leagues`` answers for a league's organisers over its counted rounds' drivers
#: (DOMAIN.md "A season across clubs": they join drivers of its rounds on purpose).
players_deciders = Signal()
