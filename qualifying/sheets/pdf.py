"""The qualifying paper forms (§1-0-2, §1-3-1): the data they print and their shared pieces.

Two documents print this data: the driver's "fiche individuelle" (two cards per A4 page,
handed in to race control), rendered in `qualifying/sheets/card.py`, and the referee's "feuille
de table" (one landscape sheet per table, for checking), rendered in
`qualifying/sheets/table_sheet.py`. This module holds what both share: the data classes, the
labels, the paragraph styles, a run's cells and the grid style. No renderer here.

Boundary: plain dataclasses and the reportlab pieces that print them. No models and no
database here; a service (`qualifying/sheets/selectors.py`) turns models into these dataclasses.
Absolute times arrive already computed (the rules live in `qualifying/scoring.py`): the
forms only print them.
"""

from __future__ import annotations

import datetime
import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext
from reportlab.lib import colors
from reportlab.lib.enums import TA_CENTER, TA_LEFT
from reportlab.lib.styles import ParagraphStyle
from reportlab.platypus import KeepInFrame, Paragraph

from qualifying.models import Tyres, Weather
from tournament.documents.printing import (
    CELL_PADDING,
    FONT,
    FONT_BOLD,
    HEADER_FILL,
    TickBox,
    markup,
    register_fonts,
)

# --- Data (built by a service from the models) ------------------------------------------


@dataclass(frozen=True)
class PrintedRun:
    """A recorded run; a driver without one for a session gets empty boxes for the pen."""

    tyres: str  # "hard" | "soft" | "rain"
    throws: int | None
    placement_errors: int | None
    exit_squares: int | None
    stopwatch: str | None  # already formatted "m:ss.cc"
    eliminated: bool
    absolute_time: int | None
    breakdown: tuple[int, int, int, int] | None  # throws, placement, corner exits, minutes


@dataclass(frozen=True)
class PrintedSession:
    number: int
    weather: str | None  # "sun" | "variable" | "rain", None when not drawn yet
    track: str | None  # "dry" | "wet"


@dataclass(frozen=True)
class PrintedDriver:
    number: int
    name: str
    team: str | None
    runs: dict[int, PrintedRun]  # by session number


@dataclass(frozen=True)
class QualifyingSheetData:
    championship: str
    event: str
    date: datetime.date
    circuit: str
    table_number: int
    referee: str  # may be ""
    sessions: list[PrintedSession]
    drivers: list[PrintedDriver]
    minute_penalty: bool  # "+1 throw per full minute" (§1-1-13), off in some leagues
    referee_link: str | None = None  # printed as a QR code on the table sheet
    language: str = "fr"


# --- Labels and pieces shared by both forms ----------------------------------------------


def _tyres_label(tyres: str) -> str:
    # The same labels as the pages: the model's choices (translated with a context).
    return str(Tyres(tyres).label) if tyres in Tyres.values else tyres


def weather_label(weather: str) -> str:
    return str(Weather(weather).label) if weather in Weather.values else weather


def track_label(track: str) -> str:
    labels = {"dry": gettext("Dry track"), "wet": gettext("Wet track")}
    return labels.get(track, track)


def formula_text(minute_penalty: bool) -> str:
    # Two whole sentences rather than a concatenation, so translators see each in full.
    if minute_penalty:
        return gettext(
            "Absolute time = throws + 10 × placement errors + exit squares × tyre factor"
            " + full minutes"
        )
    return gettext("Absolute time = throws + 10 × placement errors + exit squares × tyre factor")


def _breakdown_text(run: PrintedRun, minute_penalty: bool) -> str:
    """The sum after the total, like "= 18 + 0 + 4 + 1"; "" when there is no breakdown.

    Terms: throws, placement, corner exits, minutes.
    """
    if run.breakdown is None:
        return ""
    terms = list(run.breakdown)
    # Keep a non-zero minutes term even with the rule off: the printed sum must add up.
    if not minute_penalty and terms[3] == 0:
        terms = terms[:3]
    return "= " + " + ".join(str(term) for term in terms)


@functools.cache
def paragraph_styles() -> dict[str, ParagraphStyle]:
    register_fonts()
    return {
        "header": ParagraphStyle(
            "header", fontName=FONT_BOLD, fontSize=6.5, leading=7.5, alignment=TA_CENTER
        ),
        "cell": ParagraphStyle("cell", fontName=FONT, fontSize=9, leading=10.5, alignment=TA_LEFT),
        "cell_bold": ParagraphStyle(
            "cell_bold", fontName=FONT_BOLD, fontSize=9, leading=10.5, alignment=TA_LEFT
        ),
        "small": ParagraphStyle("small", fontName=FONT, fontSize=7, leading=8, alignment=TA_CENTER),
        "value": ParagraphStyle(
            "value", fontName=FONT, fontSize=10, leading=12, alignment=TA_CENTER
        ),
        "heading": ParagraphStyle("heading", fontName=FONT_BOLD, fontSize=11, leading=14),
    }


def shrunk(text: str, style: ParagraphStyle, width: float, height: float) -> KeepInFrame:
    """A paragraph that wraps, then shrinks, rather than spill out of its table cell."""
    return KeepInFrame(width, height, [Paragraph(text, style)], mode="shrink")


def run_cells(
    run: PrintedRun | None,
    *,
    minute_penalty: bool,
    absolute_width: float,
    row_height: float,
    tick_size: float,
) -> list[Any]:
    """Tyres, throws, placement errors, corner exits, stopwatch, eliminated, absolute time."""
    if run is None:
        return ["", "", "", "", "", TickBox(False, tick_size), ""]

    def number(value: int | None) -> str:
        return "" if value is None else str(value)

    if run.eliminated or run.absolute_time is None:
        # §1-1-14: an eliminated run has no absolute time; the dash says "not forgotten".
        absolute: Any = "—" if run.eliminated else ""
    else:
        breakdown = _breakdown_text(run, minute_penalty)
        absolute = shrunk(
            f"<b>{run.absolute_time}</b> <font size=6.5>{markup(breakdown)}</font>",
            paragraph_styles()["value"],
            absolute_width,
            row_height,
        )
    return [
        _tyres_label(run.tyres) if run.tyres else "",
        number(run.throws),
        number(run.placement_errors),
        number(run.exit_squares),
        run.stopwatch or "",
        TickBox(run.eliminated, tick_size),
        absolute,
    ]


def grid_style(*, header_row: int = 0, left_aligned: Sequence[int] = ()) -> list[tuple[Any, ...]]:
    """Boxes for the pen: a grid from the column headers down, headers shaded."""
    first_body_row = header_row + 1
    commands: list[tuple[Any, ...]] = [
        ("FONT", (0, 0), (-1, -1), FONT, 10),
        ("GRID", (0, header_row), (-1, -1), 0.6, colors.black),
        ("BACKGROUND", (0, header_row), (-1, header_row), HEADER_FILL),
        ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
        ("ALIGN", (0, 0), (-1, -1), "CENTER"),
        ("LEFTPADDING", (0, 0), (-1, -1), CELL_PADDING),
        ("RIGHTPADDING", (0, 0), (-1, -1), CELL_PADDING),
        ("TOPPADDING", (0, 0), (-1, -1), 1.5),
        ("BOTTOMPADDING", (0, 0), (-1, -1), 1.5),
    ]
    commands += [
        ("ALIGN", (column, first_body_row), (column, -1), "LEFT") for column in left_aligned
    ]
    return commands
