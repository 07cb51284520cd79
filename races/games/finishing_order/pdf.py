"""PDF of a finishing-order table's sheet, A4 portrait, one page a table: the grid with a
box for each driver's crossing order, the non-starters' tick, the retirements to write
(driver, lap, note) and the QR code of the table's link. Plain dataclasses in, PDF bytes
out; no models and no database here (``selectors.py`` builds the data).

Every name reaching a Paragraph (the game's, the event's, a driver's) goes through the
printing toolkit's ``markup``: a name is hostile input, and a Paragraph reads markup.
"""

from __future__ import annotations

import datetime
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from django.utils import formats, translation
from django.utils.translation import gettext, ngettext
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.platypus import (
    Flowable,
    PageBreak,
    Paragraph,
    SimpleDocTemplate,
    Spacer,
    Table,
    TableStyle,
)

from tournament.documents.printing import (
    FONT_BOLD,
    AfterSheet,
    draw_qr,
    empty_pdf,
    markup,
    plain_styles,
    plain_table,
    register_fonts,
)


@dataclass(frozen=True)
class GridDriver:
    position: int
    number: int
    name: str
    team: str = ""


@dataclass(frozen=True)
class FinishingOrderSheetData:
    game_name: str
    championship: str
    event: str
    date: datetime.date
    table_number: int
    drivers: Sequence[GridDriver]
    laps: int | None = None
    referee: str = ""
    link: str | None = None  # the table's link, printed as a QR code (None: no key here)
    language: str = "fr"


class _QrCode(Flowable):
    """The table link's QR code, ``size`` square."""

    def __init__(self, link: str, size: float) -> None:
        super().__init__()
        self.link, self.size = link, size

    def wrap(self, available_width: float, available_height: float) -> tuple[float, float]:
        return self.size, self.size

    def draw(self) -> None:
        draw_qr(self.canv, self.link, 0, 0, self.size)


class FinishingOrderSheet:
    """The referee's sheet of a finishing-order table: filled in with a pen at the table."""

    margin_mm = 15
    row_height_mm = 10
    qr_mm = 30
    blank_rows = 6  # a table with no grid yet: rows to write the drivers in by hand

    def render(self, data: FinishingOrderSheetData) -> bytes:
        return self.render_many([data])

    def render_many(
        self,
        sheets: Sequence[FinishingOrderSheetData],
        progress: Callable[[int, int], None] | None = None,
    ) -> bytes:
        """Every table's sheet in one PDF, one page each; ``progress(done, total)`` after
        each (the sheets' batch passes it to its progress bar)."""
        if not sheets:
            return empty_pdf(A4, gettext("No race sheet to print."))
        register_fonts()
        buffer = io.BytesIO()
        margin = self.margin_mm * mm
        first = sheets[0]
        doc = SimpleDocTemplate(
            buffer, pagesize=A4, leftMargin=margin, rightMargin=margin, topMargin=margin,
            bottomMargin=margin, title=f"{first.game_name} – {first.event}",
            author=first.championship, invariant=True,
        )  # fmt: skip
        story: list[Flowable] = []
        for done, data in enumerate(sheets, start=1):
            with translation.override(data.language):
                story += self._sheet(data)
            if progress is not None:
                story.append(AfterSheet(lambda done=done: progress(done, len(sheets))))
            if done < len(sheets):
                story.append(PageBreak())
        doc.build(story)
        return buffer.getvalue()

    def _sheet(self, data: FinishingOrderSheetData) -> list[Flowable]:
        title, heading, body = plain_styles()
        width = A4[0] - 2 * self.margin_mm * mm
        details = [
            f"{data.championship} — {data.event}",
            formats.date_format(data.date, "DATE_FORMAT"),
        ]
        if data.laps:
            details.append(
                ngettext("%(laps)s lap", "%(laps)s laps", data.laps) % {"laps": data.laps}
            )
        lines: list[Flowable] = [
            Paragraph(
                markup(
                    f"{data.game_name} · "
                    + gettext("Table %(number)s") % {"number": data.table_number}
                ),
                title,
            ),
            Spacer(1, 2 * mm),
            Paragraph(markup(" · ".join(details)), body),
            Spacer(1, 2 * mm),
            Paragraph(
                markup(gettext("Referee") + gettext(":") + " " + (data.referee or "…" * 12)),
                body,
            ),
        ]
        if data.link:
            lines += [
                Spacer(1, 2 * mm),
                Paragraph(markup(gettext("The table's page (result, history):")), body),
                Paragraph(markup(data.link), body),
            ]
            head = Table(
                [[lines, _QrCode(data.link, self.qr_mm * mm)]],
                colWidths=[width - (self.qr_mm + 4) * mm, (self.qr_mm + 4) * mm],
            )
            head.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "TOP")]))
            story: list[Flowable] = [head]
        else:
            story = lines
        story += [Spacer(1, 4 * mm), Paragraph(markup(gettext("Grid")), heading)]
        # Paragraphs: a long heading ("Ordre de passage de la ligne") wraps in its column
        # instead of running over the next one.
        head_style = ParagraphStyle("head", parent=body, fontName=FONT_BOLD, fontSize=8.5)
        header = [
            Paragraph(markup(text), head_style)
            for text in (
                gettext("Grid"),
                gettext("Driver"),
                gettext("Crossing order"),
                gettext("Did not start"),
            )
        ]
        drivers = [
            [
                str(d.position),
                Paragraph(
                    f"<b>{d.number}</b> {markup(d.name)}"
                    + (f"<br/><font size=7>{markup(d.team)}</font>" if d.team else ""),
                    body,
                ),
                "",
                "☐",
            ]
            for d in data.drivers
        ] or [["", "", "", "☐"] for _row in range(self.blank_rows)]
        grid = plain_table([header, *drivers], [14 * mm, 96 * mm, 35 * mm, 35 * mm])
        grid.setStyle(
            TableStyle(
                [
                    ("ROWHEIGHT", (0, 1), (-1, -1), self.row_height_mm * mm),
                    ("ALIGN", (3, 1), (3, -1), "CENTER"),
                    ("FONTSIZE", (3, 1), (3, -1), 14),
                ]
            )
        )
        retired_rows = max(2, min(len(data.drivers), 4) or self.blank_rows // 2)
        retirements = plain_table(
            [[gettext("Driver"), gettext("Lap"), gettext("Note (what happened)")]]
            + [["", "", ""] for _row in range(retired_rows)],
            [40 * mm, 20 * mm, 120 * mm],
        )
        retirements.setStyle(TableStyle([("ROWHEIGHT", (0, 1), (-1, -1), self.row_height_mm * mm)]))
        hint = gettext(
            "Crossing order: 1 for the first over the line, 2, 3… Retired drivers rank after "
            "the finishers, the later lap first; the non-starters score nothing. Every "
            "driver of the grid has one line: a place, a retirement or “did not start”."
        )
        return [
            *story,
            grid,
            Spacer(1, 4 * mm),
            Paragraph(markup(gettext("Retirements")), heading),
            retirements,
            Spacer(1, 3 * mm),
            Paragraph(markup(hint), body),
        ]
