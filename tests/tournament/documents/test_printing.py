"""The printing toolkit's canvas (``SheetCanvas``): its strings read back as reportlab's own
canvas draws them, and what a document draws or works out alike is done once."""

from __future__ import annotations

import io

import pdfplumber
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen.canvas import Canvas

from tournament.documents.printing import FONT, FONT_BOLD, GREY, SheetCanvas, register_fonts

TEXTS = ("Écurie Étoile", "Pénalité × 2 — « fin »", "(§2-0-3) \\ 100 %", "Zoé Müller-Lüdenscheidt")


def _draw(canvas_class: type[Canvas]) -> bytes:
    register_fonts()
    buffer = io.BytesIO()
    canvas = canvas_class(buffer, pagesize=A4, invariant=True)
    y = 800.0
    for font, size in ((FONT, 9), (FONT_BOLD, 12), (FONT, 7.5)):
        canvas.setFont(font, size)
        for text in TEXTS:
            canvas.drawString(40, y, text)
            canvas.drawCentredString(300, y, text)
            canvas.drawRightString(560, y, text)
            y -= 20
    canvas.saveState()
    canvas.setFillColor(GREY)
    canvas.setFont(FONT, 8)
    canvas.drawString(40, y, "Page 1 sur 2")
    canvas.restoreState()
    canvas.setFont("Helvetica", 10)  # a font reportlab draws its own way
    canvas.drawString(40, y - 20, "Helvetica")
    canvas.showPage()
    canvas.save()
    return buffer.getvalue()


def _chars(pdf: bytes) -> list[tuple]:
    with pdfplumber.open(io.BytesIO(pdf)) as document:
        return [
            (
                char["text"],
                char["fontname"].split("+")[-1],
                round(char["size"], 3),
                round(char["x0"], 3),
                round(char["top"], 3),
                char["non_stroking_color"],
            )
            for char in document.pages[0].chars
        ]


def test_sheet_canvas_strings_read_back_as_reportlabs() -> None:
    mine, reportlabs = _chars(_draw(SheetCanvas)), _chars(_draw(Canvas))

    assert mine == reportlabs
    assert "".join(char[0] for char in mine).count("Écurie Étoile") == 9


def test_sheet_canvas_draws_a_form_once_per_key() -> None:
    register_fonts()
    canvas = SheetCanvas(io.BytesIO(), pagesize=A4, invariant=True)
    drawn: list[str] = []

    def draw(label: str) -> None:
        drawn.append(label)
        canvas.setFont(FONT, 9)
        canvas.drawString(40, 800, label)

    names = [canvas.form(key, lambda key=key: draw(key), prefix="Test") for key in "abab"]

    assert drawn == ["a", "b"]
    assert names[0] == names[2] != names[1] == names[3]


def test_sheet_canvas_works_a_result_out_once() -> None:
    canvas = SheetCanvas(io.BytesIO(), pagesize=A4, invariant=True)
    calls: list[tuple[str, int]] = []

    def fitted(text: str, width: int) -> str:
        calls.append((text, width))
        return text[:width]

    results = [canvas.once(fitted, "Écurie Étoile", width) for width in (3, 5, 3, 3)]

    assert results == ["Écu", "Écuri", "Écu", "Écu"]
    assert calls == [("Écurie Étoile", 3), ("Écurie Étoile", 5)]
