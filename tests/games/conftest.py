"""Fixtures of the other games' tests: API callers over the shared ``make_event``."""

from __future__ import annotations

import pytest

from races.models import RaceTable
from tests.api.conftest import Api, make_user
from tournament.models import ApiToken, Championship


def put(api: Api, path: str, data: object) -> object:
    return api._send("put", path, data)


@pytest.fixture
def org_api(organiser) -> Api:
    """The championship organiser's API token."""
    return Api(ApiToken.issue(organiser))


@pytest.fixture
def outsider_api(db) -> Api:
    other = Championship.objects.create(slug="other", name="Other league", season="2026")
    user = make_user("charlie")
    other.organisers.add(user)
    return Api(ApiToken.issue(user))


@pytest.fixture
def anon_api(db) -> Api:
    return Api()


def table_api(event, number: int) -> Api:
    return Api(RaceTable.objects.get(event=event, number=number).token)


def allocate(api: Api, slug: str, size: int) -> list[dict]:
    response = api.post(f"/events/{slug}/allocation", {"table_size": size})
    assert response.status_code == 200, response.content
    return response.json()
