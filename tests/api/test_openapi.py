"""The served OpenAPI document is valid OpenAPI 3.1 (issue 32, item 10): a generated client
stopped at the two image answers that had no ``description``. Validated by the maintained
library (openapi-spec-validator), so that it cannot drift again; and the sheet photos'
operations and multipart field are the ones ``API.md`` names."""

from __future__ import annotations

from typing import Any

import pytest
from openapi_spec_validator import validate

from paddock.api import api
from tests.api.conftest import Api


@pytest.fixture
def document(anon: Api) -> dict[str, Any]:
    response = anon.get("/openapi.json")
    assert response.status_code == 200
    return response.json()


def test_the_served_document_is_valid_openapi_3_1(document: dict[str, Any]) -> None:
    assert document["openapi"].startswith("3.1")
    validate(document)  # raises, naming the first error, when it is not


def test_the_in_process_document_is_valid_too() -> None:
    """The same document as the API builds it (what the contract's checks read): its
    response codes are strings, as in the served JSON."""
    validate(api.get_openapi_schema(path_prefix="/api/v1"))


def test_every_image_answer_describes_itself(document: dict[str, Any]) -> None:
    paths = document["paths"]
    for path in (
        "/api/v1/events/{event}/tables/{t}/photos/{id}",
        "/api/v1/events/{event}/photos/{id}",
        "/api/v1/events/{event}/qualifying-tables/{t}/photos/{id}",
    ):
        ok = paths[path]["get"]["responses"]["200"]
        assert ok["description"] and "image/jpeg" in ok["content"], path


def test_the_photos_take_the_contract_s_field_and_its_alias(document: dict[str, Any]) -> None:
    """API.md: multipart field ``photo`` (``file`` kept as an alias), on race tables,
    qualifying tables and race control's pile; a 429 is documented where a link may send."""
    paths = document["paths"]
    for path in (
        "/api/v1/events/{event}/tables/{t}/photos",
        "/api/v1/events/{event}/qualifying-tables/{t}/photos",
        "/api/v1/events/{event}/photos",
    ):
        post = paths[path]["post"]
        form = post["requestBody"]["content"]["multipart/form-data"]["schema"]["properties"]
        assert {"photo", "file"} <= set(form), path
        assert "get" in paths[path], path
    assert "429" in paths["/api/v1/events/{event}/tables/{t}/photos"]["post"]["responses"]


def test_each_shape_has_its_own_name(document: dict[str, Any]) -> None:
    """Item 16: ``StandingOut`` and ``RatingOut`` each named two shapes (the standings' and a
    career's; the ranking's and a player's), and one silently replaced the other."""
    schemas = document["components"]["schemas"]
    assert set(schemas["StandingOut"]["properties"]) >= {"driver", "results", "countback"}
    assert set(schemas["CareerStandingOut"]["properties"]) == {"rank", "points", "drivers"}
    assert set(schemas["RatingOut"]["properties"]) >= {"rank", "player"}
    assert set(schemas["PlayerRatingOut"]["properties"]) >= {"game", "history"}
    career = document["paths"]["/api/v1/players/{id}"]["get"]["responses"]["200"]
    assert career["content"]["application/json"]["schema"]["$ref"].endswith("PlayerCareerOut")
    player = schemas["PlayerCareerOut"]["properties"]
    assert player["ratings"]["items"]["$ref"].endswith("/PlayerRatingOut")


def test_the_document_is_built_once_and_each_caller_gets_its_own_copy() -> None:
    """About a second of CPU to build: asked again (the served /openapi.json, the docs page)
    it is the stored one, and what one caller changes in its copy is not the next one's."""
    first = api.get_openapi_schema()
    first["paths"].clear()
    second = api.get_openapi_schema()
    assert second["paths"] and second == api.get_openapi_schema()
    assert second is not api.get_openapi_schema()
