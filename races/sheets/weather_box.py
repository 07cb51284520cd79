"""The weather evolution box of the race sheet (§3-2-4 … §3-2-6).

In a variable race (or one whose weather is not drawn yet) the referee writes down the
table's weather draws here: eight draws in two halves side by side, each with its lap or
turn, its d20, the weather and the track that came out (one column to tick for each, its
name in the header: nothing under 7 pt, no word cut), and a box to tick once the weather is
fixed for the rest of the race.

Boundary: a canvas, a top and a width in, the empty form out. The race sheet
(`races/sheets/pdf.py`) decides which page carries the box and where it goes.
"""

from __future__ import annotations

from django.utils.translation import gettext
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas

from qualifying.models import Track, Weather
from races.sheets.drawing import fit_lines, wrap_words
from tournament.documents.printing import (
    FONT,
    FONT_BOLD,
    GREY,
    HEADER_FILL,
    TickBox,
)


class WeatherEvolutionBox:
    """The table's weather draws, 1–8, in two halves side by side: one row per draw."""

    text_size = 7.0  # the sheet's smallest print
    evolution_title_mm = 10.5  # the title, then the note on two lines of 7 pt
    evolution_header_mm = 9.5  # three lines of 7 pt: "Tour / tour de jeu"
    evolution_row_mm = 5.5
    evolution_rows = 4  # per half
    # Draw, lap / turn, d20, sun, variable, rain, dry, wet, fixed: one half, 93 mm.
    evolution_column_widths_mm = (7.0, 12.0, 8.0, 11.0, 13.0, 9.5, 10.0, 13.5, 9.0)

    @classmethod
    def height_mm(cls) -> float:
        return (
            cls.evolution_title_mm
            + cls.evolution_header_mm
            + cls.evolution_rows * cls.evolution_row_mm
        )

    def draw(self, canvas: Canvas, top: float, *, margin: float, width: float) -> None:
        """The table's weather draws in a variable race (§3-2-4 … §3-2-6), two halves.

        From `top` down, `width` wide from `margin` (the page's left margin).
        """
        size = self.text_size
        canvas.setFont(FONT_BOLD, 9.5)
        canvas.drawString(margin, top - 3.5 * mm, gettext("Weather evolution"))
        note = gettext(
            "Draw at the end of a game turn in which a car rolled 20 in 5th or 30 in 6th"
            " (§3-2-4). Sun or rain twice in a row: fixed for the rest of the race (§3-2-6)."
        )
        canvas.saveState()
        canvas.setFillColor(GREY)
        canvas.setFont(FONT, size)
        lines, _size = fit_lines(note, FONT, size, width, 2, size)
        for index, text in enumerate(lines):
            canvas.drawString(margin, top - (6.8 + 2.8 * index) * mm, text)
        canvas.restoreState()

        headers = [
            gettext("No."),
            gettext("Lap / turn"),
            gettext("d20"),
            *(str(label) for label in Weather.labels),
            *(str(label) for label in Track.labels),
            gettext("Fixed"),
        ]
        half_width = sum(self.evolution_column_widths_mm) * mm
        gap = width - 2 * half_width
        header_height = self.evolution_header_mm * mm
        row_height = self.evolution_row_mm * mm
        table_top = top - self.evolution_title_mm * mm
        box = 2.8 * mm
        leading = size * 1.1
        for half in range(2):
            edges = [margin + half * (half_width + gap)]
            for column_width in self.evolution_column_widths_mm:
                edges.append(edges[-1] + column_width * mm)
            left, right = edges[0], edges[-1]
            bottom = table_top - header_height - self.evolution_rows * row_height
            canvas.saveState()
            canvas.setFillColor(HEADER_FILL)
            canvas.rect(
                left, table_top - header_height, right - left, header_height, stroke=0, fill=1
            )
            canvas.restoreState()
            canvas.setFont(FONT_BOLD, size)
            for column, label in enumerate(headers):
                lines = wrap_words(label, FONT_BOLD, size, edges[column + 1] - edges[column] - mm)
                x = (edges[column] + edges[column + 1]) / 2
                y = table_top - header_height / 2 + (len(lines) - 1) * leading / 2 - size * 0.35
                for line in lines:
                    canvas.drawCentredString(x, y, line)
                    y -= leading
            for row in range(self.evolution_rows):
                row_top = table_top - header_height - row * row_height
                baseline = row_top - row_height / 2 - 2.3
                canvas.setFont(FONT_BOLD, 8)
                draw_number = str(half * self.evolution_rows + row + 1)
                canvas.drawCentredString((edges[0] + edges[1]) / 2, baseline, draw_number)
                # A box to tick in each weather, track and "fixed" column.
                for column in range(3, len(headers)):
                    TickBox(False, box).drawOn(
                        canvas,
                        (edges[column] + edges[column + 1] - box) / 2,
                        row_top - (row_height + box) / 2,
                    )
            rules = canvas.beginPath()
            for y in [
                table_top,
                *(
                    table_top - header_height - row * row_height
                    for row in range(self.evolution_rows + 1)
                ),
            ]:
                rules.moveTo(left, y)
                rules.lineTo(right, y)
            for x in edges:
                rules.moveTo(x, table_top)
                rules.lineTo(x, bottom)
            canvas.setLineWidth(0.6)
            canvas.drawPath(rules, stroke=1, fill=0)
