"""The audit trail: every write of runs, allocations, swaps, stands, configurations,
results and confirmations leaves a history row saying who (a user or a table's link),
when, before and after; the table history pages tell it in words; race control restores
an earlier version of a result, itself recorded."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from qualifying.models import Run
from races.grid.services import swap_drivers
from races.grid.start import configurations_set, stands_set, table_unlock
from races.grid.state import mark_started
from races.models import (
    CarConfiguration,
    GridSlot,
    ManualSwap,
    RaceResult,
    RaceTable,
    ResultStatus,
    WeatherDraw,
)
from races.results.services import result_confirm, result_reopen, result_restore, result_save
from races.weather.services import race_weather_draw, table_weather_draw
from tests.security.conftest import World, english, logged_in
from tournament.access import Actor
from tournament.errors import Conflict, InvalidInput, NotAllowed

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


def fresh(world: World, number: int = 1) -> RaceTable:
    return RaceTable.objects.get(event=world.event, number=number)


def organiser(world: World) -> Actor:
    return Actor(user=world.users["organiser"])


def grid(table: RaceTable) -> list[int]:
    return list(table.slots.order_by("position").values_list("driver__number", flat=True))


def page(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, response.status_code
    return re.sub(r"\s+", " ", response.content.decode())


# --- Every service stamps who -------------------------------------------------------------


def test_runs_record_the_link_or_the_user_with_before_and_after(world: World) -> None:
    RaceTable.objects.filter(event=world.event).delete()  # qualifying still open
    client = english(Client())  # a referee's phone
    table = world.qtables[0]
    number = world.qdriver(0)
    run = Run.objects.get(session=world.session, driver__number=number, cancelled=False)
    data = {
        f"d{number}-tyres": "soft",
        f"d{number}-throws": "17",
        f"d{number}-placement_errors": "0",
        f"d{number}-exit_squares": "0",
        f"d{number}-stopwatch": "0:50.00",
        "version": str(run.version),
    }
    client.post(reverse("run-save", args=[table.token, 1, number]), data)

    latest, before = list(Run.history.filter(id=run.pk).order_by("-history_id"))[:2]
    assert latest.history_actor == f"referee link of {table}"
    assert (before.throws, latest.throws) == (number, 17)
    assert (before.tyres, latest.tyres) == ("hard", "soft")


def test_a_referee_account_acts_under_its_own_name(world: World) -> None:
    client = logged_in(world.users["ref1"])
    table = fresh(world)
    # Table 1 has a result, so its race started: race control unlocks it first (§5-0-2).
    table_unlock(actor=organiser(world), table=table, reason="Stand written wrong")
    number = grid(table)[1]

    response = client.post(reverse("rtable-stand", args=[table.token, number]), {"stand": "2"})

    assert response.status_code == 302
    record = GridSlot.history.filter(table_id=table.pk, driver__number=number).latest("history_id")
    assert record.stand == 2
    assert record.history_user == world.users["ref1"]
    assert record.history_actor == "arbitre1"


def test_stands_configurations_swaps_and_weather_are_recorded(world: World) -> None:
    table = fresh(world, 2)
    link = Actor(table=table)
    first = grid(table)[0]
    stands_set(actor=link, table=table, stands={first: 3})
    configurations_set(actor=link, table=table, configurations={first: CONFIG})
    configurations_set(
        actor=link, table=table, configurations={first: {**CONFIG, "tyres": 5, "road_holding": 3}}
    )

    stand = GridSlot.history.filter(table_id=table.pk, driver__number=first).latest("history_id")
    assert (stand.stand, stand.history_actor) == (3, f"referee link of {table}")
    configs = list(
        CarConfiguration.history.filter(slot__driver__number=first, slot__table=table).order_by(
            "history_id"
        )
    )
    assert [(c.history_type, c.tyres) for c in configs] == [("+", 4), ("~", 5)]
    assert {c.history_actor for c in configs} == {f"referee link of {table}"}


def test_swaps_before_results_are_recorded_with_who_and_why(world: World) -> None:
    RaceResult.objects.all().delete()
    RaceTable.objects.filter(event=world.event).update(
        result_status=ResultStatus.EMPTY, started_at=None
    )
    one, two = fresh(world, 1), fresh(world, 2)
    a, b = grid(one)[1], grid(two)[1]

    swap_drivers(actor=organiser(world), event=world.event, a=a, b=b, reason="team-mates")

    swap = ManualSwap.objects.get(event=world.event)
    assert (swap.actor, swap.reason) == ("orga", "team-mates")
    moved = list(
        GridSlot.history.filter(driver__number=a, event=world.event).order_by("history_id")
    )
    assert moved[0].table_id == one.pk
    assert moved[-1].table_id == two.pk
    assert moved[-1].history_actor == "orga"
    text = page(logged_in(world.users["organiser"]), reverse("rtable-history", args=[two.token]))
    assert f"swapped {a} Pilote{a} Lefèvre (table 1) and {b} Pilote{b} Lefèvre (table 2)" in text
    # A swap reads as that one line: not as the grid places it moved nor their parking
    # positions (issue 12).
    assert f"moved {a} Pilote{a} Lefèvre" not in text
    assert "5000" not in text and "5001" not in text


def test_result_save_confirm_and_reopen_are_recorded(world: World) -> None:
    table = fresh(world)
    confirmed = result_confirm(actor=organiser(world), table=table, version=1)
    result_reopen(actor=organiser(world), table=fresh(world), reason="typo on 3rd", version=2)

    records = list(RaceResult.history.filter(table_id=table.pk).order_by("history_id"))
    assert [(r.version, r.history_actor) for r in records] == [
        (1, f"referee link of {table}"),
        (2, "orga"),
        (3, "orga"),
    ]
    assert records[1].confirmed_by_id == world.users["organiser"].pk
    assert records[2].reopen_reason == "typo on 3rd"
    assert confirmed.version == 2


# --- History pages, in words --------------------------------------------------------------


def test_the_race_table_history_tells_the_result_change_in_words(world: World) -> None:
    table = fresh(world)
    numbers = grid(table)
    result_save(
        actor=Actor(table=table),
        table=table,
        version=1,
        finish=[numbers[0], numbers[1], numbers[3]],
        retired=[{"driver": numbers[2], "cause": "engine", "lap": 2}],
        dns=[],
        submit=True,
    )
    client = english(Client())  # the link's phone may read its table's history

    text = page(client, reverse("rtable-history", args=[table.token]))

    third = numbers[2]
    assert f"referee link of {table} changed the result (version 2)" in text
    assert f"{third} Pilote{third} Lefèvre: 3rd → retired (Engine, lap 2)" in text
    assert f"referee link of {table} wrote the result (version 1)" in text
    assert f"gave stand 1 to {numbers[0]} Pilote{numbers[0]} Lefèvre" in text
    # Only race control restores.
    assert "Restore version" not in text


def test_the_qualifying_table_history_lists_its_runs_changes_only(world: World) -> None:
    table = world.qtables[0]
    mine, other = world.qdriver(0), sorted(d.number for d in world.qtables[1].drivers.all())[0]

    text = page(english(Client()), reverse("qtable-history", args=[table.token]))

    assert f"recorded the run of {mine} Pilote{mine} Lefèvre (S1)" in text
    assert f"Pilote{other} Lefèvre" not in text
    assert reverse("run-history", args=[table.token, 1, mine]) in text


def test_table_pages_and_the_desk_link_to_the_history(world: World) -> None:
    client = logged_in(world.users["organiser"])
    qtable, rtable = world.qtables[0], fresh(world)
    assert reverse("qtable-history", args=[qtable.token]) in page(
        client, reverse("qtable", args=[qtable.token])
    )
    assert reverse("rtable-history", args=[rtable.token]) in page(
        client, reverse("rtable", args=[rtable.token])
    )
    assert reverse("qtable-history", args=[qtable.token]) in page(
        client, reverse("event-desk", args=[world.event.slug])
    )
    assert reverse("rtable-history", args=[rtable.token]) in page(
        client, reverse("results-desk", args=[world.event.slug])
    )
    assert reverse("rtable-history", args=[rtable.token]) in page(
        client, reverse("allocation", args=[world.event.slug])
    )


# --- Restoring an earlier version of a result ----------------------------------------------


def _second_version(world: World) -> RaceTable:
    table = fresh(world)
    numbers = grid(table)
    result_save(
        actor=Actor(table=table),
        table=table,
        version=1,
        finish=numbers[:2],
        retired=[],
        dns=[],
        submit=False,
    )
    return fresh(world)


def test_race_control_restores_an_earlier_version_as_a_new_recorded_version(world: World) -> None:
    table = _second_version(world)
    first = RaceResult.history.filter(table_id=table.pk, version=1).get()
    client = logged_in(world.users["organiser"])
    text = page(client, reverse("rtable-history", args=[table.token]))
    assert "Restore version 1" in text

    response = client.post(
        reverse("result-restore", args=[table.token]),
        {"history_id": first.history_id, "version": 2},
    )

    assert response.status_code == 302
    result = RaceResult.objects.get(table=table)
    assert (result.version, result.finish, result.retired) == (3, first.finish, first.retired)
    assert fresh(world).result_status == ResultStatus.SUBMITTED  # complete again: to confirm
    latest = RaceResult.history.filter(table_id=table.pk).latest("history_id")
    assert (latest.history_actor, latest.history_change_reason) == ("orga", "restored version 1")
    text = page(client, reverse("rtable-history", args=[table.token]))
    assert "orga changed the result (version 3): restored version 1" in text


def test_restoring_a_confirmed_result_is_refused_until_reopened(world: World) -> None:
    table = fresh(world)
    result_confirm(actor=organiser(world), table=table, version=1)
    first = RaceResult.history.filter(table_id=table.pk, version=1).get()

    with pytest.raises(Conflict, match="reopen it first"):
        result_restore(actor=organiser(world), table=fresh(world), history_id=first.history_id)

    result_reopen(actor=organiser(world), table=fresh(world), reason="check", version=2)
    restored = result_restore(
        actor=organiser(world), table=fresh(world), history_id=first.history_id, version=3
    )
    assert restored.version == 4


def test_restore_refuses_others_stale_versions_and_foreign_rows(world: World) -> None:
    table = _second_version(world)
    first = RaceResult.history.filter(table_id=table.pk, version=1).get()
    with pytest.raises(NotAllowed):
        result_restore(actor=Actor(table=table), table=table, history_id=first.history_id)
    with pytest.raises(Conflict, match="changed this result meanwhile"):
        result_restore(actor=organiser(world), table=table, history_id=first.history_id, version=1)
    other = fresh(world, 2)
    with pytest.raises(InvalidInput, match="not in the history"):
        result_restore(actor=organiser(world), table=other, history_id=first.history_id)
    assert RaceResult.objects.get(table=table).version == 2


def test_the_restore_page_refuses_referees_and_says_why_to_race_control(world: World) -> None:
    table = fresh(world)
    result_confirm(actor=organiser(world), table=table, version=1)
    first = RaceResult.history.filter(table_id=table.pk, version=1).get()
    url = reverse("result-restore", args=[table.token])

    assert english(Client()).post(url, {"history_id": first.history_id}).status_code == 403
    client = logged_in(world.users["organiser"])
    response = client.post(url, {"history_id": first.history_id, "version": 2}, follow=True)
    assert "reopen it first" in response.content.decode()
    assert client.post(url, {"history_id": "x"}, follow=True).status_code == 200
    assert RaceResult.objects.get(table=table).version == 2


# --- Weather draws: drawn through the service, recorded in the history --------------------


def test_weather_draws_say_who_drew(world: World) -> None:
    RaceResult.objects.all().delete()
    RaceTable.objects.filter(event=world.event).update(
        result_status=ResultStatus.EMPTY, started_at=None
    )
    race_weather_draw(  # variable, instead of the world's sun
        actor=organiser(world), event=world.event, roll=6, reason="die off the table"
    )
    table = fresh(world)
    mark_started(Actor(table=table), table)  # the draws come during the race (§3-2-4)

    draw = table_weather_draw(actor=Actor(table=table), table=table, roll=3)

    record = WeatherDraw.history.get(id=draw.pk)
    assert (record.history_type, record.history_actor) == ("+", f"referee link of {table}")
    assert (record.roll, record.weather, record.track) == (3, "rain", "wet")
    text = page(english(Client()), reverse("rtable-history", args=[table.token]))
    assert f"referee link of {table} drew the weather: d20 = 3, Rain, track wet" in text
