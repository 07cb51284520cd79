"""The stylesheet's own colours, read from static/css/paddock.css: the result badges
("Soumis", "Confirmé", "Brouillon") are white on a colour at 4.5:1 at least (WCAG AA for
normal text). No browser needed: the colours are fixed hexadecimal values."""

from __future__ import annotations

import re
from pathlib import Path

from django.conf import settings

CSS = Path(settings.BASE_DIR) / "static" / "css" / "paddock.css"


def luminance(colour: str) -> float:
    colour = colour.lstrip("#")
    if len(colour) == 3:
        colour = "".join(c * 2 for c in colour)
    channels = [int(colour[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_contrast_formula_on_known_pairs() -> None:
    assert round(contrast("#000", "#fff"), 1) == 21.0
    assert round(contrast("#ef6c00", "#fff"), 2) == 3.08  # the old "Soumis" badge


def test_every_result_badge_reads_at_4_5_to_1() -> None:
    rules = re.findall(
        r"\.result-badge\.status-(\w+) \{ background: (#[0-9a-fA-F]{3,6}); color: "
        r"(#[0-9a-fA-F]{3,6}); \}",
        CSS.read_text(encoding="utf-8"),
    )
    assert {status for status, _bg, _fg in rules} >= {"submitted", "confirmed", "draft"}
    for status, background, colour in rules:
        assert contrast(background, colour) >= 4.5, (status, contrast(background, colour))
