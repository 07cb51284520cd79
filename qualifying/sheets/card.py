"""The driver's individual qualifying card, the "fiche individuelle" (§1-3-1).

Two cards per A4 portrait page, cut apart along the dashed line: each driver's runs of every
session, the absolute times with their sums, and a box for the referee's signature. The card
is handed in to race control.

Boundary: `QualifyingSheetData` in, PDF bytes out; no models and no database. The data
classes and the pieces this card shares with the table sheet (labels, paragraph styles, run
cells, grid style) are in `qualifying/sheets/pdf.py`; fonts and fitted text in
`tournament/documents/printing.py`.
"""

from __future__ import annotations

import io
from typing import Any

from django.utils import translation
from django.utils.translation import gettext
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.units import mm
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import Paragraph, Table, TableStyle

from qualifying.sheets.pdf import (
    PrintedDriver,
    PrintedRun,
    PrintedSession,
    QualifyingSheetData,
    formula_text,
    grid_style,
    paragraph_styles,
    run_cells,
    shrunk,
    track_label,
    weather_label,
)
from tournament.documents.printing import (
    CELL_PADDING,
    FONT,
    FONT_BOLD,
    GREY,
    date_and_circuit,
    draw_fitted,
    markup,
    register_fonts,
)

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
            formula_text(data.minute_penalty),
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
        styles = paragraph_styles()
        widths = [width * mm for width in self.column_widths_mm]
        header = [
            Paragraph(markup(label), styles["header"])
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
                track_label(session.track) if session.track else "",
            ]
            run = driver.runs.get(session.number) if driver is not None else None
            rows.append(
                [
                    Paragraph(f"<b>{session.number}</b>", styles["value"]),
                    shrunk(
                        "<br/>".join(markup(part) for part in conditions if part),
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
        table.setStyle(TableStyle(grid_style()))
        return table

    def _cells(
        self,
        run: PrintedRun | None,
        data: QualifyingSheetData,
        widths: list[float],
        row_height: float,
    ) -> list[Any]:
        return run_cells(
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
