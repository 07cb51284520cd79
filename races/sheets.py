"""Turning race tables into the plain data their printed sheets need."""

from __future__ import annotations

from django.conf import settings
from django.urls import reverse

from races.configuration import FIELDS
from races.models import RaceTable, RaceWeather
from races.pdf import GridLine, PrintedConfiguration, RaceSheetData
from races.selectors import tables_with_grids
from tournament.models import Event


def race_referee_link(table: RaceTable) -> str:
    return settings.SITE_URL.rstrip("/") + reverse("rtable", args=[table.token])


def race_sheets(
    *, event: Event, language: str | None = None, tables: list[RaceTable] | None = None
) -> list[RaceSheetData]:
    """Sheet data of every race table of ``event`` (or of ``tables``), table 1 first.

    Printed in the event's language unless ``language`` says otherwise.
    """
    language = language or event.language
    if tables is None:
        tables = tables_with_grids(event=event)
    race = RaceWeather.objects.filter(event=event).first()
    # Quick rules: the organisers' standard car, printed for every driver without their own.
    standard = (
        PrintedConfiguration(**{k: event.standard_configuration[k] for k in FIELDS})
        if event.standard_configuration
        else None
    )
    sheets = []
    for table in tables:
        grid = []
        for slot in table.grid:  # type: ignore[attr-defined]
            config = getattr(slot, "configuration", None)
            grid.append(
                GridLine(
                    position=slot.position,
                    number=slot.driver.number,
                    name=slot.driver.name,
                    team=slot.driver.team.name if slot.driver.team else None,
                    stand=slot.stand,
                    configuration=PrintedConfiguration(**config.values()) if config else standard,
                )
            )
        sheets.append(
            RaceSheetData(
                championship=str(event.championship),
                event=event.name,
                date=event.date,
                circuit=event.circuit.name,
                laps=event.race_laps,
                table_number=table.number,
                referee=table.referee_name,
                weather=race.weather if race else None,
                track=table.track or None,
                grid=grid,
                referee_link=race_referee_link(table),
                language=language if language in ("fr", "en") else "fr",
                standard_configuration=standard is not None,
            )
        )
    return sheets
