from django.apps import AppConfig


class PaddockConfig(AppConfig):
    """An app without models: Django finds the management commands and the admin
    registrations of installed apps only. (No verbose name to translate: the admin shows
    the apps of models.)"""

    name = "paddock"
    verbose_name = "Paddock"
