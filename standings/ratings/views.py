"""The public ranking of a game: every rated player, best first, fifty a page."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from standings.ratings import rules
from standings.ratings.selectors import ranking, trends
from tournament.games.registry import MAIN_GAME
from tournament.games.selectors import families, family_name
from tournament.public.cache import public_page
from tournament.public.names import player_name

PER_PAGE = 50


@public_page(
    "tournament.PlayerRating",
    "tournament.Player",
    "tournament.Driver",  # the name each player chose to show (tournament.public.names)
    "tournament.Event",  # the named games' families and their names
    params=("page",),
)
def ranking_view(request: HttpRequest, game: str = MAIN_GAME) -> HttpResponse:
    """A page of the ranking; a page number out of range or unreadable shows the nearest
    page (the first, or the last), never an error."""
    known = families()
    if game not in known:
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
            "game_name": family_name(game),
            "games": [(family, family_name(family)) for family in known],
            "page": page,
            "mu": rules.MU,
            "sigma": rules.SIGMA,
        },
    )
