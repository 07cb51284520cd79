"""Pages of the other games: the referee's Cannes–Monaco / Racetrack sheet through the
table link, the rally desk, stage times and classifications; the three users (organiser,
referee of this table, outsider)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from races.grid.services import allocation_run
from races.models import RaceResult, RaceTable, Stage, StageTime
from tournament.access import Actor

pytestmark = pytest.mark.django_db


@pytest.fixture
def en(client):
    client.cookies["django_language"] = "en"
    return client


def allocated(make_event, organiser, **options):
    event = make_event(options.pop("n", 4), separate_teams=False, qualifying_mode="draw", **options)
    allocation_run(actor=Actor(user=organiser), event=event, table_size=6)
    return event, RaceTable.objects.get(event=event, number=1)


def test_formula_de_result_link_sends_a_cannes_monaco_referee_to_the_game_sheet(
    en, make_event, organiser
):
    _event, table = allocated(make_event, organiser, game="cannes_monaco")
    response = en.get(reverse("result-entry", args=[table.token]))
    assert response.status_code == 302
    assert response["Location"] == reverse("game-table-entry", args=[table.token])


def test_referee_saves_a_cannes_monaco_draft_then_submits(en, make_event, organiser):
    _event, table = allocated(make_event, organiser, game="cannes_monaco")
    url = reverse("game-table-entry", args=[table.token])
    page = en.get(url)
    assert page.status_code == 200 and b"square-1" in page.content
    data = {"version": "0", "square-1": "30", "square-2": "34", "square-3": "30", "action": "draft"}
    assert en.post(url, data).status_code == 302
    result = RaceResult.objects.get(table=table)
    assert result.game_data == {"squares": {"1": 30, "2": 34, "3": 30}, "crossed": []}
    refused = en.post(url, {**data, "version": "1", "action": "submit"})
    assert refused.status_code == 400
    assert "4 Pilote4" in refused.content.decode()
    data.update({"version": "1", "crossed-4": "1", "action": "submit"})
    assert en.post(url, data).status_code == 302
    table.refresh_from_db()
    assert table.result_status == "submitted"


def test_stale_version_keeps_what_was_typed(en, make_event, organiser):
    _event, table = allocated(make_event, organiser, game="cannes_monaco")
    url = reverse("game-table-entry", args=[table.token])
    en.post(url, {"version": "0", "square-1": "3"})
    stale = en.post(url, {"version": "0", "square-1": "17"})
    assert stale.status_code == 409
    assert 'value="17"' in stale.content.decode()
    assert 'name="version" value="1"' in stale.content.decode()


def test_racetrack_typing_error_names_the_driver(en, make_event, organiser):
    _event, table = allocated(make_event, organiser, game="racetrack")
    url = reverse("game-table-entry", args=[table.token])
    response = en.post(url, {"version": "0", "turns-2": "lots"})
    assert response.status_code == 400
    assert "2 Pilote2" in response.content.decode()
    ok = en.post(
        url,
        {"version": "0", "turns-2": "30", "finished-2": "1", "crashes-3": "1", "eliminated-3": "1"},
    )
    assert ok.status_code == 302
    assert RaceResult.objects.get(table=table).game_data["runs"]["3"]["eliminated"] is True


def test_racetrack_page_refuses_two_cars_still_running_at_the_default_end(
    en, make_event, organiser
):
    """ "jusqu'à ce que l'avant dernier la franchisse": submitting with two cars still
    running is refused in the page, naming them, and what was typed stays."""
    _event, table = allocated(make_event, organiser, game="racetrack")
    url = reverse("game-table-entry", args=[table.token])
    data = {"version": "0", "action": "submit", "turns-1": "30", "finished-1": "1",
            "turns-2": "31", "finished-2": "1", "turns-3": "29", "turns-4": "28"}  # fmt: skip
    refused = en.post(url, data)
    page = refused.content.decode()
    assert refused.status_code == 400
    assert "3 Pilote3 Lefèvre is still running" in page
    assert "4 Pilote4 Lefèvre is still running" in page
    assert 'value="28"' in page
    assert not RaceResult.objects.filter(table=table).exists()


def test_racetrack_page_asks_whether_the_last_car_left_crossed(en, make_event, organiser):
    """ "le joueur restant sera déclaré automatiquement vainqueur (sous réserve qu'il arrive
    à boucler son tour de piste)": the others out, the last car still running is not sent as
    the winner; the sheet asks whether it crossed, and takes the answer."""
    _event, table = allocated(make_event, organiser, game="racetrack", n=3)
    url = reverse("game-table-entry", args=[table.token])
    data = {"version": "0", "action": "submit", "crashes-1": "1", "eliminated-1": "1",
            "crashes-2": "1", "eliminated-2": "1", "turns-3": "12"}  # fmt: skip
    refused = en.post(url, data)
    assert refused.status_code == 400
    assert "3 Pilote3 Lefèvre is the last car in the race" in refused.content.decode()
    assert "Did it cross the line?" in refused.content.decode()
    assert not RaceResult.objects.filter(table=table).exists()
    assert en.post(url, {**data, "finished-3": "1"}).status_code == 302


def test_table_game_sheet_pdf(client, make_event, organiser):
    _event, table = allocated(make_event, organiser, game="racetrack", crash_limit=2)
    response = client.get(reverse("game-table-sheet", args=[table.token]))
    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"


@pytest.fixture
def rally(make_event):
    return make_event(4, slug="rally", game="rallyman")


def test_organiser_builds_the_rally_on_its_page(en, rally, organiser):
    en.force_login(organiser)
    url = reverse("rally-desk", args=["rally"])
    assert (
        en.post(
            url,
            {"action": "stage", "number": "1", "route": "C8 C3-J6-J5-C4 C5", "service_after": "1"},
        ).status_code
        == 302
    )
    bad = en.post(url, {"action": "stage", "number": "2", "route": "Q1"})
    assert bad.status_code == 400 and "Q1" in bad.content.decode()
    assert en.post(url, {"action": "order", "order": "4 3 2 1"}).status_code == 302
    assert Stage.objects.get(event=rally, number=1).start_order == [4, 3, 2, 1]
    twice = en.post(url, {"action": "order", "order": "4 4 2 1"})
    assert twice.status_code == 400 and "4" in twice.content.decode()


def test_stage_times_page_one_row_per_driver(en, rally, organiser):
    Stage.objects.create(event=rally, number=1, route="J1 J4", start_order=[2, 1, 3, 4])
    en.force_login(organiser)
    url = reverse("rally-stage-times", args=["rally", 1])
    page = en.get(url).content.decode()
    assert page.index("chrono-2") < page.index("chrono-1")
    response = en.post(
        url, {"chrono-2": "75:10", "held-2": "10", "chrono-1": "5:99", "retired-3": "1"}
    )
    assert response.status_code == 400 and "1 Pilote1" in response.content.decode()
    assert 'value="75:10"' in response.content.decode()
    assert (
        en.post(
            url, {"chrono-2": "75:10", "held-2": "10", "chrono-1": "05:09", "retired-3": "1"}
        ).status_code
        == 302
    )
    assert StageTime.objects.get(stage__event=rally, driver__number=2).chrono == 4510
    classification = en.get(reverse("rally-classification", args=["rally"])).content.decode()
    assert "75:00" in classification and "Final scratch" in classification


def test_rally_pages_access(client, rally, django_user_model):
    Stage.objects.create(event=rally, number=1, route="J1 J4")
    assert client.get(reverse("rally-classification", args=["rally"])).status_code == 404
    assert client.get(reverse("rally-sheet", args=["rally"])).status_code == 404
    outsider = django_user_model.objects.create_user("outsider", password="x-password-1")
    client.force_login(outsider)
    assert client.get(reverse("rally-desk", args=["rally"])).status_code == 403
    rally.published_results = True
    rally.save()
    assert client.get(reverse("rally-classification", args=["rally"])).status_code == 200


def test_race_control_confirms_a_game_table_on_the_results_desk(en, make_event, organiser):
    from races.games.table_sheet.services import game_result_save

    event, table = allocated(make_event, organiser, game="racetrack")
    runs = {n: {"turns": 30 + n, "finished": True} for n in (1, 2, 3, 4)}
    game_result_save(actor=Actor(user=organiser), table=table, version=0, data={"runs": runs},
                     submit=True)  # fmt: skip
    en.force_login(organiser)
    desk = en.get(reverse("results-desk", args=[event.slug]))
    assert desk.status_code == 200
    confirmed = en.post(reverse("result-confirm", args=[event.slug, 1]), {"version": "1"})
    assert confirmed.status_code == 302
    table.refresh_from_db()
    assert table.result_status == "confirmed"
    page = en.get(reverse("game-table-entry", args=[table.token])).content.decode()
    assert "Confirmed by race control" in page


def test_stage_times_page_intermediate_times(en, rally, organiser):
    # Règlement+: intermediate time points, the pile called out at each point.
    Stage.objects.create(event=rally, number=1, route="J1 J4", start_order=[1, 2, 3, 4])
    en.force_login(organiser)
    url = reverse("rally-stage-times", args=["rally", 1])
    assert 'name="splits-1"' in en.get(url).content.decode()
    bad = en.post(url, {"chrono-1": "07:40", "splits-1": "02:10 zz"})
    assert bad.status_code == 400
    assert "1 Pilote1" in bad.content.decode() and "zz" in bad.content.decode()
    assert 'value="02:10 zz"' in bad.content.decode()  # what was typed is kept
    assert not StageTime.objects.exists()
    ok = en.post(url, {"chrono-1": "07:40", "splits-1": "02:10, 05:05", "chrono-2": "07:00"})
    assert ok.status_code == 302
    assert StageTime.objects.get(driver__number=1).splits == [130, 305]
    assert StageTime.objects.get(driver__number=2).splits == []
    assert 'value="02:10 05:05"' in en.get(url).content.decode()
    emptied = en.post(url, {"chrono-1": "07:40", "splits-1": ""})
    assert emptied.status_code == 302
    assert StageTime.objects.get(driver__number=1).splits == []  # emptied on the page


def test_racetrack_page_tells_what_a_collision_does(en, make_event, organiser):
    # rules/racetrack-rules.fr.txt "Accidents": the rule and its two variants.
    event, table = allocated(make_event, organiser, game="racetrack")
    url = reverse("game-table-entry", args=[table.token])
    assert "A collision eliminates both cars" in en.get(url).content.decode()
    event.crash_limit = 3
    event.save()
    assert "A collision adds a crash to both cars" in en.get(url).content.decode()
    event.collisions = False
    event.save()
    page = en.get(url).content.decode()
    assert "Collisions are off" in page and "A collision" not in page


def test_cannes_monaco_page_takes_the_crossing_order(en, make_event, organiser):
    """ "Le premier pilote qui franchit la ligne d'arrivée est déclaré vainqueur": the referee
    writes 1 for the winner, 2 for the next over the line."""
    _event, table = allocated(make_event, organiser, game="cannes_monaco")
    url = reverse("game-table-entry", args=[table.token])
    page = en.get(url).content.decode()
    assert 'name="crossed-1"' in page and "1 for the winner" in page
    twice = en.post(url, {"version": "0", "crossed-3": "1", "crossed-4": "1"})
    assert twice.status_code == 400
    assert "Drivers 3, 4 are all written as crossing 1: one car a place." in twice.content.decode()
    data = {"version": "0", "square-1": "30", "square-2": "12", "crossed-3": "2", "crossed-4": "1"}
    assert en.post(url, {**data, "action": "submit"}).status_code == 302
    assert RaceResult.objects.get(table=table).game_data["crossed"] == [4, 3]
    assert 'name="crossed-4" value="1"' in en.get(url).content.decode()


def test_racetrack_page_places_the_cars_still_running_when_the_race_stops_at_the_winner(
    en, make_event, organiser
):
    event, table = allocated(make_event, organiser, game="racetrack", race_end="winner")
    url = reverse("game-table-entry", args=[table.token])
    assert 'name="place-2"' in en.get(url).content.decode()
    data = {
        "version": "0",
        "turns-1": "20",
        "finished-1": "1",
        "turns-2": "20",
        "turns-3": "20",
        "place-3": "1",
        "turns-4": "20",
        "place-4": "2",
        "action": "submit",
    }
    missing = en.post(url, data)
    assert missing.status_code == 400
    assert "2 Pilote2 Lefèvre was still running when the race stopped at the winner" in (
        missing.content.decode()
    )
    assert en.post(url, {**data, "place-2": "3"}).status_code == 302
    assert RaceResult.objects.get(table=table).game_data["runs"]["2"]["place"] == 3


def test_rally_snow_drawn_on_the_rally_page_and_shown_to_every_table(en, rally, organiser):
    """Règlement+: one die per zone before each stage, shown to every table and printed."""
    Stage.objects.create(event=rally, number=1, route="C8 C3-J6", start_order=[1, 2, 3, 4])
    Stage.objects.create(event=rally, number=2, route="J1 J4", service_after=True)
    en.force_login(organiser)
    url = reverse("rally-desk", args=["rally"])
    assert 'id="snow-form-1"' in en.get(url).content.decode()
    assert "Die 2: zone J" in en.get(url).content.decode()  # one die per zone, not per label
    done = en.post(url, {"action": "snow", "stage": "1", "zone-1": "1"}, follow=True)
    assert "Snow of stage 1: J." in done.content.decode()
    assert Stage.objects.get(number=1).snow == [False, True]
    # A second draw needs a reason: refused in the page, the dice ticked kept.
    again = en.post(url, {"action": "snow", "stage": "1", "zone-0": "1"})
    assert again.status_code == 409
    assert "already drawn (J)" in again.content.decode()
    assert 'name="zone-0" value="1" checked' in again.content.decode()
    assert Stage.objects.get(number=1).snow == [False, True]
    fixed = en.post(url, {"action": "snow", "stage": "1", "zone-1": "1", "reason": "wrong tick"})
    assert fixed.status_code == 302
    en.post(url, {"action": "snow-system", "stage": "2"})
    assert len(Stage.objects.get(number=2).snow) == 1
    assert Stage.objects.get(number=2).snow_source == "system"
    times = en.get(reverse("rally-stage-times", args=["rally", 1])).content.decode()
    assert "Snowy zones: <strong>J</strong>" in times
    allocation_run(actor=Actor(user=organiser), event=rally, table_size=4)
    table = RaceTable.objects.get(event=rally, number=1)
    page = en.get(reverse("rtable", args=[table.token])).content.decode()
    assert "ES1 · C8 C3-J6: ❄ <strong>J</strong>" in page
    sheet = en.get(reverse("rally-sheet", args=["rally"]))
    assert sheet.status_code == 200 and sheet["Content-Type"] == "application/pdf"


def test_rally_tyres_chosen_on_the_stage_page(en, rally, organiser):
    Stage.objects.create(event=rally, number=1, route="C1", start_order=[1, 2, 3, 4])
    Stage.objects.create(event=rally, number=2, route="C2")
    en.force_login(organiser)
    url1 = reverse("rally-stage-times", args=["rally", 1])
    assert 'name="tyres-1"' in en.get(url1).content.decode()
    en.post(url1, {"chrono-1": "05:00", "tyres-1": "snow", "chrono-2": "05:10"})
    assert StageTime.objects.get(stage__number=1, driver__number=1).tyres == "snow"
    url2 = reverse("rally-stage-times", args=["rally", 2])
    page = en.get(url2).content.decode()
    assert 'name="tyres-1"' not in page and "keeps the tyres of the stage before" in page
    en.post(url2, {"chrono-1": "04:00", "chrono-2": "04:10"})
    assert StageTime.objects.get(stage__number=2, driver__number=1).tyres == "snow"
