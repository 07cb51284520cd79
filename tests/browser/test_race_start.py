"""Race day as the rules run it, in real Chromium: a referee on a 390×844 phone chooses the
stands in grid order (§4-0-1: the next driver named, taken stands greyed) and starts the
race (§5-0-2: stands and configurations in ink); race control undoes a mistaken weather
draw at a table, with a reason.

Pages are in French by default; the selectors use form actions, ids and data attributes.
"""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import Browser, Page, expect

from races.grid.services import allocation_run
from races.grid.start import stands_set, table_start
from races.models import GridSlot, RaceTable, WeatherDraw
from races.weather.services import race_weather_draw, table_weather_draw
from tournament.access import Actor
from tournament.models import Event

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_referee_chooses_the_stands_in_grid_order_and_starts_the_race_on_a_phone(
    browser: Browser,
    live_server,
    classified,
    organiser,
):
    event = classified
    allocation_run(actor=Actor(user=organiser), event=event, table_size=3)
    race_weather_draw(actor=Actor(user=organiser), event=event, roll=6)  # §3-0-1: first
    table = RaceTable.objects.get(event=event, number=1)  # grid 4, 2, 5
    taps = 0  # the referee's thumb: stands, then the start
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    try:
        phone = context.new_page()
        phone.goto(f"{live_server.url}{reverse('rtable', args=[table.token])}")
        start = phone.locator("#start-race")
        expect(start).to_be_disabled()  # no stand chosen yet
        for number, stand in ((4, 3), (2, 1), (5, 7)):
            chooser = phone.locator("#chooser form")
            expect(chooser).to_have_attribute(
                "action", reverse("rtable-stand", args=[table.token, number])
            )
            expect(phone.locator("#next-chooser")).to_contain_text(str(number))
            button = phone.locator(f"#chooser button[data-stand='{stand}']")
            box = button.bounding_box()
            assert box is not None and box["height"] >= 44 and box["width"] >= 44
            button.tap()
            taps += 1
            expect(phone.locator(f"tr[data-number='{number}']")).to_contain_text(str(stand))
            if number != 5:  # taken stands are greyed, not offered
                taken = phone.locator(f"#chooser button.stand.taken:has-text('{stand}')")
                expect(taken).to_be_disabled()
        expect(phone.locator("#chooser")).to_have_count(0)
        # A correction before the start: driver 4 takes stand 9 instead of 3.
        fix = phone.locator(
            f"form[action='{reverse('rtable-stand', args=[table.token, 4])}'].stand-fix"
        )
        fix.locator("select").select_option("9")
        fix.locator("button").tap()
        expect(phone.locator("tr[data-number='4']")).to_contain_text("9")

        assert phone.locator("#weather-system").count() == 0  # no "roll for me" before it
        expect(start).to_be_enabled()
        start.tap()  # asks first: one tap never starts a race
        expect(phone.locator(".confirm-step")).to_be_visible()
        assert RaceTable.objects.get(pk=table.pk).started_at is None
        phone.locator("#confirm-action").tap()
        taps += 2
        expect(phone.locator("#started")).to_be_visible()
        assert taps == 5  # one tap per driver's stand, two for the confirmed start
        print(f"stands of 3 drivers and the start: {taps} taps")
        expect(phone.locator("form.stand-fix")).to_have_count(0)  # in ink now
        assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    finally:
        context.close()
    stands = dict(GridSlot.objects.filter(table=table).values_list("driver__number", "stand"))
    assert stands == {4: 9, 2: 1, 5: 7}
    assert RaceTable.objects.get(pk=table.pk).started_at is not None


def test_race_control_undoes_a_table_weather_draw(page: Page, live_server, classified, organiser):
    event, actor = classified, Actor(user=organiser)
    allocation_run(actor=actor, event=event, table_size=3)
    race_weather_draw(actor=actor, event=event, roll=6)  # Monza 5-8: variable
    table = RaceTable.objects.get(event=event, number=2)
    grid = table.slots.order_by("position").values_list("driver__number", flat=True)
    stands_set(actor=actor, table=table, stands={n: stand for stand, n in enumerate(grid, 1)})
    table_start(actor=actor, table=table)  # §3-2-4: the draws come during the race
    table_weather_draw(actor=Actor(table=table), table=table, roll=2)  # rain: wet track
    assert RaceTable.objects.get(pk=table.pk).track == "wet"

    allocation = reverse("allocation", args=[event.slug])
    page.goto(f"{live_server.url}{reverse('login')}?next={allocation}")
    page.fill("input[name='username']", "pc")
    page.fill("input[name='password']", "pc-password-1")
    page.locator("main form button[type='submit']").click()
    page.wait_for_url(f"**{allocation}")

    undo = page.locator(
        f"#table-2 form[action='{reverse('race-weather-undo', args=[event.slug, 2])}']"
    )
    expect(undo).to_be_visible()
    undo.locator("input[name='reason']").fill("Personne n'avait fait 20 en 5e")
    undo.locator("button[type='submit']").click()

    expect(page.locator("#table-2")).to_contain_text("Personne n'avait fait 20 en 5e")
    expect(page.locator("#table-2 .table-draws li.undone")).to_have_count(1)
    expect(undo).to_have_count(0)  # nothing left to undo
    draw = WeatherDraw.objects.get(table=table)
    assert draw.undone_at is not None and draw.undone_by == "pc"
    assert RaceTable.objects.get(pk=table.pk).track == "dry"


_OVERLAP = """(selector) => {
  const box = document.getElementById("messages"), it = document.querySelector(selector);
  if (!box || !it) return null;
  const a = box.getBoundingClientRect(), b = it.getBoundingClientRect();
  return a.bottom > b.top && b.bottom > a.top && a.right > b.left && b.right > a.left;
}"""


def test_messages_never_cover_what_they_are_about_on_a_phone(
    browser: Browser, live_server, classified, organiser
):
    """Issue 32, item 6: the bar of messages stuck over the top of the page hid the name of
    the driver whose configuration was refused. It stands in the page beside it; one the
    page also says in place (the referee's name in its label) goes by itself."""
    event = classified
    Event.objects.filter(pk=event.pk).update(use_configurations=True)
    allocation_run(actor=Actor(user=organiser), event=event, table_size=3)
    table = RaceTable.objects.get(event=event, number=1)  # grid 4, 2, 5
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    try:
        phone = context.new_page()
        phone.goto(f"{live_server.url}{reverse('rtable', args=[table.token])}")
        phone.locator("#referee-name").fill("Zoé")
        phone.locator("form.referee-name button").tap()
        expect(phone.locator("#messages .flash.said-in-place")).to_have_count(1)
        expect(phone.locator("#messages .flash")).to_have_count(0, timeout=20_000)

        row = phone.locator("#config-4")
        for index in range(row.locator(".config-parts input").count()):
            row.locator(".config-parts input").nth(index).fill("1")  # 6 of 22: refused
        row.locator("button[type=submit]").tap()
        expect(phone.locator("#messages .flash.error")).to_be_visible()
        phone.wait_for_load_state("load")  # the browser's jump to #config-4 is done, then
        phone.evaluate(
            "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
        )
        assert phone.evaluate(_OVERLAP, "#config-4 .name") is False
        assert phone.evaluate(_OVERLAP, "#configurations h2") is False
        for shown in ("#messages", "#config-4 .name"):  # both on the screen
            box = phone.locator(shown).bounding_box()
            assert box is not None and box["y"] >= -1 and box["y"] + box["height"] <= 844
    finally:
        context.close()
