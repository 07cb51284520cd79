"""Turning race tables into the plain data their printed sheets need."""

from __future__ import annotations

from django.conf import settings
from django.urls import reverse

from races.grid.configuration import FIELDS
from races.models import GridSlot, RaceTable, RaceWeather, RaceWeatherDraw
from races.sheets.data import GridLine, PrintedConfiguration, PrintedSanction, RaceSheetData
from tournament.models import Event, Sanction
from tournament.players.names import driver_name


def race_referee_link(table: RaceTable) -> str | None:
    """The URL printed as a QR code, or None when no key of this server opens the sealed link
    (a database restored without its key: the desk asks for a new link)."""
    token = table.token_or_none
    if token is None:
        return None
    return settings.SITE_URL.rstrip("/") + reverse("rtable", args=[token])


def _grids(tables: list[RaceTable]) -> dict[int, list[dict]]:
    """Each table's grid as plain rows, in one query: a batch of a hundred sheets reads a
    thousand drivers, and building a model instance for every slot, driver, team and
    configuration cost more than the query itself."""
    columns = [
        "table_id",
        "position",
        "stand",
        "driver__number",
        "driver__first_name",
        "driver__last_name",
        "driver__team__name",
        "configuration__id",
        *(f"configuration__{name}" for name in FIELDS),
    ]
    grids: dict[int, list[dict]] = {table.pk: [] for table in tables}
    rows = GridSlot.objects.filter(table__in=list(grids)).order_by("position").values(*columns)
    for row in rows:
        grids[row["table_id"]].append(row)
    return grids


def race_sheets(
    *, event: Event, language: str | None = None, tables: list[RaceTable] | None = None
) -> list[RaceSheetData]:
    """Sheet data of every race table of ``event`` (or of ``tables``), table 1 first.

    Printed in the event's language unless ``language`` says otherwise.
    """
    language = language or event.language
    if tables is None:
        tables = list(RaceTable.objects.filter(event=event).order_by("number"))
    grids = _grids(tables)
    race = RaceWeather.objects.filter(event=event).first()
    race_draws = tuple(
        RaceWeatherDraw.objects.filter(event=event)
        .order_by("number")
        .values_list("roll", "weather", "reason")
    )
    sanctions: dict[int, list[PrintedSanction]] = {}
    for sanction in Sanction.objects.filter(event=event, withdrawn_at__isnull=True).select_related(
        "driver"
    ):
        sanctions.setdefault(sanction.driver.number, []).append(
            PrintedSanction(
                number=sanction.driver.number,
                name=sanction.driver.name,
                kind=sanction.kind,
                value=sanction.value,
                session=sanction.session,
                reason=sanction.reason,
            )
        )
    # Quick rules: the organisers' standard car, printed for every driver without their own.
    standard = (
        PrintedConfiguration(**{k: event.standard_configuration[k] for k in FIELDS})
        if event.standard_configuration
        else None
    )
    sheets = []
    for table in tables:
        grid = [
            GridLine(
                position=row["position"],
                number=row["driver__number"],
                name=driver_name(row["driver__first_name"], row["driver__last_name"]),
                team=row["driver__team__name"],
                stand=row["stand"],
                configuration=(
                    PrintedConfiguration(**{k: row[f"configuration__{k}"] for k in FIELDS})
                    if row["configuration__id"] is not None
                    else standard
                ),
            )
            for row in grids[table.pk]
        ]
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
                race_draws=race_draws,
                sanctions=tuple(
                    printed for line in grid for printed in sanctions.get(line.number, [])
                ),
            )
        )
    return sheets
