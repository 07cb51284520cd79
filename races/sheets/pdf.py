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

from qualifying.models import Track, Weather
from qualifying.sheets.pdf import weather_label
from races.grid.configuration import PARTS
from races.sheets.cells import GridCells
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
    draw_segments,
    fit_lines,
    place_form,
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


class RaceSheetRenderer(GridCells):
    """The referee's race sheet (§2-0-3): A4 portrait, one sheet (or more) per table; its
    rows' cells are `GridCells`'."""

    page_size = A4
    margin_mm = 10.0
    header_height_mm = 36.0
    footer_height_mm = 12.0
    qr_size_mm = 22.0
    url_width_mm = 52.0
    # Position, number, driver and team, stand, the six parts (PARTS order), stand points,
    # retirement cause, retirement lap, finishing order: 190 mm, the page less its margins.
    column_widths_mm = (6.0, 9.0, 32.0, 7.5, *(13.5,) * 6, 10.0, 25.5, 9.0, 10.0)
    # The narrow columns' headers run upwards, so that "Consommation" fits whole in a
    # 13.5 mm column: the header is as tall as the longest such word.
    grid_header_height_mm = 23.5
    rotated_headers = (0, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13)
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

    def _draw_sheet(self, canvas: SheetCanvas, data: RaceSheetData) -> None:
        pages = self._pages(data)
        for number, page in enumerate(pages, start=1):
            top = self._draw_header(canvas, data)
            bottom = self._draw_grid(canvas, page.rows, top)
            if page.weather_box:
                # Drawn once for the grid's top, moved down under this page's rows.
                draw = functools.partial(self._draw_weather_box, canvas, top)
                form = self._form(canvas, "weather", draw)
                place_form(canvas, form, bottom - self.evolution_gap_mm * mm - top)
            self._draw_footer(canvas, data, number, len(pages))
            canvas.showPage()

    @staticmethod
    def _form(canvas: SheetCanvas, key: str | tuple, draw: Callable[[], None]) -> str:
        """The name of a PDF form drawn by `draw` once per document and language.

        The parts that are the same on every sheet (column headers, retirement causes, the
        weather box, the grid's frame, the lines of the header and footer that say the same
        on each) are drawn once and placed many times: a smaller PDF, drawn faster. `key`
        says what is drawn: its name, and what it depends on.
        """
        name = key if isinstance(key, str) else key[0]
        language = translation.get_language()
        return canvas.form((key, language), draw, prefix=f"RaceSheet-{name}-{language}")

    def _draw_header(self, canvas: SheetCanvas, data: RaceSheetData) -> float:
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
        # The same on every sheet of an event (the race weather is the event's): one form.
        start = functools.partial(
            draw_segments,
            canvas,
            left,
            top - 23.5 * mm,
            weather,
            size=9,
            width=width,
            min_size=smallest,
        )
        place_form(canvas, self._form(canvas, ("start", tuple(weather), width), start), 0)

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
        # Two lines across the page, under the QR code's link; most sheets say the same.
        draw = functools.partial(self._draw_hint, canvas, hint, left, right, top)
        place_form(canvas, self._form(canvas, ("hint", hint), draw), 0)
        return top - self.header_height_mm * mm

    def _draw_hint(
        self, canvas: SheetCanvas, hint: str, left: float, right: float, top: float
    ) -> None:
        lines, size = fit_lines(hint, FONT, 7.5, right - left, 2, self.min_text_size)
        canvas.saveState()
        canvas.setFillColor(GREY)
        canvas.setFont(FONT, size)
        for index, text in enumerate(lines):
            canvas.drawString(left, top - (30.5 + 2.9 * index) * mm, text)
        canvas.restoreState()

    def _column_edges(self) -> list[float]:
        edges = [self.margin_mm * mm]
        for width in self.column_widths_mm:
            edges.append(edges[-1] + width * mm)
        return edges

    def _draw_grid(self, canvas: SheetCanvas, rows: list[GridLine | None], top: float) -> float:
        """The grid's column headers and rows from `top`; returns the grid's bottom."""
        if not rows:
            return top
        edges = self._column_edges()
        header_height = self.grid_header_height_mm * mm
        row_height = self.row_height_mm * mm
        # Everything but the drivers' own ink is the same on every page with as many rows,
        # the same ones not filled in yet: one form placed on each such page.
        blank = "".join("b" if self._configuration(line) is None else "c" for line in rows)
        draw = functools.partial(self._draw_frame, canvas, blank, edges, top)
        place_form(canvas, self._form(canvas, ("frame", blank), draw), 0)
        for index, line in enumerate(rows):
            self._draw_row(canvas, line, edges, top - header_height - index * row_height)
        return top - header_height - len(rows) * row_height

    def _draw_frame(self, canvas: SheetCanvas, blank: str, edges: list[float], top: float) -> None:
        """A page's grid under `top` but for what its drivers print: stripes, column headers,
        the boxes of each row's retirement causes, the blank wear boxes of a row whose
        configuration is not recorded (`blank`: "b" for such a row, "c" for the others), the
        rules."""
        left, right = edges[0], edges[-1]
        header_height = self.grid_header_height_mm * mm
        row_height = self.row_height_mm * mm
        bottom = top - header_height - len(blank) * row_height

        canvas.saveState()
        canvas.setFillColor(STRIPE_FILL)
        # Faint stripes help the eye along a long row and still take a pen.
        for index in range(1, len(blank), 2):
            y = top - header_height - (index + 1) * row_height
            canvas.rect(left, y, right - left, row_height, stroke=0, fill=1)
        canvas.restoreState()
        headers = self._form(canvas, "headers", lambda: self._draw_headers(canvas, top))
        place_form(canvas, headers, 0)
        row_top = top - header_height
        causes = self._form(canvas, "causes", lambda: self._draw_causes(canvas, edges, top))
        cells = self._form(canvas, "blank", lambda: self._draw_blank(canvas, edges, row_top))
        for index, kind in enumerate(blank):
            place_form(canvas, causes, -index * row_height)
            if kind == "b":
                place_form(canvas, cells, -index * row_height)

        # The rules as PDF operators, like the boxes (Boxes): one path, stroked once.
        rules = []
        for index in range(len(blank) + 2):
            y = top if index == 0 else top - header_height - (index - 1) * row_height
            rules.append(f"{left:.4f} {y:.4f} m {right:.4f} {y:.4f} l")
        rules += [f"{x:.4f} {top:.4f} m {x:.4f} {bottom:.4f} l" for x in edges]
        canvas.setLineWidth(0.6)
        canvas.addLiteral("\n".join([*rules, "S"]))

    def _draw_headers(self, canvas: SheetCanvas, top: float) -> None:
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

    def _draw_causes(self, canvas: SheetCanvas, edges: list[float], top: float) -> None:
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

    def _draw_weather_box(self, canvas: SheetCanvas, top: float) -> None:
        """The weather evolution box from `top`, across the page between its margins."""
        margin = self.margin_mm * mm
        page_width = self.page_size[0]
        width = page_width - 2 * margin
        self.weather_box.draw(canvas, top, margin=margin, width=width)

    def _draw_footer(self, canvas: SheetCanvas, data: RaceSheetData, page: int, pages: int) -> None:
        # The same on every sheet of as many pages: one form.
        draw = functools.partial(self._draw_signature, canvas, page, pages)
        place_form(canvas, self._form(canvas, ("footer", page, pages), draw), 0)

    def _draw_signature(self, canvas: SheetCanvas, page: int, pages: int) -> None:
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
