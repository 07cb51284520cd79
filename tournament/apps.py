from django.apps import AppConfig
from django.db import connections
from django.db.models.signals import post_migrate
from django.utils.translation import gettext_lazy as _

from tournament.public import freshness


def _install_change_counters(using: str = "default", **kwargs: object) -> None:
    """After every migrate (and every test database flush): the counters' triggers."""
    freshness.install(connections[using])


class TournamentConfig(AppConfig):
    name = "tournament"
    verbose_name = _("Championships")

    def ready(self) -> None:
        # Once per migrate, when every table exists: the handler looks at all of them.
        post_migrate.connect(
            _install_change_counters, sender=self, dispatch_uid="paddock-change-counters"
        )
