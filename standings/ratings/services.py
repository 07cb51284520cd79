"""The ratings of a game family computed again from scratch, in one transaction.

The order of each table is the one stored when race control confirmed it (``ResultLine``:
its ``place``, shared on a tie, else its ``position``), which the results' own rules made
(``races.results.rules``, ``races.games._ranking`` for the other games): read here, never
ordered again. Counted: the confirmed tables of events whose results are published, so that
the public ranking never leaks a result race control has not released; non-starters are
left out (they played no race), the disqualified stay where the results class them (last).

From the first table that changed (DOMAIN.md): the counted tables are read and compared,
in the processing order, with the tables the stored points were computed from (same event,
table number, players and places); the points before the first difference stay as they
are, the rest are rated again from each player's skill after them (the pure rules make that
bit for bit what a computation from the start gives). A publication of the latest event
then rates its own tables only (a federation's 10,000 tables: the whole recompute took
3.6 s), a correction of an older one the tables from it on, a merge or split of players the
tables from the first its players sat at. The players' ratings are written where they
differ. A recompute that finds nothing changed writes nothing. ``full`` (``manage.py
ratings``) computes everything from the start, as does a stored first table that this
model no longer rates the same (its parameters or the library changed).
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Sequence
from itertools import groupby, takewhile
from typing import Any

from django.db import connection, transaction
from django.db.models import Model
from django.utils import timezone

from races.models import ResultLine
from standings.ratings import rules
from tournament.games.selectors import families, family_events
from tournament.models import PlayerRating, RatingPoint

#: The game families: one per ``Event.game`` (the quick rules are ``formula_de``), and one
#: per named game in use (``tournament.games.selectors.families``): read when asked.
#: Any number: the transaction lock that runs two recomputes of one family one at a time.
LOCK_CLASS = 0x52617469  # "Rati"
BATCH = 5000


def family_tables(*, game: str) -> list[rules.Table]:
    """The counted tables of ``game``, as the pure rules take them (any order)."""
    rows = (
        ResultLine.objects.filter(
            event__in=family_events(game),
            event__published_results=True,
            driver__player__isnull=False,
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
            # A family's own number: its name's CRC (a named game's family is any slug).
            key = zlib.crc32(game.encode()) & 0x7FFFFFFF
            cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [LOCK_CLASS, key])


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


def stored_families() -> list[str]:
    """Every family with ratings or career points stored, in use or not (a renamed game's
    old family keeps its rows until computed again, then has none)."""
    return sorted(
        set(PlayerRating.objects.values_list("family", flat=True).distinct())
        | set(RatingPoint.objects.values_list("family", flat=True).distinct())
    )


def ratings_recompute(*, game: str, full: bool = False) -> int:
    """Every rating of ``game`` and every point of its players' careers, as computed from
    the counted tables, stored: from the first table that changed, or from the start when
    ``full``. Idempotent. Answers how many players are rated. A family no event counts in
    any more (a renamed game's old one) is emptied."""
    if game not in families() and game not in stored_families():
        raise ValueError(f"unknown game: {game!r}")
    with transaction.atomic():
        _lock(game)
        rated = rules.matches(family_tables(game=game))
        points = [] if full else _stored_points(game)
        stored = _stored_tables(points)
        kept = rules.unchanged(rated, stored)
        if kept and rules.rate([rated[0][0]]).points != _points_of(points, seq=1):
            kept = 0  # computed by another model: everything again
        computed = rules.rate(
            [table for table, _seats in rated[kept:]], before=_skills_after(points, kept), seq=kept
        )
        RatingPoint.objects.filter(family=game, seq__gt=kept).delete()
        _insert(
            RatingPoint,
            ("player", "family", "seq", "event", "table_number", "place", "mu", "sigma", "rating"),
            (
                (p.player, game, p.seq, p.event, p.number, p.place, p.mu, p.sigma, p.rating)
                for p in computed.points
            ),
        )
        _store_skills(game, computed.skills)
    return len(computed.skills)


#: A stored point as read: seq, event, table number, player, place, mu, sigma.
Stored = tuple[int, int, int, int, int, float, float]


def _stored_points(game: str) -> list[Stored]:
    """The family's points, by seq, then as the seats of a match (place, then player)."""
    return list(
        RatingPoint.objects.filter(family=game)
        .order_by("seq", "place", "player_id")
        .values_list("seq", "event_id", "table_number", "player_id", "place", "mu", "sigma")
        .iterator(chunk_size=BATCH)
    )


def _stored_tables(points: list[Stored]) -> list[tuple[int, int, tuple[rules.Seat, ...]]]:
    """The tables the stored points were computed from, the n-th of seq n (up to a gap)."""
    tables = []
    for seq, rows in groupby(points, key=lambda point: point[0]):
        if seq != len(tables) + 1:
            break
        seats = list(rows)
        event, number = seats[0][1], seats[0][2]
        tables.append((event, number, tuple(rules.Seat(p[3], p[4]) for p in seats)))
    return tables


def _points_of(points: list[Stored], *, seq: int) -> list[rules.Point]:
    return [
        rules.Point(player, s, event, number, place, mu, sigma)
        for s, event, number, player, place, mu, sigma in takewhile(lambda p: p[0] <= seq, points)
        if s == seq
    ]


def _skills_after(points: list[Stored], seq: int) -> dict[int, rules.Skill]:
    """Each player's skill after the first ``seq`` tables: their last point's, and how many
    of them they played."""
    skills: dict[int, rules.Skill] = {}
    for s, _event, _number, player, _place, mu, sigma in points:
        if s > seq:
            break
        played = skills.get(player)
        skills[player] = rules.Skill(mu, sigma, (played.races if played else 0) + 1)
    return skills


def _store_skills(game: str, skills: dict[int, rules.Skill]) -> None:
    """The players' ratings of ``game`` made those of ``skills``, rewriting those that
    differ only."""
    stored = {
        player: rules.Skill(mu, sigma, races)
        for player, mu, sigma, races in PlayerRating.objects.filter(family=game).values_list(
            "player_id", "mu", "sigma", "races"
        )
    }
    changed = [player for player, skill in skills.items() if stored.get(player) != skill]
    gone = [player for player in stored if player not in skills]
    rows = PlayerRating.objects.filter(family=game)
    if len(changed) + len(gone) > BATCH:  # all at once rather than a query of that many ids
        rows.delete()
        changed = list(skills)
    elif changed or gone:
        rows.filter(player__in=[*changed, *gone]).delete()
    now = timezone.now()
    written = {player: skills[player] for player in changed}
    _insert(
        PlayerRating,
        ("player", "family", "mu", "sigma", "rating", "races", "updated_at"),
        (
            (player, game, skill.mu, skill.sigma, skill.rating, skill.races, now)
            for player, skill in written.items()
        ),
    )
