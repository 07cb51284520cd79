"""A body over ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (issue 14): the API answers 413 with its JSON
error, and a page a clear 413 (or 400) page, with ``DEBUG`` on as off; never a 500, a
traceback or Django's bare "Bad Request"."""

from __future__ import annotations

import json

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client, override_settings
from django.urls import reverse

from tests.security.conftest import World, english

pytestmark = pytest.mark.django_db

TOO_MUCH = settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1


def api_client(token: str | None) -> Client:
    headers = {"HTTP_ACCEPT_LANGUAGE": "en"}
    if token:
        headers["HTTP_AUTHORIZATION"] = f"Bearer {token}"
    return Client(raise_request_exception=False, **headers)


@pytest.mark.parametrize("debug", [False, True])
@pytest.mark.parametrize("caller", ["organiser", "anonymous"])
@pytest.mark.parametrize(
    ("path", "content_type", "body"),
    [
        (
            "/api/v1/championships/cf/drivers",
            "application/json",
            json.dumps({"number": 5, "first_name": "A" * TOO_MUCH, "last_name": "B"}),
        ),
        ("/api/v1/championships/cf/drivers/import", "text/csv", "x" * TOO_MUCH),
        (
            "/api/v1/championships/cf/teams",
            "application/x-www-form-urlencoded",
            "a=" + "b" * TOO_MUCH,
        ),
        ("/api/v1/championships/cf/teams", "multipart/form-data; boundary=zz", "z" * TOO_MUCH),
    ],
)
def test_an_api_body_too_large_is_a_413_in_json(
    world: World, debug: bool, caller: str, path: str, content_type: str, body: str
) -> None:
    client = api_client(world.api_tokens["organiser"] if caller == "organiser" else None)
    with override_settings(DEBUG=debug):
        response = client.post(path, body, content_type=content_type)

    assert response.status_code == 413, response.content[:300]
    assert response["Content-Type"].startswith("application/json")
    detail = response.json()["detail"]
    assert "too large" in detail, detail


def test_an_api_body_under_the_limit_still_goes_through(world: World) -> None:
    client = api_client(world.api_tokens["organiser"])
    body = json.dumps({"name": "Rouge", "padding": " " * 1000})
    response = client.post("/api/v1/championships/cf/teams", body, content_type="application/json")
    assert response.status_code in (201, 400), response.content


def page_client() -> Client:
    return english(Client(raise_request_exception=False))


@pytest.mark.parametrize("debug", [False, True])
@pytest.mark.parametrize("name", ["login", "home", "event"])
def test_a_form_too_large_gets_a_clear_page(world: World, debug: bool, name: str) -> None:
    url = reverse(name, kwargs={"slug": world.event.slug} if name == "event" else {})
    with override_settings(DEBUG=debug):
        response = page_client().post(url, {"username": "x" * TOO_MUCH, "password": "y"})

    assert response.status_code in (400, 413), response.status_code
    text = response.content.decode()
    assert response["Content-Type"].startswith("text/html")
    assert "too large" in text and "Traceback" not in text, text[:500]


@pytest.mark.parametrize("debug", [False, True])
def test_a_multipart_form_with_too_much_text_gets_a_clear_page(world: World, debug: bool) -> None:
    client = page_client()
    client.force_login(world.users["organiser"])
    url = reverse("drivers-import", args=[world.championship.slug])
    upload = SimpleUploadedFile("drivers.csv", b"number;first_name;last_name\n", "text/csv")
    with override_settings(DEBUG=debug):
        response = client.post(url, {"file": upload, "note": "n" * TOO_MUCH})

    assert response.status_code in (400, 413), response.status_code
    text = response.content.decode()
    assert "too large" in text and "Traceback" not in text, text[:500]


def test_a_form_with_too_many_fields_gets_a_clear_page(world: World) -> None:
    fields = {f"f{i}": "1" for i in range(settings.DATA_UPLOAD_MAX_NUMBER_FIELDS + 1)}
    client = page_client()
    client.force_login(world.users["organiser"])
    with override_settings(DEBUG=False):
        response = client.post(reverse("event-settings", args=[world.event.slug]), fields)

    assert response.status_code == 400
    assert "could not be read" in response.content.decode()


def test_the_refusal_speaks_french_by_default(world: World) -> None:
    response = Client().post(reverse("login"), {"username": "x" * TOO_MUCH})
    assert "trop volumineuse" in response.content.decode()
    api = Client().post("/api/v1/championships/cf/teams", "x" * TOO_MUCH, content_type="text/csv")
    assert "trop volumineuse" in api.json()["detail"]
