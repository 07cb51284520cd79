"""The audit trail of tables: qualifying tables and seats, weather draws, an allocation run
again (who deleted the grid places, configurations, draws and tables), new links.

Every row says who (user or table link), when, and the values before and after; the table
history pages tell them in words.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from qualifying.models import QualifyingSeat, QualifyingTable
from races.grid.services import referee_link_regenerate
from races.grid.start import configurations_set, table_unlock
from races.grid.state import mark_started
from races.models import (
    CarConfiguration,
    GridSlot,
    RaceResult,
    RaceTable,
    ReplacedLink,
    ResultStatus,
    WeatherDraw,
)
from races.weather.services import race_weather_draw, table_weather_draw
from tests.security.conftest import World, english, logged_in
from tests.security.conftest import world as world  # noqa: F401 - the shared event
from tournament.access import Actor
from tournament.sealing import link_digest

pytestmark = pytest.mark.django_db

CONFIG = {
    "tyres": 4,
    "brakes": 3,
    "gearbox": 3,
    "body": 3,
    "engine": 3,
    "road_holding": 4,
    "stand_points": 2,
}


def organiser(world: World) -> Actor:
    return Actor(user=world.users["organiser"])


def page(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, response.status_code
    return re.sub(r"\s+", " ", response.content.decode())


def details(text: str) -> str:
    """A history page with each change's details on its line: "who what: detail"."""
    return re.sub(r":\s*<ul>\s*<li>", ": ", text)


def name(number: int) -> str:
    return f"{number} Pilote{number} Lefèvre"


def api(token: str) -> Client:
    return Client(HTTP_AUTHORIZATION=f"Bearer {token}", HTTP_ACCEPT_LANGUAGE="en")


def no_results(world: World) -> None:
    """Back before any result, when tables and the race weather may still change."""
    RaceResult.objects.all().delete()
    RaceTable.objects.filter(event=world.event).update(
        result_status=ResultStatus.EMPTY, started_at=None
    )


def variable_race(world: World) -> None:
    no_results(world)
    race_weather_draw(  # 5-8: variable, instead of the world's sun
        actor=organiser(world), event=world.event, roll=6, reason="die off the table"
    )


# --- Weather draws -------------------------------------------------------------------------


def test_a_weather_draw_made_by_the_service_records_who_drew(world: World) -> None:
    variable_race(world)
    table = RaceTable.objects.get(event=world.event, number=1)

    mark_started(Actor(table=table), table)  # the draws come during the race (§3-2-4)
    draw = table_weather_draw(actor=Actor(table=table), table=table, roll=3)

    record = WeatherDraw.history.get(id=draw.pk)
    assert record.history_type == "+"
    assert (record.history_actor, record.history_user) == (f"referee link of {table}", None)
    assert (record.roll, record.drawn, record.weather, record.track) == (3, "rain", "rain", "wet")
    account = table_weather_draw(
        actor=Actor(user=world.users["ref1"]), table=RaceTable.objects.get(pk=table.pk), roll=15
    )
    by_account = WeatherDraw.history.get(id=account.pk)
    assert (by_account.history_actor, by_account.history_user) == ("arbitre1", world.users["ref1"])


# --- An allocation run again through the API ------------------------------------------------


def test_an_allocation_run_again_through_the_api_records_every_deletion(world: World) -> None:
    variable_race(world)
    one, two = (RaceTable.objects.get(event=world.event, number=n) for n in (1, 2))
    first = one.slots.order_by("position").first().driver.number
    configurations_set(actor=Actor(table=one), table=one, configurations={first: CONFIG})
    mark_started(Actor(table=one), one)  # the draws come during the race (§3-2-4)
    draw = table_weather_draw(actor=Actor(table=one), table=one, roll=3)
    table_unlock(actor=Actor(user=world.users["organiser"]), table=one, reason="New grids")
    old_slots = {
        s.pk: (s.table_id, s.driver.number) for s in GridSlot.objects.filter(event=world.event)
    }
    config = CarConfiguration.objects.get(slot__driver__number=first, slot__table=one)

    response = api(world.api_tokens["organiser"]).post(
        f"/api/v1/events/{world.event.slug}/allocation",
        json.dumps({"table_size": 8}),
        content_type="application/json",
    )

    assert response.status_code == 200, response.content
    assert [t["number"] for t in response.json()] == [1]
    who = ("orga (API)", world.users["organiser"])

    def deleted(model: Any, pk: int) -> Any:
        record = model.history.filter(id=pk).latest("history_id")
        assert record.history_type == "-"
        assert (record.history_actor, record.history_user) == who
        return record

    gone = deleted(WeatherDraw, draw.pk)
    assert (gone.table_id, gone.roll, gone.drawn) == (one.pk, 3, "rain")
    assert deleted(CarConfiguration, config.pk).tyres == 4
    for pk, (table_id, number) in old_slots.items():
        before = deleted(GridSlot, pk)
        assert (before.table_id, before.driver.number) == (table_id, number)
    assert deleted(RaceTable, two.pk).number == 2
    placed = GridSlot.history.filter(table_id=one.pk, history_type="+", event=world.event)
    assert placed.filter(history_actor="orga (API)").count() == 8
    assert not WeatherDraw.objects.filter(table__event=world.event).exists()

    text = page(logged_in(world.users["organiser"]), reverse("rtable-history", args=[one.token]))
    assert "orga (API) cleared weather draw 1 (d20 = 3)" in text
    assert f"referee link of {one} drew the weather: d20 = 3, Rain, track wet" in text
    assert f"orga (API) removed {name(first)} from the grid" in text
    assert f"orga (API) placed {name(first)} on the grid, position 1" in text


# --- Qualifying tables: the desk, the API, the automatic seating, new links ----------------


def test_a_qualifying_table_edit_at_the_desk_is_recorded_with_before_and_after(
    world: World,
) -> None:
    one, two = world.qtables
    mine = sorted(d.number for d in one.drivers.all())
    moved = sorted(d.number for d in two.drivers.all())[0]
    dropped = mine[-1]
    client = logged_in(world.users["organiser"])

    response = client.post(
        reverse("desk-table-edit", args=[world.event.slug, 1]),
        {
            "number": 1,
            "referee_name": "Zoé",
            "drivers": " ".join(map(str, [*mine[:-1], moved])),
            "referee_account": "arbitre1",  # unchanged
        },
    )

    assert response.status_code == 302
    table = QualifyingTable.history.filter(id=one.pk).latest("history_id")
    before = table.prev_record
    assert (before.referee_name, table.referee_name) == ("", "Zoé")
    assert (table.history_actor, table.history_user) == ("orga", world.users["organiser"])
    seat = QualifyingSeat.objects.get(event=world.event, driver__number=moved)
    move = QualifyingSeat.history.filter(id=seat.pk).latest("history_id")
    assert (move.prev_record.table_id, move.table_id) == (two.pk, one.pk)
    assert move.history_actor == "orga"
    off = QualifyingSeat.history.filter(driver__number=dropped, event=world.event).latest(
        "history_id"
    )
    assert (off.history_type, off.table_id, off.history_actor) == ("-", one.pk, "orga")
    # The drivers who stayed keep their seat: nothing recorded for them.
    stayed = QualifyingSeat.objects.get(event=world.event, driver__number=mine[0])
    assert QualifyingSeat.history.filter(id=stayed.pk).count() == 1

    text = page(client, reverse("qtable-history", args=[one.token]))
    assert "orga changed the table: referee: — → Zoé" in details(text)
    assert f"orga moved {name(moved)} from Qualifying table 2 to Qualifying table 1" in text
    assert f"orga took {name(dropped)} off the table" in text
    assert f"seated {name(mine[0])} at the table" in text
    other = page(client, reverse("qtable-history", args=[two.token]))
    assert f"orga moved {name(moved)} from Qualifying table 2 to Qualifying table 1" in other


def test_qualifying_tables_set_through_the_api_are_recorded(world: World) -> None:
    response = api(world.api_tokens["organiser"]).post(
        f"/api/v1/events/{world.event.slug}/qualifying-tables",
        json.dumps({"number": 3, "drivers": [1], "referee": "Yann"}),
        content_type="application/json",
    )

    assert response.status_code == 200, response.content
    table = QualifyingTable.objects.get(event=world.event, number=3)
    created = QualifyingTable.history.filter(id=table.pk).earliest("history_id")
    assert (created.history_type, created.referee_name) == ("+", "")
    assert created.history_actor == "orga (API)"
    renamed = created.next_record
    assert (renamed.referee_name, renamed.history_actor) == ("Yann", "orga (API)")
    seat = QualifyingSeat.history.filter(driver__number=1, event=world.event).latest("history_id")
    assert (seat.table_id, seat.history_actor) == (table.pk, "orga (API)")


def test_the_automatic_seating_records_who_seated_whom(world: World) -> None:
    from qualifying.seating.services import qualifying_tables_auto

    # Runs exist: race control confirmed that the drivers who ran change tables.
    qualifying_tables_auto(actor=organiser(world), event=world.event, table_size=8, move_runs=True)

    (only,) = QualifyingTable.objects.filter(event=world.event)
    assert only.pk == world.qtables[0].pk
    gone = QualifyingTable.history.filter(id=world.qtables[1].pk).latest("history_id")
    assert (gone.history_type, gone.history_actor) == ("-", "orga")
    moves = QualifyingSeat.history.filter(event=world.event, history_type="~")
    assert moves.count() == 4
    assert {m.history_actor for m in moves} == {"orga"}
    assert {m.table_id for m in moves} == {only.pk}


def test_a_new_qualifying_link_is_recorded_with_who(world: World) -> None:
    table = world.qtables[0]
    old = table.token

    renewed = referee_link_regenerate(
        actor=organiser(world), table=QualifyingTable.objects.get(pk=table.pk)
    )

    record = QualifyingTable.history.filter(id=table.pk).latest("history_id")
    # History rows keep the link's digest, never the link.
    assert record.prev_record.token_digest == link_digest(old) != record.token_digest
    assert record.token_digest == link_digest(renewed.token)
    assert record.history_actor == "orga"
    assert ReplacedLink.objects.get(digest=link_digest(old)).actor == "orga"
    text = page(english(Client()), reverse("qtable-history", args=[renewed.token]))
    assert "orga gave the table a new referee link" in text
    assert old not in text


def test_assigning_a_referee_account_is_recorded(world: World) -> None:
    table = QualifyingTable.objects.get(pk=world.qtables[1].pk)
    table.referee = world.users["ref1"]
    organiser(world).stamp(table).save(update_fields=["referee"])

    text = page(logged_in(world.users["organiser"]), reverse("qtable-history", args=[table.token]))

    assert "orga changed the table: referee account: arbitre2 → arbitre1" in details(text)
