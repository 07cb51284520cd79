from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class QualifyingConfig(AppConfig):
    name = "qualifying"
    verbose_name = _("Qualifying")

    def ready(self) -> None:
        # Function-level: models can be imported only once every app is ready.
        from qualifying.links import register

        register()
