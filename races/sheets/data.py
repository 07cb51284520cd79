"""What a race sheet prints (§2-0-3): its data classes and its wording.

A service (`races/sheets/selectors.py`) turns models into these dataclasses; the renderer
(`races/sheets/pdf.py`) prints them. The labels are the sheet's own words for the car's parts, the
causes of retirement and the track, looked up in the language the sheet is printed in.

Boundary: plain data and words. No models read, no database, no reportlab here.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from django.utils.translation import gettext

from qualifying.models import Track
from qualifying.sheets.pdf import weather_label

# --- Data (built by a service from the models) ------------------------------------------


@dataclass(frozen=True)
class PrintedConfiguration:
    tyres: int
    brakes: int
    gearbox: int
    body: int
    engine: int
    road_holding: int
    stand_points: int


@dataclass(frozen=True)
class GridLine:
    position: int  # 1 = pole of this table
    number: int
    name: str
    team: str | None
    stand: int | None  # chosen stand, None = box for the pen
    configuration: PrintedConfiguration | None  # None = empty boxes for the pen


@dataclass(frozen=True)
class RaceSheetData:
    championship: str
    event: str
    date: datetime.date
    circuit: str
    laps: int
    table_number: int
    referee: str
    weather: str | None  # race weather at the start: "sun" | "variable" | "rain"; None = not drawn
    track: str | None  # "dry" | "wet" at this table's start
    grid: list[GridLine]
    referee_link: str | None = None
    language: str = "fr"
    standard_configuration: bool = False  # quick rules: every car has the same configuration
    # Every draw of the race weather (§2-0-1), first first: (d20, weather, reason).
    race_draws: tuple[tuple[int, str, str], ...] = ()
    # The sanctions in force of this table's drivers (§1-2-3).
    sanctions: tuple[PrintedSanction, ...] = ()


@dataclass(frozen=True)
class PrintedSanction:
    number: int
    name: str
    kind: str  # "warning" | "throws" | "points" | "disqualified"
    value: int | None
    session: int | None
    reason: str


# --- Labels ---------------------------------------------------------------------------------


def part_labels() -> dict[str, str]:
    # §5-0-1's six parts; "gearbox" is the French sheet's CONSOMMATION (§5-1-3).
    return {
        "tyres": gettext("Tyres"),
        "brakes": gettext("Brakes"),
        "gearbox": gettext("Gearbox"),
        "body": gettext("Body"),
        "engine": gettext("Engine"),
        "road_holding": gettext("Road holding"),
    }


def cause_labels() -> list[str]:
    # The causes of retirement of §20 in the rule's order, then "other" (disqualification,
    # withdrawal): the referee ticks one rather than writing it out.
    return [
        gettext("Off track"),
        gettext("Blocked"),
        gettext("Body"),
        gettext("Engine"),
        gettext("Road holding"),
        gettext("Other"),
    ]


def track_label(track: str) -> str:
    return str(Track(track).label) if track in Track.values else track


def sanction_label(sanction: PrintedSanction) -> str:
    """ "3 Chloé Durand: +2 throw(s) in session 1 (« … »)", in the sheet's language."""
    if sanction.kind == "throws":
        what = gettext("+%(value)s throw(s) in session %(session)s") % {
            "value": sanction.value,
            "session": sanction.session,
        }
    elif sanction.kind == "points":
        what = gettext("−%(value)s point(s)") % {"value": sanction.value}
    elif sanction.kind == "disqualified":
        what = gettext("Disqualified")
    else:
        what = gettext("Warning")
    return gettext("%(driver)s: %(what)s (“%(reason)s”)") % {
        "driver": f"{sanction.number} {sanction.name}",
        "what": what,
        "reason": sanction.reason,
    }


def race_draws_label(draws: tuple[tuple[int, str, str], ...]) -> str:
    """The race weather's draws when it was drawn more than once: every one is listed."""
    if len(draws) < 2:
        return ""
    parts = []
    for roll, weather, reason in draws:
        part = f"d20 {roll} → {weather_label(weather)}"
        if reason:
            part += f" (« {reason} »)"
        parts.append(part)
    return gettext("Race weather drawn %(count)s times: %(draws)s") % {
        "count": len(draws),
        "draws": "; ".join(parts),
    }
