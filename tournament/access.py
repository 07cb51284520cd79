"""Who is acting: a logged-in user, an API token's user, a table's referee link, or nobody."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import models
from django.utils.translation import gettext as _


@dataclass(frozen=True)
class Actor:
    """The person behind a request, as services need to know it."""

    user: Any = None
    #: The qualifying or race table whose referee link was used, if any.
    table: Any = None
    via: str = ""

    @classmethod
    def anonymous(cls) -> Actor:
        return cls()

    @property
    def is_authenticated(self) -> bool:
        return self.user is not None and self.user.is_authenticated

    @property
    def label(self) -> str:
        """Who, in words, for the history of a change."""
        if self.table is not None:
            return _("referee link of %(table)s") % {"table": self.table}
        if self.is_authenticated:
            return self.user.get_username() + (f" ({self.via})" if self.via else "")
        return _("anonymous")

    def is_superuser(self) -> bool:
        return self.is_authenticated and self.user.is_superuser

    def can_organise(self, championship: Any) -> bool:
        """True for a superuser or an organiser of ``championship`` (never for a table link)."""
        if self.table is not None or not self.is_authenticated:
            return False
        return championship.is_organiser(self.user)

    def can_referee(self, table: Any) -> bool:
        """True when this actor may write ``table``: its link, its referee or an organiser."""
        if self.table is not None:
            return type(self.table) is type(table) and self.table.pk == table.pk
        if self.is_authenticated and getattr(table, "referee_id", None) == self.user.pk:
            return True
        return self.can_organise(table.event.championship)

    def stamp(self, instance: models.Model) -> models.Model:
        """Mark ``instance`` so the next history row says who made the change."""
        if self.is_authenticated:
            instance._history_user = self.user  # type: ignore[attr-defined]
        instance._history_actor = self.label  # type: ignore[attr-defined]
        return instance
