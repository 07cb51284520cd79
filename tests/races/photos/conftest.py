"""The photos' tests share one event (``tests.security.conftest.world``, committed once per
module) and photos of its printed race sheets, made once per module."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from django.test import Client

from bench import camera
from tests.races.photos.images import sheet_pdf
from tests.security.conftest import World, english, logged_in
from tests.security.conftest import world as world  # noqa: F401 - the shared event


@dataclass(frozen=True)
class Sheets:
    """Table 1's sheet printed (the page), then photographed at an angle (JPEG, HEIC)."""

    page: Any
    angled_jpeg: bytes
    angled_heic: bytes
    table2_jpeg: bytes


@pytest.fixture(scope="module")
def sheets(world: World, django_db_blocker: Any) -> Sheets:
    with django_db_blocker.unblock():
        page = camera.printed(sheet_pdf(world.rtables[0]), dpi=150)
        page2 = camera.printed(sheet_pdf(world.rtables[1]), dpi=150)
    angled = camera.photograph(page, camera.Shot(width=1600, angle=12, tilt=0.15, seed=3))
    upright2 = camera.photograph(page2, camera.Shot(width=1400, angle=-4, tilt=0.05, seed=4))
    return Sheets(
        page=page,
        angled_jpeg=camera.jpeg(angled, quality=60),
        angled_heic=camera.heic(
            camera.photograph(page, camera.Shot(width=1400, angle=-18, tilt=0.2, seed=5))
        ),
        table2_jpeg=camera.jpeg(upright2, quality=70),
    )


def api_client(world: World, role: str) -> Client:
    """``organiser``: an organiser's API token; ``link``: race table 1's link; ``other``:
    table 2's link; ``outsider``: another championship's organiser."""
    tokens = {
        "organiser": world.api_tokens.get("organiser"),
        "link": world.rtables[0].token,
        "other": world.rtables[1].token,
        "outsider": world.api_tokens.get("outsider"),
    }
    headers = {"HTTP_ACCEPT_LANGUAGE": "en"}
    if tokens.get(role):
        headers["HTTP_AUTHORIZATION"] = f"Bearer {tokens[role]}"
    return Client(**headers)


__all__ = ["api_client", "english", "logged_in"]
