"""Reads of the finishing-order game: its tables' sheets as plain data, and the PDF of an
event's sheets (``races.variants``' ``sheets`` hook: the sheets' batch and a table's sheet
link print these instead of the Formula Dé race sheet)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from races.games.finishing_order.pdf import (
    FinishingOrderSheet,
    FinishingOrderSheetData,
    GridDriver,
)
from races.models import GridSlot, RaceTable
from races.sheets.selectors import race_referee_link
from tournament.models import Event


def sheet_data(
    *,
    event: Event,
    tables: Sequence[RaceTable] | None = None,
    language: str | None = None,
    referee_link: bool = True,
) -> list[FinishingOrderSheetData]:
    """The sheet data of every table of ``event`` (or of ``tables``), table 1 first; without
    ``referee_link``, no QR code (a reader who is not the table's referee)."""
    language = language or event.language
    if tables is None:
        tables = list(RaceTable.objects.filter(event=event).order_by("number"))
    grids: dict[int, list[GridDriver]] = {table.pk: [] for table in tables}
    slots = (
        GridSlot.objects.filter(table__in=list(grids))
        .select_related("driver", "driver__team")
        .order_by("position")
    )
    for slot in slots:
        team = slot.driver.team
        grids[slot.table_id].append(
            GridDriver(
                slot.position, slot.driver.number, slot.driver.name, team.name if team else ""
            )
        )
    return [
        FinishingOrderSheetData(
            game_name=event.game_label,
            championship=str(event.championship),
            event=event.name,
            date=event.date,
            table_number=table.number,
            drivers=grids[table.pk],
            laps=event.laps,
            referee=table.referee_name,
            link=race_referee_link(table) if referee_link else None,
            language=language if language in ("fr", "en") else "fr",
        )
        for table in tables
    ]


def sheets_pdf(
    *,
    event: Event,
    tables: Sequence[RaceTable] | None = None,
    language: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    referee_link: bool = True,
) -> bytes:
    """The sheets of ``event``'s tables (or of ``tables``) in one PDF."""
    data = sheet_data(event=event, tables=tables, language=language, referee_link=referee_link)
    if progress is not None:
        progress(0, len(data))
    return FinishingOrderSheet().render_many(data, progress=progress)
