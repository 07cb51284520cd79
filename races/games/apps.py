from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    """The other games: no models of their own (their rows live in ``races``)."""

    name = "races.games"
    label = "games"
    verbose_name = _("Other games")

    def ready(self) -> None:
        # Function-level: the games' services import models, ready only now.
        from races.games.variants import register_all

        register_all()
