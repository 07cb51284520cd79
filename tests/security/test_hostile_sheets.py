"""Hostile names in every sheet of every game (issue 14): a name is printed as written,
never read as ReportLab markup (no link, no giant text, no file of the server's disk
embedded, no 500 on a stray ``<b>`` or ``</para>``, ``R&D`` stays ``R&D``)."""

from __future__ import annotations

import datetime
import io
import re

import pytest
from pypdf import PdfReader

from qualifying.sheets.card import QualifyingCardRenderer
from qualifying.sheets.pdf import PrintedDriver, PrintedRun, PrintedSession, QualifyingSheetData
from qualifying.sheets.table_sheet import TableSheetRenderer
from races.games.rallyman.pdf import (
    PrintedRank,
    PrintedStage,
    PrintedTime,
    RallySheet,
    RallySheetData,
)
from races.games.table_sheet.pdf import TableGameData, TableGameSheet
from races.sheets.data import GridLine, RaceSheetData
from races.sheets.pdf import RaceSheetRenderer

LINK = 'Rallye <a href="https://evil.example/login">x</a>'
GIANT = "<font size=40 color=red>ANNULÉ</font>"
IMAGE = '<img src="/etc/hostname"/>'
HOSTILE = [LINK, GIANT, IMAGE, "Rallye <b>x", "</para>", "R&D", "=2*3"]
DAY = datetime.date(2026, 6, 14)


def _qualifying(name: str) -> QualifyingSheetData:
    run = PrintedRun("soft", 18, 0, 4, "1:45.20", False, 23, (18, 0, 4, 1))
    driver = PrintedDriver(7, name, name, {1: run})
    return QualifyingSheetData(
        championship=name, event=name, date=DAY, circuit=name, table_number=1,
        referee=name, sessions=[PrintedSession(1, "sun", "dry")], drivers=[driver],
        minute_penalty=True, referee_link="http://paddock.local/q/abc/",
    )  # fmt: skip


def _race(name: str) -> RaceSheetData:
    grid = [GridLine(1, 7, name, name, None, None), GridLine(2, 8, "Ana", None, 2, None)]
    return RaceSheetData(
        championship=name, event=name, date=DAY, circuit=name, laps=2, table_number=1,
        referee=name, weather="sun", track="dry", grid=grid,
        referee_link="http://paddock.local/r/abc/",
    )  # fmt: skip


def _rally(name: str) -> RallySheetData:
    return RallySheetData(
        rally=name, championship=name, date=DAY, stages=[PrintedStage(1, name, True)],
        drivers=[(7, name)], times={(1, 7): PrintedTime("3:10", "2", "3:08")},
        scratches={1: [PrintedRank(1, 7, name, "3:08", name)]},
        after={1: [PrintedRank(1, 7, name, "3:08", name)]},
    )  # fmt: skip


def _table_game(game: str, name: str) -> TableGameData:
    return TableGameData(
        game=game, game_name=name, championship=name, event=name, date=DAY,
        table_number=1, drivers=[(1, 7, name), (2, 8, "Ana")],
    )  # fmt: skip


SHEETS = {
    "qualifying card": lambda n: QualifyingCardRenderer().render(_qualifying(n)),
    "qualifying table sheet": lambda n: TableSheetRenderer().render(_qualifying(n)),
    "race sheet": lambda n: RaceSheetRenderer().render(_race(n)),
    "rallyman P.C. sheet": lambda n: RallySheet().render(_rally(n)),
    "Cannes–Monaco table sheet": lambda n: TableGameSheet().render(_table_game("cannes_monaco", n)),
    "Racetrack table sheet": lambda n: TableGameSheet().render(_table_game("racetrack", n)),
}


def _text(pdf: bytes) -> str:
    return re.sub(r"\s+", "", "".join(p.extract_text() for p in PdfReader(io.BytesIO(pdf)).pages))


@pytest.mark.parametrize("sheet", SHEETS)
@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_name_prints_as_written(sheet: str, name: str) -> None:
    pdf = SHEETS[sheet](name)
    reader = PdfReader(io.BytesIO(pdf))
    for page in reader.pages:
        assert "/Annots" not in page, "a name made a clickable link"
        xobjects = page["/Resources"].get("/XObject") or {}
        assert not any(x.get_object().get("/Subtype") == "/Image" for x in xobjects.values())
    # Long names may be cut with an ellipsis in narrow cells; the title keeps it whole.
    assert re.sub(r"\s+", "", name)[:12] in _text(pdf)


@pytest.mark.parametrize("sheet", SHEETS)
def test_markup_in_a_name_is_printed_not_obeyed(sheet: str) -> None:
    assert "<fontsize=40color=red>ANNULÉ</font>" in _text(SHEETS[sheet](GIANT))
