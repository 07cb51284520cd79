"""A table's referee reads its own table and nothing else (API.md, "table token").

The permission matrix says who gets in; these tests say what comes back: before anything is
published, a table link sees its own table's drivers, runs, grid and result, and of the
event-wide data no more than an anonymous caller (404); a referee account sees the tables
it is assigned to and is refused (403) the rest, like any user who is not an organiser.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from tests.security.conftest import World, english, logged_in

pytestmark = pytest.mark.django_db


def api(token: str | None) -> Client:
    headers = {"HTTP_ACCEPT_LANGUAGE": "en"}
    if token:
        headers["HTTP_AUTHORIZATION"] = f"Bearer {token}"
    return Client(**headers)


def numbers_of(lines: list[dict[str, Any]]) -> set[int]:
    return {line["driver"]["number"] for line in lines}


def seated(world: World, index: int) -> set[int]:
    return {d.number for d in world.qtables[index].drivers.all()}


def grid_of(world: World, index: int) -> set[int]:
    return set(world.rtables[index].slots.values_list("driver__number", flat=True))


EVENT_WIDE = (
    "/events/gp",
    "/events/gp/entries",
    "/events/gp/sessions/1/classification",
    "/events/gp/qualifying",
    "/events/gp/results",
)


@pytest.mark.parametrize("path", EVENT_WIDE)
@pytest.mark.parametrize("kind", ["qualifying", "race"])
def test_a_table_link_reads_no_event_wide_data_before_publication(
    world: World, path: str, kind: str
) -> None:
    table = world.qtables[0] if kind == "qualifying" else world.rtables[0]
    anonymous = api(None).get("/api/v1" + path)

    response = api(table.token).get("/api/v1" + path)

    assert anonymous.status_code == 404
    assert response.status_code == 404
    assert response.json() == anonymous.json()


@pytest.mark.parametrize("path", EVENT_WIDE)
def test_a_referee_account_reads_no_event_wide_data_before_publication(
    world: World, path: str
) -> None:
    response = api(world.api_tokens["ref1"]).get("/api/v1" + path)

    assert response.status_code == 403
    assert response.json()["detail"] == "The organisers have not published this yet."


def test_the_event_list_shows_a_referee_no_unpublished_event(world: World) -> None:
    for token in (world.qtables[0].token, world.rtables[0].token, world.api_tokens["ref1"]):
        response = api(token).get("/api/v1/championships/cf/events")
        assert response.status_code == 200
        assert response.json() == []
    assert [
        e["slug"]
        for e in api(world.api_tokens["organiser"]).get("/api/v1/championships/cf/events").json()
    ] == ["gp"]


def test_a_qualifying_link_reads_its_own_table_and_its_drivers_runs(world: World) -> None:
    link = api(world.qtables[0].token)
    mine = seated(world, 0)

    tables = link.get("/api/v1/events/gp/qualifying-tables").json()
    runs = link.get("/api/v1/events/gp/sessions/1/runs").json()
    sessions = link.get("/api/v1/events/gp/sessions").json()

    assert [t["number"] for t in tables] == [1]
    assert {d["number"] for d in tables[0]["drivers"]} == mine
    assert tables[0]["referee_token"] is None
    assert numbers_of(runs) == mine
    assert [s["number"] for s in sessions] == [1]
    for number in mine:
        assert link.get(f"/api/v1/events/gp/sessions/1/runs/{number}").status_code == 200
    for number in seated(world, 1):
        response = link.get(f"/api/v1/events/gp/sessions/1/runs/{number}")
        assert response.status_code == 404
        assert "does not sit at your qualifying table" in response.json()["detail"]


def test_a_race_link_reads_its_grid_its_result_and_its_sheet_only(world: World) -> None:
    link = api(world.rtables[0].token)

    tables = link.get("/api/v1/events/gp/tables").json()

    assert [t["number"] for t in tables] == [1]
    assert {line["driver"]["number"] for line in tables[0]["grid"]} == grid_of(world, 0)
    assert link.get("/api/v1/events/gp/tables/1/result").json()["status"] == "submitted"
    assert link.get("/api/v1/events/gp/tables/1/sheet.pdf").status_code == 200
    for path in ("/tables/2/result", "/tables/2/sheet.pdf"):
        assert link.get("/api/v1/events/gp" + path).status_code == 404
    # A race link is no qualifying table's: nothing of qualifying either.
    for path in ("/qualifying-tables", "/sessions", "/sessions/1/runs"):
        assert link.get("/api/v1/events/gp" + path).status_code == 404


def test_a_referee_account_reads_the_tables_it_is_assigned_to(world: World) -> None:
    account = api(world.api_tokens["ref1"])

    qualifying = account.get("/api/v1/events/gp/qualifying-tables").json()
    runs = account.get("/api/v1/events/gp/sessions/1/runs").json()
    race = account.get("/api/v1/events/gp/tables").json()

    assert [t["number"] for t in qualifying] == [1]
    assert numbers_of(runs) == seated(world, 0)
    assert [t["number"] for t in race] == [1]
    other = sorted(seated(world, 1))[0]
    assert account.get(f"/api/v1/events/gp/sessions/1/runs/{other}").status_code == 403
    assert account.get("/api/v1/events/gp/tables/2/sheet.pdf").status_code == 403


def test_once_published_a_link_reads_like_anyone(world: World) -> None:
    world.event.published_qualifying = world.event.published_allocation = True
    world.event.published_results = True
    world.event.save()
    link = api(world.rtables[1].token)

    assert link.get("/api/v1/events/gp").status_code == 200
    assert len(link.get("/api/v1/events/gp/tables").json()) == 2
    assert link.get("/api/v1/events/gp/qualifying").status_code == 200
    assert link.get("/api/v1/events/gp/results").status_code == 200
    # Table 1's result is only submitted: still its referee's and the organisers'.
    assert link.get("/api/v1/events/gp/tables/1/result").status_code == 404


def test_the_pages_agree_a_table_link_opens_its_table_not_the_events_data(world: World) -> None:
    """The web pages tell a referee what the API does: their table, nothing unpublished."""
    phone = english(Client())
    account = logged_in(world.users["ref1"])
    page = phone.get(reverse("qtable", args=[world.qtables[0].token])).content.decode()
    for number in seated(world, 1):
        assert f"Pilote{number} " not in page
    race = phone.get(reverse("rtable", args=[world.rtables[0].token])).content.decode()
    for number in grid_of(world, 1):
        assert f"Pilote{number} " not in race
    for name in ("qualifying-general", "where", "event-results"):
        url = reverse(name, args=["gp"])
        assert phone.get(url).status_code == 404
        assert account.get(url).status_code == 404
