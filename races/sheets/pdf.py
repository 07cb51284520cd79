"""PDF renderer for the race sheet, the "feuille de course" (§2-0-3).

One A4 portrait sheet per race table, filled in with the referee's pen: the grid and stands,
each car's configuration with one box per wear point to cross out (§5-0-1: "chaque point de
vie perdu doit être rayé sur la feuille de course"), the retirements with cause and lap,
the finishing order and, in variable weather, the weather draws of the table (§3-2-4).

Boundary: plain dataclasses in, PDF bytes out. No models and no database here; a service
(`races/sheets/selectors.py`) turns models into the dataclasses of `races/sheets/data.py`,
which also holds the sheet's wording. Fonts, the QR code, the tick box and the text-fitting
helpers are the printing toolkit's (`tournament/documents/printing.py`), so that every printed
form of the project looks and fits alike.

The sheet is drawn straight on the canvas rather than with platypus tables: every row has
the same height, so the layout is simple arithmetic, and a batch of 100 tables of 10 takes
well under a second (a Celery task renders a whole event at once).
"""

from __future__ import annotations

import functools
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from django.utils import translation
from django.utils.translation import gettext
from reportlab.lib.pagesizes import A4
from reportlab.lib.units import mm
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import Canvas

from qualifying.models import Track, Weather
from qualifying.sheets.pdf import weather_label
from races.grid.configuration import PARTS, STAND_POINTS
from races.sheets.data import (
    GridLine,
    RaceSheetData,
    cause_labels,
    part_labels,
    race_draws_label,
    sanction_label,
    track_label,
)
from races.sheets.drawing import (
    Boxes,
    Segment,
    box_layout,
    draw_segments,
    fit_lines,
    tick_options,
    wrap_words,
)
from races.sheets.weather_box import WeatherEvolutionBox
from tournament.documents.printing import (
    FONT,
    FONT_BOLD,
    GREY,
    HEADER_FILL,
    STRIPE_FILL,
    SheetCanvas,
    date_and_circuit,
    draw_fitted,
    draw_sheet_title,
    empty_pdf,
    register_fonts,
)


@dataclass(frozen=True)
class _Page:
    rows: list[GridLine | None]  # None: a blank row for a driver written in by hand
    weather_box: bool


# --- Feuille de course --------------------------------------------------------------------


class RaceSheetRenderer:
    """The referee's race sheet (§2-0-3): A4 portrait, one sheet (or more) per table."""

    page_size = A4
    margin_mm = 10.0
    header_height_mm = 36.0
    footer_height_mm = 12.0
    qr_size_mm = 22.0
    url_width_mm = 52.0
    # Position, number, driver and team, stand, the six parts (PARTS order), stand points,
    # retirement cause, retirement lap, finishing order: 190 mm, the page less its margins.
    column_widths_mm = (6.0, 9.0, 32.0, 7.5, *(13.5,) * 6, 10.0, 25.5, 9.0, 10.0)
    # Nothing printed smaller than this (the issue of the sheet's small print): headers,
    # causes, names and notes are laid out at 7 pt or more, whole words only.
    min_text_size = 7.0
    # The narrow columns' headers run upwards, so that "Consommation" fits whole in a
    # 13.5 mm column: the header is as tall as the longest such word.
    grid_header_height_mm = 23.5
    rotated_headers = (0, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13)
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
    cause_box_mm = 1.7
    blank_rows = 10  # a table with no grid yet: a full table of rows to write in by hand
    # Weather evolution (variable, or not drawn yet): draws 1–8 in two halves side by side.
    evolution_gap_mm = 4.0
    weather_box = WeatherEvolutionBox()

    def render(self, data: RaceSheetData) -> bytes:
        return self.render_many([data])

    def render_many(
        self,
        sheets: Sequence[RaceSheetData],
        progress: Callable[[int, int], None] | None = None,
    ) -> bytes:
        """Every sheet in one PDF, each from a new page and with its own page count.

        `progress(done, total)` is called after each sheet (a Celery task passes it on to
        the progress bar).
        """
        if not sheets:
            return empty_pdf(self.page_size, gettext("No race sheet to print."))
        register_fonts()
        buffer = io.BytesIO()
        canvas = SheetCanvas(buffer, pagesize=self.page_size, invariant=True)
        first = sheets[0]
        with translation.override(first.language):
            canvas.setTitle(f"{gettext('Race sheet')} – {first.event}")
        canvas.setAuthor(first.championship)
        for done, data in enumerate(sheets, start=1):
            with translation.override(data.language):
                self._draw_sheet(canvas, data)
            if progress is not None:
                progress(done, len(sheets))
        canvas.save()
        return buffer.getvalue()

    # --- Layout ---------------------------------------------------------------------------

    @classmethod
    def _has_weather_box(cls, data: RaceSheetData) -> bool:
        # Variable weather evolves at each table (§3-2-4). A sheet printed before the draw
        # (None) gets the box too: the weather may come out variable, and the referee could
        # not add the box by hand.
        return data.weather in (Weather.VARIABLE, None)

    @classmethod
    def rows_per_page(cls, *, weather_box: bool) -> int:
        """How many grid rows a page holds, under its header and above its footer."""
        height = (
            cls.page_size[1] / mm
            - 2 * cls.margin_mm
            - cls.header_height_mm
            - cls.footer_height_mm
            - cls.grid_header_height_mm
        )
        if weather_box:
            height -= cls.weather_box.height_mm() + cls.evolution_gap_mm
        return int(height // cls.row_height_mm)

    def _pages(self, data: RaceSheetData) -> list[_Page]:
        rows: list[GridLine | None] = sorted(data.grid, key=lambda line: line.position)
        if not rows:
            rows = [None] * self.blank_rows
        full = self.rows_per_page(weather_box=False)
        pages = [_Page(rows[start : start + full], False) for start in range(0, len(rows), full)]
        if self._has_weather_box(data):
            if len(pages[-1].rows) <= self.rows_per_page(weather_box=True):
                pages[-1] = _Page(pages[-1].rows, True)
            else:
                pages.append(_Page([], True))
        return pages

    # --- Drawing --------------------------------------------------------------------------

    def _draw_sheet(self, canvas: Canvas, data: RaceSheetData) -> None:
        pages = self._pages(data)
        for number, page in enumerate(pages, start=1):
            top = self._draw_header(canvas, data)
            bottom = self._draw_grid(canvas, page.rows, top)
            if page.weather_box:
                # Drawn once for the grid's top, moved down under this page's rows.
                draw = functools.partial(self._draw_weather_box, canvas, top)
                form = self._form(canvas, "weather", draw)
                self._place(canvas, form, bottom - self.evolution_gap_mm * mm - top)
            self._draw_footer(canvas, data, number, len(pages))
            canvas.showPage()

    @staticmethod
    def _form(canvas: Canvas, key: str, draw: Callable[[], None]) -> str:
        """The name of a PDF form drawn by `draw` once per document and language.

        The parts that are the same on every sheet (column headers, retirement causes, the
        weather box) are drawn once and placed many times: a smaller PDF, drawn faster.
        """
        name = f"RaceSheet-{key}-{translation.get_language()}"
        if not canvas.hasForm(name):
            canvas.beginForm(name)
            draw()
            canvas.endForm()
        return name

    @staticmethod
    def _place(canvas: Canvas, form: str, dy: float, dx: float = 0) -> None:
        # Hand-written operators (q, cm, Q): the form changes nothing of the canvas's own
        # state, and reportlab's saveState/translate/restoreState cost more than the rest.
        canvas.addLiteral(f"q 1 0 0 1 {dx:.4f} {dy:.4f} cm")
        canvas.doForm(form)
        canvas.addLiteral("Q")

    def _draw_header(self, canvas: Canvas, data: RaceSheetData) -> float:
        """The event, the table and the conditions at the start; returns the grid's top."""
        page_width, page_height = self.page_size
        margin = self.margin_mm * mm
        left, right, top = margin, page_width - margin, page_height - margin

        width = draw_sheet_title(
            canvas,
            left=left,
            right=right,
            top=top,
            title=gettext("Race sheet"),
            table_number=data.table_number,
            heading=f"{data.championship} — {data.event}",
            link=data.referee_link,
            qr_size=self.qr_size_mm * mm,
            url_width=self.url_width_mm * mm,
            reserve=(self.url_width_mm + 4) * mm,
            link_size=self.min_text_size,
        )
        laps = gettext("Laps: %(laps)s") % {"laps": data.laps}
        referee = gettext("Referee: %(name)s") % {"name": data.referee or "____________________"}
        details = f"{date_and_circuit(data)} · {laps} · {referee}"
        smallest = self.min_text_size
        draw_fitted(
            canvas, left, top - 18 * mm, details, font=FONT, size=9, width=width, min_size=smallest
        )

        weather: list[Segment] = [(gettext("Weather at the start:") + " ", FONT)]
        if data.weather:
            weather.append((weather_label(data.weather), FONT_BOLD))
        else:
            weather += tick_options([str(label) for label in Weather.labels])
        weather.append(("   ·   " + gettext("Track at the start:") + " ", FONT))
        if data.track:
            weather.append((track_label(data.track), FONT_BOLD))
        else:
            weather += tick_options([str(label) for label in Track.labels])
        draw_segments(
            canvas, left, top - 23.5 * mm, weather, size=9, width=width, min_size=smallest
        )

        # Under the QR code's link: the whole width.
        hint = (
            gettext("Cross out one box for each wear point lost (§5-0-1).")
            + " "
            + gettext(
                "Engine broken after the second-to-last corner (§16-0-6): a finisher, with a note."
            )
        )
        if data.standard_configuration:  # first: what the whole table plays with
            hint = gettext("Standard car: every car has the same configuration.") + " " + hint
        redrawn = race_draws_label(data.race_draws)
        if redrawn:  # every draw of the race weather stays listed (§2-0-1)
            hint = f"{redrawn}. {hint}"
        if data.sanctions:  # the organisers' sanctions come first (§1-2-3)
            hint = (
                gettext("Sanctions: %(list)s.")
                % {"list": "; ".join(sanction_label(s) for s in data.sanctions)}
                + " "
                + hint
            )
        # Two lines across the page, under the QR code's link.
        lines, size = fit_lines(hint, FONT, 7.5, right - left, 2, smallest)
        canvas.saveState()
        canvas.setFillColor(GREY)
        canvas.setFont(FONT, size)
        for index, text in enumerate(lines):
            canvas.drawString(left, top - (30.5 + 2.9 * index) * mm, text)
        canvas.restoreState()
        return top - self.header_height_mm * mm

    def _column_edges(self) -> list[float]:
        edges = [self.margin_mm * mm]
        for width in self.column_widths_mm:
            edges.append(edges[-1] + width * mm)
        return edges

    def _draw_grid(self, canvas: Canvas, rows: list[GridLine | None], top: float) -> float:
        """The grid's column headers and rows from `top`; returns the grid's bottom."""
        if not rows:
            return top
        edges = self._column_edges()
        left, right = edges[0], edges[-1]
        header_height = self.grid_header_height_mm * mm
        row_height = self.row_height_mm * mm
        bottom = top - header_height - len(rows) * row_height

        canvas.saveState()
        canvas.setFillColor(STRIPE_FILL)
        # Faint stripes help the eye along a long row and still take a pen.
        for index in range(1, len(rows), 2):
            y = top - header_height - (index + 1) * row_height
            canvas.rect(left, y, right - left, row_height, stroke=0, fill=1)
        canvas.restoreState()
        self._place(
            canvas, self._form(canvas, "headers", lambda: self._draw_headers(canvas, top)), 0
        )

        causes = self._form(canvas, "causes", lambda: self._draw_causes(canvas, edges, top))
        for index, line in enumerate(rows):
            row_top = top - header_height - index * row_height
            self._draw_row(canvas, line, edges, row_top)
            self._place(canvas, causes, -index * row_height)

        # The rules as PDF operators, like the boxes (Boxes): one path, stroked once.
        rules = []
        for index in range(len(rows) + 2):
            y = top if index == 0 else top - header_height - (index - 1) * row_height
            rules.append(f"{left:.4f} {y:.4f} m {right:.4f} {y:.4f} l")
        rules += [f"{x:.4f} {top:.4f} m {x:.4f} {bottom:.4f} l" for x in edges]
        canvas.setLineWidth(0.6)
        canvas.addLiteral("\n".join([*rules, "S"]))
        return bottom

    def _draw_headers(self, canvas: Canvas, top: float) -> None:
        """The grid's column headers, under `top`."""
        edges = self._column_edges()
        header_height = self.grid_header_height_mm * mm
        canvas.saveState()
        canvas.setFillColor(HEADER_FILL)
        canvas.rect(
            edges[0], top - header_height, edges[-1] - edges[0], header_height, stroke=0, fill=1
        )
        canvas.restoreState()
        parts = part_labels()
        texts = [
            gettext("Pos."),
            gettext("No."),
            gettext("Driver / team"),
            gettext("Stand"),
            *(parts[part] for part in PARTS),
            gettext("Stand points"),
            gettext("Retirement cause"),
            gettext("Retired on lap"),
            gettext("Finishing order"),
        ]
        padding = 2 * self.cell_padding_mm * mm
        size = self.min_text_size
        leading = size * 1.15
        canvas.setFont(FONT_BOLD, size)
        for column, text in enumerate(texts):
            width = edges[column + 1] - edges[column]
            middle = edges[column] + width / 2
            if column in self.rotated_headers:
                # Upwards, centred in the column: a line as long as the header is tall.
                lines = wrap_words(text, FONT_BOLD, size, header_height - padding)
                canvas.saveState()
                canvas.translate(middle, top - header_height / 2)
                canvas.rotate(90)
                y = (len(lines) - 1) * leading / 2 - size * 0.35
                for line in lines:
                    canvas.drawCentredString(0, y, line)
                    y -= leading
                canvas.restoreState()
                continue
            lines = wrap_words(text, FONT_BOLD, size, width - padding)
            y = top - header_height / 2 + (len(lines) - 1) * leading / 2 - size * 0.35
            for line in lines:
                canvas.drawCentredString(middle, y, line)
                y -= leading

    def _draw_causes(self, canvas: Canvas, edges: list[float], top: float) -> None:
        """The first row's retirement causes: one box to tick per cause, six lines."""
        padding = self.cell_padding_mm * mm
        labels = cause_labels()
        pitch = (self.row_height_mm * mm - padding) / len(labels)
        box = self.cause_box_mm * mm
        x = edges[11] + padding
        width = edges[12] - padding - (x + box + 1 * mm)
        y = top - self.grid_header_height_mm * mm - padding / 2 - pitch + (pitch - box) / 2
        boxes = Boxes()
        for label in labels:
            boxes.add(x, y, box, box)
            draw_fitted(
                canvas,
                x + box + 1 * mm,
                y + 0.15 * mm,
                label,
                font=FONT,
                size=self.min_text_size,
                width=width,
                min_size=self.min_text_size,
            )
            y -= pitch
        boxes.stroke(canvas, line_width=0.5)

    def _draw_row(
        self,
        canvas: Canvas,
        line: GridLine | None,
        edges: list[float],
        top: float,
    ) -> None:
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

        configuration = line.configuration if line is not None else None
        for offset, part in enumerate(PARTS):
            value = getattr(configuration, part) if configuration else None
            self._draw_wear(canvas, value, edges[4 + offset], edges[5 + offset], top)
        stand_points = configuration.stand_points if configuration else None
        self._draw_wear(canvas, stand_points, edges[10], edges[11], top, stand=True)

    def _draw_driver(
        self, canvas: Canvas, line: GridLine, left: float, right: float, top: float
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
            team_lines, _size = fit_lines(line.team, FONT, smallest, width, room, smallest)
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
            if (fits and len(lines) <= capacity) or size <= self.min_text_size:
                break
            size -= 0.5
        return fit_lines(name, FONT_BOLD, size, width, capacity, size)

    def _draw_wear(
        self,
        canvas: Canvas,
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
        self._place(canvas, form, top, left)

    def _wear_form(self, canvas: Canvas, count: int, width: float, *, blank: bool) -> str:
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

    def _draw_weather_box(self, canvas: Canvas, top: float) -> None:
        """The weather evolution box from `top`, across the page between its margins."""
        margin = self.margin_mm * mm
        page_width = self.page_size[0]
        width = page_width - 2 * margin
        self.weather_box.draw(canvas, top, margin=margin, width=width)

    def _draw_footer(self, canvas: Canvas, data: RaceSheetData, page: int, pages: int) -> None:
        page_width, _ = self.page_size
        margin = self.margin_mm * mm
        left, right = margin, page_width - margin
        baseline = margin + 3 * mm
        canvas.saveState()
        canvas.setFillColor(GREY)
        handing_in = gettext("The referee hands this sheet in to race control after the race.")
        draw_fitted(
            canvas,
            left,
            margin + 9 * mm,
            f"{handing_in} (§2-0-3)",
            font=FONT,
            size=7,
            width=120 * mm,
        )
        canvas.restoreState()
        # Every page is signed, so a page that comes loose is still the referee's word.
        signature = gettext("Referee's signature:")
        canvas.setFont(FONT, 9)
        canvas.drawString(left, baseline, signature)
        canvas.setLineWidth(0.5)
        line_start = left + stringWidth(signature, FONT, 9) + 2 * mm
        canvas.line(line_start, baseline - 0.5 * mm, line_start + 75 * mm, baseline - 0.5 * mm)
        canvas.saveState()
        canvas.setFont(FONT, 8)
        canvas.setFillColor(GREY)
        count = gettext("Page %(page)s of %(pages)s") % {"page": page, "pages": pages}
        canvas.drawRightString(right, baseline, count)
        canvas.restoreState()
