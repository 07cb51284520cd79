"""A league's public pages: ``/l/<league>/`` (standings, rounds, clubs' cup; phone first) and
the room's projector of its standings (as a championship's: a page of rows at a time)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse

from standings.leagues import selectors
from standings.leagues.models import League
from tournament.public.cache import public_page

PROJECTOR_ROWS = 10
PROJECTOR_SECONDS = 15


def _page_number(text: str | None, default: int) -> int:
    try:
        return int(text or default)
    except ValueError:
        return default


@public_page(*selectors.STANDINGS_TABLES)
def league_page(request: HttpRequest, slug: str) -> HttpResponse:
    league = get_object_or_404(League.objects.select_related("club"), slug=slug)
    return render(
        request,
        "leagues/league.html",
        {
            "league": league,
            "table": selectors.league_table(league=league),
            "rounds": selectors.league_rounds(league=league),
        },
    )


@public_page(*selectors.STANDINGS_TABLES, params=("rows", "page"))
def league_projector(request: HttpRequest, slug: str) -> HttpResponse:
    """Big standings for the room's screen, turning by itself every 15 s (htmx)."""
    league = get_object_or_404(League.objects.select_related("club"), slug=slug)
    table = selectors.league_table(league=league)
    rows = max(5, min(100, _page_number(request.GET.get("rows"), PROJECTOR_ROWS)))
    pages = max(1, -(-len(table.lines) // rows))
    page = (_page_number(request.GET.get("page"), 1) - 1) % pages + 1
    context = {
        "league": league,
        "lines": table.lines[(page - 1) * rows : page * rows],
        "last_round": table.rounds[-1] if table.rounds else None,
        "page": page,
        "pages": pages,
        "next_url": reverse("league-projector", args=[league.slug])
        + f"?page={page % pages + 1}&rows={rows}",
        "seconds": PROJECTOR_SECONDS,
    }
    if getattr(request, "htmx", False):
        return render(request, "leagues/_projector_board.html", context)
    frame = {"title": league.name, "board": "leagues/_projector_board.html"}
    return render(request, "standings/projector.html", context | frame)
