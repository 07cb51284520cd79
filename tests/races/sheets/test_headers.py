"""The race sheet's column headers are read whole (issues 12 and 19): at 7 pt, the narrow
columns' headers running upwards, no word cut with an ellipsis nor broken at a syllable
("Consomma-tion"). The syllable breaks stay a helper of ``fit_lines`` (tested below)."""

from __future__ import annotations

import io

import pdfplumber
import pytest
from reportlab.lib.units import mm

from races.sheets.drawing import fit_lines
from races.sheets.pdf import RaceSheetRenderer
from tests.races.sheets.test_pdf import race_sheet
from tournament.documents.printing import FONT_BOLD, register_fonts

R = RaceSheetRenderer


def header_cells(pdf: bytes) -> list[str]:
    """The text of each grid column header in reading order (upwards text too), its words
    joined by spaces, its lines by a space."""
    top = (R.margin_mm + R.header_height_mm) * mm
    bottom = top + R.grid_header_height_mm * mm
    cells = []
    with pdfplumber.open(io.BytesIO(pdf)) as document:
        page = document.pages[0]
        left = R.margin_mm * mm
        for width in R.column_widths_mm:
            box = (left, top, left + width * mm, bottom)
            chars = page.within_bbox(box).chars  # in the order drawn: line by line
            text, previous = "", None
            for char in chars:
                if previous is not None and _new_line(previous, char):
                    text += " "
                text += char["text"]
                previous = char
            cells.append(" ".join(text.split()))
            left += width * mm
    return cells


def _new_line(before: dict, char: dict) -> bool:
    if char["upright"]:
        return abs(char["top"] - before["top"]) > 1
    return abs(char["x0"] - before["x0"]) > 1


def _size(char: dict) -> float:
    # pdfplumber's "size" of a glyph running upwards is its advance; its height is across.
    return char["size"] if char["upright"] else char["x1"] - char["x0"]


EXPECTED = {
    "fr": ["Pos.", "N°", "Pilote / écurie", "Stand", "Pneus", "Freins", "Consommation",
           "Carrosserie", "Moteur", "Tenue de route", "Points au stand", "Cause d’abandon",
           "Abandon au tour", "Ordre d’arrivée"],
    "en": ["Pos.", "No.", "Driver / team", "Stand", "Tyres", "Brakes", "Gearbox", "Body",
           "Engine", "Road holding", "Stand points", "Retirement cause", "Retired on lap",
           "Finishing order"],
}  # fmt: skip


@pytest.mark.parametrize("language", ["fr", "en"])
def test_every_header_is_whole_at_7_pt_at_least(language: str) -> None:
    pdf = RaceSheetRenderer().render(race_sheet(language=language))
    assert header_cells(pdf) == EXPECTED[language]
    top = (R.margin_mm + R.header_height_mm) * mm
    with pdfplumber.open(io.BytesIO(pdf)) as document:
        page = document.pages[0]
        box = (
            R.margin_mm * mm,
            top,
            page.width - R.margin_mm * mm,
            top + R.grid_header_height_mm * mm,
        )
        sizes = {round(_size(char), 2) for char in page.within_bbox(box).chars}
    assert min(sizes) >= 7


@pytest.mark.parametrize(
    ("word", "lines"),
    [("Consommation", ["Consom-", "mation"]), ("Carrosserie", ["Carrosse-", "rie"])],
)
def test_a_word_too_wide_breaks_at_a_syllable(word: str, lines: list[str]) -> None:
    register_fonts()
    found, size = fit_lines(word, FONT_BOLD, 6.5, 10 * mm, 3, 5.0, break_words=True)
    assert (found, size) == (lines, 5.0)


def test_without_breaking_a_name_is_still_cut_with_an_ellipsis() -> None:
    register_fonts()
    found, _size = fit_lines("Consommation", FONT_BOLD, 6.5, 10 * mm, 3, 5.0)
    assert found[-1].endswith("…")
