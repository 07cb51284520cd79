"""GET /events/{event}/tables/{t}/sheet.pdf and the Race part of the OpenAPI document."""

from __future__ import annotations

import io

import pytest
from django.test import override_settings
from pypdf import PdfReader

from races.models import RaceTable
from tests.api.conftest import Api
from tests.api.test_race_tables import TABLES, allocate, build_race_event, put, table_api
from tournament.models import Event

pytestmark = pytest.mark.django_db

SHEET = f"{TABLES}/1/sheet.pdf"


@pytest.fixture
def allocated(championship, circuit, drivers, organiser) -> Event:
    event = build_race_event(championship, circuit, drivers)
    allocate(organiser)
    return event


def pdf_text(response) -> str:
    assert response.status_code == 200, response.content[:300]
    assert response["Content-Type"] == "application/pdf"
    reader = PdfReader(io.BytesIO(response.content))
    return "\n".join(page.extract_text() for page in reader.pages)


def squeezed(text: str) -> str:
    return "".join(text.split())


def test_organiser_gets_the_race_sheet_with_the_drivers(organiser, allocated):
    put(organiser, f"{TABLES}/1/stands", {"stands": {"5": 4}})
    response = organiser.get(SHEET)
    text = pdf_text(response)
    for name in ("Emma Moreau", "Alice Martin", "Gaëlle Roux", "Chloé Durand"):
        assert name in text
    assert "Bruno Petit" not in text  # table 2
    assert "GP Race" in text
    assert 'filename="gp-race-table-1.pdf"' in response["Content-Disposition"]
    assert "Bruno Petit" in pdf_text(organiser.get(f"{TABLES}/2/sheet.pdf"))


@override_settings(SITE_URL="https://paddock.example.org")
def test_only_the_referee_and_organisers_get_the_link_on_the_sheet(organiser, anon, allocated):
    token = RaceTable.objects.get(event=allocated, number=1).token
    assert token in squeezed(pdf_text(organiser.get(SHEET)))
    assert token in squeezed(pdf_text(table_api(allocated, 1).get(SHEET)))
    organiser.post("/events/gp-race/publish", {"allocation": True})
    public = pdf_text(anon.get(SHEET))
    assert "Emma Moreau" in public
    assert token not in squeezed(public) and "paddock.example.org" not in public
    # Another table's referee reads it like anyone once published: without the link.
    other = pdf_text(table_api(allocated, 2).get(SHEET))
    assert token not in squeezed(other)


def test_sheet_is_in_the_event_language_whoever_asks(organiser, allocated):
    """Sheets are for the referees' pens: the event's language, French by default."""
    token = organiser.client.defaults["HTTP_AUTHORIZATION"].split()[1]
    assert "24 mai 2025" in pdf_text(Api(token, language="en").get(SHEET))
    Event.objects.filter(pk=allocated.pk).update(language="en")
    assert "24 May 2025" in pdf_text(Api(token, language="fr").get(SHEET))


def test_sheet_permissions(anon, outsider, referee, allocated):
    unpublished = anon.get(SHEET)
    assert unpublished.status_code == 404
    assert unpublished.json()["detail"] == "Unknown event “gp-race”."
    response = outsider.get(SHEET)
    assert response.status_code == 403, response.content
    assert response.json()["detail"]
    # Table links read their own table only, and nothing more than anyone else: 404.
    for api in (referee, table_api(allocated, 2)):
        response = api.get(SHEET)
        assert response.status_code == 404, response.content
        assert response.json()["detail"]


def test_sheet_of_an_unknown_table_or_event_is_404(organiser, allocated):
    for path in (f"{TABLES}/3/sheet.pdf", f"{TABLES}/0/sheet.pdf", "/events/x/tables/1/sheet.pdf"):
        response = organiser.get(path)
        assert response.status_code == 404
        assert response.json()["detail"]


def test_replaced_link_cannot_read_the_sheet(organiser, allocated):
    old = table_api(allocated, 1)
    organiser.post(f"{TABLES}/1/referee-link")
    response = old.get(SHEET)
    assert response.status_code == 401
    assert response.json()["detail"] == "This link was replaced: ask race control for the new one."


def test_openapi_documents_the_race_endpoints(anon, db):
    document = anon.get("/openapi.json").json()
    paths = document["paths"]
    expected = {
        "/api/v1/events/{event}/allocation": {"post"},
        "/api/v1/events/{event}/tables": {"get"},
        "/api/v1/events/{event}/tables/swap": {"post"},
        "/api/v1/events/{event}/tables/{t}/referee-link": {"post"},
        "/api/v1/events/{event}/race-weather": {"post"},
        "/api/v1/events/{event}/tables/{t}/weather-draws": {"post"},
        "/api/v1/events/{event}/tables/{t}/stands": {"put"},
        "/api/v1/events/{event}/tables/{t}/configurations": {"put"},
        "/api/v1/events/{event}/tables/{t}/sheet.pdf": {"get"},
    }
    for path, methods in expected.items():
        assert methods <= set(paths[path]), path
    sheet = paths["/api/v1/events/{event}/tables/{t}/sheet.pdf"]["get"]["responses"]
    assert sheet["200"]["content"] == {
        "application/pdf": {"schema": {"type": "string", "format": "binary"}}
    }
    assert "404" in sheet
    tables = paths["/api/v1/events/{event}/tables"]["get"]["responses"]["200"]
    assert tables["content"]["application/json"]["schema"]["type"] == "array"
