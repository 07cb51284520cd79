"""The race sheet (§2-0-3) and the batch renderers, read back from the rendered PDF.

No database: the renderers take plain dataclasses. Cells are found from the renderer's
millimetre geometry, so a test reads exactly one box of the sheet.
"""

from __future__ import annotations

import dataclasses
import datetime
import io

import pdfplumber
import pytest
from django.utils import translation
from django.utils.translation import gettext
from pypdf import PdfReader
from reportlab.lib.units import mm

from qualifying.sheets.pdf import PrintedDriver, PrintedSession, QualifyingSheetData
from qualifying.sheets.table_sheet import TableSheetRenderer
from races.sheets.data import (
    GridLine,
    PrintedConfiguration,
    PrintedSanction,
    RaceSheetData,
    cause_labels,
    part_labels,
)
from races.sheets.pdf import RaceSheetRenderer
from tests.qr import qr_texts

R = RaceSheetRenderer
LINK = "https://paddock.example/referee/race-tables/4/?key=f3a9c2d81be07a55"
LONG_NAME = "Marie-Élisabeth-Wilhelmine de La Tour d'Auvergne-Lauraguais von Hohenzollern"
# 9 + 4 + 3 + 2 + 2 + 1 on the car and 1 at the stand: 22 (§5-0-2, §5-3).
CONFIGURATION = PrintedConfiguration(
    tyres=9, brakes=4, gearbox=3, body=2, engine=2, road_holding=1, stand_points=1
)
TYRES, STAND_POINTS = 4, 10  # columns (see RaceSheetRenderer.column_widths_mm)
DRIVER, STAND = 2, 3


def line(position: int, **changes: object) -> GridLine:
    base = GridLine(
        position=position,
        number=40 + position,
        name=f"Zoé Pilote-{position:02d}",
        team=None,
        stand=None,
        configuration=None,
    )
    return dataclasses.replace(base, **changes)


def race_sheet(**changes: object) -> RaceSheetData:
    data = RaceSheetData(
        championship="Championnat de France Formule Dé",
        event="Journée 3 — Grand Prix de Nevers",
        date=datetime.date(2026, 7, 14),
        circuit="Magny-Cours",
        laps=3,
        table_number=4,
        referee="Anaïs Bérard",
        weather="sun",
        track="dry",
        grid=[
            line(
                1,
                name="Élodie Lefèvre",
                team="Écurie Étoile",
                stand=14,
                configuration=CONFIGURATION,
            ),
            line(2, name="Jérôme Gaël", team="Scuderia Ça Roule", stand=3),
            line(3, name="François Müller"),
        ],
    )
    return dataclasses.replace(data, **changes)


def pages_text(pdf: bytes) -> list[str]:
    return [page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages]


def cell_bbox(row: int, column: int) -> tuple[float, float, float, float]:
    """(x0, top, x1, bottom) of a grid cell in points from the page's top left, row 0 first."""
    left = (R.margin_mm + sum(R.column_widths_mm[:column])) * mm
    right = left + R.column_widths_mm[column] * mm
    top = (R.margin_mm + R.header_height_mm + R.grid_header_height_mm + row * R.row_height_mm) * mm
    return left, top, right, top + R.row_height_mm * mm


def cell_text(pdf: bytes, row: int, column: int) -> str:
    with pdfplumber.open(io.BytesIO(pdf)) as document:
        return document.pages[0].within_bbox(cell_bbox(row, column)).extract_text().strip()


def cell_boxes(pdf: bytes, row: int, column: int) -> int:
    """How many small boxes (not the cell's own rules) are drawn inside a cell."""
    x0, top, x1, bottom = cell_bbox(row, column)
    with pdfplumber.open(io.BytesIO(pdf)) as document:
        rects = document.pages[0].rects
    return sum(
        1
        for rect in rects
        if rect["x0"] >= x0 and rect["x1"] <= x1 and rect["top"] >= top and rect["bottom"] <= bottom
    )


# --- One sheet --------------------------------------------------------------------------------


def test_race_sheet_prints_the_grid_with_accents() -> None:
    text = pages_text(RaceSheetRenderer().render(race_sheet(language="en")))[0]

    for name in ("Élodie Lefèvre", "Jérôme Gaël", "François Müller"):
        assert name in text
    assert "Écurie Étoile" in text and "Scuderia Ça Roule" in text
    assert "Journée 3 — Grand Prix de Nevers" in text
    assert "Table 4" in text
    assert "Laps: 3" in text
    assert "Referee: Anaïs Bérard" in text
    assert "Weather at the start: Sun" in " ".join(text.split())


def test_race_sheet_prints_the_grid_in_position_order() -> None:
    shuffled = race_sheet(grid=[line(3), line(1), line(2)])
    pdf = RaceSheetRenderer().render(shuffled)

    assert [cell_text(pdf, row, 0) for row in range(3)] == ["1", "2", "3"]
    assert [cell_text(pdf, row, 1) for row in range(3)] == ["41", "42", "43"]


def test_race_sheet_prints_each_chosen_stand_and_leaves_the_others_blank() -> None:
    pdf = RaceSheetRenderer().render(race_sheet())

    assert cell_text(pdf, 0, STAND) == "14"
    assert cell_text(pdf, 1, STAND) == "3"
    assert cell_text(pdf, 2, STAND) == ""


def test_race_sheet_prints_a_recorded_configuration_and_blank_boxes_otherwise() -> None:
    pdf = RaceSheetRenderer().render(race_sheet())

    values = [cell_text(pdf, 0, column) for column in range(TYRES, STAND_POINTS + 1)]
    assert values == ["9", "4", "3", "2", "2", "1", "1"]
    for row in (1, 2):  # no configuration recorded: nothing printed, boxes for the pen
        assert [cell_text(pdf, row, column) for column in range(TYRES, STAND_POINTS + 1)] == [
            ""
        ] * 7


def test_race_sheet_draws_one_box_to_cross_per_wear_point() -> None:
    """§5-0-1: "chaque point de vie perdu doit être rayé sur la feuille de course"."""
    pdf = RaceSheetRenderer().render(race_sheet())

    assert cell_boxes(pdf, 0, TYRES) == 9
    assert cell_boxes(pdf, 0, TYRES + 5) == 1  # road holding
    assert cell_boxes(pdf, 0, STAND_POINTS) == 1
    # Unknown: a box to write the points in, then the blank boxes.
    assert cell_boxes(pdf, 1, TYRES) == 1 + R.blank_wear_boxes
    assert cell_boxes(pdf, 1, STAND_POINTS) == 1 + 2


def test_race_sheet_has_a_box_to_tick_for_each_retirement_cause() -> None:
    text = pages_text(RaceSheetRenderer().render(race_sheet(language="en")))[0]

    for cause in ("Off track", "Blocked", "Body", "Engine", "Road holding", "Other"):
        assert text.count(cause) >= 3  # one per driver (the parts' headers say some too)
    assert "Retirement" in text and "Finishing" in text


def test_ten_driver_table_fits_one_page() -> None:
    """The worst case: variable weather (the draws box), every configuration, long names."""
    grid = [
        line(
            position,
            name=LONG_NAME,
            team="Écurie Étoile des Très Longues Équipes",
            stand=position,
            configuration=CONFIGURATION,
        )
        for position in range(1, 11)
    ]
    pdf = RaceSheetRenderer().render(race_sheet(grid=grid, weather="variable", language="en"))

    texts = pages_text(pdf)
    assert len(texts) == 1
    assert "Weather evolution" in texts[0]
    assert "Page 1 of 1" in texts[0]


def test_race_sheet_keeps_a_long_name_inside_its_column() -> None:
    pdf = RaceSheetRenderer().render(race_sheet(grid=[line(1, name=LONG_NAME)]))

    x0, top, x1, bottom = cell_bbox(0, DRIVER)
    with pdfplumber.open(io.BytesIO(pdf)) as document:
        chars = [
            char
            for char in document.pages[0].chars
            if top <= char["top"] < bottom and x0 <= char["x0"] < x1
        ]
    assert chars
    assert max(char["x1"] for char in chars) <= x1
    # Wrapped (at spaces and hyphens) and shrunk, but whole.
    assert "".join(LONG_NAME.split()) == "".join(cell_text(pdf, 0, DRIVER).split())


def test_weather_evolution_box_only_when_the_weather_is_variable() -> None:
    def text(weather: str | None) -> str:
        sheet = race_sheet(weather=weather, track=None, language="en")
        return pages_text(RaceSheetRenderer().render(sheet))[0]

    assert "Weather evolution" in text("variable")
    assert "Weather evolution" not in text("sun")
    assert "Weather evolution" not in text("rain")
    # Printed before the draw, the sheet may be for a variable race: it keeps the box.
    assert "Weather evolution" in text(None)


def test_weather_not_drawn_yet_gives_boxes_to_tick() -> None:
    sheet = race_sheet(weather=None, track=None, language="en")
    header = " ".join(pages_text(RaceSheetRenderer().render(sheet))[0].split())

    assert "Weather at the start: Sun Variable Rain" in header
    assert "Track at the start: Dry Wet" in header


def test_race_sheet_says_when_every_car_has_the_standard_configuration() -> None:
    standard = RaceSheetRenderer().render(race_sheet(standard_configuration=True, language="en"))
    custom = RaceSheetRenderer().render(race_sheet(language="en"))

    # The hint runs on two lines under the header.
    assert "Standard car" in " ".join(pages_text(standard)[0].split())
    assert "Standard car" not in " ".join(pages_text(custom)[0].split())


def test_race_sheet_is_french_by_default_and_english_on_request() -> None:
    french = pages_text(RaceSheetRenderer().render(race_sheet()))[0]
    english = pages_text(RaceSheetRenderer().render(race_sheet(language="en")))[0]

    assert "14 juillet 2026" in french
    assert "14 July 2026" in english and "juillet" not in english


def test_race_sheet_prints_the_referee_link_as_a_qr_code() -> None:
    with_link = RaceSheetRenderer().render(race_sheet(referee_link=LINK))
    without_link = RaceSheetRenderer().render(race_sheet())

    assert LINK in "".join(pages_text(with_link)[0].split())  # printed small, maybe on 2 lines
    assert "paddock.example" not in pages_text(without_link)[0]
    # The code decodes to the link, as a phone reads the printed sheet.
    assert qr_texts(with_link) == [LINK]
    assert qr_texts(without_link) == []


def test_race_sheet_paginates_a_big_table_without_losing_anyone() -> None:
    grid = [line(position) for position in range(1, 26)]
    pdf = RaceSheetRenderer().render(race_sheet(grid=grid, weather="variable", language="en"))

    texts = pages_text(pdf)
    assert len(texts) == 3
    everything = "\n".join(texts)
    for position in range(1, 26):
        assert everything.count(f"Zoé Pilote-{position:02d}") == 1
    assert everything.count("Weather evolution") == 1
    for page, text in enumerate(texts, start=1):
        # Every page says what it is and is signed.
        assert "Table 4" in text
        assert "Driver / team" in text
        assert "Referee's signature" in text
        assert f"Page {page} of 3" in text


def test_race_sheet_without_a_grid_gives_rows_to_fill_in_by_hand() -> None:
    pdf = RaceSheetRenderer().render(race_sheet(grid=[], language="en"))

    assert len(pages_text(pdf)) == 1
    assert cell_boxes(pdf, R.blank_rows - 1, TYRES) == 1 + R.blank_wear_boxes


# --- Batches (a Celery task renders all the sheets of an event) --------------------------------


def test_render_many_prints_each_table_from_a_new_page_and_reports_progress() -> None:
    sheets = [race_sheet(table_number=number, language="en") for number in (1, 2, 3)]
    calls: list[tuple[int, int]] = []

    pdf = RaceSheetRenderer().render_many(sheets, progress=lambda *call: calls.append(call))

    texts = pages_text(pdf)
    assert len(texts) == 3
    for number, text in enumerate(texts, start=1):
        assert f"Table {number}" in text
        assert "Page 1 of 1" in text
    assert calls == [(1, 3), (2, 3), (3, 3)]


def test_render_many_counts_pages_per_sheet() -> None:
    big = race_sheet(table_number=1, grid=[line(p) for p in range(1, 16)], language="en")
    small = race_sheet(table_number=2, language="en")

    texts = pages_text(RaceSheetRenderer().render_many([big, small]))

    assert len(texts) == 3
    assert "Table 1" in texts[0] and "Page 1 of 2" in texts[0]
    assert "Table 1" in texts[1] and "Page 2 of 2" in texts[1]
    assert "Table 2" in texts[2] and "Page 1 of 1" in texts[2]


def test_render_many_draws_what_the_pages_share_once() -> None:
    """A batch is an event's hundred tables: the grid's frame (headers, rules, the boxes of
    the causes and of the unknown configurations), the start line, the hint and the footer
    are the same on every page and drawn once, each page keeping its own ink only."""
    sheets = [
        race_sheet(
            table_number=number,
            grid=[line(p, team="Écurie Étoile", stand=p) for p in range(1, 11)],
            weather=None,
            track=None,
            referee_link=f"{LINK}{number}",
        )
        for number in range(1, 5)
    ]

    reader = PdfReader(io.BytesIO(RaceSheetRenderer().render_many(sheets)))

    forms = [sorted(page["/Resources"]["/XObject"]) for page in reader.pages]
    assert len(reader.pages) == 4 and forms == [forms[0]] * 4
    # Names, numbers, stands, the QR code and the links: under 10 kB a page (17 kB when
    # every page drew its frame's boxes and words again).
    assert max(len(page.get_contents().get_data()) for page in reader.pages) < 10_000
    texts = pages_text(RaceSheetRenderer().render_many(sheets))
    for number, text in enumerate(texts, start=1):
        assert f"Table {number}" in text and "Zoé Pilote-10" in text
        assert "Page 1 sur 1" in text and "Sortie de route" in text


def test_render_many_of_no_sheet_still_gives_a_pdf() -> None:
    calls: list[tuple[int, int]] = []

    pdf = RaceSheetRenderer().render_many([], progress=lambda *call: calls.append(call))

    assert len(pages_text(pdf)) == 1
    assert calls == []


# The qualifying batch lives here with the race one: both feed the same Celery task.


def qualifying_sheet(table_number: int, drivers: int = 3) -> QualifyingSheetData:
    return QualifyingSheetData(
        championship="Championnat de France Formule Dé",
        event="Journée 3 — Grand Prix de Nevers",
        date=datetime.date(2026, 7, 14),
        circuit="Magny-Cours",
        table_number=table_number,
        referee="Anaïs Bérard",
        sessions=[PrintedSession(1, "sun", "dry")],
        drivers=[
            PrintedDriver(number, f"Élodie Lefèvre-{table_number}-{number:02d}", None, {})
            for number in range(1, drivers + 1)
        ],
        minute_penalty=True,
        language="en",
    )


def test_qualifying_render_many_prints_each_table_in_order_and_reports_progress() -> None:
    calls: list[tuple[int, int]] = []

    pdf = TableSheetRenderer().render_many(
        [qualifying_sheet(number) for number in (1, 2, 3)],
        progress=lambda *call: calls.append(call),
    )

    texts = pages_text(pdf)
    assert len(texts) == 3
    for number, text in enumerate(texts, start=1):
        assert f"Table {number}" in text
        assert f"Élodie Lefèvre-{number}-01" in text
        assert "Page 1 of 1" in text
    assert calls == [(1, 3), (2, 3), (3, 3)]


def test_qualifying_render_many_counts_pages_per_sheet() -> None:
    texts = pages_text(
        TableSheetRenderer().render_many([qualifying_sheet(1, drivers=40), qualifying_sheet(2)])
    )

    first = [text for text in texts if "Table 1" in text]
    second = [text for text in texts if "Table 2" in text]
    assert len(first) > 1 and len(second) == 1
    assert len(first) + len(second) == len(texts)
    assert texts[: len(first)] == first  # table 1's pages, then table 2's
    for page, text in enumerate(first, start=1):
        assert f"Page {page} of {len(first)}" in text
    assert "Page 1 of 1" in second[0]
    everything = "\n".join(first)
    for number in range(1, 41):
        assert f"Élodie Lefèvre-1-{number:02d}" in everything


# --- The small print (issue 19: 4.5–5.5 pt, "Tour / tour…", "Consomma-tion") -----------------


def true_size(char: dict) -> float:
    """A glyph's size read from the PDF: pdfplumber's ``size`` is the height of its box,
    which for text running upwards (the narrow columns' headers) is its advance."""
    return char["size"] if char["upright"] else char["x1"] - char["x0"]


@pytest.mark.parametrize("language", ["fr", "en"])
def test_nothing_on_the_sheet_is_under_7_pt_nor_cut_and_ten_drivers_fit_a_page(language):
    """The fullest sheet: ten drivers with long names and teams, the weather not drawn
    (boxes to tick and the weather evolution box), a redrawn race weather, a sanction and
    the referee link. Every glyph is 7 pt or more, no word is cut ("…") or broken at a
    syllable, every label of the grid and the weather box reads whole, on one page."""
    grid = [
        line(
            position,
            name=LONG_NAME if position == 10 else "Marie-Élisabeth de La Tour d'Auvergne",
            team=None if position == 10 else "Scuderia Ça Roule Vite",
            stand=position,
            configuration=CONFIGURATION if position % 2 else None,
        )
        for position in range(1, 11)
    ]
    data = race_sheet(
        grid=grid,
        weather=None,
        track=None,
        referee="",
        referee_link=LINK,
        language=language,
        race_draws=((3, "rain", "die off the table"), (15, "sun", "")),
        sanctions=(PrintedSanction(41, "Zoé Pilote-01", "throws", 2, 1, "Ignored the referee"),),
    )
    pdf = RaceSheetRenderer().render(data)

    with pdfplumber.open(io.BytesIO(pdf)) as document:
        assert len(document.pages) == 1
        chars = document.pages[0].chars
    assert min(true_size(char) for char in chars) >= 7 - 1e-6
    stream = "".join(char["text"] for char in chars)
    assert "…" not in stream
    joined = "".join(stream.split())
    with translation.override(language):
        labels = [
            *part_labels().values(),
            *cause_labels(),
            gettext("Lap / turn"),
            gettext("Retirement cause"),
            gettext("Finishing order"),
            gettext("Weather evolution"),
        ]
    for label in labels:
        assert "".join(label.split()) in joined, label
    assert "Consomma-" not in stream and "Carrosse-" not in stream
    assert "".join(LONG_NAME.split()) in joined
    assert "§16-0-6" in stream  # a finisher whose engine broke on the last lap (item 5)
