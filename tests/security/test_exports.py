"""Spreadsheet exports never carry a live formula (OWASP "CSV Injection").

Drivers registered as ``=HYPERLINK(...)``, ``+1+1``, ``-2+3``, ``@SUM(1+1)``, a tab or a
carriage return then ``=1+1``, a team ``=2*3`` and an event ``@Grand Prix``
(``tests/security/hostile.py``): every exportable page, in CSV and in XLSX, writes them as
text. In a CSV such text gets a single quote in front; in an XLSX it is a string cell with
Excel's quote prefix and its text exactly as typed. Numbers stay numbers.

Which pages export is found, not listed by hand: every URL pattern of the permission
matrix is asked for ``?_export=csv``, and those answering with a file must be the pages
exported here.
"""

from __future__ import annotations

import codecs
import csv
import io
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import django_tables2 as tables
import openpyxl
import pytest
from django.db import transaction
from django.test import Client, RequestFactory
from django.urls import reverse

from races.models import ResultLine
from tests.security.conftest import World, english, logged_in
from tests.security.hostile import (
    HOSTILE_EVENT,
    HOSTILE_FIRST_NAMES,
    HOSTILE_TEAM,
    hostile_names,
    hostile_world,
)
from tests.security.test_permission_matrix import PAGES
from tournament.documents.exports import FORMULA_STARTS
from tournament.registration.tables import sorted_or_exported

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def hostile(django_db_setup: None, django_db_blocker: Any) -> Any:
    with hostile_world(django_db_blocker) as world:
        yield world


def scored_driver(world: World) -> int:
    return ResultLine.objects.filter(event=world.event).order_by("rank").first().driver.number


#: Exportable page → (URL arguments, query string besides ``_export``).
EXPORTS: dict[str, tuple[Callable[[World], dict[str, Any]], dict[str, str]]] = {
    "championship": (lambda w: {"slug": w.championship.slug}, {}),
    "standings": (lambda w: {"slug": w.championship.slug}, {}),
    "team-standings": (lambda w: {"slug": w.championship.slug}, {}),
    "event-results": (lambda w: {"slug": w.event.slug}, {}),
    "event-results table": (lambda w: {"slug": w.event.slug}, {"table": "1"}),
    "qualifying-general": (lambda w: {"slug": w.event.slug}, {}),
    "qualifying-session": (lambda w: {"slug": w.event.slug, "number": 1}, {}),
    "driver": (lambda w: {"slug": w.championship.slug, "number": scored_driver(w)}, {}),
    # Sign-up's registrations: race control's list (logged in), hostile names waiting.
    "signup-desk": (lambda w: hostile_registrations(w), {}),
}


def expected_texts(world: World, view: str) -> set[str]:
    """Hostile texts the page's export must hold as whole cells (neutralised)."""
    scored = ResultLine.objects.filter(event=world.event).select_related("driver__team")
    scored_names = {line.driver.name for line in scored} & hostile_names(world)
    scored_teams = {line.driver.team.name for line in scored if line.driver.team}
    return {
        "championship": set(HOSTILE_FIRST_NAMES.values()) | {HOSTILE_TEAM},
        "standings": scored_names | scored_teams,
        "team-standings": scored_teams,
        "event-results": scored_names | scored_teams,
        "event-results table": scored_names | scored_teams,
        "qualifying-general": hostile_names(world),
        "qualifying-session": hostile_names(world),
        "driver": {HOSTILE_EVENT},
        "signup-desk": set(HOSTILE_FIRST_NAMES.values()) | {HOSTILE_TEAM},
    }[view]


#: Exports of race control's pages: read logged in as the organiser.
ORGANISER_EXPORTS = {"signup-desk"}


def hostile_registrations(world: World) -> dict[str, Any]:
    """The event's registrations under the hostile names, all waiting (each with a rank)."""
    from django.utils import timezone

    from tournament.signup.models import Registration

    for number, first_name in HOSTILE_FIRST_NAMES.items():
        Registration.objects.get_or_create(
            event=world.event,
            email=f"hostile{number}@example.org",
            defaults={
                "first_name": first_name,
                "last_name": "Lefèvre",
                "team": HOSTILE_TEAM,
                "status": "waiting",
                "confirmed_at": timezone.now(),
            },
        )
    return {"slug": world.event.slug}


def export(world: World, view: str, export_format: str) -> Any:
    arguments, query = EXPORTS[view]
    url = reverse(view.split()[0], kwargs=arguments(world))
    client = logged_in(world.users["organiser"]) if view in ORGANISER_EXPORTS else english(Client())
    response = client.get(url, {**query, "_export": export_format})
    assert response.status_code == 200, (view, export_format, response.status_code)
    assert response["Content-Disposition"].endswith(f'.{export_format}"')
    return response


def csv_rows(response: Any) -> list[list[str]]:
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    # The byte order mark first: Excel reads UTF-8 as such only with it ("Ã©" for "é").
    assert response.content.startswith(codecs.BOM_UTF8)
    return list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"), newline="")))


def xlsx_cells(response: Any) -> list[list[Any]]:
    assert response["Content-Type"].startswith(
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    )
    sheet = openpyxl.load_workbook(io.BytesIO(response.content)).active
    return [list(row) for row in sheet.iter_rows()]


NUMBER = re.compile(r"-?\d+(\.\d+)?")
#: Columns holding numbers (English headers).
NUMERIC_HEADERS = {"No.", "Rank", "Points", "Table"}


def in_xml(text: str) -> str:
    """XML reads a carriage return as a line feed: the one change an XLSX makes to text."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def test_every_exportable_page_is_exported_here(hostile: World) -> None:
    """A page of the permission matrix that answers ``?_export=csv`` with a file is in
    ``EXPORTS``: a new exportable page cannot skip these tests."""
    client = logged_in(hostile.users["organiser"])
    exporting = set()
    for name, (arguments, methods) in PAGES.items():
        if "GET" not in methods:
            continue
        sid = transaction.savepoint()
        try:
            url = reverse(name, kwargs=arguments(hostile, "organiser"))
            response = client.get(url, {"_export": "csv"})
        finally:
            transaction.savepoint_rollback(sid)
        if ".csv" in response.get("Content-Disposition", ""):
            exporting.add(name)
    assert exporting == {view.split()[0] for view in EXPORTS}


@pytest.mark.parametrize("view", sorted(EXPORTS))
def test_csv_export_writes_formulas_as_text(hostile: World, view: str) -> None:
    rows = csv_rows(export(hostile, view, "csv"))

    live = [
        cell
        for row in rows
        for cell in row
        if cell.startswith(FORMULA_STARTS) and not NUMBER.fullmatch(cell)
    ]
    assert live == []
    quoted = {cell for row in rows for cell in row if cell.startswith("'")}
    expected = expected_texts(hostile, view)
    assert expected, "the page exports no hostile text: the test would prove nothing"
    assert {f"'{text}" for text in expected} <= quoted


@pytest.mark.parametrize("view", sorted(EXPORTS))
def test_xlsx_export_has_no_formula_and_keeps_text_and_numbers(hostile: World, view: str) -> None:
    cells = xlsx_cells(export(hostile, view, "xlsx"))
    rows = csv_rows(export(hostile, view, "csv"))

    assert [cell.coordinate for row in cells for cell in row if cell.data_type == "f"] == []
    # Cell by cell, the XLSX holds what the CSV holds, without the CSV's quote.
    assert len(cells) == len(rows)
    for xlsx_row, csv_row in zip(cells, rows, strict=True):
        assert len(xlsx_row) == len(csv_row)
        for cell, text in zip(xlsx_row, csv_row, strict=True):
            if isinstance(cell.value, int | float):
                assert str(cell.value) == text, cell.coordinate
                continue
            value = "" if cell.value is None else cell.value
            assert cell.data_type in ("s", "n"), cell.coordinate
            if text.startswith("'") and text[1:].startswith(FORMULA_STARTS):
                assert value == in_xml(text[1:]), cell.coordinate
                assert cell.quotePrefix, cell.coordinate
            else:
                assert value == in_xml(text), cell.coordinate
    texts = {cell.value for row in cells for cell in row if isinstance(cell.value, str)}
    assert {in_xml(text) for text in expected_texts(hostile, view)} <= texts
    # Numbers stay numbers.
    header = [cell.value for cell in cells[0]]
    numeric = [i for i, name in enumerate(header) if name in NUMERIC_HEADERS]
    assert numeric, header
    values = [row[i].value for row in cells[1:] for i in numeric]
    assert values and all(isinstance(v, int) for v in values if v not in (None, "—")), values


# --- The helper itself, on a table of its own -----------------------------------------------


class Sheet(tables.Table):
    name = tables.Column()
    points = tables.Column()


ROWS = [
    {"name": "-3", "points": -3},
    {"name": "=2*3", "points": 6},
    {"name": "Écurie\x01 Étoile", "points": 0},
    {"name": "a=b", "points": 1.5},
]


def exported(export_format: str) -> Any:
    request = RequestFactory().get("/", {"_export": export_format})
    response = sorted_or_exported(request, Sheet(ROWS, order_by=()), "sheet")
    assert response is not None
    return response


def test_negative_numbers_stay_numbers_and_text_like_them_is_text() -> None:
    rows = csv_rows(exported("csv"))
    assert rows[1:] == [["'-3", "-3"], ["'=2*3", "6"], ["Écurie\x01 Étoile", "0"], ["a=b", "1.5"]]

    cells = xlsx_cells(exported("xlsx"))
    assert [[c.value for c in row] for row in cells[1:]] == [
        ["-3", -3],
        ["=2*3", 6],
        ["Écurie Étoile", 0],  # control characters have no place in an XLSX: dropped
        ["a=b", 1.5],
    ]
    assert [[c.data_type for c in row] for row in cells[1:]] == [["s", "n"]] * 4
    assert [row[0].quotePrefix for row in cells[1:]] == [True, True, False, False]


def test_a_french_spreadsheet_splitting_on_semicolons_gets_no_formula() -> None:
    """A French Excel opens a CSV with ";" as its separator: "Dupont;=1+1" must stay one cell,
    not become "Dupont" and a live "=1+1". Text cells are quoted, numbers left bare (issue 20).
    """
    request = RequestFactory().get("/", {"_export": "csv"})
    rows = [{"name": "Dupont;=1+1", "points": 7}, {"name": 'Guy "Le Fou";@SUM(1)', "points": -2}]
    response = sorted_or_exported(request, Sheet(rows, order_by=()), "sheet")
    assert response is not None
    text = response.content.decode("utf-8-sig")
    as_french_excel = list(csv.reader(io.StringIO(text, newline=""), delimiter=";"))
    assert [cell for row in as_french_excel for cell in row if cell.startswith(("=", "@"))] == []
    assert csv_rows(response)[1:] == [["Dupont;=1+1", "7"], ['Guy "Le Fou";@SUM(1)', "-2"]]
    assert text.splitlines()[1:] == ['"Dupont;=1+1",7', '"Guy ""Le Fou"";@SUM(1)",-2']


@pytest.mark.parametrize("value", ["ods", "xls", "json", "yaml", "latex", "tsv", "", "CSV"])
def test_only_csv_and_xlsx_are_exports(value: str) -> None:
    request = RequestFactory().get("/", {"_export": value})
    assert sorted_or_exported(request, Sheet(ROWS), "sheet") is None


def test_one_export_path() -> None:
    """Only ``tournament.documents.exports`` writes spreadsheets: no view reaches django-tables2's
    ``TableExport`` (raw cells, live formulas) or reads ``?_export=`` itself."""
    allowed = {
        ROOT / "tournament" / "documents" / "exports.py",
        ROOT / "tournament" / "registration" / "tables.py",
    }
    offenders = []
    for package in ("tournament", "qualifying", "races"):
        for path in (ROOT / package).rglob("*.py"):
            source = path.read_text(encoding="utf-8")
            if path not in allowed and re.search(r"TableExport|[\"']_export[\"']", source):
                offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []
