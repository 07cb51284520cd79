"""The other games' entry pages in real Chromium: a Cannes–Monaco referee types the squares
with the keyboard through the table link and sends the sheet; a Racetrack referee does the
same; race control types a Rallyman stage's times, one row per driver, with the
intermediate times.

Pages are in French by default; the selectors use names and ids, not words.
"""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from qualifying.services import draw_record
from races.grid.services import allocation_run
from races.models import RaceResult, RaceTable, Stage, StageTime
from tournament.access import Actor

pytestmark = pytest.mark.django_db(transaction=True)


def game_event(make_event, organiser, game: str):
    actor = Actor(user=organiser)
    event = make_event(n_drivers=4, game=game, qualifying_mode="draw", separate_teams=False)
    draw_record(actor=actor, event=event, rolls={n: [n] for n in range(1, 5)})
    allocation_run(actor=actor, event=event, table_size=4)
    return event, RaceTable.objects.get(event=event, number=1)


def test_cannes_monaco_referee_types_squares_and_sends_the_sheet(
    page: Page, live_server, make_event, organiser
):
    _event, table = game_event(make_event, organiser, "cannes_monaco")
    # The Formula Dé result link leads to the game's own sheet.
    page.goto(live_server.url + reverse("result-entry", args=[table.token]))
    expect(page.locator("input[name='square-1']")).to_be_focused()
    keys = page.keyboard
    keys.type("30")
    keys.press("Tab")  # crossing order: blank, did not cross
    keys.press("Tab")
    keys.type("34")
    keys.press("Tab")
    keys.press("Tab")
    keys.type("0")
    keys.press("Tab")
    keys.type("1")  # car 3 crossed the line first: the winner
    keys.press("Tab")
    keys.type("12")
    keys.press("Enter")  # a draft
    expect(page.locator(".result-state")).to_have_class("result-state status-draft")
    assert RaceResult.objects.get(table=table).game_data == {
        "squares": {"1": 30, "2": 34, "3": 0, "4": 12},
        "crossed": [3],
    }
    page.locator("#submit").click()
    expect(page.locator(".result-state")).to_have_class("result-state status-submitted")


def test_cannes_monaco_refusal_names_the_driver_and_keeps_the_typing(
    page: Page, live_server, make_event, organiser
):
    _event, table = game_event(make_event, organiser, "cannes_monaco")
    page.goto(live_server.url + reverse("game-table-entry", args=[table.token]))
    page.fill("input[name='square-1']", "5")
    page.locator("#submit").click()  # drivers 2-4 are missing
    expect(page.locator(".result-errors")).to_contain_text("2 Pilote2")
    expect(page.locator("input[name='square-1']")).to_have_value("5")


def test_racetrack_referee_enters_runs(page: Page, live_server, make_event, organiser):
    _event, table = game_event(make_event, organiser, "racetrack")
    page.goto(live_server.url + reverse("game-table-entry", args=[table.token]))
    for n, (turns, margin) in {1: ("42", "2"), 2: ("42", "3"), 3: ("40", "0")}.items():
        page.fill(f"input[name='turns-{n}']", turns)
        page.fill(f"input[name='margin-{n}']", margin)
        if n < 3:
            page.check(f"input[name='finished-{n}']")
    page.fill("input[name='crashes-4']", "1")
    page.check("input[name='eliminated-4']")
    page.locator("#submit").click()
    expect(page.locator(".result-state")).to_have_class("result-state status-submitted")
    runs = RaceResult.objects.get(table=table).game_data["runs"]
    assert runs["2"] == {
        "turns": 42,
        "margin": 3,
        "crashes": 0,
        "finished": True,
        "eliminated": False,
    }


def test_race_control_types_a_stage_with_the_keyboard(
    page: Page, live_server, make_event, organiser
):
    event = make_event(n_drivers=3, slug="rally", game="rallyman")
    Stage.objects.create(event=event, number=1, route="C8 C3-J6-J5-C4 C5", start_order=[3, 1, 2])
    url = reverse("rally-stage-times", args=["rally", 1])
    page.goto(f"{live_server.url}{reverse('login')}?next={url}")
    page.fill("input[name='username']", "pc")
    page.fill("input[name='password']", "pc-password-1")
    page.locator("main form button[type='submit']").click()
    page.wait_for_url(f"**{url}")
    expect(page.locator("input[name='chrono-3']")).to_be_focused()  # first to start
    keys = page.keyboard
    keys.type("07:40")
    keys.press("Tab")
    keys.type("5")
    keys.press("Tab")
    keys.press("Tab")
    expect(page.locator("input[name='splits-3']")).to_be_focused()
    keys.type("03:05 06:10")  # Règlement+: the pile at each intermediate time point
    keys.press("Tab")
    expect(page.locator("select[name='tyres-3']")).to_be_focused()  # Règlement+: tyres
    keys.press("Tab")
    keys.type("75:10")
    for _box in ("held-1", "retired-1", "splits-1", "tyres-1", "chrono-2", "held-2", "retired-2"):
        keys.press("Tab")
    expect(page.locator("input[name='retired-2']")).to_be_focused()
    keys.press("Space")  # driver 2 retired
    keys.press("Shift+Tab")  # back in a box where Enter saves
    with page.expect_navigation():
        keys.press("Enter")
    expect(page.locator("input[name='chrono-1']")).to_have_value("75:10")
    expect(page.locator("input[name='splits-3']")).to_have_value("03:05 06:10")
    assert StageTime.objects.get(driver__number=3).splits == [185, 370]
    times = {
        t.driver.number: (t.chrono, t.seconds_held, t.retired)
        for t in StageTime.objects.select_related("driver")
    }
    assert times == {3: (460, 5, False), 1: (4510, 0, False), 2: (None, 0, True)}
