"""A qualifying table's referee link: its URL, and how the ground finds the table by it
(``tournament.access``, by the link's digest)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.urls import reverse

from qualifying.models import QualifyingTable
from tournament.access import register_links
from tournament.models import Event


def table_for_link(digest: str) -> QualifyingTable | None:
    """The table whose link has this digest (``tournament.sealing.link_digest``)."""
    return (
        QualifyingTable.objects.select_related("event__championship")
        .filter(token_digest=digest)
        .first()
    )


def refereed(user: Any, event: Event) -> bool:
    return QualifyingTable.objects.filter(event=event, referee=user).exists()


def register() -> None:
    register_links(find=table_for_link, refereed=refereed)


def referee_link(table: QualifyingTable) -> str | None:
    """The URL printed as a QR code on a qualifying table's sheet, or None when no key of this
    server opens the sealed link (a database restored without its key: the desk asks for a
    new link)."""
    token = table.token_or_none
    if token is None:
        return None
    return settings.SITE_URL.rstrip("/") + reverse("qtable", args=[token])
