"""Drawing helpers of the race sheet, straight on a reportlab canvas.

Text that wraps and then shrinks to fit its cell (names break after hyphens too), a run of
words and tick boxes on one line, the layout of a cell's wear-point boxes, small boxes
written as PDF operators and stroked at once, and a form placed where it goes.

Boundary: a canvas, text and sizes in, ink out. Nothing here knows the race sheet's data or
layout (that is `races/sheets/pdf.py`); the toolkit every sheet shares is
`tournament/documents/printing.py`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from reportlab.lib import colors
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import Canvas

from tournament.documents.printing import FONT, TickBox, fit_text


def wrap_words(text: str, font: str, size: float, width: float) -> list[str]:
    """Greedy lines of at most `width`, broken at spaces and after hyphens.

    Hyphens matter for names: "Marie-Élisabeth-Wilhelmine" is one word to reportlab.
    """
    lines: list[str] = []
    line = ""
    for word in text.split():
        for index, piece in enumerate(re.findall(r"[^-]+-?|-", word)):
            glue = " " if index == 0 and line else ""
            if not line or stringWidth(line + glue + piece, font, size) <= width:
                line += glue + piece
            else:
                lines.append(line)
                line = piece
    return [*lines, line] if line else lines


_VOWELS = set("aeiouyàâäéèêëîïôöùûüÿœæAEIOUYÀÂÄÉÈÊËÎÏÔÖÙÛÜŸŒÆ")
# Consonant pairs a syllable starts with, never split: "ch", "ph", "gn", "tr", "bl"…
_CLUSTERS = {"ch", "ph", "th", "gn", "qu"} | {c + r for c in "bcdfgptv" for r in "lr"}


def _syllable_breaks(word: str) -> list[int]:
    """Where a word may break with a hyphen, French-style: between two consonants
    ("Consom-mation") or before a consonant between vowels ("Consomma-tion"); never
    leaving fewer than three letters on either side."""
    breaks = []
    for cut in range(3, len(word) - 2):
        before, here, after = word[cut - 1], word[cut], word[cut + 1]
        if not (here.isalpha() and before.isalpha()) or here in _VOWELS:
            continue
        between_vowels = before in _VOWELS and after in _VOWELS
        two_consonants = before not in _VOWELS and (before + here).lower() not in _CLUSTERS
        if between_vowels or two_consonants:
            breaks.append(cut)
    return breaks


def _break_words(lines: list[str], font: str, size: float, width: float) -> list[str]:
    """Lines of one word too wide for the cell, broken at a syllable with a hyphen
    ("Consom-" / "mation"): a column header is read whole, never cut."""
    broken: list[str] = []
    for line in lines:
        while stringWidth(line, font, size) > width and " " not in line:
            fitting = [
                c
                for c in _syllable_breaks(line)
                if stringWidth(line[:c] + "-", font, size) <= width
            ]
            if not fitting:
                break
            broken.append(line[: fitting[-1]] + "-")
            line = line[fitting[-1] :]
        broken.append(line)
    return broken


def fit_lines(
    text: str,
    font: str,
    size: float,
    width: float,
    max_lines: int,
    min_size: float,
    *,
    break_words: bool = False,
) -> tuple[list[str], float]:
    """Wrap `text` on at most `max_lines` lines of `width`, shrinking it down to `min_size`.

    Past that, a word wider than the cell is broken with a hyphen when `break_words` (column
    headers), and the last line is cut with an ellipsis: a name never leaves its cell.
    """
    while True:
        lines = wrap_words(text, font, size, width)
        fits = all(stringWidth(line, font, size) <= width for line in lines)
        if (fits and len(lines) <= max_lines) or size <= min_size:
            break
        size = max(min_size, size - 0.5)
    if break_words and not fits:
        lines = _break_words(lines, font, size, width)
    if len(lines) > max_lines:
        lines = [*lines[: max_lines - 1], " ".join(lines[max_lines - 1 :])]
    return [fit_text(line, font, size, width, size)[0] for line in lines], size


# A run of words and tick boxes on one line: "Weather at the start: ☐ Sun ☐ Variable ☐ Rain".
_BOX = None  # stands for a tick box in a segment list
Segment = tuple[str, str] | None  # (text, font) or _BOX


def _segments_width(segments: Sequence[Segment], size: float) -> float:
    return sum(
        size * 1.15 if segment is _BOX else stringWidth(segment[0], segment[1], size)
        for segment in segments
    )


def draw_segments(
    canvas: Canvas,
    x: float,
    y: float,
    segments: Sequence[Segment],
    *,
    size: float,
    width: float,
    min_size: float,
) -> None:
    """Draw the segments from (x, y), shrunk (down to `min_size`) to fit `width`."""
    while size > min_size and _segments_width(segments, size) > width:
        size = max(min_size, size - 0.25)
    for segment in segments:
        if segment is _BOX:
            TickBox(False, size * 0.8).drawOn(canvas, x, y - size * 0.08)
            x += size * 1.15
        else:
            text, font = segment
            canvas.setFont(font, size)
            canvas.drawString(x, y, text)
            x += stringWidth(text, font, size)


def tick_options(labels: Sequence[str]) -> list[Segment]:
    """Options to tick: "☐ Sun  ☐ Variable  ☐ Rain"."""
    segments: list[Segment] = []
    for index, label in enumerate(labels):
        segments += [_BOX, (label + ("   " if index < len(labels) - 1 else ""), FONT)]
    return segments


def box_layout(count: int, width: float, height: float, max_pitch: float) -> tuple[int, float]:
    """Columns and pitch that fit `count` boxes in `width` × `height` with the largest boxes."""
    best_columns, best_pitch = count, 0.0
    # From the widest layout down, so that a tie goes to fewer, fuller rows.
    for columns in range(count, 0, -1):
        rows = math.ceil(count / columns)
        pitch = min(width / columns, height / rows, max_pitch)
        if pitch > best_pitch:
            best_columns, best_pitch = columns, pitch
    return best_columns, best_pitch


class Boxes:
    """Every small box of a page, stroked at once.

    Written as PDF operators to a hundredth of a point: reportlab formats each number of a
    path in pure Python (~5 µs without its optional C accelerator), and a page holds
    hundreds of boxes.
    """

    def __init__(self) -> None:
        self.operators: list[str] = []

    def add(self, x: float, y: float, width: float, height: float) -> None:
        self.operators.append(f"{x:.2f} {y:.2f} {width:.2f} {height:.2f} re")

    def stroke(self, canvas: Canvas, *, line_width: float) -> None:
        if not self.operators:
            return
        canvas.saveState()
        canvas.setLineWidth(line_width)
        canvas.setStrokeColor(colors.black)
        canvas.addLiteral("\n".join([*self.operators, "S"]))
        canvas.restoreState()


def place_form(canvas: Canvas, form: str, dy: float, dx: float = 0) -> None:
    """Draw the form named `form` moved by (dx, dy).

    Hand-written operators (q, cm, Q): the form changes nothing of the canvas's own state,
    and reportlab's saveState/translate/restoreState cost more than the rest.
    """
    canvas.addLiteral(f"q 1 0 0 1 {dx:.4f} {dy:.4f} cm")
    canvas.doForm(form)
    canvas.addLiteral("Q")
