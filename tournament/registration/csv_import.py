"""Reading a drivers CSV as French spreadsheet programs export it. No database here.

Columns ``number,first_name,last_name,team,email,licence`` (``team``, ``email`` and
``licence`` optional, French headers accepted too), separated by ``;`` or ``,``, UTF-8 with
or without BOM; files saved by older spreadsheet programs in Windows-1252 are read too
rather than refused.
"""

from __future__ import annotations

import csv
import io
import re
import unicodedata
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.utils.translation import gettext as _

HEADER_ALIASES = {
    "number": "number",
    "numero": "number",
    "no": "number",
    "n": "number",
    "num": "number",
    "first_name": "first_name",
    "firstname": "first_name",
    "prenom": "first_name",
    "last_name": "last_name",
    "lastname": "last_name",
    "nom": "last_name",
    "team": "team",
    "ecurie": "team",
    "equipe": "team",
    "email": "email",
    "e-mail": "email",
    "mail": "email",
    "courriel": "email",
    "licence": "licence",
    "license": "licence",
    "licence_number": "licence",
    "numero_de_licence": "licence",
}
REQUIRED = ("number", "first_name", "last_name")
MAX_NUMBER = 99999


@dataclass(frozen=True)
class DriverRow:
    line: int
    number: int
    first_name: str
    last_name: str
    team: str
    email: str
    #: The federation's licence number as typed (the player is found by it); "" if none.
    licence: str = ""


@dataclass(frozen=True)
class LineError:
    line: int
    message: str


def _normalise_header(name: str) -> str:
    plain = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    key = plain.strip().lower().replace(" ", "_").replace("°", "")
    return HEADER_ALIASES.get(key, key)


def decode(data: bytes) -> str:
    """Text of an uploaded file: UTF-8 (BOM or not), else Windows-1252."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")


def parse_drivers_csv(text: str) -> tuple[list[DriverRow], list[LineError]]:
    """Every valid row and every bad line (1 = the header line) of a drivers CSV."""
    lines = text.splitlines()
    skipped = 0  # blank lines above the header still count in the reported line numbers
    while lines and not lines[0].strip():
        lines.pop(0)
        skipped += 1
    if not lines:
        return [], [LineError(1, _("The file is empty."))]
    if "\x00" in text:
        return [], [LineError(1, _("This is not a text file."))]
    try:
        return _parse(lines, skipped)
    except csv.Error:  # e.g. a field longer than the csv module accepts
        return [], [LineError(1, _("The file could not be read as CSV."))]


def _parse(lines: list[str], skipped: int) -> tuple[list[DriverRow], list[LineError]]:
    header_line = lines[0]
    delimiter = ";" if header_line.count(";") >= header_line.count(",") else ","
    reader = csv.reader(io.StringIO("\n".join(lines)), delimiter=delimiter)
    header = [_normalise_header(h) for h in next(reader)]
    missing = [column for column in REQUIRED if column not in header]
    if missing:
        return [], [
            LineError(
                skipped + 1,
                _(
                    "The first line must name the columns number, first_name, last_name, "
                    "team, email; missing: %(columns)s."
                )
                % {"columns": ", ".join(missing)},
            )
        ]
    rows: list[DriverRow] = []
    errors: list[LineError] = []
    seen: dict[int, int] = {}
    for line_no, cells in enumerate(reader, start=skipped + 2):
        if not any(cell.strip() for cell in cells):
            continue
        if len(cells) > len(header) and any(c.strip() for c in cells[len(header) :]):
            errors.append(
                LineError(
                    line_no,
                    _("%(found)s columns instead of %(expected)s (check the separator).")
                    % {"found": len(cells), "expected": len(header)},
                )
            )
            continue
        values = {
            name: (cells[i].strip() if i < len(cells) else "") for i, name in enumerate(header)
        }
        problems: list[str] = []
        raw_number = values.get("number", "")
        number = 0
        if not re.fullmatch(r"[0-9]{1,6}", raw_number) or not 1 <= int(raw_number) <= MAX_NUMBER:
            problems.append(
                _("the number must be a whole number from 1 to %(max)s, not “%(value)s”")
                % {"max": MAX_NUMBER, "value": raw_number}
            )
        else:
            number = int(raw_number)
            if number in seen:
                problems.append(
                    _("number %(number)s is already on line %(line)s")
                    % {"number": number, "line": seen[number]}
                )
        first_name = values.get("first_name", "")
        last_name = values.get("last_name", "")
        if not first_name:
            problems.append(_("the first name is empty"))
        if not last_name:
            problems.append(_("the last name is empty"))
        if len(first_name) > 100 or len(last_name) > 100:
            problems.append(_("names are limited to 100 characters"))
        team = values.get("team", "")
        if len(team) > 120:
            problems.append(_("team names are limited to 120 characters"))
        email = values.get("email", "")
        if email:
            try:
                validate_email(email)
            except ValidationError:
                problems.append(_("“%(value)s” is not an email address") % {"value": email})
        licence = values.get("licence", "")
        if len(licence) > 30:
            problems.append(_("licence numbers are limited to 30 characters"))
        if problems:
            message = "; ".join(str(p) for p in problems)
            errors.append(LineError(line_no, message[0].upper() + message[1:] + "."))
            continue
        seen[number] = line_no
        rows.append(DriverRow(line_no, number, first_name, last_name, team, email, licence))
    if not rows and not errors:
        errors.append(LineError(skipped + 1, _("The file has a header but no driver.")))
    return rows, errors
