from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RacesConfig(AppConfig):
    name = "races"
    verbose_name = _("Races")

    def ready(self) -> None:
        # Function-level: models can be imported only once every app is ready.
        from races.links import register
        from races.photos.storage import connect_deletions

        register()
        connect_deletions()
