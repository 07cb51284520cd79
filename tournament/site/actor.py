"""Who acted, in every history table: the column and the receiver that fills it."""

from __future__ import annotations

from django.db import models
from django.dispatch import receiver
from django.utils.translation import gettext_lazy as _
from simple_history.signals import pre_create_historical_record


class HistoryActor(models.Model):
    """Extra column of every history table: who acted when no user is logged in."""

    history_actor = models.CharField(_("by"), max_length=120, blank=True, default="")

    class Meta:
        abstract = True


@receiver(pre_create_historical_record)
def _record_actor(sender: object, instance: models.Model, history_instance: object, **kw: object):
    # Services set ``_history_actor`` ("table link Q2", "API token of alice", ...).
    if hasattr(history_instance, "history_actor"):
        history_instance.history_actor = getattr(instance, "_history_actor", "")[:120]
