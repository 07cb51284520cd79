"""PDF of the table sheet of Cannes–Monaco and Racetrack: the grid and a box for each of the
game's fields, A4 portrait. Plain dataclasses in, PDF bytes out."""

from __future__ import annotations

import datetime
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from django.utils import formats, translation
from django.utils.translation import gettext
from reportlab.lib.pagesizes import A4
from reportlab.lib.units import mm
from reportlab.platypus import PageBreak, Paragraph, SimpleDocTemplate, Spacer, TableStyle

from races.games.cannes_monaco import rules as cannes_monaco
from tournament.documents.printing import (
    empty_pdf,
    markup,
    plain_styles,
    plain_table,
    register_fonts,
)


@dataclass(frozen=True)
class TableGameData:
    game: str  # "cannes_monaco" | "racetrack"
    game_name: str
    championship: str
    event: str
    date: datetime.date
    table_number: int
    drivers: list[tuple[int, int, str]]  # position, number, name
    crash_limit: int = 1
    collisions: bool = True
    language: str = "fr"
    race_end: str = "second_to_last"  # Racetrack "Fin du jeu": or "winner"


class TableGameSheet:
    """A Cannes–Monaco or Racetrack table's sheet, A4 portrait: grid and boxes to fill."""

    margin_mm = 15
    row_height_mm = 10

    def render(self, data: TableGameData) -> bytes:
        register_fonts()
        with translation.override(data.language):
            return self._render(data)

    def _render(self, data: TableGameData) -> bytes:
        return self._document([data], None)

    def render_many(
        self,
        sheets: Sequence[TableGameData],
        progress: Callable[[int, int], None] | None = None,
    ) -> bytes:
        """Every table's sheet in one PDF, a page each; ``progress(done, total)`` after each."""
        if not sheets:
            return empty_pdf(A4, gettext("No race sheet to print."))
        register_fonts()
        return self._document(sheets, progress)

    def _document(
        self, sheets: Sequence[TableGameData], progress: Callable[[int, int], None] | None
    ) -> bytes:
        buffer = io.BytesIO()
        margin = self.margin_mm * mm
        doc = SimpleDocTemplate(
            buffer, pagesize=A4, leftMargin=margin, rightMargin=margin, topMargin=margin,
            bottomMargin=margin, title=sheets[0].event, invariant=True,
        )  # fmt: skip
        story: list = []
        for done, data in enumerate(sheets, start=1):
            with translation.override(data.language):
                story += self._sheet(data)
            if progress is not None:
                progress(done, len(sheets))
            if done < len(sheets):
                story.append(PageBreak())
        doc.build(story)
        return buffer.getvalue()

    def _sheet(self, data: TableGameData) -> list:
        title, heading, body = plain_styles()
        story: list = [
            Paragraph(
                markup(
                    f"{data.game_name} · "
                    + gettext("Table %(number)s") % {"number": data.table_number}
                ),
                title,
            ),
            Paragraph(
                markup(
                    f"{data.championship} — {data.event} · "
                    + formats.date_format(data.date, "DATE_FORMAT")
                ),
                body,
            ),
            Spacer(1, 4 * mm),
        ]
        if data.game == "cannes_monaco":
            header = [
                gettext("Grid"),
                gettext("Driver"),
                gettext("Square (0–36)"),
                gettext("Crossing order"),
                gettext("Points"),
            ]
            hint = gettext(
                "Crossing order: 1 for the first over the line (the winner), 2, 3… "
                "Last car(s): 0. Others: their square minus the last car's square; "
                "over the line counts as 36, plus 3."
            )
            hint += " " + gettext("A race of %(min)s to %(max)s drivers.") % {
                "min": cannes_monaco.MIN_DRIVERS,
                "max": cannes_monaco.MAX_DRIVERS,
            }
            widths = [15 * mm, 70 * mm, 30 * mm, 35 * mm, 25 * mm]
        else:
            header = [
                gettext("Grid"),
                gettext("Driver"),
                gettext("Game turns"),
                gettext("Margin"),
                gettext("Crashes"),
                gettext("Finished"),
                gettext("Eliminated"),
            ]
            hint = gettext(
                "Finishers by fewest turns, then the larger margin; then the cars still "
                "running; then the eliminated."
            )
            hint += " " + (
                gettext("A crash eliminates.")
                if data.crash_limit == 1
                else gettext("Eliminated after %(n)s crashes.") % {"n": data.crash_limit}
            )
            if data.race_end == "winner":
                header.append(gettext("Place"))
                hint += " " + gettext(
                    "The race stops when the winner crosses the line: place each car still "
                    "running by its distance to the line."
                )
            if not data.collisions:
                hint += " " + gettext("Collisions off: cars pass through each other.")
            elif data.crash_limit == 1:
                hint += " " + gettext("Collisions on: a collision eliminates both cars.")
            else:
                hint += " " + gettext("Collisions on: a collision adds a crash to both cars.")
            widths = (
                [15 * mm, 50 * mm, 20 * mm, 18 * mm, 18 * mm, 18 * mm, 22 * mm, 19 * mm]
                if data.race_end == "winner"
                else [15 * mm, 60 * mm, 22 * mm, 20 * mm, 20 * mm, 20 * mm, 23 * mm]
            )
        rows = [header] + [
            [str(p), f"{n} {name}"] + [""] * (len(header) - 2) for p, n, name in data.drivers
        ]
        grid = plain_table(rows, widths)
        grid.setStyle(TableStyle([("ROWHEIGHT", (0, 1), (-1, -1), self.row_height_mm * mm)]))
        story += [grid, Spacer(1, 3 * mm), Paragraph(markup(hint), body)]
        return story
