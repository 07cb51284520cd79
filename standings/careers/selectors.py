"""Reads for a player's career: the seasons (championships) they drove in, each event's
qualifying and table place and points, the season's standing, and their ratings per game
family with the history behind each.

Who sees what: a championship's organisers see all of it; everyone else an event once its
qualifying or its results are published, a result only once the results are, a qualifying
line only once the qualifying is, and a rating after a table only once that table's results
are (the ratings count every confirmed table; the career never shows one the public could
not read elsewhere).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from django.db.models import Q

from qualifying.selectors import ClassifiedLine, general_classification
from races.models import ResultLine
from standings.selectors import Standing, standings_for
from tournament.models import Championship, Driver, Event, Player, PlayerRating, RatingPoint
from tournament.public.names import SHORT, player_name

#: A player merged into another, then that one into a third…: how far a lookup follows.
MAX_MERGES = 20


@dataclass(frozen=True)
class CareerEvent:
    """One event of a season: the driver's qualifying line and result, where shown."""

    event: Event
    qualifying: ClassifiedLine | None
    result: ResultLine | None
    counted: bool  # the result's points count in the standings (best-K)


@dataclass(frozen=True)
class CareerSeason:
    championship: Championship
    driver: Driver
    standing: Standing | None
    drivers_count: int
    events: list[CareerEvent]
    is_organiser: bool


@dataclass(frozen=True)
class FamilyRating:
    """A player's rating in one game family as the reader may see it, and its history."""

    family: str
    mu: float
    sigma: float
    rating: float
    races: int
    points: list[RatingPoint] = field(default_factory=list)


@dataclass(frozen=True)
class Career:
    player: Player
    seasons: list[CareerSeason]
    ratings: list[FamilyRating]
    #: The reader organises one of the player's championships (their licence is shown).
    organiser: bool = False
    #: The name the public reads (``tournament.public.names``): first name and initial
    #: when a driver of the player chose it.
    name: str = ""


def survivor_of(player: Player) -> Player:
    """The player ``player`` was merged into, following merges of merges; ``player``
    itself when it was not merged. A circle (never written by the services) stops."""
    seen = {player.pk}
    while player.merged_into_id is not None and len(seen) <= MAX_MERGES:
        player = Player.objects.get(pk=player.merged_into_id)
        if player.pk in seen:
            break
        seen.add(player.pk)
    return player


def _shown(event: Event, organiser: bool) -> bool:
    return organiser or event.published_results or event.published_qualifying


def _qualifying_line(event: Event, driver: Driver) -> ClassifiedLine | None:
    return next(
        (line for line in general_classification(event=event) if line.driver.pk == driver.pk),
        None,
    )


def career_for(*, player: Player, organises: Callable[[Championship], bool]) -> Career:
    """The career of ``player`` (not merged away) as a reader sees it: ``organises`` says
    whether the reader organises a championship (they then see its unpublished events).

    Seasons latest first (by their latest event), events by date within a season.
    """
    drivers = list(
        Driver.objects.filter(player=player).select_related("championship", "team").order_by("pk")
    )
    organiser = {d.championship_id: organises(d.championship) for d in drivers}
    seasons = []
    for driver in drivers:
        championship = driver.championship
        is_organiser = organiser[championship.pk]
        events = [
            event
            for event in Event.objects.filter(
                Q(entries__driver=driver) | Q(result_lines__driver=driver)
            )
            .distinct()
            .order_by("date", "pk")
            if _shown(event, is_organiser)
        ]
        if not events:
            continue
        standings = standings_for(championship=championship, published_only=not is_organiser)
        standing = next((s for s in standings.lines if s.driver.pk == driver.pk), None)
        results = {
            line.event_id: line
            for line in ResultLine.objects.filter(driver=driver, event__in=events).select_related(
                "table"
            )
        }
        rows = []
        for event in events:
            result = results.get(event.pk) if is_organiser or event.published_results else None
            qualifying = (
                _qualifying_line(event, driver)
                if is_organiser or event.published_qualifying
                else None
            )
            rows.append(
                CareerEvent(
                    event=event,
                    qualifying=qualifying,
                    result=result,
                    counted=standing is not None and event.pk in standing.counted,
                )
            )
        seasons.append(
            CareerSeason(
                championship=championship,
                driver=driver,
                standing=standing,
                drivers_count=len(standings.lines),
                events=rows,
                is_organiser=is_organiser,
            )
        )
    seasons.sort(key=lambda s: (s.events[-1].event.date, s.championship.pk), reverse=True)
    return Career(
        player=player,
        seasons=seasons,
        ratings=_ratings(player, organises),
        organiser=any(organiser.values()),
        name=player_name(player, short=any(d.public_name_choice == SHORT for d in drivers)),
    )


def _ratings(player: Player, organises: Callable[[Championship], bool]) -> list[FamilyRating]:
    """Each family's rating with the points the reader may see. A point after a table
    whose results are not published is left out, and so is the current figure it moved:
    the reader gets the rating after the last table they may see."""
    stored = {r.family: r for r in PlayerRating.objects.filter(player=player)}
    points: dict[str, list[RatingPoint]] = {}
    hidden: set[str] = set()
    allowed: dict[int, bool] = {}
    for point in (
        RatingPoint.objects.filter(player=player)
        .select_related("event", "event__championship")
        .order_by("family", "seq")
    ):
        event = point.event
        if not event.published_results:
            if event.championship_id not in allowed:
                allowed[event.championship_id] = organises(event.championship)
            if not allowed[event.championship_id]:
                hidden.add(point.family)
                continue
        points.setdefault(point.family, []).append(point)
    ratings = []
    for family, history in sorted(points.items()):
        current = stored.get(family)
        if current is not None and family not in hidden:
            mu, sigma, rating, races = current.mu, current.sigma, current.rating, current.races
        else:
            last = history[-1]
            mu, sigma, rating, races = last.mu, last.sigma, last.rating, len(history)
        ratings.append(
            FamilyRating(
                family=family, mu=mu, sigma=sigma, rating=rating, races=races, points=history
            )
        )
    return ratings
