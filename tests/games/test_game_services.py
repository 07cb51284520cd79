"""Services of the other games: restoring a table sheet from its history, the rally's
result lines only once every stage is timed, the quick-rules settings form."""

from __future__ import annotations

import pytest
from django.urls import reverse

from qualifying.services import draw_record
from races.games.rallyman.services import stage_times_set
from races.games.table_sheet.services import game_result_save
from races.grid.services import allocation_run
from races.models import RaceResult, RaceTable, ResultLine, Stage
from races.results.services import result_restore
from tournament.access import Actor
from tournament.errors import InvalidInput

pytestmark = pytest.mark.django_db


def test_restoring_a_complete_game_sheet_makes_it_submitted_again(make_event, organiser):
    actor = Actor(user=organiser)
    event = make_event(3, game="cannes_monaco", qualifying_mode="draw", separate_teams=False)
    allocation_run(actor=actor, event=event, table_size=6)
    table = RaceTable.objects.get(event=event)
    full = {"squares": {1: 3, 2: 5, 3: 7}, "crossed": []}
    game_result_save(actor=actor, table=table, version=0, data=full, submit=True)
    game_result_save(actor=actor, table=table, version=1, data={"squares": {1: 4}}, submit=False)
    first = RaceResult.history.filter(table_id=table.pk, version=1).get()
    result_restore(actor=actor, table=table, history_id=first.history_id)
    table.refresh_from_db()
    assert table.result_status == "submitted"
    assert RaceResult.objects.get(table=table).game_data["squares"] == {"1": 3, "2": 5, "3": 7}


def test_a_formula_de_event_refuses_a_game_sheet(make_event, organiser):
    actor = Actor(user=organiser)
    event = make_event(3, qualifying_mode="draw", separate_teams=False)
    draw_record(actor=actor, event=event, rolls={1: [5], 2: [12], 3: [9]})
    allocation_run(actor=actor, event=event, table_size=6)
    with pytest.raises(InvalidInput):
        game_result_save(
            actor=actor, table=RaceTable.objects.get(event=event), version=0, data={}, submit=False
        )


def test_rally_lines_only_once_every_stage_is_timed(make_event, organiser):
    actor = Actor(user=organiser)
    event = make_event(2, game="rallyman")
    s1 = Stage.objects.create(event=event, number=1, route="J1 J4", start_order=[1, 2])
    s2 = Stage.objects.create(event=event, number=2, route="C1")
    allocation_run(actor=actor, event=event, table_size=4)
    stage_times_set(actor=actor, stage=s1, times={1: {"chrono": "01:00"}, 2: {"chrono": "01:10"}})
    assert not ResultLine.objects.filter(event=event).exists()
    stage_times_set(actor=actor, stage=s2, times={1: {"chrono": "01:00"}})
    assert not ResultLine.objects.filter(event=event).exists()  # driver 2 not timed yet
    stage_times_set(actor=actor, stage=s2, times={2: {"chrono": "00:40"}})
    assert list(
        ResultLine.objects.filter(event=event)
        .order_by("rank")
        .values_list("driver__number", "rank")
    ) == [(2, 1), (1, 2)]


def settings_form(circuit, **overrides):
    data = {
        "name": "Course rapide",
        "date": "2026-10-04",
        "circuit": circuit.pk,
        "laps": "2",
        "table_size": "8",
        "qualifying_mode": "draw",
        "separate_teams": "on",
        "language": "fr",
        "stand_numbers": "",
        "crash_limit": "1",
    }
    data.update(overrides)
    return data


def test_quick_rules_settings_laps_and_standard_car(client, organiser, make_event, circuit):
    client.cookies["django_language"] = "en"
    event = make_event(2, qualifying_mode="draw")
    client.force_login(organiser)
    url = reverse("event-settings", args=[event.slug])
    car = {"standard_tyres": "7", "standard_brakes": "3", "standard_gearbox": "3",
           "standard_body": "3", "standard_engine": "3", "standard_road_holding": "3",
           "standard_stand_points": "0"}  # fmt: skip
    too_long = client.post(url, settings_form(circuit, laps="4", **car))
    assert too_long.status_code == 200 and "1, 2 or 3 laps" in too_long.content.decode()
    bad_car = client.post(url, settings_form(circuit, **{**car, "standard_tyres": "9"}))
    assert bad_car.status_code == 200 and "22" in bad_car.content.decode()
    # Point 1: a standard car of 20 + 2 at the stand is refused (no stands in the quick rules).
    standard = {**car, "standard_tyres": "5", "standard_stand_points": "2"}
    refused = client.post(url, settings_form(circuit, **standard))
    assert refused.status_code == 200
    assert "the quick rules have no stand, all 22 points go on the car" in refused.content.decode()
    assert client.post(url, settings_form(circuit, **car)).status_code == 302
    event.refresh_from_db()
    assert event.laps == 2
    assert event.standard_configuration == {
        "tyres": 7, "brakes": 3, "gearbox": 3, "body": 3, "engine": 3, "road_holding": 3,
        "stand_points": 0,
    }  # fmt: skip
