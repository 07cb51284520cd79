"""PDF renderers for the qualifying paper forms (§1-0-2, §1-3-1).

Two documents: the driver's "fiche individuelle" (two cards per A4 page, handed in to race
control) and the referee's "feuille de table" (one landscape sheet per table, for checking).

Boundary: plain dataclasses in, PDF bytes out. No models and no database here; a service
turns models into these dataclasses. Absolute times arrive already computed (the rules live
in `qualifying/scoring.py`): this module only prints them.
"""

from __future__ import annotations

import bisect
import datetime
import functools
import io
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol
from xml.sax.saxutils import escape

import zxingcpp
from django.conf import settings
from django.utils import formats, translation
from django.utils.translation import gettext
from reportlab import rl_config
from reportlab.lib import colors
from reportlab.lib.enums import TA_CENTER, TA_LEFT
from reportlab.lib.pagesizes import A4, landscape
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import (
    BaseDocTemplate,
    CondPageBreak,
    Flowable,
    Frame,
    KeepInFrame,
    LongTable,
    PageBreak,
    PageTemplate,
    Paragraph,
    Spacer,
    Table,
    TableStyle,
)

from qualifying.models import Tyres, Weather

FONT = "DejaVuSans"
FONT_BOLD = "DejaVuSans-Bold"

GREY = colors.HexColor("#555555")
HEADER_FILL = colors.HexColor("#e4e4e4")
STRIPE_FILL = colors.HexColor("#f4f4f4")
CELL_PADDING = 2.5  # points, each side of a table cell


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


# --- Fonts, labels and shared pieces ------------------------------------------------------


@functools.cache
def register_fonts() -> None:
    # reportlab's built-in fonts have no glyphs beyond Latin-1 and no embedding: DejaVu
    # prints "Écurie", "×", "—" and "…" everywhere a venue's printer may be.
    font_dir = settings.BASE_DIR / "static" / "fonts"
    pdfmetrics.registerFont(TTFont(FONT, str(font_dir / "DejaVuSans.ttf")))
    pdfmetrics.registerFont(TTFont(FONT_BOLD, str(font_dir / "DejaVuSans-Bold.ttf")))
    pdfmetrics.registerFontFamily(
        FONT, normal=FONT, bold=FONT_BOLD, italic=FONT, boldItalic=FONT_BOLD
    )
    # Streams Flate-compressed only, not also ASCII85-wrapped (reportlab's default, for 7-bit
    # channels nobody prints through): smaller files, and without reportlab's optional C
    # accelerator that encoding alone took a fifth of a batch of race sheets. Every renderer
    # calls this first; the setting is reportlab's, for the whole process.
    rl_config.useA85 = 0


def _tyres_label(tyres: str) -> str:
    # The same labels as the pages: the model's choices (translated with a context).
    return str(Tyres(tyres).label) if tyres in Tyres.values else tyres


def weather_label(weather: str) -> str:
    return str(Weather(weather).label) if weather in Weather.values else weather


def _track_label(track: str) -> str:
    labels = {"dry": gettext("Dry track"), "wet": gettext("Wet track")}
    return labels.get(track, track)


def _formula_text(minute_penalty: bool) -> str:
    # Two whole sentences rather than a concatenation, so translators see each in full.
    if minute_penalty:
        return gettext(
            "Absolute time = throws + 10 × placement errors + exit squares × tyre factor"
            " + full minutes"
        )
    return gettext("Absolute time = throws + 10 × placement errors + exit squares × tyre factor")


def _minute_rule_text(minute_penalty: bool) -> str:
    if minute_penalty:
        return gettext("Minute penalty: +1 throw per full minute on the stopwatch")
    return gettext("Minute penalty: none (full minutes are not counted)")


class _DatedSheet(Protocol):
    # Any sheet data with a date and a circuit: the race sheet prints the same line.
    @property
    def date(self) -> datetime.date: ...

    @property
    def circuit(self) -> str: ...


def date_and_circuit(data: _DatedSheet) -> str:
    # The date in the active language's own format: "14 juin 2025", "June 14, 2025".
    return gettext("Date: %(date)s · Circuit: %(circuit)s") % {
        "date": formats.date_format(data.date, "DATE_FORMAT"),
        "circuit": data.circuit,
    }


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


def fit_text(text: str, font: str, size: float, width: float, min_size: float) -> tuple[str, float]:
    """Shrink `text` down to `min_size` to fit `width`, then cut it with an ellipsis."""
    while size > min_size and stringWidth(text, font, size) > width:
        size = max(min_size, size - 0.5)
    if stringWidth(text, font, size) <= width:
        return text, size
    while text and stringWidth(text + "…", font, size) > width:
        text = text[:-1]
    return text.rstrip() + "…", size


def draw_fitted(
    canvas: Canvas,
    x: float,
    y: float,
    text: str,
    *,
    font: str,
    size: float,
    width: float,
    min_size: float | None = None,
    align: str = "left",
) -> None:
    text, size = fit_text(text, font, size, width, size * 0.7 if min_size is None else min_size)
    canvas.setFont(font, size)
    if align == "right":
        canvas.drawRightString(x, y, text)
    elif align == "center":
        canvas.drawCentredString(x, y, text)
    else:
        canvas.drawString(x, y, text)


QR_QUIET_ZONE = 4  # modules of white around the code, as the QR standard asks


def qr_modules(link: str) -> list[bytes]:
    """`link`'s QR code (error correction M), top row first: one byte a module, 0 = dark.

    zxing-cpp encodes in C++ (and scores the eight masks, as the standard asks) in a
    fraction of a millisecond; reportlab's encoder, in pure Python, took most of a race
    sheet's drawing time for its QR code alone.
    """
    code = zxingcpp.create_barcode(link, zxingcpp.BarcodeFormat.QRCode, ec_level="M")
    image = code.to_image(scale=1, add_quiet_zones=False)
    count = image.shape[0]
    data = bytes(image)
    return [data[row * count : (row + 1) * count] for row in range(count)]


_DARK_RUN = re.compile(rb"\x00+")


def draw_qr(canvas: Canvas, link: str, x: float, y: float, size: float) -> None:
    """`link`'s QR code, quiet zone included, in the `size` square at (x, y)."""
    modules = qr_modules(link)
    count = len(modules)
    module = size / (count + 2 * QR_QUIET_ZONE)
    # One rectangle per run of dark modules, in module units (whole numbers), written as
    # PDF operators: a code has a few hundred runs, and reportlab's own rect() would format
    # every coordinate through its generic number formatting.
    runs: list[str] = []
    for row_index, row in enumerate(modules):
        y_row = count - 1 - row_index
        for run in _DARK_RUN.finditer(row):
            runs.append(f"{run.start()} {y_row} {run.end() - run.start()} 1 re")
    canvas.saveState()
    canvas.transform(module, 0, 0, module, x + QR_QUIET_ZONE * module, y + QR_QUIET_ZONE * module)
    canvas.setFillColor(colors.black)
    canvas.addLiteral("\n".join([*runs, "f"]))
    canvas.restoreState()


def split_to_width(text: str, font: str, size: float, width: float) -> list[str]:
    """Break a string with no spaces (a URL) into lines no wider than `width`.

    Each line is the longest run that fits (at least one character), found by bisection:
    a width only grows with each character, and measuring every prefix one character
    longer than the last was, for a referee link on every sheet, most of a sheet's text
    measuring.
    """
    lines: list[str] = []
    start = 0
    while start < len(text):
        ends = range(start + 1, len(text) + 1)
        fits = bisect.bisect_right(
            ends, width, key=lambda end: stringWidth(text[start:end], font, size)
        )
        end = start + max(1, fits)
        lines.append(text[start:end])
        start = end
    return lines


def draw_sheet_title(
    canvas: Canvas,
    *,
    left: float,
    right: float,
    top: float,
    title: str,
    table_number: int,
    heading: str,
    link: str | None,
    qr_size: float,
    url_width: float,
    reserve: float,
) -> float:
    """The top of every table sheet: QR code of the referee link with the link under it at
    the top right, the title, the table number and the championship — event line.

    Returns the width left for the text lines beside the QR code.
    """
    text_right = right
    if link:
        draw_qr(canvas, link, right - qr_size, top - qr_size, qr_size)
        canvas.setFont(FONT, 6)
        for index, line in enumerate(split_to_width(link, FONT, 6, url_width)[:3]):
            canvas.drawRightString(right, top - qr_size - (2.5 + 2.5 * index) * mm, line)
        text_right = right - reserve
    width = text_right - left
    table_label = gettext("Table %(number)s") % {"number": table_number}
    canvas.setFont(FONT_BOLD, 16)
    canvas.drawRightString(text_right, top - 6 * mm, table_label)
    draw_fitted(
        canvas,
        left,
        top - 6 * mm,
        title,
        font=FONT_BOLD,
        size=15,
        width=width - stringWidth(table_label, FONT_BOLD, 16) - 6 * mm,
    )
    draw_fitted(canvas, left, top - 12.5 * mm, heading, font=FONT, size=11, width=width)
    return width


class TickBox(Flowable):
    """A box for the pen: empty, or crossed (an eliminated run). The race sheet uses it too."""

    def __init__(self, checked: bool, size: float) -> None:
        super().__init__()
        self.checked = checked
        self.size = size

    def wrap(self, available_width: float, available_height: float) -> tuple[float, float]:
        return self.size, self.size

    def draw(self) -> None:
        self.canv.setLineWidth(0.8)
        self.canv.rect(0, 0, self.size, self.size)
        if self.checked:
            # A glyph rather than two strokes so the tick can be read back from the text.
            self.canv.setFont(FONT_BOLD, self.size * 0.95)
            self.canv.drawCentredString(self.size / 2, self.size * 0.15, "X")


@functools.cache
def _styles() -> dict[str, ParagraphStyle]:
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


def _shrunk(markup: str, style: ParagraphStyle, width: float, height: float) -> KeepInFrame:
    """A paragraph that wraps, then shrinks, rather than spill out of its table cell."""
    return KeepInFrame(width, height, [Paragraph(markup, style)], mode="shrink")


def _run_cells(
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
        absolute = _shrunk(
            f"<b>{run.absolute_time}</b> <font size=6.5>{escape(breakdown)}</font>",
            _styles()["value"],
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


def _grid_style(*, header_row: int = 0, left_aligned: Sequence[int] = ()) -> list[tuple[Any, ...]]:
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


# --- Fiche individuelle ---------------------------------------------------------------------


class QualifyingCardRenderer:
    """The driver's individual qualifying card (§1-3-1): two cards per A4 portrait page."""

    page_size = A4
    margin_mm = 10.0
    card_padding_mm = 8.0  # inside each half page, away from the cut line
    number_box_width_mm = 26.0
    number_box_height_mm = 18.0
    driver_block_height_mm = 23.0
    name_gap_mm = 5.0
    column_widths_mm = (12.0, 28.0, 18.0, 16.0, 20.0, 20.0, 22.0, 17.0, 37.0)
    header_row_height_mm = 10.0
    row_height_mm = 12.0
    tick_size_mm = 4.5
    formula_height_mm = 7.0
    signature_width_mm = 80.0
    signature_height_mm = 18.0

    def render(self, data: QualifyingSheetData) -> bytes:
        register_fonts()
        buffer = io.BytesIO()
        with translation.override(data.language):
            canvas = Canvas(buffer, pagesize=self.page_size, invariant=True)
            canvas.setTitle(f"{gettext('Individual qualifying card')} – {data.event}")
            canvas.setAuthor(data.championship)
            _, page_height = self.page_size
            # No driver still gives one blank card, for a late entry written by hand.
            drivers: list[PrintedDriver | None] = list(data.drivers) or [None]
            for index, driver in enumerate(drivers):
                slot = index % 2
                if slot == 0:
                    if index:
                        canvas.showPage()
                    self._draw_cut_line(canvas)
                self._draw_card(canvas, data, driver, top=page_height - slot * page_height / 2)
            canvas.showPage()
            canvas.save()
        return buffer.getvalue()

    def _draw_cut_line(self, canvas: Canvas) -> None:
        page_width, page_height = self.page_size
        middle = page_height / 2
        canvas.saveState()
        canvas.setStrokeColor(GREY)
        canvas.setDash(3, 3)
        canvas.setLineWidth(0.5)
        canvas.line(6 * mm, middle, page_width - 6 * mm, middle)
        canvas.setFillColor(GREY)
        canvas.setFont(FONT, 9)
        canvas.drawString(2 * mm, middle - 1.2 * mm, "✂")
        canvas.restoreState()

    def _draw_card(
        self,
        canvas: Canvas,
        data: QualifyingSheetData,
        driver: PrintedDriver | None,
        *,
        top: float,
    ) -> None:
        page_width, page_height = self.page_size
        left = self.margin_mm * mm
        right = page_width - self.margin_mm * mm
        width = right - left
        bottom = top - page_height / 2 + self.card_padding_mm * mm
        y = top - self.card_padding_mm * mm

        # Event header.
        table_label = gettext("Table %(number)s") % {"number": data.table_number}
        canvas.setFont(FONT_BOLD, 13)
        canvas.drawRightString(right, y - 5 * mm, table_label)
        title_width = width - stringWidth(table_label, FONT_BOLD, 13) - 5 * mm
        draw_fitted(
            canvas,
            left,
            y - 5 * mm,
            gettext("Individual qualifying card"),
            font=FONT_BOLD,
            size=13,
            width=title_width,
        )
        draw_fitted(
            canvas,
            left,
            y - 11 * mm,
            f"{data.championship} — {data.event}",
            font=FONT,
            size=10,
            width=width,
        )
        draw_fitted(
            canvas,
            left,
            y - 16 * mm,
            date_and_circuit(data),
            font=FONT,
            size=9,
            width=width,
        )
        y -= 20 * mm

        self._draw_driver(canvas, driver, left=left, right=right, top=y)
        y -= self.driver_block_height_mm * mm

        # Session rows share whatever height the card has left, up to a comfortable size.
        rows_space = (
            y
            - bottom
            - self.header_row_height_mm * mm
            - self.formula_height_mm * mm
            - self.signature_height_mm * mm
            - 3 * mm
        )
        sessions: list[PrintedSession | None] = list(data.sessions) or [None]
        row_height = min(self.row_height_mm * mm, rows_space / len(sessions))
        table = self._sessions_table(data, driver, sessions, row_height)
        _, table_height = table.wrapOn(canvas, width, y - bottom)
        table.drawOn(canvas, left, y - table_height)
        y -= table_height

        canvas.setFillColor(colors.black)
        draw_fitted(
            canvas,
            left,
            y - 4.5 * mm,
            _formula_text(data.minute_penalty),
            font=FONT,
            size=7.5,
            width=width,
        )

        self._draw_signature(canvas, data, left=left, right=right, bottom=bottom)

    def _draw_driver(
        self, canvas: Canvas, driver: PrintedDriver | None, *, left: float, right: float, top: float
    ) -> None:
        box_width = self.number_box_width_mm * mm
        box_height = self.number_box_height_mm * mm
        canvas.setLineWidth(1.2)
        canvas.rect(left, top - box_height, box_width, box_height)
        self._small_label(canvas, left + 1.5 * mm, top - 3 * mm, gettext("No."))
        if driver is not None:
            draw_fitted(
                canvas,
                left + box_width / 2,
                top - box_height + 4 * mm,
                str(driver.number),
                font=FONT_BOLD,
                size=30,
                width=box_width - 3 * mm,
                align="center",
            )

        x = left + box_width + self.name_gap_mm * mm
        text_width = right - x
        self._small_label(canvas, x, top - 2.5 * mm, gettext("Driver"))
        self._small_label(canvas, x, top - 12.5 * mm, gettext("Team"))
        if driver is None:
            canvas.setLineWidth(0.5)
            canvas.line(x, top - 10 * mm, right, top - 10 * mm)
            canvas.line(x, top - 18 * mm, right, top - 18 * mm)
            return
        draw_fitted(
            canvas,
            x,
            top - 9 * mm,
            driver.name,
            font=FONT_BOLD,
            size=16,
            width=text_width,
            min_size=10,
        )
        if driver.team:
            draw_fitted(
                canvas,
                x,
                top - 17 * mm,
                driver.team,
                font=FONT,
                size=11,
                width=text_width,
                min_size=8,
            )

    def _sessions_table(
        self,
        data: QualifyingSheetData,
        driver: PrintedDriver | None,
        sessions: list[PrintedSession | None],
        row_height: float,
    ) -> Table:
        styles = _styles()
        widths = [width * mm for width in self.column_widths_mm]
        header = [
            Paragraph(escape(label), styles["header"])
            for label in (
                gettext("Session"),
                gettext("Weather / track"),
                gettext("Tyres"),
                gettext("Throws"),
                gettext("Placement errors (×10)"),
                gettext("Corner-exit squares"),
                gettext("Stopwatch"),
                gettext("Eliminated"),
                gettext("Absolute time"),
            )
        ]
        rows: list[list[Any]] = [header]
        for session in sessions:
            if session is None:
                rows.append(["", "", *self._cells(None, data, widths, row_height)])
                continue
            conditions = [
                weather_label(session.weather) if session.weather else "",
                _track_label(session.track) if session.track else "",
            ]
            run = driver.runs.get(session.number) if driver is not None else None
            rows.append(
                [
                    Paragraph(f"<b>{session.number}</b>", styles["value"]),
                    _shrunk(
                        "<br/>".join(escape(part) for part in conditions if part),
                        styles["small"],
                        widths[1] - 2 * CELL_PADDING,
                        row_height - 3,
                    ),
                    *self._cells(run, data, widths, row_height),
                ]
            )
        table = Table(
            rows,
            colWidths=widths,
            rowHeights=[self.header_row_height_mm * mm] + [row_height] * len(sessions),
        )
        table.setStyle(TableStyle(_grid_style()))
        return table

    def _cells(
        self,
        run: PrintedRun | None,
        data: QualifyingSheetData,
        widths: list[float],
        row_height: float,
    ) -> list[Any]:
        return _run_cells(
            run,
            minute_penalty=data.minute_penalty,
            absolute_width=widths[-1] - 2 * CELL_PADDING,
            row_height=row_height - 3,
            tick_size=self.tick_size_mm * mm,
        )

    def _draw_signature(
        self,
        canvas: Canvas,
        data: QualifyingSheetData,
        *,
        left: float,
        right: float,
        bottom: float,
    ) -> None:
        box_width = self.signature_width_mm * mm
        box_height = self.signature_height_mm * mm
        canvas.setLineWidth(0.8)
        canvas.rect(right - box_width, bottom, box_width, box_height)
        self._small_label(
            canvas,
            right - box_width + 1.5 * mm,
            bottom + box_height - 3 * mm,
            gettext("Referee's signature"),
        )
        label = gettext("Referee:")
        canvas.setFont(FONT, 9)
        canvas.drawString(left, bottom + box_height - 5 * mm, label)
        x = left + stringWidth(label, FONT, 9) + 2 * mm
        available = right - box_width - 5 * mm - x
        if data.referee:
            draw_fitted(
                canvas,
                x,
                bottom + box_height - 5 * mm,
                data.referee,
                font=FONT,
                size=9,
                width=available,
            )
        else:
            canvas.setLineWidth(0.5)
            canvas.line(
                x, bottom + box_height - 5.5 * mm, x + available, bottom + box_height - 5.5 * mm
            )

    @staticmethod
    def _small_label(canvas: Canvas, x: float, y: float, text: str) -> None:
        canvas.saveState()
        canvas.setFillColor(GREY)
        canvas.setFont(FONT, 6.5)
        canvas.drawString(x, y, text)
        canvas.restoreState()


# --- Feuille de table -----------------------------------------------------------------------


class _PageCountCanvas(Canvas):
    """Prints "page x of y" in the corner: reportlab knows the page count only at save.

    Pages are counted per sheet: a batch's page template sets `page_group` (the sheet's
    index) as each page begins, so each sheet of a batch says "page 1 of 2" on its own.
    """

    page_group = 0

    def __init__(
        self, *args: Any, page_label: Callable[[Canvas, int, int, int], None], **kwargs: Any
    ):
        super().__init__(*args, **kwargs)
        self._page_label = page_label
        self._page_states: list[dict[str, Any]] = []

    def showPage(self) -> None:
        self._page_states.append(dict(self.__dict__))
        self._startPage()

    def save(self) -> None:
        groups = [state.get("page_group", 0) for state in self._page_states]
        totals = Counter(groups)
        pages: Counter[int] = Counter()
        for state, group in zip(self._page_states, groups, strict=True):
            self.__dict__.update(state)
            pages[group] += 1
            self._page_label(self, pages[group], totals[group], group)
            super().showPage()
        super().save()


class _AfterSheet(Flowable):
    """Takes no room; once laid out, the sheet before it is done: tell the progress bar."""

    _ZEROSIZE = True  # fits even in a full frame, so it never starts a page of its own

    def __init__(self, callback: Callable[[], None]) -> None:
        super().__init__()
        self.callback = callback

    def wrap(self, available_width: float, available_height: float) -> tuple[float, float]:
        return 0, 0

    def draw(self) -> None:
        self.callback()


def empty_pdf(page_size: tuple[float, float], message: str) -> bytes:
    """One page with `message`: a batch with nothing to print still gives a valid PDF."""
    register_fonts()
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=page_size, invariant=True)
    canvas.setFont(FONT, 12)
    canvas.drawString(20 * mm, page_size[1] - 30 * mm, message)
    canvas.showPage()
    canvas.save()
    return buffer.getvalue()


class TableSheetRenderer:
    """The referee's table sheet (§1-3-1): A4 landscape, one table of runs per session."""

    page_size = landscape(A4)
    margin_mm = 10.0
    header_height_mm = 34.0
    footer_height_mm = 12.0
    qr_size_mm = 24.0
    url_width_mm = 90.0
    # No., name, team, tyres, throws, placement, exits, stopwatch, eliminated, absolute time.
    column_widths_mm = (12.0, 58.0, 46.0, 20.0, 16.0, 20.0, 20.0, 22.0, 17.0, 46.0)
    title_row_height_mm = 8.0
    header_row_height_mm = 10.0
    row_height_mm = 8.5
    tick_size_mm = 4.0
    session_gap_mm = 6.0

    def render(self, data: QualifyingSheetData) -> bytes:
        return self.render_many([data])

    def render_many(
        self,
        sheets: Sequence[QualifyingSheetData],
        progress: Callable[[int, int], None] | None = None,
    ) -> bytes:
        """Every sheet in one PDF, each from a new page and with its own page count.

        `progress(done, total)` is called as each sheet is laid out (a Celery task passes
        it on to the progress bar).
        """
        if not sheets:
            return empty_pdf(self.page_size, gettext("No table sheet to print."))
        register_fonts()
        buffer = io.BytesIO()
        margin = self.margin_mm * mm
        first = sheets[0]
        with translation.override(first.language):
            title = f"{gettext('Qualifying table sheet')} – {first.event}"
        document = BaseDocTemplate(
            buffer,
            pagesize=self.page_size,
            leftMargin=margin,
            rightMargin=margin,
            topMargin=margin + self.header_height_mm * mm,
            bottomMargin=margin + self.footer_height_mm * mm,
            title=title,
            author=first.championship,
            invariant=True,
        )
        # One page template per sheet, so that each page's header is drawn from its own sheet.
        document.addPageTemplates(
            [
                PageTemplate(
                    id=f"sheet-{index}",
                    frames=[
                        Frame(
                            document.leftMargin,
                            document.bottomMargin,
                            document.width,
                            document.height,
                            leftPadding=0,
                            rightPadding=0,
                            topPadding=0,
                            bottomPadding=0,
                            id="rows",
                        )
                    ],
                    onPage=functools.partial(self._begin_page, data=sheet, index=index),
                )
                for index, sheet in enumerate(sheets)
            ]
        )
        story: list[Flowable] = []
        for index, sheet in enumerate(sheets):
            if index:
                story.append(PageBreak(nextTemplate=f"sheet-{index}"))
            # Labels are looked up as the flowables are made: in this sheet's language.
            with translation.override(sheet.language):
                story += self._story(sheet)
            if progress is not None:
                story.append(_AfterSheet(functools.partial(progress, index + 1, len(sheets))))
        document.build(
            story,
            canvasmaker=functools.partial(
                _PageCountCanvas,
                page_label=functools.partial(self._draw_page_count, sheets=sheets),
            ),
        )
        return buffer.getvalue()

    def _begin_page(
        self,
        canvas: Canvas,
        document: BaseDocTemplate,
        *,
        data: QualifyingSheetData,
        index: int,
    ) -> None:
        canvas.page_group = index  # type: ignore[attr-defined]
        with translation.override(data.language):
            self._draw_page(canvas, document, data=data)

    def _story(self, data: QualifyingSheetData) -> list[Flowable]:
        styles = _styles()
        story: list[Flowable] = []
        if not data.sessions:
            return [Paragraph(escape(gettext("No qualifying session.")), styles["cell"])]
        # Never strand a session title at the foot of a page without a few of its rows.
        keep_height = (
            self.title_row_height_mm + self.header_row_height_mm + 3 * self.row_height_mm
        ) * mm
        for session in data.sessions:
            story += [
                CondPageBreak(keep_height),
                self._session_table(data, session),
                Spacer(0, self.session_gap_mm * mm),
            ]
        # No gap after the last session: at a page's foot it would start a blank page.
        return story[:-1]

    @staticmethod
    def _session_title(session: PrintedSession) -> str:
        blank = "________"
        return gettext("Session %(number)s — Weather: %(weather)s · Track: %(track)s") % {
            "number": session.number,
            "weather": weather_label(session.weather) if session.weather else blank,
            "track": _track_label(session.track) if session.track else blank,
        }

    def _session_table(self, data: QualifyingSheetData, session: PrintedSession) -> LongTable:
        styles = _styles()
        widths = [width * mm for width in self.column_widths_mm]
        row_height = self.row_height_mm * mm
        header = [
            Paragraph(escape(label), styles["header"])
            for label in (
                gettext("No."),
                gettext("Name"),
                gettext("Team"),
                gettext("Tyres"),
                gettext("Throws"),
                gettext("Placement errors (×10)"),
                gettext("Corner-exit squares"),
                gettext("Stopwatch"),
                gettext("Eliminated"),
                gettext("Absolute time"),
            )
        ]
        # The session title is the table's first row, so that it repeats with the column
        # headers on every page a session spills onto.
        title = Paragraph(escape(self._session_title(session)), styles["heading"])
        rows: list[list[Any]] = [[title] + [""] * (len(widths) - 1), header]
        cell_width = [width - 2 * CELL_PADDING for width in widths]
        cell_height = row_height - 3
        for driver in data.drivers:
            rows.append(
                [
                    Paragraph(f"<b>{driver.number}</b>", styles["value"]),
                    _shrunk(escape(driver.name), styles["cell_bold"], cell_width[1], cell_height),
                    _shrunk(escape(driver.team or ""), styles["cell"], cell_width[2], cell_height),
                    *_run_cells(
                        driver.runs.get(session.number),
                        minute_penalty=data.minute_penalty,
                        absolute_width=cell_width[-1],
                        row_height=cell_height,
                        tick_size=self.tick_size_mm * mm,
                    ),
                ]
            )
        table = LongTable(
            rows,
            colWidths=widths,
            rowHeights=[self.title_row_height_mm * mm, self.header_row_height_mm * mm]
            + [row_height] * len(data.drivers),
            repeatRows=2,
        )
        style = _grid_style(header_row=1, left_aligned=(1, 2))
        style += [
            ("SPAN", (0, 0), (-1, 0)),
            ("ALIGN", (0, 0), (-1, 0), "LEFT"),
            ("VALIGN", (0, 0), (-1, 0), "BOTTOM"),
            ("LEFTPADDING", (0, 0), (-1, 0), 0),
        ]
        if data.drivers:
            # Faint stripes help the eye along a long row and still take a pen.
            style.append(("ROWBACKGROUNDS", (0, 2), (-1, -1), [colors.white, STRIPE_FILL]))
        table.setStyle(TableStyle(style))
        return table

    def _draw_page(
        self, canvas: Canvas, document: BaseDocTemplate, *, data: QualifyingSheetData
    ) -> None:
        page_width, page_height = self.page_size
        margin = self.margin_mm * mm
        left, right, top = margin, page_width - margin, page_height - margin
        canvas.saveState()

        width = draw_sheet_title(
            canvas,
            left=left,
            right=right,
            top=top,
            title=gettext("Qualifying table sheet"),
            table_number=data.table_number,
            heading=f"{data.championship} — {data.event}",
            link=data.referee_link,
            qr_size=self.qr_size_mm * mm,
            url_width=self.url_width_mm * mm,
            reserve=(self.qr_size_mm + 6) * mm,
        )
        referee = gettext("Referee: %(name)s") % {"name": data.referee or "____________________"}
        details = f"{date_and_circuit(data)} · {referee}"
        draw_fitted(canvas, left, top - 18 * mm, details, font=FONT, size=9, width=width)
        draw_fitted(
            canvas,
            left,
            top - 23 * mm,
            _formula_text(data.minute_penalty),
            font=FONT,
            size=8,
            width=width,
        )
        draw_fitted(
            canvas,
            left,
            top - 27 * mm,
            _minute_rule_text(data.minute_penalty),
            font=FONT,
            size=8,
            width=width,
        )

        # Every page is signed, so a page that comes loose is still the referee's word.
        baseline = margin + 3 * mm
        if data.referee:
            label = gettext("Referee: %(name)s") % {"name": data.referee}
            draw_fitted(canvas, left, baseline, label, font=FONT, size=9, width=80 * mm)
        signature = gettext("Referee's signature:")
        x = left + 90 * mm
        canvas.setFont(FONT, 9)
        canvas.drawString(x, baseline, signature)
        canvas.setLineWidth(0.5)
        line_start = x + stringWidth(signature, FONT, 9) + 2 * mm
        canvas.line(line_start, baseline - 0.5 * mm, line_start + 80 * mm, baseline - 0.5 * mm)
        canvas.restoreState()

    def _draw_page_count(
        self,
        canvas: Canvas,
        page: int,
        total: int,
        group: int,
        *,
        sheets: Sequence[QualifyingSheetData],
    ) -> None:
        page_width, _ = self.page_size
        margin = self.margin_mm * mm
        canvas.saveState()
        canvas.setFont(FONT, 8)
        canvas.setFillColor(GREY)
        with translation.override(sheets[group].language):
            label = gettext("Page %(page)s of %(pages)s") % {"page": page, "pages": total}
        canvas.drawRightString(page_width - margin, margin + 3 * mm, label)
        canvas.restoreState()
