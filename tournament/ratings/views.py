"""The public ranking of a game: every rated player, best first, fifty a page."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from tournament.models import Event
from tournament.public.cache import public_page
from tournament.public.names import player_name
from tournament.ratings import rules
from tournament.ratings.selectors import ranking, trends

PER_PAGE = 50


@public_page(
    "tournament.PlayerRating",
    "tournament.Player",
    "tournament.Driver",  # the name each player chose to show (tournament.public.names)
    params=("page",),
)
def ranking_view(request: HttpRequest, game: str = "formula_de") -> HttpResponse:
    """A page of the ranking; a page number out of range or unreadable shows the nearest
    page (the first, or the last), never an error."""
    if game not in Event.Game.values:
        raise Http404(_("There is no such game."))
    page = Paginator(ranking(game=game), PER_PAGE).get_page(request.GET.get("page"))
    moved = trends(game=game, players=[line.player_id for line in page.object_list])
    for line in page.object_list:
        line.trend = moved.get(line.player_id)
        line.name = player_name(line.player, short=line.short)
    return render(
        request,
        "ratings/ranking.html",
        {
            "game": game,
            "game_name": Event.Game(game).label,
            "games": Event.Game.choices,
            "page": page,
            "mu": rules.MU,
            "sigma": rules.SIGMA,
        },
    )
