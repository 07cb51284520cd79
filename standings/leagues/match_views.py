"""The league's matching page (``matching.py``): its organisers read the proposed joins side
by side and join those they know to be one person. Phone first; split back from the
players' changes page or ``POST /api/v1/players/{id}/split``."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import path
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from standings.leagues.matching import league_join, league_matches
from standings.leagues.models import League
from standings.leagues.services import may_run_league
from tournament.access import actor_for
from tournament.errors import ServiceError


def _seat(text: str) -> tuple[str, int] | None:
    """A driver sent by the page as ``<championship>:<number>``; None for anything else."""
    slug, _sep, number = text.partition(":")
    return (slug[:100], int(number)) if number.isdigit() and len(number) < 9 else None


@login_required
@require_http_methods(["GET", "POST"])
def league_matches_view(request: HttpRequest, slug: str) -> HttpResponse:
    """GET: the proposals; POST: join the drivers sent (``seat``, each ``slug:number``)."""
    actor = actor_for(request)
    league = League.objects.select_related("club").filter(slug=slug).first()
    if league is None or not may_run_league(actor, league):
        raise Http404  # another club's people are told nothing
    if request.method == "POST":
        seats = [seat for text in request.POST.getlist("seat") if (seat := _seat(text))]
        try:
            player = league_join(
                actor=actor, league=league, drivers=seats, reason=request.POST.get("reason", "")
            )
        except ServiceError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(
                request, _("Joined: %(name)s is now one player.") % {"name": player.name}
            )
        return redirect("league-matches", slug=league.slug)
    return render(
        request,
        "leagues/matches.html",
        {"league": league, "matches": league_matches(league=league)},
    )


urlpatterns = [
    path("l/<slug:slug>/matches/", league_matches_view, name="league-matches"),
]
