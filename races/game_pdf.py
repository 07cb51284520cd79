"""PDF renderers of the other games' sheets.

- :class:`RallySheet`: Rallyman's race-control sheet, the "FEUILLE P.C. COURSE" (ART.2):
  rally name and date, the route of each stage and its service park, a chrono grid per
  stage and driver (filled in when times are entered, boxes for the pen otherwise), each
  stage's scratch, the re-classification after each stage and the final scratch.
- :class:`TableGameSheet`: a Cannes–Monaco or Racetrack table's sheet: the grid and a box
  for each of the game's fields.

Boundary: plain dataclasses in (built by ``races.game_services``), PDF bytes out. Fonts are
the qualifying forms' (DejaVu: accents print). Variable-length lists, so platypus tables
rather than canvas arithmetic.
"""

from __future__ import annotations

import datetime
import io
from dataclasses import dataclass, field

from django.utils import formats, translation
from django.utils.translation import gettext
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4, landscape
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.platypus import KeepTogether, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

from qualifying.pdf import FONT, FONT_BOLD, HEADER_FILL, register_fonts
from races.games import cannes_monaco


@dataclass(frozen=True)
class PrintedStage:
    number: int
    route: str
    service_after: bool


@dataclass(frozen=True)
class PrintedTime:
    chrono: str  # "mm:ss", "" when not entered
    held: str
    time: str  # stage time, "" when not entered; "ABD" style label when retired
    retired: bool = False


@dataclass(frozen=True)
class PrintedRank:
    rank: int
    number: int
    name: str
    time: str
    note: str = ""


@dataclass(frozen=True)
class RallySheetData:
    rally: str
    championship: str
    date: datetime.date
    stages: list[PrintedStage]
    drivers: list[tuple[int, str]]  # stage-1 start order
    times: dict[tuple[int, int], PrintedTime]  # (stage, driver) → time
    scratches: dict[int, list[PrintedRank]] = field(default_factory=dict)
    after: dict[int, list[PrintedRank]] = field(default_factory=dict)
    language: str = "fr"


def _styles() -> tuple[ParagraphStyle, ParagraphStyle, ParagraphStyle]:
    title = ParagraphStyle("title", fontName=FONT_BOLD, fontSize=16, leading=19)
    heading = ParagraphStyle("heading", fontName=FONT_BOLD, fontSize=11, leading=14, spaceBefore=4)
    body = ParagraphStyle("body", fontName=FONT, fontSize=9, leading=11)
    return title, heading, body


def _table(rows: list[list[str]], widths: list[float], *, header: bool = True) -> Table:
    table = Table(rows, colWidths=widths, repeatRows=1 if header else 0, hAlign="LEFT")
    style = [
        ("FONT", (0, 0), (-1, -1), FONT, 8.5),
        ("GRID", (0, 0), (-1, -1), 0.4, colors.black),
        ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
        ("ROWBACKGROUNDS", (0, 1), (-1, -1), [colors.white, colors.HexColor("#f4f4f4")]),
    ]
    if header:
        style += [
            ("FONT", (0, 0), (-1, 0), FONT_BOLD, 8.5),
            ("BACKGROUND", (0, 0), (-1, 0), HEADER_FILL),
        ]
    table.setStyle(TableStyle(style))
    return table


class RallySheet:
    """The FEUILLE P.C. COURSE of a rally, A4 landscape."""

    margin_mm = 12
    name_width_mm = 55
    stage_label_mm = 22
    route_width_mm = 150
    service_width_mm = 45

    def render(self, data: RallySheetData) -> bytes:
        register_fonts()
        with translation.override(data.language):
            return self._render(data)

    def _render(self, data: RallySheetData) -> bytes:
        buffer = io.BytesIO()
        page = landscape(A4)
        margin = self.margin_mm * mm
        doc = SimpleDocTemplate(
            buffer,
            pagesize=page,
            leftMargin=margin,
            rightMargin=margin,
            topMargin=margin,
            bottomMargin=margin,
            title=gettext("FEUILLE P.C. COURSE") + " · " + data.rally,
            invariant=True,
        )
        title, heading, body = _styles()
        story: list = [
            Paragraph(gettext("FEUILLE P.C. COURSE") + " · Rallyman", title),
            Paragraph(
                gettext("Rally: %(name)s · Date: %(date)s")
                % {"name": data.rally, "date": formats.date_format(data.date, "DATE_FORMAT")},
                body,
            ),
            Paragraph(data.championship, body),
            Spacer(1, 3 * mm),
            Paragraph(gettext("Stages"), heading),
        ]
        rows = [[gettext("Stage"), gettext("Route"), gettext("Service park after")]]
        for stage in data.stages:
            rows.append([f"ES{stage.number}", stage.route, "✔" if stage.service_after else "—"])
        story.append(
            _table(
                rows,
                [self.stage_label_mm * mm, self.route_width_mm * mm, self.service_width_mm * mm],
            )
        )

        # The chrono grid: one row per driver, chrono / seconds held / time per stage.
        story += [Spacer(1, 3 * mm), Paragraph(gettext("Chronos"), heading)]
        usable = page[0] - 2 * margin - self.name_width_mm * mm
        per_stage = usable / max(1, len(data.stages))
        header = [gettext("Driver")]
        for stage in data.stages:
            header += [f"ES{stage.number} " + gettext("chrono"), gettext("held"), gettext("time")]
        rows = [header]
        for number, name in data.drivers:
            row = [f"{number} {name}"]
            for stage in data.stages:
                time = data.times.get((stage.number, number))
                if time is None:
                    row += ["", "", ""]
                elif time.retired:
                    row += ["", "", gettext("retired")]
                else:
                    row += [time.chrono, time.held, time.time]
            rows.append(row)
        widths = [self.name_width_mm * mm] + [
            per_stage * 0.38,
            per_stage * 0.24,
            per_stage * 0.38,
        ] * len(data.stages)
        grid = _table(rows, widths)
        grid.setStyle(
            TableStyle(
                [("FONT", (0, 0), (-1, 0), FONT_BOLD, 7), ("ROWHEIGHT", (0, 1), (-1, -1), 7 * mm)]
            )
        )
        story.append(grid)

        # Scratch per stage, re-classification after each, final scratch.
        for index, stage in enumerate(data.stages):
            blocks = []
            scratch = data.scratches.get(stage.number, [])
            blocks.append(
                Paragraph(gettext("Scratch ES%(number)s") % {"number": stage.number}, heading)
            )
            blocks.append(self._ranks(scratch, gettext("Time")))
            last = index == len(data.stages) - 1
            label = (
                gettext("Final scratch")
                if last
                else gettext("Re-classification %(stages)s")
                % {"stages": "+".join(f"ES{s.number}" for s in data.stages[: index + 1])}
            )
            blocks.append(Paragraph(label, heading))
            blocks.append(self._ranks(data.after.get(stage.number, []), gettext("Total")))
            story.append(KeepTogether(blocks))
        doc.build(story)
        return buffer.getvalue()

    def _ranks(self, lines: list[PrintedRank], column: str) -> Table:
        rows = [[gettext("Rank"), gettext("Driver"), column, ""]]
        for line in lines:
            rows.append([str(line.rank), f"{line.number} {line.name}", line.time, line.note])
        if not lines:
            rows.append(["", "", "", ""])
        return _table(rows, [15 * mm, self.name_width_mm * mm, 30 * mm, 60 * mm])


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


class TableGameSheet:
    """A Cannes–Monaco or Racetrack table's sheet, A4 portrait: grid and boxes to fill."""

    margin_mm = 15
    row_height_mm = 10

    def render(self, data: TableGameData) -> bytes:
        register_fonts()
        with translation.override(data.language):
            return self._render(data)

    def _render(self, data: TableGameData) -> bytes:
        buffer = io.BytesIO()
        margin = self.margin_mm * mm
        doc = SimpleDocTemplate(
            buffer, pagesize=A4, leftMargin=margin, rightMargin=margin, topMargin=margin,
            bottomMargin=margin, title=data.event, invariant=True,
        )  # fmt: skip
        title, heading, body = _styles()
        story: list = [
            Paragraph(
                f"{data.game_name} · "
                + gettext("Table %(number)s") % {"number": data.table_number},
                title,
            ),
            Paragraph(
                f"{data.championship} — {data.event} · "
                + formats.date_format(data.date, "DATE_FORMAT"),
                body,
            ),
            Spacer(1, 4 * mm),
        ]
        if data.game == "cannes_monaco":
            header = [
                gettext("Grid"),
                gettext("Driver"),
                gettext("Square (0–36)"),
                gettext("Crossed the line"),
                gettext("Points"),
            ]
            hint = gettext(
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
            if not data.collisions:
                hint += " " + gettext("Collisions off: cars pass through each other.")
            elif data.crash_limit == 1:
                hint += " " + gettext("Collisions on: a collision eliminates both cars.")
            else:
                hint += " " + gettext("Collisions on: a collision adds a crash to both cars.")
            widths = [15 * mm, 60 * mm, 22 * mm, 20 * mm, 20 * mm, 20 * mm, 23 * mm]
        rows = [header] + [
            [str(p), f"{n} {name}"] + [""] * (len(header) - 2) for p, n, name in data.drivers
        ]
        grid = _table(rows, widths)
        grid.setStyle(TableStyle([("ROWHEIGHT", (0, 1), (-1, -1), self.row_height_mm * mm)]))
        story += [grid, Spacer(1, 3 * mm), Paragraph(hint, body)]
        doc.build(story)
        return buffer.getvalue()
