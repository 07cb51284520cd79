"""The ratings of a game family computed again from scratch, in one transaction.

The order of each table is the one stored when race control confirmed it (``ResultLine``:
its ``place``, shared on a tie, else its ``position``), which the results' own rules made
(``races.results.rules``, ``races.games._ranking`` for the other games): read here, never
ordered again. Counted: the confirmed tables of events whose results are published, so that
the public ranking never leaks a result race control has not released; non-starters are
left out (they played no race), the disqualified stay where the results class them (last).

A full recompute (delete, then bulk create) rather than an update from the first table that
changed: a reopened or corrected result then gives exactly what a fresh computation of the
same results gives, and a merge or split of players needs nothing of its own.
"""

from __future__ import annotations

from django.db import connection, transaction

from races.models import ResultLine
from tournament.models import Event, PlayerRating, RatingPoint
from tournament.ratings import rules

#: The game families: one per ``Event.game`` (the quick rules are ``formula_de``).
GAMES: tuple[str, ...] = tuple(Event.Game.values)
#: Any number: the transaction lock that runs two recomputes of one family one at a time.
LOCK_CLASS = 0x52617469  # "Rati"
BATCH = 5000


def family_tables(*, game: str) -> list[rules.Table]:
    """The counted tables of ``game``, as the pure rules take them (any order)."""
    rows = (
        ResultLine.objects.filter(
            event__game=game, event__published_results=True, driver__player__isnull=False
        )
        .exclude(status=ResultLine.Status.DNS)
        .values_list(
            "event_id", "event__date", "table__number", "driver__player_id", "place", "position"
        )
    )
    seats: dict[tuple[int, int], list[rules.Seat]] = {}
    dates = {}
    for event, date, number, player, place, position in rows.iterator(chunk_size=BATCH):
        dates[event] = date
        seats.setdefault((event, number), []).append(
            rules.Seat(player, position if place is None else place)
        )
    return [
        rules.Table(dates[event], event, number, tuple(table))
        for (event, number), table in seats.items()
    ]


def _lock(game: str) -> None:
    """Inside the transaction: wait for another recompute of ``game`` to commit, so that
    this one reads its result and neither deletes rows the other is writing. SQLite takes
    the database's write lock at the start of the transaction already (IMMEDIATE)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [LOCK_CLASS, GAMES.index(game)])


def ratings_recompute(*, game: str) -> int:
    """Every rating of ``game`` and every point of its players' careers, computed again
    from the counted tables and stored in place of the old ones. Idempotent. Answers how
    many players are rated."""
    if game not in GAMES:
        raise ValueError(f"unknown game: {game!r}")
    with transaction.atomic():
        _lock(game)
        computed = rules.rate(family_tables(game=game))
        PlayerRating.objects.filter(family=game).delete()
        RatingPoint.objects.filter(family=game).delete()
        PlayerRating.objects.bulk_create(
            (
                PlayerRating(
                    player_id=player,
                    family=game,
                    mu=skill.mu,
                    sigma=skill.sigma,
                    rating=skill.rating,
                    races=skill.races,
                )
                for player, skill in computed.skills.items()
            ),
            batch_size=BATCH,
        )
        RatingPoint.objects.bulk_create(
            (
                RatingPoint(
                    player_id=point.player,
                    family=game,
                    seq=point.seq,
                    event_id=point.event,
                    table_number=point.number,
                    place=point.place,
                    mu=point.mu,
                    sigma=point.sigma,
                    rating=point.rating,
                )
                for point in computed.points
            ),
            batch_size=BATCH,
        )
    return len(computed.skills)
