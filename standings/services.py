"""Writes of points and standings: an organiser changes how the championship scores, and
every confirmed result takes the new points at once (above races: it rescores results)."""

from __future__ import annotations

from django.db import transaction
from django.utils.translation import gettext as _

from races.results.services import results_rescore
from tournament.access import Actor
from tournament.models import Championship
from tournament.registration.services import require_organiser, save_checked


@transaction.atomic
def championship_scoring_set(
    *,
    actor: Actor,
    championship: Championship,
    points_scale: list[int],
    points_mode: str,
    best_results: int | None,
) -> int:
    """An organiser changes how the championship scores; the stored points follow.

    Every confirmed result keeps its places and takes the new scale or mode at once, so
    the standings never mix two scales. Answers how many result lines changed points.
    """
    require_organiser(actor, championship)
    championship = Championship.objects.select_for_update().get(pk=championship.pk)
    championship.points_scale = points_scale
    championship.points_mode = points_mode
    championship.best_results = best_results
    save_checked(actor.stamp(championship), _("The scoring could not be changed."))
    return results_rescore(championship=championship)
