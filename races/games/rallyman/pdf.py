"""PDF of Rallyman's race-control sheet, the "FEUILLE P.C. COURSE" (ART.2): rally name
and date, the route of each stage and its service park, a chrono grid per stage and driver
(filled in when times are entered, boxes for the pen otherwise), each stage's scratch, the
re-classification after each stage and the final scratch.

Boundary: plain dataclasses in (built by ``races.games.rallyman.services``), PDF bytes
out. Fonts are the toolkit's (DejaVu: accents print). Variable-length lists, so platypus tables
rather than canvas arithmetic.
"""

from __future__ import annotations

import datetime
import io
from dataclasses import dataclass, field

from django.utils import formats, translation
from django.utils.translation import gettext
from reportlab.lib.pagesizes import A4, landscape
from reportlab.lib.units import mm
from reportlab.platypus import KeepTogether, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

from races.games.rallyman.rules import SNOW_FACES
from tournament.documents.printing import (
    FONT_BOLD,
    markup,
    plain_styles,
    plain_table,
    register_fonts,
)


@dataclass(frozen=True)
class PrintedStage:
    number: int
    route: str
    service_after: bool
    #: Règlement+ snow draw: None = not drawn yet, else the snowy zones (may be empty).
    snowy: tuple[str, ...] | None = None


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


class RallySheet:
    """The FEUILLE P.C. COURSE of a rally, A4 landscape."""

    margin_mm = 12
    name_width_mm = 55
    stage_label_mm = 22
    route_width_mm = 150
    snow_width_mm = 60
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
        title, heading, body = plain_styles()
        story: list = [
            Paragraph(markup(gettext("FEUILLE P.C. COURSE") + " · Rallyman"), title),
            Paragraph(
                markup(
                    gettext("Rally: %(name)s · Date: %(date)s")
                    % {"name": data.rally, "date": formats.date_format(data.date, "DATE_FORMAT")}
                ),
                body,
            ),
            Paragraph(markup(data.championship), body),
            Spacer(1, 3 * mm),
            Paragraph(markup(gettext("Stages")), heading),
        ]
        rows = [
            [gettext("Stage"), gettext("Route"), gettext("Snow"), gettext("Service park after")]
        ]
        for stage in data.stages:
            if stage.snowy is None:
                snow = gettext("not drawn")
            else:
                snow = " ".join(stage.snowy) or gettext("no snow")
            rows.append(
                [f"ES{stage.number}", stage.route, snow, "✔" if stage.service_after else "—"]
            )
        story.append(
            plain_table(
                rows,
                [
                    self.stage_label_mm * mm,
                    (self.route_width_mm - self.snow_width_mm) * mm,
                    self.snow_width_mm * mm,
                    self.service_width_mm * mm,
                ],
            )
        )
        story.append(
            Paragraph(
                markup(
                    gettext(
                        "Snow: one die per zone of the stage (die 1 for its first zone, C, J, "
                        "L or V). The rule text does not show the snow face: a draw by Paddock "
                        "gives snow on 1 face in %(faces)s."
                    )
                    % {"faces": SNOW_FACES}
                ),
                body,
            )
        )

        # The chrono grid: one row per driver, chrono / seconds held / time per stage.
        story += [Spacer(1, 3 * mm), Paragraph(markup(gettext("Chronos")), heading)]
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
        grid = plain_table(rows, widths)
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
                Paragraph(
                    markup(gettext("Scratch ES%(number)s") % {"number": stage.number}), heading
                )
            )
            blocks.append(self._ranks(scratch, gettext("Time")))
            last = index == len(data.stages) - 1
            label = (
                gettext("Final scratch")
                if last
                else gettext("Re-classification %(stages)s")
                % {"stages": "+".join(f"ES{s.number}" for s in data.stages[: index + 1])}
            )
            blocks.append(Paragraph(markup(label), heading))
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
        return plain_table(rows, [15 * mm, self.name_width_mm * mm, 30 * mm, 60 * mm])
