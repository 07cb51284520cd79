from __future__ import annotations

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _

from tournament.signals import players_deciders


class LeaguesConfig(AppConfig):
    """Leagues: a package of their own on the standings floor, with their own tables."""

    name = "standings.leagues"
    label = "leagues"
    verbose_name = _("Leagues")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Function-level: models can be imported only once every app is ready.
        from standings.leagues.matching import decides_for_leagues

        # A league's organisers decide about its counted rounds' drivers (matching.py).
        players_deciders.connect(decides_for_leagues, dispatch_uid="paddock-league-deciders")
