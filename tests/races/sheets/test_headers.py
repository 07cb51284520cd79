"""The race sheet's column headers are read whole (issue 12): a long French word breaks at a
syllable with a hyphen, never cut with an ellipsis; none shrinks below 5 pt."""

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
    """The text of each grid column header, words joined by spaces."""
    top = (R.margin_mm + R.header_height_mm) * mm
    bottom = top + R.grid_header_height_mm * mm
    cells = []
    with pdfplumber.open(io.BytesIO(pdf)) as document:
        page = document.pages[0]
        left = R.margin_mm * mm
        for width in R.column_widths_mm:
            box = (left, top, left + width * mm, bottom)
            cells.append(" ".join(page.within_bbox(box).extract_text().split()))
            left += width * mm
    return cells


@pytest.mark.parametrize("language", ["fr", "en"])
def test_every_header_is_whole(language: str) -> None:
    cells = header_cells(RaceSheetRenderer().render(race_sheet(language=language)))
    assert all(cell and "…" not in cell for cell in cells), cells


def test_the_french_headers_read_whole() -> None:
    cells = header_cells(RaceSheetRenderer().render(race_sheet(language="fr")))
    joined = [cell.replace("- ", "") for cell in cells]
    assert "Consommation" in joined
    assert "Abandon au tour" in joined
    assert "Carrosserie" in joined


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
