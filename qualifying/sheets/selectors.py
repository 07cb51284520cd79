"""Turning a qualifying table's models into the plain data its printed sheets need."""

from __future__ import annotations

from qualifying.models import QualifyingTable, Run
from qualifying.selectors import table_drivers
from qualifying.sheets.pdf import PrintedDriver, PrintedRun, PrintedSession, QualifyingSheetData


def _printed(run: Run) -> PrintedRun:
    breakdown = run.breakdown()
    return PrintedRun(
        tyres=run.tyres,
        throws=run.throws,
        placement_errors=run.placement_errors,
        exit_squares=run.exit_squares,
        stopwatch=run.stopwatch,
        eliminated=run.eliminated,
        absolute_time=breakdown.total if breakdown else None,
        breakdown=(
            (breakdown.throws, breakdown.placement, breakdown.corner_exits, breakdown.minutes)
            if breakdown
            else None
        ),
    )


def sheet_data(
    *, table: QualifyingTable, language: str | None = None, link: str | None = None
) -> QualifyingSheetData:
    """Everything the qualifying card and the table sheet print for ``table``.

    Printed in the event's language unless ``language`` says otherwise.
    """
    event = table.event
    language = language or event.language
    sessions = list(event.sessions.all())
    drivers = table_drivers(table=table)
    runs: dict[tuple[int, int], Run] = {
        (r.driver_id, r.session.number): r
        for r in Run.objects.filter(
            session__event=event, cancelled=False, driver__in=drivers
        ).select_related("session", "session__event")
    }
    return QualifyingSheetData(
        championship=str(event.championship),
        event=event.name,
        date=event.date,
        circuit=event.circuit.name,
        table_number=table.number,
        referee=table.referee_name,
        sessions=[PrintedSession(s.number, s.weather, s.track) for s in sessions],
        drivers=[
            PrintedDriver(
                number=d.number,
                name=d.name,
                team=d.team.name if d.team else None,
                runs={
                    s.number: _printed(runs[(d.pk, s.number)])
                    for s in sessions
                    if (d.pk, s.number) in runs
                },
            )
            for d in drivers
        ],
        minute_penalty=event.minute_penalty,
        referee_link=link,
        language=language if language in ("fr", "en") else "fr",
    )
