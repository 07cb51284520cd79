"""Reading the ratings: a game's ranking, best first, a page at a time."""

from __future__ import annotations

from django.db.models import F, QuerySet, Window
from django.db.models.functions import Rank

from tournament.models import PlayerRating


def ranking(*, game: str) -> QuerySet[PlayerRating]:
    """The ratings of ``game``, best conservative rating first, each with its ``rank``
    (shared on an equal rating: 1, 2, 2, 4, over the whole ranking even when sliced: the
    window runs before the page's LIMIT). Equal ratings in name order, so pages never
    overlap. Served by the ``rating_ranking`` index (family, −rating)."""
    return (
        PlayerRating.objects.filter(family=game)
        .select_related("player")
        .annotate(rank=Window(Rank(), order_by=F("rating").desc()))
        .order_by("-rating", "player__last_name", "player__first_name", "player_id")
    )
