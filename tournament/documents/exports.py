"""CSV and XLSX files of a django-tables2 table, safe to open in a spreadsheet.

Names come from the public (a driver registers as ``=HYPERLINK(...)``), and a spreadsheet
runs a cell that starts like a formula. So text starting with ``=``, ``+``, ``-``, ``@``, a
tab or a carriage return is written as text (OWASP, "CSV Injection"): in a CSV with a
single quote in front, which spreadsheets read as "this is text"; in an XLSX as a string
cell marked with Excel's own quote prefix (what Excel stores when one types ``'=2*3``), so
the text stays exactly as typed and stays text even when the cell is edited. Numbers are
left alone: ``-3`` is a number, not a formula.

django-tables2's ``TableExport`` hands cells to tablib as they are: its CSV writes them raw
and its XLSX stores ``=...`` as a live formula (its ``escape`` option drops the ``=``, a
name with it). Hence these few lines instead; the rows still come from the table's
``as_values()``, so a column's ``value_*`` method decides what a cell holds.
"""

from __future__ import annotations

import csv
import datetime
import io
import re
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from django.http import HttpResponse
from django.utils import timezone
from openpyxl import Workbook
from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE
from openpyxl.styles import Font

#: ``?_export=`` values served; anything else is not an export (the page shows).
FORMATS = {
    "csv": "text/csv; charset=utf-8",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
}

#: First characters that make a spreadsheet read a cell as a formula (OWASP).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")

#: Values a spreadsheet gets as what they are, never as text.
NUMBERS = (int, float, Decimal)


def looks_like_formula(value: Any) -> bool:
    """True for text a spreadsheet could run; never for a number (``-3`` stays ``-3``)."""
    return isinstance(value, str) and value.startswith(FORMULA_STARTS)


def csv_cell(value: Any) -> Any:
    """The value as a CSV cell: formula-like text behind a single quote."""
    return f"'{value}" if looks_like_formula(value) else value


def table_values(table: Any) -> list[list[Any]]:
    """The header row then every row (not one page) of ``table``, as exported values."""
    return [list(row) for row in table.as_values()]


def csv_bytes(rows: Iterable[list[Any]]) -> bytes:
    """UTF-8 with its byte order mark: without it, Excel reads "Chloé" as "ChloÃ©"."""
    stream = io.StringIO()
    # Every text cell in quotes: a French Excel splits on ";", and a name "Dupont;=1+1"
    # would otherwise become a cell "=1+1". Numbers stay bare, and stay numbers.
    writer = csv.writer(stream, quoting=csv.QUOTE_NONNUMERIC)
    for row in rows:
        writer.writerow([csv_cell(value) for value in row])
    return stream.getvalue().encode("utf-8-sig")


def xlsx_bytes(rows: Iterable[list[Any]], *, title: str) -> bytes:
    """One sheet, its first row bold and frozen; text is always a string cell."""
    workbook = Workbook()
    sheet = workbook.active
    sheet.title = re.sub(r"[\\/*?:\[\]]", "-", title)[:31] or "Export"
    bold = Font(bold=True)
    for row_number, row in enumerate(rows, start=1):
        for column_number, value in enumerate(row, start=1):
            cell = sheet.cell(row=row_number, column=column_number)
            if isinstance(value, datetime.datetime) and value.tzinfo is not None:
                cell.value = timezone.localtime(value).replace(tzinfo=None)  # Excel has no zones
            elif value is None or isinstance(value, (*NUMBERS, datetime.date)):
                cell.value = value
            else:
                # openpyxl refuses control characters (an error, not a file): drop them.
                text = ILLEGAL_CHARACTERS_RE.sub("", str(value))
                cell.value = text
                cell.data_type = "s"  # openpyxl types "=..." as a formula: it is text
                if looks_like_formula(text):
                    cell.quotePrefix = True
            if row_number == 1:
                cell.font = bold
    sheet.freeze_panes = "A2"
    stream = io.BytesIO()
    workbook.save(stream)
    return stream.getvalue()


def export_response(table: Any, export_format: str, filename: str) -> HttpResponse:
    """The file ``filename.<format>`` of every row of ``table`` (a format of ``FORMATS``)."""
    rows = table_values(table)
    content = xlsx_bytes(rows, title=filename) if export_format == "xlsx" else csv_bytes(rows)
    response = HttpResponse(content, content_type=FORMATS[export_format])
    response["Content-Disposition"] = f'attachment; filename="{filename}.{export_format}"'
    return response
