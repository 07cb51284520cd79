"""Who acted, in every history table: the column and the receiver that fills it; and the
history whose manager is made once (``History``)."""

from __future__ import annotations

import functools
from typing import Any

from django.db import models
from django.dispatch import receiver
from django.utils.translation import gettext_lazy as _
from simple_history.manager import HistoryDescriptor
from simple_history.models import HistoricalRecords
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


class _HistoryOnce(HistoryDescriptor):
    """simple_history's ``Model.history``, its manager's class made once: the library makes a
    new one (``from_queryset``: a walk of every method of the queryset) at each read, and
    each save reads it to write its history row: a third of a millisecond of a rush's
    sign-up and of its confirmation."""

    @functools.cached_property
    def _manager(self) -> type:
        return self.manager_class.from_queryset(self.queryset_class)

    def __get__(self, instance: Any, owner: Any) -> Any:
        return self._manager(self.model, instance)


class History(HistoricalRecords):
    """``HistoricalRecords`` whose ``history`` is read at the cost of one object
    (``_HistoryOnce``); the history tables are the same."""

    def finalize(self, sender: Any, **kwargs: Any) -> None:
        super().finalize(sender, **kwargs)
        descriptor = sender.__dict__.get(self.manager_name)
        if type(descriptor) is HistoryDescriptor:
            once = _HistoryOnce(
                descriptor.model,
                manager=descriptor.manager_class,
                queryset=descriptor.queryset_class,
            )
            setattr(sender, self.manager_name, once)
