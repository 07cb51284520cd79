"""The referee's qualifying table sheet, the "feuille de table" (§1-3-1).

One A4 landscape sheet per qualifying table, for checking: one table of runs per session,
every driver of the table in it. A batch of tables renders into one PDF, each sheet from a
new page and with its own page count.

Boundary: `QualifyingSheetData` in, PDF bytes out; no models and no database. The data
classes and the pieces this sheet shares with the driver's card (labels, paragraph styles,
run cells, grid style) are in `qualifying/sheets/pdf.py`; fonts, titles, QR codes and page counts
in `tournament/documents/printing.py`.
"""

from __future__ import annotations

import functools
import io
from collections.abc import Callable, Sequence
from typing import Any

from django.utils import translation
from django.utils.translation import gettext
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4, landscape
from reportlab.lib.units import mm
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import (
    BaseDocTemplate,
    CondPageBreak,
    Flowable,
    Frame,
    LongTable,
    PageBreak,
    PageTemplate,
    Paragraph,
    Spacer,
    TableStyle,
)

from qualifying.sheets.pdf import (
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
    GREY,
    STRIPE_FILL,
    AfterSheet,
    PageCountCanvas,
    date_and_circuit,
    draw_fitted,
    draw_sheet_title,
    empty_pdf,
    markup,
    register_fonts,
)


def _minute_rule_text(minute_penalty: bool) -> str:
    if minute_penalty:
        return gettext("Minute penalty: +1 throw per full minute on the stopwatch")
    return gettext("Minute penalty: none (full minutes are not counted)")


# --- Feuille de table -----------------------------------------------------------------------


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
                story.append(AfterSheet(functools.partial(progress, index + 1, len(sheets))))
        document.build(
            story,
            canvasmaker=functools.partial(
                PageCountCanvas,
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
        styles = paragraph_styles()
        story: list[Flowable] = []
        if not data.sessions:
            return [Paragraph(markup(gettext("No qualifying session.")), styles["cell"])]
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
            "track": track_label(session.track) if session.track else blank,
        }

    def _session_table(self, data: QualifyingSheetData, session: PrintedSession) -> LongTable:
        styles = paragraph_styles()
        widths = [width * mm for width in self.column_widths_mm]
        row_height = self.row_height_mm * mm
        header = [
            Paragraph(markup(label), styles["header"])
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
        title = Paragraph(markup(self._session_title(session)), styles["heading"])
        rows: list[list[Any]] = [[title] + [""] * (len(widths) - 1), header]
        cell_width = [width - 2 * CELL_PADDING for width in widths]
        cell_height = row_height - 3
        for driver in data.drivers:
            rows.append(
                [
                    Paragraph(f"<b>{driver.number}</b>", styles["value"]),
                    shrunk(markup(driver.name), styles["cell_bold"], cell_width[1], cell_height),
                    shrunk(markup(driver.team or ""), styles["cell"], cell_width[2], cell_height),
                    *run_cells(
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
        style = grid_style(header_row=1, left_aligned=(1, 2))
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
            formula_text(data.minute_penalty),
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
