"""Skill ratings from race tables: no database here (floor 0).

Each table is one multiplayer match in the order of its classification, as race control
confirmed it (``races.results.rules.table_classification`` for Formula Dé, each game's own
rules for the others; the caller reads the places stored from them and never orders the
drivers again). The model is openskill's Plackett–Luce with the library's defaults: a new
player starts at mu 25, sigma 25/3; beta 25/6 is the spread of one race's performance;
tau 25/300 is added to sigma before every race, so that a rating keeps moving over the
seasons instead of freezing. Players are ordered by the conservative rating mu − 3 sigma:
the skill they have at least, with 99.7 % confidence.

Deterministic by construction: tables are processed in a fixed order (event date, event,
table number) and each table's seats in a fixed order (place, then player), so the same
tables give the same floats bit for bit, whatever order they were read in. Hence a
correction recomputes from the first table it changes (DOMAIN.md): rating the tables after
``k`` from each player's skill after the first ``k`` gives, to the bit, what rating them all
from the start gives (``rate``'s ``before``, ``unchanged``).
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from tournament.rules.skill import MODEL, MU, SIGMA


def conservative(mu: float, sigma: float) -> float:
    """The rating shown and ranked on: mu − 3 sigma."""
    return mu - 3 * sigma


class Seat(NamedTuple):
    """A player at a table and their place in its classification (1 best; equal places
    are a tie). Non-starters are not seats: they played no race. (Named tuples, as the
    others here: a federation's history makes hundreds of thousands of them.)"""

    player: int
    place: int


class Table(NamedTuple):
    """A confirmed race table: where it falls in the processing order, and its seats."""

    date: datetime.date
    event: int
    number: int
    seats: tuple[Seat, ...]

    @property
    def key(self) -> tuple[datetime.date, int, int]:
        return (self.date, self.event, self.number)


class Skill(NamedTuple):
    """A player's rating: openskill's mu and sigma, and how many races made it."""

    mu: float = MU
    sigma: float = SIGMA
    races: int = 0

    @property
    def rating(self) -> float:
        return conservative(self.mu, self.sigma)


class Point(NamedTuple):
    """A player's rating right after a table (``seq``: the table's rank in the processing
    order of the rated tables, from 1)."""

    player: int
    seq: int
    event: int
    number: int
    place: int
    mu: float
    sigma: float

    @property
    def rating(self) -> float:
        return conservative(self.mu, self.sigma)


@dataclass(frozen=True)
class Ratings:
    skills: dict[int, Skill]
    points: list[Point]


def processing_order(tables: Iterable[Table]) -> list[Table]:
    """Event date, then event, then table number; a table given twice raises ValueError."""
    ordered = sorted(tables, key=lambda table: table.key)
    for before, after in zip(ordered, ordered[1:], strict=False):
        if before.key == after.key:
            raise ValueError(f"table {after.number} of event {after.event} is given twice")
    return ordered


def match(table: Table) -> list[Seat]:
    """The table as one match: seats by place, then player (a fixed order, whatever the
    order of the input); a player seated twice (two drivers merged into one player) keeps
    their better place. Empty when fewer than two players remain: no match to learn from."""
    best: dict[int, int] = {}
    for seat in table.seats:
        if seat.player not in best or seat.place < best[seat.player]:
            best[seat.player] = seat.place
    seats = sorted((Seat(player, place) for player, place in best.items()), key=_seat_order)
    return seats if len(seats) >= 2 else []


def _seat_order(seat: Seat) -> tuple[int, int]:
    return (seat.place, seat.player)


def matches(tables: Iterable[Table]) -> list[tuple[Table, list[Seat]]]:
    """The tables that are a match, in the processing order, each with its match: the
    ``seq`` of the n-th is n."""
    return [(table, seats) for table in processing_order(tables) if (seats := match(table))]


def unchanged(
    rated: Sequence[tuple[Table, list[Seat]]], stored: Sequence[tuple[int, int, tuple[Seat, ...]]]
) -> int:
    """How many of the first ``rated`` tables (``matches``) are the ``stored`` ones, by seq:
    the same event and table number, the same players at the same places."""
    count = 0
    for (table, seats), (event, number, kept) in zip(rated, stored, strict=False):
        if (table.event, table.number, tuple(seats)) != (event, number, kept):
            break
        count += 1
    return count


def rate(
    tables: Sequence[Table], *, before: Mapping[int, Skill] | None = None, seq: int = 0
) -> Ratings:
    """Every player's rating after ``tables``, and their rating after each table they played
    (the career chart's points). From scratch; or after ``seq`` tables already rated, that
    come before all of ``tables``, from each player's skill after them (``before``, kept in
    the answer for those ``tables`` do not seat)."""
    before = before or {}
    current = {player: MODEL.rating(mu=s.mu, sigma=s.sigma) for player, s in before.items()}
    races = {player: skill.races for player, skill in before.items()}
    points: list[Point] = []
    for table, seats in matches(tables):
        seq += 1
        teams = [[current.get(seat.player) or MODEL.rating()] for seat in seats]
        rated = MODEL.rate(teams, ranks=[seat.place for seat in seats])
        for seat, (after,) in zip(seats, rated, strict=True):
            current[seat.player] = after
            races[seat.player] = races.get(seat.player, 0) + 1
            points.append(
                Point(
                    seat.player, seq, table.event, table.number, seat.place, after.mu, after.sigma
                )
            )
    skills = {
        player: Skill(after.mu, after.sigma, races[player]) for player, after in current.items()
    }
    return Ratings(skills=skills, points=points)
