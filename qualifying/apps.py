from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class QualifyingConfig(AppConfig):
    name = "qualifying"
    verbose_name = _("Qualifying")
