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

from collections.abc import Iterable, Sequence
from typing import Any

from django.db import connection, transaction
from django.db.models import Model
from django.utils import timezone

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


def _insert(model: type[Model], fields: Sequence[str], rows: Iterable[tuple[Any, ...]]) -> None:
    """Inside the caller's transaction: ``rows`` of ``fields`` written into ``model``'s table
    (a foreign key given as its id). PostgreSQL: by COPY, four times faster than INSERTs for
    the 100,000 points of a federation's history (``bench``: ``ratings_10k_tables``)."""
    if connection.vendor != "postgresql":
        names = [model._meta.get_field(f).attname for f in fields]
        objects = (model(**dict(zip(names, row, strict=True))) for row in rows)
        model.objects.bulk_create(objects, batch_size=BATCH)
        return
    columns = ", ".join(f'"{model._meta.get_field(f).column}"' for f in fields)
    with (
        connection.cursor() as cursor,
        cursor.cursor.copy(f'COPY "{model._meta.db_table}" ({columns}) FROM STDIN') as copy,
    ):
        for row in rows:
            copy.write_row(row)


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
        now = timezone.now()
        _insert(
            PlayerRating,
            ("player", "family", "mu", "sigma", "rating", "races", "updated_at"),
            (
                (player, game, skill.mu, skill.sigma, skill.rating, skill.races, now)
                for player, skill in computed.skills.items()
            ),
        )
        _insert(
            RatingPoint,
            ("player", "family", "seq", "event", "table_number", "place", "mu", "sigma", "rating"),
            (
                (p.player, game, p.seq, p.event, p.number, p.place, p.mu, p.sigma, p.rating)
                for p in computed.points
            ),
        )
    return len(computed.skills)
