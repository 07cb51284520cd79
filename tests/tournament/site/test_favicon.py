"""``/favicon.ico``: every new phone asks for it; it is answered (no 404 in the log), from
the static files, and every page names the icon."""

from __future__ import annotations

import pytest
from django.contrib.staticfiles import finders
from django.urls import reverse


def test_the_icon_is_among_the_static_files() -> None:
    found = finders.find("favicon.ico")
    assert found is not None
    with open(found, "rb") as icon:
        assert icon.read(4) == b"\x00\x00\x01\x00"  # an ICO file


@pytest.mark.django_db
def test_favicon_ico_is_answered_from_the_static_files(client) -> None:
    response = client.get("/favicon.ico")
    assert response.status_code == 301
    assert response["Location"].endswith(".ico")
    assert "/static/" in response["Location"]
    page = client.get(reverse("home")).content.decode()
    assert 'rel="icon"' in page
