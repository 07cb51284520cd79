"""Tables may be undone (API.md "Every game's evening"): ``DELETE .../allocation`` by the
organisers answers 204 while no race table has started (no weather, stand, configuration
or result), else 409 naming the tables, which stay; the tables' page asks first."""

from __future__ import annotations

import pytest
from django.urls import reverse

from races.models import GridSlot, RaceTable
from tests.games.conftest import allocate, put, table_api

pytestmark = pytest.mark.django_db


def delete(api, path: str) -> object:
    return api._send("delete", path, None)


def test_the_organisers_undo_tables_until_one_starts(make_event, org_api, anon_api):
    event = make_event(6, slug="heat", game="finishing_order", game_name="Heat", laps=3)
    allocate(org_api, "heat", 3)
    assert delete(anon_api, "/events/heat/allocation").status_code in (401, 403)
    assert delete(table_api(event, 1), "/events/heat/allocation").status_code == 403
    assert delete(org_api, "/events/heat/allocation").status_code == 204
    assert not RaceTable.objects.filter(event=event).exists()
    assert org_api.get("/events/heat/tables").json() == []
    # Seated again; table 2's referee saves a draft: table 2 has started, both stay.
    grid = [line["driver"]["number"] for line in allocate(org_api, "heat", 3)[1]["grid"]]
    body = {"version": 0, "finish": grid[:1], "submit": False}
    assert put(table_api(event, 2), "/events/heat/tables/2/result", body).status_code == 200
    refused = delete(org_api, "/events/heat/allocation")
    assert refused.status_code == 409, refused.content
    assert "2" in refused.json()["detail"] and refused.json()["errors"] == {"tables": ["2"]}
    assert RaceTable.objects.filter(event=event).count() == 2


def test_a_stand_chosen_starts_a_table_and_the_page_asks_first(make_event, org_api, client):
    event = make_event(4, slug="gp")
    allocate(org_api, "gp", 4)
    client.force_login(event.championship.organisers.get())
    client.cookies["django_language"] = "en"
    url = reverse("allocation-undo", args=["gp"])
    assert 'id="allocation-undo"' in client.get(reverse("allocation", args=["gp"])).content.decode()
    asked = client.post(url)
    assert asked.status_code == 200 and "Undo the race tables?" in asked.content.decode()
    assert RaceTable.objects.filter(event=event).exists()
    GridSlot.objects.filter(event=event, position=1).update(stand=3)
    page = client.post(url, {"confirmed": "1"}, follow=True).content.decode()
    assert "Table(s) 1 started" in page and RaceTable.objects.filter(event=event).exists()
    GridSlot.objects.filter(event=event).update(stand=None)
    page = client.post(url, {"confirmed": "1"}, follow=True).content.decode()
    assert "1 race table undone." in page and not RaceTable.objects.filter(event=event).exists()
