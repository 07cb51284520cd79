"""Auth and error bodies of the API: every refusal is {detail, errors} with the right status."""

from __future__ import annotations

import json

import pytest

from tests.api.conftest import Api

pytestmark = pytest.mark.django_db

VALID_EVENT = {
    "slug": "spa-2025",
    "name": "Spa 2025",
    "date": "2025-06-14",
    "circuit": "monaco",
}


def assert_error(response, status: int) -> dict:
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert isinstance(body["detail"], str) and body["detail"]
    assert isinstance(body["errors"], dict)
    return body


def test_unknown_token_is_401(event):
    response = Api("pdk_not-a-token").get("/events/monaco-2025")
    body = assert_error(response, 401)
    assert body["detail"] == "Unknown or revoked token."
    assert response["WWW-Authenticate"].startswith("Bearer")


def test_non_bearer_authorization_is_401(event):
    api = Api()
    api.client.defaults["HTTP_AUTHORIZATION"] = "Basic YWxpY2U6eA=="
    assert_error(api.get("/events/monaco-2025"), 401)


def test_token_of_inactive_user_is_401(event, organiser):
    from django.contrib.auth import get_user_model

    get_user_model().objects.filter(username="alice").update(is_active=False)
    assert_error(organiser.get("/events/monaco-2025"), 401)


def test_write_without_token_is_401(event, anon):
    body = assert_error(anon.post("/championships/cfd-2025/events", VALID_EVENT), 401)
    assert body["errors"] == {}


def test_malformed_json_is_400(organiser, circuit):
    body = assert_error(organiser.post("/championships/cfd-2025/events", raw=b"{not json"), 400)
    assert "JSON" in body["detail"]


def test_json_array_body_is_400(organiser, circuit):
    body = assert_error(organiser.post("/championships/cfd-2025/events", [VALID_EVENT]), 400)
    assert "object" in body["detail"]


@pytest.mark.parametrize("raw", [b'"text"', b"42", b"null", b"true"])
def test_json_scalar_body_is_400(organiser, circuit, raw):
    assert_error(organiser.post("/championships/cfd-2025/events", raw=raw), 400)


def test_empty_body_is_400(organiser, circuit):
    assert_error(organiser.post("/championships/cfd-2025/events", raw=b""), 400)


def test_wrong_content_type_is_400(organiser, circuit):
    body = assert_error(
        organiser.post(
            "/championships/cfd-2025/events",
            raw=json.dumps(VALID_EVENT),
            content_type="text/plain",
        ),
        400,
    )
    assert "Content-Type" in body["detail"]


def test_invalid_utf8_is_400(organiser, circuit):
    assert_error(organiser.post("/championships/cfd-2025/events", raw=b'{"name": "\xff"}'), 400)


def test_nul_character_is_400(organiser, circuit):
    event = {**VALID_EVENT, "name": "Spa\u0000"}
    assert_error(organiser.post("/championships/cfd-2025/events", event), 400)


def test_lone_surrogate_is_400(organiser, circuit):
    """Valid JSON ("\\ud800" is half of a pair) that no database stores: refused before any
    service reads it (the red team's replay answered 500 on save, issue 20)."""
    raw = json.dumps({**VALID_EVENT, "name": "Spa"}).replace("Spa", "Spa\\ud800", 1).encode()
    body = assert_error(organiser.post("/championships/cfd-2025/events", raw=raw), 400)
    assert body["detail"] == "Text must be valid Unicode."
    key = b'{"\\udfff": 1, ' + json.dumps(VALID_EVENT).encode()[1:]
    assert_error(organiser.post("/championships/cfd-2025/events", raw=key), 400)


def test_invalid_field_is_400_naming_the_field(organiser, circuit):
    event = {**VALID_EVENT, "date": "24/05/2025", "table_size": "ten"}
    body = assert_error(organiser.post("/championships/cfd-2025/events", event), 400)
    assert set(body["errors"]) == {"date", "table_size"}
    assert body["errors"]["table_size"] == ["Enter a whole number."]


def test_missing_field_is_named(organiser, circuit):
    event = {k: v for k, v in VALID_EVENT.items() if k != "name"}
    body = assert_error(organiser.post("/championships/cfd-2025/events", event), 400)
    assert body["errors"] == {"name": ["This field is required."]}


def test_messages_are_french_by_default(organiser, circuit):
    french = Api(organiser.client.defaults["HTTP_AUTHORIZATION"].split()[1], language="fr")
    event = {k: v for k, v in VALID_EVENT.items() if k != "name"}
    body = assert_error(french.post("/championships/cfd-2025/events", event), 400)
    assert body["errors"] == {"name": ["Ce champ est obligatoire."]}


def test_huge_number_is_400_not_an_overflow(organiser, championship):
    driver = {"number": 10**30, "first_name": "A", "last_name": "B"}
    body = assert_error(organiser.post("/championships/cfd-2025/drivers", driver), 400)
    assert list(body["errors"]) == ["number"]


def test_unknown_event_is_404(organiser):
    body = assert_error(organiser.get("/events/nowhere"), 404)
    assert "nowhere" in body["detail"]


def test_unknown_championship_is_404(organiser):
    assert_error(organiser.get("/championships/nowhere"), 404)
    assert_error(organiser.post("/championships/nowhere/teams", {"name": "X"}), 404)


def test_path_that_is_not_a_slug_is_404(organiser):
    assert_error(organiser.get("/events/Not%20A%20Slug%00"), 404)


def test_unpublished_event_is_404_for_anonymous(event, anon):
    body = assert_error(anon.get("/events/monaco-2025"), 404)
    assert body["detail"] == assert_error(anon.get("/events/nowhere"), 404)["detail"].replace(
        "nowhere", "monaco-2025"
    )
    assert_error(anon.get("/events/monaco-2025/qualifying"), 404)


def test_unpublished_event_is_403_for_an_outsider(event, outsider):
    assert_error(outsider.get("/events/monaco-2025/qualifying"), 403)


def test_organiser_of_another_championship_is_403(event, outsider):
    assert_error(outsider.post("/events/monaco-2025/entries", {"numbers": [1]}), 403)
    assert_error(outsider.post("/championships/cfd-2025/teams", {"name": "Williams"}), 403)


def test_published_event_is_readable_anonymously(event, anon, organiser):
    assert organiser.post("/events/monaco-2025/publish", {"qualifying": True}).status_code == 200
    response = anon.get("/events/monaco-2025")
    assert response.status_code == 200
    assert response.json()["published"]["qualifying"] is True


def test_http404_raised_anywhere_answers_the_error_body(rf):
    from django.http import Http404

    from paddock.api import api

    response = api.on_exception(rf.get("/api/v1/x"), Http404("No Event matches the given query."))
    assert response.status_code == 404
    body = json.loads(response.content)
    assert body["errors"] == {} and body["detail"]
    assert "Event" not in body["detail"]


def test_path_number_that_is_not_a_number_is_400(organiser, event):
    response = organiser.get("/events/monaco-2025/sessions/one/classification")
    body = assert_error(response, 400)
    assert list(body["errors"]) == ["n"]


def test_openapi_document_lists_every_path(anon):
    response = anon.get("/openapi.json")
    assert response.status_code == 200
    document = response.json()
    assert document["info"] == {
        "title": "Paddock API",
        "version": "1",
        "description": document["info"]["description"],
    }
    expected = {
        "/api/v1/championships": {"get", "post"},
        "/api/v1/championships/{slug}": {"get"},
        "/api/v1/circuits": {"get", "post"},
        "/api/v1/circuits/{slug}": {"get", "patch"},
        "/api/v1/championships/{slug}/teams": {"post"},
        "/api/v1/championships/{slug}/drivers": {"get", "post"},
        "/api/v1/championships/{slug}/drivers/import": {"post"},
        "/api/v1/championships/{slug}/events": {"get", "post"},
        "/api/v1/events/{event}": {"get", "patch"},
        "/api/v1/events/{event}/entries": {"get", "post"},
        "/api/v1/events/{event}/checkin": {"post"},
        "/api/v1/events/{event}/publish": {"post"},
        "/api/v1/events/{event}/sessions": {"get", "post"},
        "/api/v1/events/{event}/qualifying-tables": {"get", "post"},
        "/api/v1/events/{event}/sessions/{n}/runs": {"get", "post"},
        "/api/v1/events/{event}/sessions/{n}/runs/{driver}": {"get", "patch"},
        "/api/v1/events/{event}/sessions/{n}/runs/{driver}/cancel": {"post"},
        "/api/v1/events/{event}/sessions/{n}/classification": {"get"},
        "/api/v1/events/{event}/qualifying": {"get"},
        "/api/v1/events/{event}/draw": {"post"},
        "/api/v1/events/{event}/race-weather": {"get", "post"},
        "/api/v1/events/{event}/tables/{t}/weather-draws": {"post"},
        "/api/v1/events/{event}/tables/{t}/weather-draws/last": {"delete"},
        "/api/v1/events/{event}/tables/{t}/start": {"post"},
        "/api/v1/events/{event}/tables/{t}/unlock": {"post"},
        "/api/v1/events/{event}/tables/{t}/stands": {"put"},
        "/api/v1/events/{event}/sanctions": {"get", "post"},
        "/api/v1/events/{event}/sanctions/{id}": {"delete"},
        "/api/v1/events/{event}/stages/{n}/snow": {"put"},
        "/api/v1/events/{event}/tables/{t}/photos": {"get", "post"},
        "/api/v1/events/{event}/tables/{t}/photos/{id}": {"get"},
        "/api/v1/events/{event}/photos": {"get", "post"},
        "/api/v1/events/{event}/photos/{id}": {"get"},
    }
    for path, methods in expected.items():
        assert path in document["paths"], path
        assert set(document["paths"][path]) == methods, path
    assert document["components"]["securitySchemes"]["BearerToken"]["scheme"] == "bearer"
    run_in = document["components"]["schemas"]["RunIn"]["properties"]
    assert run_in["tyres"]["enum"] == ["hard", "soft", "rain"]
    import_body = document["paths"]["/api/v1/championships/{slug}/drivers/import"]["post"]
    assert "text/csv" in import_body["requestBody"]["content"]
    photo_body = document["paths"]["/api/v1/events/{event}/photos"]["post"]["requestBody"]
    assert "file" in photo_body["content"]["multipart/form-data"]["schema"]["properties"]


def test_docs_page_loads(anon):
    response = anon.get("/docs")
    assert response.status_code == 200
    assert b"openapi.json" in response.content
