from django.apps import AppConfig
from django.db.models.signals import post_delete, pre_save
from django.utils.translation import gettext_lazy as _

from tournament.signals import results_changed


class StandingsConfig(AppConfig):
    """What reads results across events: standings, ratings, careers. No model of its own
    (the ratings' rows live in ``tournament.models``, where their tables were made)."""

    name = "standings"
    verbose_name = _("Standings")

    def ready(self) -> None:
        # Function-level: models can be imported only once every app is ready.
        from standings.ratings.soon import event_deleted, event_saving, ratings_changed

        # The floors below say that results changed; the ratings follow.
        results_changed.connect(ratings_changed, dispatch_uid="paddock-ratings-results")
        # An event's date, game, published results or deletion change the ratings.
        event = self.apps.get_model("tournament", "Event")
        pre_save.connect(event_saving, sender=event, dispatch_uid="paddock-ratings-event")
        post_delete.connect(event_deleted, sender=event, dispatch_uid="paddock-ratings-event")
