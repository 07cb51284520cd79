"""Reading the ratings: a game's ranking, best first, a page at a time."""

from __future__ import annotations

from django.db.models import F, QuerySet, Window
from django.db.models.functions import Rank, RowNumber

from tournament.models import PlayerRating, RatingPoint
from tournament.public.names import chose_short


def ranking(*, game: str) -> QuerySet[PlayerRating]:
    """The ratings of ``game``, best conservative rating first, each with its ``rank``
    (shared on an equal rating: 1, 2, 2, 4, over the whole ranking even when sliced: the
    window runs before the page's LIMIT). Equal ratings in name order, so pages never
    overlap. Served by the ``rating_ranking`` index (family, −rating). ``short``: the
    player is shown by first name and initial (``player_name``)."""
    return (
        PlayerRating.objects.filter(family=game)
        .select_related("player")
        .annotate(rank=Window(Rank(), order_by=F("rating").desc()), short=chose_short("player_id"))
        .order_by("-rating", "player__last_name", "player__first_name", "player_id")
    )


def trends(*, game: str, players: list[int]) -> dict[int, float]:
    """The trend of each of ``players`` in ``game``: how much their last table moved their
    rating; none after a single table (nothing to compare it with). Two rows per player,
    read by the ``rating_point_career`` index."""
    last_two = (
        RatingPoint.objects.filter(family=game, player_id__in=players)
        .annotate(n=Window(RowNumber(), partition_by=F("player_id"), order_by=F("seq").desc()))
        .filter(n__lte=2)
        .values_list("player_id", "n", "rating")
    )
    latest: dict[int, float] = {}
    before: dict[int, float] = {}
    for player, n, rating in last_two:
        (latest if n == 1 else before)[player] = rating
    # A first race has no trend: it moved the rating from the newcomer's, not a known one.
    return {
        player: rating - before[player] for player, rating in latest.items() if player in before
    }
