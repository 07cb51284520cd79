"""Reads of the sheets' photos: a table's, the tables' of a desk, the tray of unmatched."""

from __future__ import annotations

from collections.abc import Iterable

from qualifying.models import QualifyingTable
from races.models import RaceTable, SheetPhoto
from tournament.models import Event


def photos_of(table: RaceTable | QualifyingTable) -> list[SheetPhoto]:
    """Every photo of ``table`` (a race or a qualifying table), replaced ones included,
    oldest first."""
    where = {"table": table} if isinstance(table, RaceTable) else {"qualifying_table": table}
    return list(SheetPhoto.objects.filter(**where).order_by("sent_at", "pk"))


def photos_by_table(tables: Iterable[RaceTable]) -> dict[int, list[SheetPhoto]]:
    """The photos still in force (not replaced) of each table, by table id, in one query."""
    found: dict[int, list[SheetPhoto]] = {}
    rows = SheetPhoto.objects.filter(table__in=list(tables), replaced_by__isnull=True)
    for photo in rows.order_by("sent_at", "pk"):
        found.setdefault(photo.table_id, []).append(photo)  # type: ignore[arg-type]
    return found


def unmatched(event: Event) -> list[SheetPhoto]:
    """The photos of ``event`` that wait for race control to give them a table."""
    return list(
        SheetPhoto.objects.filter(
            event=event, table__isnull=True, qualifying_table__isnull=True
        ).order_by("sent_at")
    )


def qualifying_photos(event: Event) -> list[SheetPhoto]:
    """The photos of ``event``'s qualifying sheets, by table then time."""
    return list(
        SheetPhoto.objects.filter(event=event, qualifying_table__isnull=False)
        .select_related("qualifying_table")
        .order_by("qualifying_table__number", "sent_at", "pk")
    )


def event_photos(event: Event) -> list[SheetPhoto]:
    """Every photo of ``event``, matched or not, replaced or not."""
    return list(
        SheetPhoto.objects.filter(event=event)
        .select_related("table", "qualifying_table")
        .order_by("sent_at", "pk")
    )
