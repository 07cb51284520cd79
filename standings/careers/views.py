"""A player's career page: every season, event, qualifying, table place and points, and the
rating over time as a chart drawn on the server (no JavaScript). Public for what is
published; a championship's organisers also see its unpublished events."""

from __future__ import annotations

from dataclasses import dataclass

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _

from standings.careers import chart
from standings.careers.selectors import FamilyRating, career_for, survivor_of
from tournament.access import actor_for
from tournament.games.selectors import family_name
from tournament.models import Player, RatingPoint
from tournament.public.cache import public_page

#: The tables the career page reads (tournament.public.cache: their counters key the cache).
CAREER_TABLES = (
    "tournament.Player",
    "tournament.PlayerRating",
    "tournament.RatingPoint",
    "tournament.Championship",
    "tournament.Driver",
    "tournament.Team",
    "tournament.Event",
    "tournament.Entry",
    "tournament.Sanction",
    "qualifying.QualifyingSession",
    "qualifying.Run",
    "qualifying.DrawRoll",
    "races.RaceTable",
    "races.ResultLine",
)


@dataclass(frozen=True)
class RatingChart:
    """A family's rating, its name in words and the geometry of its chart."""

    rating: FamilyRating
    game: str
    chart: chart.LineChart
    #: Each table's dot (x, y, its rating point), left out past ``MAX_DOTS`` tables.
    dots: list[tuple[float, float, RatingPoint]]


#: Past this many tables the line alone reads better than a string of dots.
MAX_DOTS = 60


def game_name(family: str) -> str:
    """A game family in words ("Formula Dé"); the family's code if no game has it."""
    return family_name(family)


def rating_charts(ratings: list[FamilyRating]) -> list[RatingChart]:
    """A chart per family with a history: the rating, and mu dashed beside it."""
    charts = []
    for rating in ratings:
        if not rating.points:
            continue
        geometry = chart.line_chart(
            [[p.rating for p in rating.points], [p.mu for p in rating.points]]
        )
        dots = (
            [(x, y, p) for (x, y), p in zip(geometry.series[0].points, rating.points, strict=True)]
            if len(rating.points) <= MAX_DOTS
            else []
        )
        charts.append(
            RatingChart(rating=rating, game=game_name(rating.family), chart=geometry, dots=dots)
        )
    return charts


@public_page(*CAREER_TABLES)
def career_view(request: HttpRequest, pk: int) -> HttpResponse:
    player = get_object_or_404(Player, pk=pk)
    if player.merged_into_id is not None:
        # Merged into another player: their career is now the survivor's (a merge can be
        # undone, so the redirect is not permanent).
        survivor = survivor_of(player)
        if survivor.merged_into_id is not None:  # a circle of merges: nobody to show
            raise Http404(_("This player was merged into another one."))
        return redirect("career", pk=survivor.pk)
    career = career_for(player=player, organises=actor_for(request).can_organise)
    return render(
        request,
        "careers/career.html",
        {"career": career, "player": player, "charts": rating_charts(career.ratings)},
    )
