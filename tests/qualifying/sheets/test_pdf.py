"""The qualifying paper forms (§1-0-2, §1-3-1), read back from the rendered PDF.

No database: the renderers take plain dataclasses.
"""

from __future__ import annotations

import dataclasses
import datetime
import io
import re

import pdfplumber
from pypdf import PdfReader
from reportlab.lib.units import mm

from qualifying.sheets.card import QualifyingCardRenderer
from qualifying.sheets.pdf import (
    PrintedDriver,
    PrintedRun,
    PrintedSession,
    QualifyingSheetData,
)
from qualifying.sheets.table_sheet import TableSheetRenderer
from tests.qr import qr_texts

A4_SHORT, A4_LONG = 595.28, 841.89
STOPWATCH = re.compile(r"\d:\d\d\.\d\d")
BREAKDOWN = re.compile(r"\d+ = \d+ \+ \d+ \+ \d+")
LINK = "https://paddock.example/referee/tables/7/?key=f3a9c2"

ELODIE_RUN = PrintedRun(
    tyres="soft",
    throws=18,
    placement_errors=0,
    exit_squares=2,
    stopwatch="1:45.20",
    eliminated=False,
    absolute_time=23,
    breakdown=(18, 0, 4, 1),
)
JEROME_RUN = PrintedRun(
    tyres="hard",
    throws=21,
    placement_errors=1,
    exit_squares=3,
    stopwatch="2:03.50",
    eliminated=False,
    absolute_time=36,
    breakdown=(21, 10, 3, 2),
)
ELIMINATED_RUN = PrintedRun(
    tyres="rain",
    throws=9,
    placement_errors=0,
    exit_squares=None,
    stopwatch="0:41.07",
    eliminated=True,
    absolute_time=None,
    breakdown=None,
)


def sheet(**changes: object) -> QualifyingSheetData:
    data = QualifyingSheetData(
        championship="Championnat de France Formule Dé",
        event="Journée 3 — Grand Prix de Nevers",
        date=datetime.date(2025, 6, 14),
        circuit="Magny-Cours",
        table_number=2,
        referee="Anaïs Bérard",
        sessions=[PrintedSession(1, "sun", "dry"), PrintedSession(2, None, None)],
        drivers=[
            PrintedDriver(7, "Élodie Lefèvre", "Écurie Étoile", {1: ELODIE_RUN}),
            PrintedDriver(12, "Jérôme Gaël", "Scuderia Ça Roule", {1: JEROME_RUN}),
            PrintedDriver(3, "François Müller", None, {}),
        ],
        minute_penalty=True,
    )
    return dataclasses.replace(data, **changes)


def pages_text(pdf: bytes) -> list[str]:
    return [page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages]


def page_sizes(pdf: bytes) -> list[tuple[float, float]]:
    return [
        (float(page.mediabox.width), float(page.mediabox.height))
        for page in PdfReader(io.BytesIO(pdf)).pages
    ]


# --- Fiche individuelle -----------------------------------------------------------------------


def test_card_prints_two_cards_per_portrait_a4_page() -> None:
    pdf = QualifyingCardRenderer().render(sheet())

    assert pdf.startswith(b"%PDF")
    assert len(page_sizes(pdf)) == 2  # 3 drivers, 2 cards a page
    for width, height in page_sizes(pdf):
        assert abs(width - A4_SHORT) < 1 and abs(height - A4_LONG) < 1
    first, second = pages_text(pdf)
    assert "Élodie Lefèvre" in first and "Jérôme Gaël" in first
    assert "François Müller" in second and "Élodie Lefèvre" not in second


def test_card_prints_the_recorded_run_with_accents() -> None:
    first_page = pages_text(QualifyingCardRenderer().render(sheet()))[0]

    assert "Écurie Étoile" in first_page
    assert "Scuderia Ça Roule" in first_page
    assert "1:45.20" in first_page
    assert "23 = 18 + 0 + 4 + 1" in first_page
    assert "36 = 21 + 10 + 3 + 2" in first_page
    assert "Magny-Cours" in first_page
    assert "Journée 3 — Grand Prix de Nevers" in first_page


def test_card_leaves_empty_boxes_when_the_driver_has_no_run() -> None:
    third_card = pages_text(QualifyingCardRenderer().render(sheet()))[1]

    assert "François Müller" in third_card
    assert not STOPWATCH.search(third_card)
    assert not BREAKDOWN.search(third_card)


def test_card_prints_an_eliminated_run_without_absolute_time() -> None:
    """§1-1-14: an eliminated run is classed last and has no absolute time."""
    driver = PrintedDriver(7, "Élodie Lefèvre", "Écurie Étoile", {1: ELIMINATED_RUN})
    text = pages_text(QualifyingCardRenderer().render(sheet(drivers=[driver])))[0]

    assert "0:41.07" in text
    assert not BREAKDOWN.search(text)


def test_card_dates_in_french_by_default_and_in_english_on_request() -> None:
    french = pages_text(QualifyingCardRenderer().render(sheet()))[0]
    english = pages_text(QualifyingCardRenderer().render(sheet(language="en")))[0]

    assert "14 juin 2025" in french
    assert "14 June 2025" in english
    assert "Individual qualifying card" in english
    assert "Soft" in english and "Hard" in english


def test_card_formula_counts_full_minutes_only_with_the_minute_penalty() -> None:
    """§1-1-13: "chaque minute pleine … équivaut à un jet", unless the league turns it off."""
    formula = "Absolute time = throws + 10 × placement errors + exit squares × tyre factor"
    with_minutes = pages_text(QualifyingCardRenderer().render(sheet(language="en")))[0]
    without_minutes = pages_text(
        QualifyingCardRenderer().render(sheet(language="en", minute_penalty=False))
    )[0]

    assert f"{formula} + full minutes" in with_minutes
    assert formula in without_minutes
    assert "full minutes" not in without_minutes


def test_card_breakdown_drops_the_zero_minutes_term_without_the_minute_penalty() -> None:
    run = dataclasses.replace(ELODIE_RUN, absolute_time=22, breakdown=(18, 0, 4, 0))
    driver = PrintedDriver(7, "Élodie Lefèvre", "Écurie Étoile", {1: run})
    text = pages_text(
        QualifyingCardRenderer().render(sheet(drivers=[driver], minute_penalty=False))
    )[0]

    assert "22 = 18 + 0 + 4" in text
    assert "22 = 18 + 0 + 4 + 0" not in text


def test_card_keeps_a_long_name_inside_the_card() -> None:
    name = "Marie-Élisabeth-Wilhelmine de La Tour d'Auvergne-Lauraguais von Hohenzollern"
    team = "Écurie Étoile des Très Longues Équipes de Province, de Navarre et d'Ailleurs"
    pdf = QualifyingCardRenderer().render(sheet(drivers=[PrintedDriver(5, name, team, {})]))

    right_edge = A4_SHORT - QualifyingCardRenderer.margin_mm * mm
    with pdfplumber.open(io.BytesIO(pdf)) as document:
        chars = document.pages[0].chars
    assert chars
    assert max(char["x1"] for char in chars) <= right_edge + 0.5
    assert "Marie-Élisabeth" in pages_text(pdf)[0]


# --- Feuille de table -------------------------------------------------------------------------


def test_table_sheet_is_a4_landscape_with_every_session() -> None:
    pdf = TableSheetRenderer().render(sheet(language="en"))

    assert page_sizes(pdf)
    for width, height in page_sizes(pdf):
        assert abs(width - A4_LONG) < 1 and abs(height - A4_SHORT) < 1
    text = "\n".join(pages_text(pdf))
    assert "Session 1" in text and "Session 2" in text
    assert "Anaïs Bérard" in text


def test_table_sheet_prefills_recorded_runs_and_leaves_the_rest_blank() -> None:
    text = "\n".join(pages_text(TableSheetRenderer().render(sheet())))

    for name in ("Élodie Lefèvre", "Jérôme Gaël", "François Müller"):
        assert text.count(name) == 2  # one row per session
    assert "Écurie Étoile" in text
    assert "1:45.20" in text
    assert "23 = 18 + 0 + 4 + 1" in text
    assert "36 = 21 + 10 + 3 + 2" in text
    # Session 2 has no run yet and François never ran: only the two session 1 runs show.
    assert len(STOPWATCH.findall(text)) == 2
    assert len(BREAKDOWN.findall(text)) == 2


def test_table_sheet_prints_the_referee_link_as_a_qr_code() -> None:
    with_link = TableSheetRenderer().render(sheet(referee_link=LINK))
    without_link = TableSheetRenderer().render(sheet())

    assert LINK in pages_text(with_link)[0]
    assert LINK not in pages_text(without_link)[0]
    # The code decodes to the link, as a phone reads the printed sheet.
    assert qr_texts(with_link) == [LINK]
    assert qr_texts(without_link) == []


def test_table_sheet_paginates_forty_drivers_without_losing_anyone() -> None:
    drivers = [
        PrintedDriver(
            number,
            f"Zoé Pilote-{number:02d}",
            "Écurie Étoile",
            {1: ELODIE_RUN} if number % 2 else {},
        )
        for number in range(1, 41)
    ]
    pdf = TableSheetRenderer().render(sheet(drivers=drivers, language="en"))

    texts = pages_text(pdf)
    assert len(texts) > 2
    everything = "\n".join(texts)
    for number in range(1, 41):
        assert everything.count(f"Zoé Pilote-{number:02d}") == 2  # sessions 1 and 2
    assert everything.count("23 = 18 + 0 + 4 + 1") == 20
    for page, text in enumerate(texts, start=1):
        # Headers repeat, so a loose page still says what it is.
        assert "Table 2" in text
        assert "Session " in text
        assert "Corner-exit" in text and "Eliminated" in text  # column headers
        assert f"Page {page} of {len(texts)}" in text


def test_table_sheet_keeps_a_long_name_inside_its_column() -> None:
    name = "Marie-Élisabeth-Wilhelmine de La Tour d'Auvergne-Lauraguais von Hohenzollern"
    pdf = TableSheetRenderer().render(
        sheet(
            drivers=[PrintedDriver(5, name, "Écurie Étoile", {})],
            sessions=[PrintedSession(1, "rain", "wet")],
        )
    )

    # The name's cell, from the sheet's geometry: the first row under the session title and
    # the column headers, in the second column.
    r = TableSheetRenderer
    left = (r.margin_mm + r.column_widths_mm[0]) * mm
    right = left + r.column_widths_mm[1] * mm
    top = (r.margin_mm + r.header_height_mm + r.title_row_height_mm + r.header_row_height_mm) * mm
    bottom = top + r.row_height_mm * mm
    with pdfplumber.open(io.BytesIO(pdf)) as document:
        cell = document.pages[0].within_bbox((left, top, right, bottom)).extract_text()
    assert "".join(name.split()) == "".join(cell.split())
