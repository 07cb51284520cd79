"""The printing toolkit every sheet shares: fonts, colours, fitted text, QR codes, sheet
titles, "page x of y" and empty documents (ground floor: no app model here).

The documents themselves live with what they print: ``qualifying/sheets/card.py`` and
``qualifying/sheets/table_sheet.py`` (qualifying), ``races/sheets/pdf.py`` (race sheets), each
game's ``pdf.py`` under ``races/games/``.
"""

from __future__ import annotations

import bisect
import datetime
import functools
import io
import re
from collections import Counter
from collections.abc import Callable, Hashable
from typing import Any, Protocol, TypeVar
from xml.sax.saxutils import escape

import zxingcpp
from django.conf import settings
from django.utils import formats
from django.utils.translation import gettext
from reportlab import rl_config
from reportlab.lib import colors
from reportlab.lib.rl_accel import fp_str
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import Flowable, Table, TableStyle

FONT = "DejaVuSans"
FONT_BOLD = "DejaVuSans-Bold"

GREY = colors.HexColor("#555555")
HEADER_FILL = colors.HexColor("#e4e4e4")
STRIPE_FILL = colors.HexColor("#f4f4f4")
CELL_PADDING = 2.5  # points, each side of a table cell

T = TypeVar("T")


def markup(text: object) -> str:
    """``text`` for a reportlab Paragraph, drawn exactly as written: Paragraph reads its text
    as markup (``<a href>``, ``<img src>``, ``<font>``), so every name, title and sentence
    that reaches a Paragraph goes through here. Canvas text (drawString) needs nothing."""
    return escape(str(text))


@functools.cache
def register_fonts() -> None:
    # reportlab's built-in fonts have no glyphs beyond Latin-1 and no embedding: DejaVu
    # prints "Écurie", "×", "—" and "…" everywhere a venue's printer may be.
    font_dir = settings.BASE_DIR / "static" / "fonts"
    pdfmetrics.registerFont(TTFont(FONT, str(font_dir / "DejaVuSans.ttf")))
    pdfmetrics.registerFont(TTFont(FONT_BOLD, str(font_dir / "DejaVuSans-Bold.ttf")))
    pdfmetrics.registerFontFamily(
        FONT, normal=FONT, bold=FONT_BOLD, italic=FONT, boldItalic=FONT_BOLD
    )
    # Streams Flate-compressed only, not also ASCII85-wrapped (reportlab's default, for 7-bit
    # channels nobody prints through): smaller files, and without reportlab's optional C
    # accelerator that encoding alone took a fifth of a batch of race sheets. Every renderer
    # calls this first; the setting is reportlab's, for the whole process.
    rl_config.useA85 = 0


class _DatedSheet(Protocol):
    # Any sheet data with a date and a circuit: the race sheet prints the same line.
    @property
    def date(self) -> datetime.date: ...

    @property
    def circuit(self) -> str: ...


def date_and_circuit(data: _DatedSheet) -> str:
    # The date in the active language's own format: "14 juin 2025", "June 14, 2025".
    return gettext("Date: %(date)s · Circuit: %(circuit)s") % {
        "date": formats.date_format(data.date, "DATE_FORMAT"),
        "circuit": data.circuit,
    }


def fit_text(text: str, font: str, size: float, width: float, min_size: float) -> tuple[str, float]:
    """Shrink `text` down to `min_size` to fit `width`, then cut it with an ellipsis."""
    while size > min_size and stringWidth(text, font, size) > width:
        size = max(min_size, size - 0.5)
    if stringWidth(text, font, size) <= width:
        return text, size
    while text and stringWidth(text + "…", font, size) > width:
        text = text[:-1]
    return text.rstrip() + "…", size


def draw_fitted(
    canvas: Canvas,
    x: float,
    y: float,
    text: str,
    *,
    font: str,
    size: float,
    width: float,
    min_size: float | None = None,
    align: str = "left",
) -> None:
    text, size = fit_text(text, font, size, width, size * 0.7 if min_size is None else min_size)
    canvas.setFont(font, size)
    if align == "right":
        canvas.drawRightString(x, y, text)
    elif align == "center":
        canvas.drawCentredString(x, y, text)
    else:
        canvas.drawString(x, y, text)


QR_QUIET_ZONE = 4  # modules of white around the code, as the QR standard asks


def qr_modules(link: str) -> list[bytes]:
    """`link`'s QR code (error correction M), top row first: one byte a module, 0 = dark.

    zxing-cpp encodes in C++ (and scores the eight masks, as the standard asks) in a
    fraction of a millisecond; reportlab's encoder, in pure Python, took most of a race
    sheet's drawing time for its QR code alone.
    """
    code = zxingcpp.create_barcode(link, zxingcpp.BarcodeFormat.QRCode, ec_level="M")
    image = code.to_image(scale=1, add_quiet_zones=False)
    count = image.shape[0]
    data = bytes(image)
    return [data[row * count : (row + 1) * count] for row in range(count)]


_DARK_RUN = re.compile(rb"\x00+")


def draw_qr(canvas: Canvas, link: str, x: float, y: float, size: float) -> None:
    """`link`'s QR code, quiet zone included, in the `size` square at (x, y)."""
    modules = qr_modules(link)
    count = len(modules)
    module = size / (count + 2 * QR_QUIET_ZONE)
    # One rectangle per run of dark modules, in module units (whole numbers), written as
    # PDF operators: a code has a few hundred runs, and reportlab's own rect() would format
    # every coordinate through its generic number formatting.
    runs: list[str] = []
    for row_index, row in enumerate(modules):
        y_row = count - 1 - row_index
        for run in _DARK_RUN.finditer(row):
            runs.append(f"{run.start()} {y_row} {run.end() - run.start()} 1 re")
    canvas.saveState()
    canvas.transform(module, 0, 0, module, x + QR_QUIET_ZONE * module, y + QR_QUIET_ZONE * module)
    canvas.setFillColor(colors.black)
    canvas.addLiteral("\n".join([*runs, "f"]))
    canvas.restoreState()


def split_to_width(text: str, font: str, size: float, width: float) -> list[str]:
    """Break a string with no spaces (a URL) into lines no wider than `width`.

    Each line is the longest run that fits (at least one character), found by bisection:
    a width only grows with each character, and measuring every prefix one character
    longer than the last was, for a referee link on every sheet, most of a sheet's text
    measuring.
    """
    lines: list[str] = []
    start = 0
    while start < len(text):
        ends = range(start + 1, len(text) + 1)
        fits = bisect.bisect_right(
            ends, width, key=lambda end: stringWidth(text[start:end], font, size)
        )
        end = start + max(1, fits)
        lines.append(text[start:end])
        start = end
    return lines


def draw_sheet_title(
    canvas: Canvas,
    *,
    left: float,
    right: float,
    top: float,
    title: str,
    table_number: int,
    heading: str,
    link: str | None,
    qr_size: float,
    url_width: float,
    reserve: float,
    link_size: float = 6,
) -> float:
    """The top of every table sheet: QR code of the referee link with the link under it at
    the top right, the title, the table number and the championship — event line.

    Returns the width left for the text lines beside the QR code.
    """
    text_right = right
    if link:
        draw_qr(canvas, link, right - qr_size, top - qr_size, qr_size)
        canvas.setFont(FONT, link_size)
        pitch = max(2.5, link_size * 0.4) * mm  # the lines' pitch grows with the type
        for index, line in enumerate(split_to_width(link, FONT, link_size, url_width)[:3]):
            canvas.drawRightString(right, top - qr_size - 2.5 * mm - index * pitch, line)
        text_right = right - reserve
    width = text_right - left
    table_label = gettext("Table %(number)s") % {"number": table_number}
    canvas.setFont(FONT_BOLD, 16)
    canvas.drawRightString(text_right, top - 6 * mm, table_label)
    draw_fitted(
        canvas,
        left,
        top - 6 * mm,
        title,
        font=FONT_BOLD,
        size=15,
        width=width - stringWidth(table_label, FONT_BOLD, 16) - 6 * mm,
    )
    draw_fitted(canvas, left, top - 12.5 * mm, heading, font=FONT, size=11, width=width)
    return width


class TickBox(Flowable):
    """A box for the pen: empty, or crossed (an eliminated run). The race sheet uses it too."""

    def __init__(self, checked: bool, size: float) -> None:
        super().__init__()
        self.checked = checked
        self.size = size

    def wrap(self, available_width: float, available_height: float) -> tuple[float, float]:
        return self.size, self.size

    def draw(self) -> None:
        self.canv.setLineWidth(0.8)
        self.canv.rect(0, 0, self.size, self.size)
        if self.checked:
            # A glyph rather than two strokes so the tick can be read back from the text.
            self.canv.setFont(FONT_BOLD, self.size * 0.95)
            self.canv.drawCentredString(self.size / 2, self.size * 0.15, "X")


class SheetCanvas(Canvas):
    """A canvas whose plain one-line strings cost a third of reportlab's own.

    reportlab draws every string through a text object (state copied, its width measured
    even when left-aligned, numbers formatted one by one); a race sheet draws some seventy
    strings a page, most of its drawing time. Here a string in an embedded TrueType font
    becomes the same operators (``BT … Tm … Tf (…) Tj ET``) written at once, its encoding
    (the font subsets' codes) kept for the document: positions, numbers and labels repeat
    from sheet to sheet. Anything else (another font, a text mode, spacing, a direction)
    goes to reportlab as before.

    It also keeps what a document draws or works out many times the same: forms (``form``:
    a part of the page drawn once, placed on every page that shows it) and the results of
    pure layout functions (``once``: a team's name fitted to its cell, a sentence wrapped
    to the page).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._encoded: dict[tuple[str, float, str], str] = {}
        self._forms: dict[Hashable, str] = {}
        self._once: dict[Hashable, Any] = {}

    def form(self, key: Hashable, draw: Callable[[], None], *, prefix: str = "Form") -> str:
        """The name of the form that ``draw`` draws for ``key``, drawn once in this document
        (placed with ``doForm``; ``prefix`` names it for a reader of the PDF)."""
        name = self._forms.get(key)
        if name is None:
            name = self._forms[key] = f"{prefix}-{len(self._forms)}"
            self.beginForm(name)
            draw()
            self.endForm()
        return name

    def once(self, function: Callable[..., T], *args: Hashable) -> T:
        """``function(*args)``, worked out once in this document: ``function`` is pure (its
        result depends on its arguments alone) and its result is not changed by callers."""
        key = (function, args)
        try:
            return self._once[key]
        except KeyError:
            result = self._once[key] = function(*args)
            return result

    def _plain(self, text: str, options: tuple[object, ...]) -> str | None:
        """``text``'s operators in the current font and size, or None for reportlab's way."""
        if any(options) or not self.bottomup:
            return None
        key = (self._fontname, self._fontsize, text)
        encoded = self._encoded.get(key)
        if encoded is None:
            font = pdfmetrics.getFont(self._fontname)
            if not font._dynamicFont:
                return None
            size = fp_str(self._fontsize)
            encoded = " ".join(
                f"{font.getSubsetInternalName(subset, self._doc)} {size} Tf "
                f"({self._escape(chunk)}) Tj"
                for subset, chunk in font.splitString(text, self._doc)
            )
            self._encoded[key] = encoded
        return encoded

    def drawString(self, x: float, y: float, text: str, *args: Any, **kwargs: Any) -> None:
        encoded = self._plain(text, (*args, *kwargs.values()))
        if encoded is None:
            super().drawString(x, y, text, *args, **kwargs)
            return
        self._code.append(f"BT 1 0 0 1 {fp_str(x, y)} Tm {encoded} ET")

    def drawRightString(self, x: float, y: float, text: str, *args: Any, **kwargs: Any) -> None:
        encoded = self._plain(text, (*args, *kwargs.values()))
        if encoded is None:
            super().drawRightString(x, y, text, *args, **kwargs)
            return
        x -= stringWidth(text, self._fontname, self._fontsize)
        self._code.append(f"BT 1 0 0 1 {fp_str(x, y)} Tm {encoded} ET")

    def drawCentredString(self, x: float, y: float, text: str, *args: Any, **kwargs: Any) -> None:
        encoded = self._plain(text, (*args, *kwargs.values()))
        if encoded is None:
            super().drawCentredString(x, y, text, *args, **kwargs)
            return
        x -= 0.5 * stringWidth(text, self._fontname, self._fontsize)
        self._code.append(f"BT 1 0 0 1 {fp_str(x, y)} Tm {encoded} ET")


class PageCountCanvas(Canvas):
    """Prints "page x of y" in the corner: reportlab knows the page count only at save.

    Pages are counted per sheet: a batch's page template sets `page_group` (the sheet's
    index) as each page begins, so each sheet of a batch says "page 1 of 2" on its own.
    """

    page_group = 0

    def __init__(
        self, *args: Any, page_label: Callable[[Canvas, int, int, int], None], **kwargs: Any
    ):
        super().__init__(*args, **kwargs)
        self._page_label = page_label
        self._page_states: list[dict[str, Any]] = []

    def showPage(self) -> None:
        self._page_states.append(dict(self.__dict__))
        self._startPage()

    def save(self) -> None:
        groups = [state.get("page_group", 0) for state in self._page_states]
        totals = Counter(groups)
        pages: Counter[int] = Counter()
        for state, group in zip(self._page_states, groups, strict=True):
            self.__dict__.update(state)
            pages[group] += 1
            self._page_label(self, pages[group], totals[group], group)
            super().showPage()
        super().save()


class AfterSheet(Flowable):
    """Takes no room; once laid out, the sheet before it is done: tell the progress bar."""

    _ZEROSIZE = True  # fits even in a full frame, so it never starts a page of its own

    def __init__(self, callback: Callable[[], None]) -> None:
        super().__init__()
        self.callback = callback

    def wrap(self, available_width: float, available_height: float) -> tuple[float, float]:
        return 0, 0

    def draw(self) -> None:
        self.callback()


def empty_pdf(page_size: tuple[float, float], message: str) -> bytes:
    """One page with `message`: a batch with nothing to print still gives a valid PDF."""
    register_fonts()
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=page_size, invariant=True)
    canvas.setFont(FONT, 12)
    canvas.drawString(20 * mm, page_size[1] - 30 * mm, message)
    canvas.showPage()
    canvas.save()
    return buffer.getvalue()


def plain_styles() -> tuple[ParagraphStyle, ParagraphStyle, ParagraphStyle]:
    """Title, heading and body styles of the plain sheets (the other games')."""
    title = ParagraphStyle("title", fontName=FONT_BOLD, fontSize=16, leading=19)
    heading = ParagraphStyle("heading", fontName=FONT_BOLD, fontSize=11, leading=14, spaceBefore=4)
    body = ParagraphStyle("body", fontName=FONT, fontSize=9, leading=11)
    return title, heading, body


def plain_table(rows: list[list[str]], widths: list[float], *, header: bool = True) -> Table:
    """A gridded table of plain text, header row shaded and repeated on each page."""
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
