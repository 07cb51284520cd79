""" "Join the tournament": the A4 poster ``make venue`` prints for the hall's walls and
tables, and the same QR code drawn in the terminal.

Plain values in, bytes or text out; built with the printing toolkit (ground floor).
"""

from __future__ import annotations

import io
from dataclasses import dataclass

from django.utils.translation import gettext as _
from reportlab.lib.pagesizes import A4
from reportlab.lib.units import mm
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import Canvas

from tournament.documents.printing import (
    FONT,
    FONT_BOLD,
    GREY,
    QR_QUIET_ZONE,
    draw_fitted,
    draw_qr,
    qr_modules,
    register_fonts,
    split_to_width,
)


@dataclass(frozen=True)
class Poster:
    url: str  # what the phones open: the event page, else the home page
    title: str = ""  # the event's name, if there is one
    wifi_name: str = ""
    wifi_password: str = ""


def wifi_qr_text(name: str, password: str) -> str:
    """The text phones read as "join this network" (the format Android and iOS scan)."""

    def escaped(value: str) -> str:
        for char in '\\;,":':
            value = value.replace(char, "\\" + char)
        return value

    kind = "WPA" if password else "nopass"
    secret = f"P:{escaped(password)};" if password else ""
    return f"WIFI:T:{kind};S:{escaped(name)};{secret};"


class PosterRenderer:
    """One A4 page: the title, the Wi-Fi to join, the QR code and the address to open."""

    MARGIN = 20 * mm
    QR_SIZE = 110 * mm
    WIFI_QR_SIZE = 45 * mm

    def render(self, poster: Poster) -> bytes:
        register_fonts()
        buffer = io.BytesIO()
        canvas = Canvas(buffer, pagesize=A4, invariant=True)
        canvas.setTitle(_("Join the tournament"))
        width, height = A4
        left, right = self.MARGIN, width - self.MARGIN
        y = height - self.MARGIN - 14 * mm
        canvas.setFont(FONT_BOLD, 34)
        canvas.drawCentredString(width / 2, y, _("Join the tournament"))
        if poster.title:
            y -= 13 * mm
            draw_fitted(
                canvas,
                width / 2,
                y,
                poster.title,
                font=FONT,
                size=22,
                width=right - left,
                min_size=11,
                align="center",
            )
        y -= 16 * mm
        if poster.wifi_name:
            y = self._wifi(canvas, poster, left, right, y)
        scan = _("Scan with your phone")
        canvas.setFont(FONT_BOLD, 18)
        canvas.drawString(left, y, f"2. {scan}" if poster.wifi_name else scan)
        y -= 6 * mm
        draw_qr(canvas, poster.url, (width - self.QR_SIZE) / 2, y - self.QR_SIZE, self.QR_SIZE)
        y -= self.QR_SIZE + 10 * mm
        canvas.setFont(FONT, 13)
        canvas.drawCentredString(width / 2, y, _("or type this address:"))
        y -= 10 * mm
        size = 22
        while size > 11 and stringWidth(poster.url, FONT_BOLD, size) > right - left:
            size -= 1
        canvas.setFont(FONT_BOLD, size)
        for line in split_to_width(poster.url, FONT_BOLD, size, right - left):
            canvas.drawCentredString(width / 2, y, line)
            y -= size * 1.3
        canvas.setFont(FONT, 10)
        canvas.setFillColor(GREY)
        canvas.drawCentredString(
            width / 2,
            self.MARGIN,
            _("Where do I sit? Results, standings: everything is on this site."),
        )
        canvas.showPage()
        canvas.save()
        return buffer.getvalue()

    def _wifi(self, canvas: Canvas, poster: Poster, left: float, right: float, y: float) -> float:
        canvas.setFont(FONT_BOLD, 18)
        canvas.drawString(left, y, "1. " + _("Connect to the Wi-Fi"))
        text_width = right - left - (self.WIFI_QR_SIZE + 5 * mm if poster.wifi_password else 0)
        draw_fitted(
            canvas, left, y - 11 * mm, poster.wifi_name, font=FONT_BOLD, size=24, width=text_width
        )
        bottom = y - 14 * mm
        if poster.wifi_password:
            canvas.setFont(FONT, 13)
            label = _("Password:")
            canvas.drawString(left, y - 19 * mm, label)
            draw_fitted(
                canvas,
                left + stringWidth(label, FONT, 13) + 2 * mm,
                y - 19 * mm,
                poster.wifi_password,
                font=FONT_BOLD,
                size=13,
                width=text_width - stringWidth(label, FONT, 13) - 2 * mm,
            )
            qr_text = wifi_qr_text(poster.wifi_name, poster.wifi_password)
            draw_qr(
                canvas,
                qr_text,
                right - self.WIFI_QR_SIZE,
                y - self.WIFI_QR_SIZE + 6 * mm,
                self.WIFI_QR_SIZE,
            )
            bottom = min(y - 24 * mm, y - self.WIFI_QR_SIZE + 2 * mm)
        return bottom - 10 * mm


def terminal_qr(text: str) -> str:
    """``text``'s QR code in a terminal: two rows of modules per line of half blocks.

    Light modules are drawn (``█``), dark ones left to the terminal's background, as
    ``qrencode -t utf8`` does for the usual dark terminal; phones read it either way.
    """
    modules = qr_modules(text)
    count = len(modules)
    light_row = b"\xff" * count
    rows = [light_row] * QR_QUIET_ZONE + modules + [light_row] * QR_QUIET_ZONE
    if len(rows) % 2:
        rows.append(light_row)
    pad = "█" * QR_QUIET_ZONE
    lines = []
    for top, bottom in zip(rows[::2], rows[1::2], strict=True):
        cells = []
        for upper, lower in zip(top, bottom, strict=True):
            cells.append(
                {(True, True): "█", (True, False): "▀", (False, True): "▄", (False, False): " "}[
                    (upper != 0, lower != 0)
                ]
            )
        lines.append(pad + "".join(cells) + pad)
    return "\n".join(lines)
