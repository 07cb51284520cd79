"""Each race table's favourites, for the fun of the hall: the chance each player at the table
has to win it, from their current ratings (openskill's Plackett–Luce ``predict_win``).

Shown on the event page and the room's projector only where the event says so
(``Event.show_favourites``, off by default). A player without a rating in the event's game
family (a newcomer, a driver not linked to a player yet) counts with the model's defaults,
as the ratings themselves start them.

Ground floor: the race tables are read through the event's and tables' reverse relations
(``event.race_tables``, ``table.slots``), as the event page reads its seats, never by
importing the race floor.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from tournament.models import Driver, Event, PlayerRating
from tournament.rules.skill import MODEL  # the ratings' own model and parameters

#: How many favourites each table shows.
TOP = 3


@dataclass(frozen=True)
class Skill:
    """A player's rating as the model reads it."""

    mu: float
    sigma: float


DEFAULT = Skill(mu=MODEL.mu, sigma=MODEL.sigma)
#: The conservative rating (mu − 3 sigma) of a player the model has not seen: 0.
DEFAULT_RATING = MODEL.mu - 3 * MODEL.sigma


def win_probabilities(skills: Sequence[Skill | None]) -> list[float]:
    """The chance each of ``skills`` (one per player at a table, None: no rating yet) wins,
    in the order given; they add up to 1. A table of one wins for sure; of none, nothing."""
    if not skills:
        return []
    if len(skills) == 1:
        return [1.0]
    teams = [[MODEL.rating(mu=s.mu, sigma=s.sigma)] for s in (s or DEFAULT for s in skills)]
    return [float(p) for p in MODEL.predict_win(teams)]


def family_of(event: Event) -> str:
    """The ratings' game family of ``event``: its game (Formula Dé's quick rules and
    competition are one family, ``formula_de``), a named game's own name's."""
    return event.family


def skills_of(players: Iterable[int | None], family: str) -> dict[int, Skill]:
    """The current skill of each player id in ``family`` (those with a rating only)."""
    ids = {p for p in players if p is not None}
    return {
        player: Skill(mu=mu, sigma=sigma)
        for player, mu, sigma in PlayerRating.objects.filter(
            player_id__in=ids, family=family
        ).values_list("player_id", "mu", "sigma")
    }


def ratings_of(players: Iterable[int | None], family: str) -> dict[int, float]:
    """The conservative rating (mu − 3 sigma) of each player id in ``family`` (those
    with a rating only): the order the ranking and the seeding by rating follow."""
    ids = {p for p in players if p is not None}
    return dict(
        PlayerRating.objects.filter(player_id__in=ids, family=family).values_list(
            "player_id", "rating"
        )
    )


@dataclass(frozen=True)
class Favourite:
    driver: Driver
    probability: float

    @property
    def percent(self) -> int:
        """The chance in whole percent, at least 1 (nobody is out of it before the start)."""
        return max(1, round(100 * self.probability))


@dataclass(frozen=True)
class TableFavourites:
    number: int
    favourites: list[Favourite]  # the most likely winner first


def event_favourites(event: Event, *, top: int = TOP) -> list[TableFavourites]:
    """Each race table of ``event`` with its ``top`` favourites, table 1 first. Equal
    chances keep the grid's order. Four queries whatever the number of tables."""
    tables = list(event.race_tables.order_by("number").prefetch_related("slots__driver"))  # type: ignore[attr-defined]
    drivers = {
        table.pk: [slot.driver for slot in sorted(table.slots.all(), key=lambda s: s.position)]
        for table in tables
    }
    skills = skills_of((d.player_id for grid in drivers.values() for d in grid), family_of(event))
    answer = []
    for table in tables:
        grid = drivers[table.pk]
        chances = win_probabilities([skills.get(d.player_id) for d in grid])  # type: ignore[arg-type]
        ranked = sorted(
            zip(grid, chances, strict=True), key=lambda pair: -pair[1]
        )  # stable: the grid's order on equal chances
        answer.append(
            TableFavourites(
                number=table.number,
                favourites=[Favourite(driver=d, probability=p) for d, p in ranked[:top]],
            )
        )
    return answer
