"""The cells of one driver's row of the race sheet (§2-0-3): the position, the number, the
name and team fitted to their cell, the stand, and each part's wear points with a box per
point to cross out (§5-0-1).

Boundary: a canvas, a row's `GridLine` and the grid's column edges in, ink out. The page
around the rows (header, grid frame, weather box, footer) is `races/sheets/pdf.py`'s.
"""

from __future__ import annotations

from reportlab.lib.units import mm
from reportlab.pdfbase.pdfmetrics import stringWidth

from races.grid.configuration import PARTS, STAND_POINTS
from races.sheets.data import GridLine, PrintedConfiguration
from races.sheets.drawing import Boxes, box_layout, fit_lines, place_form, wrap_words
from tournament.documents.printing import FONT, FONT_BOLD, GREY, SheetCanvas


class GridCells:
    """A driver's row of the race sheet; the renderer (`RaceSheetRenderer`) is one."""

    # Nothing printed smaller than this (the issue of the sheet's small print): headers,
    # causes, names and notes are laid out at 7 pt or more, whole words only.
    min_text_size = 7.0
    row_height_mm = 15.9
    cell_padding_mm = 0.8
    value_line_mm = 4.5  # top of a part's cell: the printed value, or a box to write it in
    value_box_mm = (5.5, 3.4)  # that box, when the configuration is not recorded yet
    wear_pitch_mm = 3.0  # largest step between wear-point boxes: 2.5 mm boxes for the pen
    # Blank boxes per part when the configuration is unknown. A part may legally hold up to
    # 17 points (22 less the five other parts at 1), but 12 already leaves only 10 for the
    # other five parts, and 12 boxes is what a part's cell holds at the full pen-sized pitch
    # (3 across, 4 down). Past 12 the referee tallies in the cell's margin.
    blank_wear_boxes = 12

    @staticmethod
    def _configuration(line: GridLine | None) -> PrintedConfiguration | None:
        return line.configuration if line is not None else None

    def _draw_row(
        self,
        canvas: SheetCanvas,
        line: GridLine | None,
        edges: list[float],
        top: float,
    ) -> None:
        """What a row prints of its driver under `top`. The blank wear boxes of a row whose
        configuration is not recorded are its page's frame's (`_draw_blank`)."""
        padding = self.cell_padding_mm * mm
        row_height = self.row_height_mm * mm
        middle = top - row_height / 2

        def centred(column: int, text: str, size: float) -> None:
            canvas.setFont(FONT_BOLD, size)
            x = (edges[column] + edges[column + 1]) / 2
            canvas.drawCentredString(x, middle - size * 0.35, text)

        if line is not None:
            centred(0, str(line.position), 11)
            centred(1, str(line.number), 12)
            self._draw_driver(canvas, line, edges[2] + padding, edges[3] - padding, top)
            if line.stand is not None:
                centred(3, str(line.stand), 12)

        configuration = self._configuration(line)
        if configuration is None:
            return
        for offset, part in enumerate(PARTS):
            value = getattr(configuration, part)
            self._draw_wear(canvas, value, edges[4 + offset], edges[5 + offset], top)
        self._draw_wear(canvas, configuration.stand_points, edges[10], edges[11], top, stand=True)

    def _draw_blank(self, canvas: SheetCanvas, edges: list[float], top: float) -> None:
        """A row's wear cells under `top` when its configuration is not recorded yet."""
        for offset in range(len(PARTS)):
            self._draw_wear(canvas, None, edges[4 + offset], edges[5 + offset], top)
        self._draw_wear(canvas, None, edges[10], edges[11], top, stand=True)

    def _draw_driver(
        self, canvas: SheetCanvas, line: GridLine, left: float, right: float, top: float
    ) -> None:
        width = right - left
        bottom = top - self.row_height_mm * mm
        smallest = self.min_text_size
        team_pitch = smallest * 1.1
        # The name first, as large as it fits (9 pt down to 7 pt) above one line of team,
        # then the team under it on what is left (a second line under a short name).
        floor = bottom + (1.6 * mm + team_pitch + 0.5 * mm if line.team else 0.6 * mm)
        name_lines, size = self._name_lines(line.name, width, top, floor)
        first = self._first_baseline(top, size)
        team_lines: list[str] = []
        if line.team:
            last = first - (len(name_lines) - 1) * size * 1.15
            room = 2 if last - 0.3 * size - team_pitch > floor else 1
            # A team has several drivers: fitted once in the document.
            fitted = canvas.once(fit_lines, line.team, FONT, smallest, width, room, smallest)
            team_lines = fitted[0]
        team_size = smallest
        canvas.setFont(FONT_BOLD, size)
        y = first
        for text in name_lines:
            canvas.drawString(left, y, text)
            y -= size * 1.15
        if team_lines:
            canvas.saveState()
            canvas.setFillColor(GREY)
            canvas.setFont(FONT, team_size)
            y = bottom + 1.6 * mm + (len(team_lines) - 1) * team_pitch
            for text in team_lines:
                canvas.drawString(left, y, text)
                y -= team_pitch
            canvas.restoreState()

    @staticmethod
    def _first_baseline(top: float, size: float) -> float:
        # A glyph rises 0.93 of its size above the baseline: its top just under the rule.
        return top - 0.95 * size - 0.3 * mm

    def _name_lines(
        self, name: str, width: float, top: float, floor: float
    ) -> tuple[list[str], float]:
        """A name's lines and size: the largest size (9 pt to 7 pt) at which it fits whole
        between the cell's ``top`` and ``floor``; at 7 pt, cut only past that."""
        size = 9.0
        while True:
            leading = size * 1.15
            first = self._first_baseline(top, size)
            capacity = 1 + int((first - 0.3 * size - floor) // leading)
            lines = wrap_words(name, FONT_BOLD, size, width)
            fits = all(stringWidth(text, FONT_BOLD, size) <= width for text in lines)
            if fits and len(lines) <= capacity:
                return lines, size  # whole lines: what fit_lines would give back
            if size <= self.min_text_size:
                break
            size -= 0.5
        return fit_lines(name, FONT_BOLD, size, width, capacity, size)

    def _draw_wear(
        self,
        canvas: SheetCanvas,
        value: int | None,
        left: float,
        right: float,
        top: float,
        *,
        stand: bool = False,
    ) -> None:
        """A part's cell: its points on top, then one box per point to cross out."""
        padding = self.cell_padding_mm * mm
        if value is None:
            # Not recorded yet: a box to write the points in, and blank boxes to cross.
            count = STAND_POINTS if stand else self.blank_wear_boxes
        else:
            canvas.setFont(FONT_BOLD, 8.5)
            canvas.drawString(left + padding + 0.4 * mm, top - 3.6 * mm, str(value))
            count = value
        if count <= 0 and value is not None:
            return
        form = self._wear_form(canvas, count, right - left, blank=value is None)
        place_form(canvas, form, top, left)

    def _wear_form(self, canvas: SheetCanvas, count: int, width: float, *, blank: bool) -> str:
        """The boxes of a wear cell ``width`` wide, its top left corner at the origin.

        Drawn once per document for each number of boxes and cell width, then placed in every
        cell that needs it: a sheet has seventy such cells and some eight hundred boxes, which
        drawn one by one made most of a sheet's size and time.
        """
        name = f"RaceSheet-wear-{count}-{width:.2f}-{'blank' if blank else 'value'}"
        if canvas.hasForm(name):
            return name
        row_height = self.row_height_mm * mm
        canvas.beginForm(name, lowerx=0, lowery=-row_height, upperx=width, uppery=0)
        padding = self.cell_padding_mm * mm
        boxes = Boxes()
        if blank:
            box_width, box_height = (size * mm for size in self.value_box_mm)
            boxes.add(padding, -padding - box_height, box_width, box_height)
        if count > 0:
            area_top = -self.value_line_mm * mm
            area_width = width - 2 * padding
            area_height = area_top + row_height - padding
            columns, pitch = box_layout(count, area_width, area_height, self.wear_pitch_mm * mm)
            size = pitch * 5 / 6
            x0 = (width - columns * pitch) / 2 + (pitch - size) / 2
            for index in range(count):
                row, column = divmod(index, columns)
                boxes.add(x0 + column * pitch, area_top - (row + 1) * pitch, size, size)
        boxes.stroke(canvas, line_width=0.5)
        canvas.endForm()
        return name
