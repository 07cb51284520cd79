"""Reads for the championship: standings and team standings.

A constant number of queries whatever the size: the events that count, their drivers, and
the stored result lines (written when race control confirms a table).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Case, Exists, IntegerField, OuterRef, Q, Subquery, Sum, When
from django.db.models.functions import Coalesce

from races.models import ResultLine
from races.results import points
from tournament.models import Championship, Driver, Entry, Event, Sanction, Team


@dataclass(frozen=True)
class Standing:
    rank: int
    driver: Driver
    points: int
    results: dict[int, points.EventResult]  # by event id
    counted: frozenset[int]  # event ids whose points count (best-K)
    countback: tuple[int, ...]
    # Points sanctions removed (§1-2-3), by event id, where any were: the whole value,
    # off the total after best-K even where the event scored fewer points.
    removed: dict[int, int] = field(default_factory=dict)

    @property
    def points_removed(self) -> int:
        return sum(self.removed.values())


@dataclass(frozen=True)
class Standings:
    events: list[Event]
    lines: list[Standing] = field(default_factory=list)


def counted_events(*, championship: Championship, published_only: bool) -> list[Event]:
    """Events with confirmed results (published ones only for the public), by date."""
    # EXISTS, not a join made DISTINCT: that sorted every result line's copy of its event's
    # whole row, a third of the page's database time at 1,000 drivers.
    events = Event.objects.filter(
        Exists(ResultLine.objects.filter(event=OuterRef("pk"))), championship=championship
    )
    if published_only:
        events = events.filter(published_results=True)
    return list(events.order_by("date", "pk"))


def standings_for(*, championship: Championship, published_only: bool = True) -> Standings:
    """Every driver with an entry or a result in a counted event, 0 points included
    (DOMAIN.md); a driver whose entry was removed after racing keeps the points scored."""
    events = counted_events(championship=championship, published_only=published_only)
    if not events:
        return Standings(events=[])
    drivers = list(
        Driver.objects.filter(
            Q(pk__in=Entry.objects.filter(event__in=events).values("driver"))
            | Q(pk__in=ResultLine.objects.filter(event__in=events).values("driver"))
        )
        .select_related("team")
        .order_by("number")
    )
    # Every point a sanction in force removed from the driver at the event (§1-2-3).
    sanctioned = (
        Sanction.objects.filter(
            event=OuterRef("event_id"),
            driver=OuterRef("driver_id"),
            kind=Sanction.Kind.POINTS,
            withdrawn_at__isnull=True,
        )
        .values("event")
        .annotate(total=Sum("value"))
        .values("total")
    )
    # Summed only for a driver with a points sanction at one of these events (a hashed
    # list, read once): the sum per line cost more than the rest of the query.
    sanctioned_drivers = Sanction.objects.filter(
        event__in=events, kind=Sanction.Kind.POINTS, withdrawn_at__isnull=True
    ).values("driver")
    # In event order: on equal points, best-K keeps the earlier result.
    rows = (
        ResultLine.objects.filter(event__in=events)
        .annotate(
            sanctioned=Case(
                When(
                    driver__in=sanctioned_drivers,
                    then=Coalesce(Subquery(sanctioned, output_field=IntegerField()), 0),
                ),
                default=0,
            )
        )
        .order_by("event__date", "event_id", "pk")
        .values_list(
            "event_id", "driver_id", "position", "place", "rank", "status", "points",
            "points_removed", "sanctioned",
        )
    )  # fmt: skip
    removed: dict[int, dict[int, int]] = {}
    mode = championship.points_mode
    results = []
    for e, d, p, place, rank, s, pts, taken, whole in rows:
        if whole:
            removed.setdefault(d, {})[e] = whole
        results.append(
            # Given by position (event, driver, position, status, points, counted place):
            # 10,000 results at 1,000 drivers, keywords cost more.
            points.EventResult(
                e,
                d,
                p,
                s,
                # What the event scored before any sanction: best-K chooses on it (a
                # penalty is not a result that could be dropped).
                pts + taken,
                points.countback_place(
                    mode=mode,  # type: ignore[arg-type]
                    status=s,
                    place=p if place is None else place,  # Formula Dé shares no place
                    rank=rank,
                ),
            )
        )
    by_id = {d.pk: d for d in drivers}
    lines = points.standings(
        [d.pk for d in drivers],
        results,
        best=championship.best_results,
        removed={d: sum(by_event.values()) for d, by_event in removed.items()},
    )
    return Standings(
        events=events,
        lines=[
            Standing(
                rank=line.rank,
                driver=by_id[line.driver],
                points=line.points,
                results={r.event: r for r in line.results},
                counted=frozenset(line.counted),
                countback=line.countback,
                removed=removed.get(line.driver, {}),
            )
            for line in lines
            if line.driver in by_id
        ],
    )


@dataclass(frozen=True)
class TeamStanding:
    rank: int
    team: Team
    points: int


def team_standings_for(
    *, championship: Championship, published_only: bool = True, standings: Standings | None = None
) -> list[TeamStanding]:
    """Sum of each team's drivers' counted points; equal points share the rank."""
    standings = standings or standings_for(championship=championship, published_only=published_only)
    teams = {line.driver.team_id: line.driver.team for line in standings.lines if line.driver.team}
    lines = [
        points.StandingLine(
            rank=s.rank,
            driver=s.driver.pk,
            points=s.points,
            counted=tuple(s.counted),
            results=tuple(s.results.values()),
            countback=s.countback,
            removed=s.points_removed,
        )
        for s in standings.lines
    ]
    team_of = {s.driver.pk: s.driver.team_id for s in standings.lines}
    return [
        TeamStanding(rank=t.rank, team=teams[t.team], points=t.points)
        for t in points.team_standings(lines, team_of)
        if t.team in teams
    ]
