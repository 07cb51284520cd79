"""A table's race result in real Chromium: the referee enters it with the keyboard alone and
submits it; race control, watching the results desk (which refreshes by itself), confirms
it; the points are stored and show in the championship standings. Also: the form without
JavaScript, reordering finishers, a stale save, and a phone.

Pages are in French by default; the selectors use names, ids and form actions, not words.
Grid from a d20 draw: eight drivers in number order, tables of 4 → table 1 is 1, 2, 3, 4.
Points scale 10, 8, 6 (the shared fixture).
"""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from playwright.sync_api import Browser, Page, expect

from qualifying.services import draw_record
from races.grid.services import allocation_run
from races.models import RaceResult, RaceTable, ResultLine
from races.results.services import result_save
from tests.browser.phone import VIEWPORT, page_width, small_targets
from tournament.access import Actor

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def event(make_event, organiser):
    actor = Actor(user=organiser)
    event = make_event(n_drivers=8, qualifying_mode="draw", separate_teams=False)
    draw_record(actor=actor, event=event, rolls={n: [n] for n in range(1, 9)})
    allocation_run(actor=actor, event=event, table_size=4)
    return event


def table(event, number: int = 1) -> RaceTable:
    return RaceTable.objects.get(event=event, number=number)


def entry_url(live_server, event, number: int = 1) -> str:
    return live_server.url + reverse("result-entry", args=[table(event, number).token])


def log_in(page: Page, live_server, next_url: str) -> None:
    page.goto(f"{live_server.url}{reverse('login')}?next={next_url}")
    page.fill("input[name='username']", "pc")
    page.fill("input[name='password']", "pc-password-1")
    page.locator("main form button[type='submit']").click()
    page.wait_for_url(f"**{next_url}")


def outcome(page: Page, number: int):
    return page.locator(f"select[name='d{number}-outcome']")


def test_referee_enters_a_table_with_the_keyboard_and_race_control_confirms(
    page: Page, browser: Browser, live_server, event
):
    # Race control watches the desk before anything is entered.
    desk = reverse("results-desk", args=[event.slug])
    log_in(page, live_server, desk)
    expect(page.locator("#table-1")).to_have_attribute("data-status", "empty")

    context = browser.new_context()
    try:
        referee = context.new_page()
        referee.goto(entry_url(live_server, event))
        keys = referee.keyboard
        # The keyboard starts on the pole's result box.
        expect(outcome(referee, 1)).to_be_focused()
        keys.type("2")  # driver 1 crossed the line second
        keys.press("Tab")  # retirement boxes and ▲▼ are out of the way
        expect(outcome(referee, 2)).to_be_focused()
        keys.press("r")  # driver 2 retired → its cause
        cause = referee.locator("select[name='d2-cause']")
        expect(cause).to_be_focused()
        keys.press("ArrowDown")  # off track
        keys.press("Tab")
        keys.type("1")  # in lap 1
        keys.press("Tab")  # note
        keys.press("Tab")  # order in the lap
        keys.press("Tab")
        expect(outcome(referee, 3)).to_be_focused()
        keys.press("+")  # driver 3: the next free place, 1st; the keyboard moves on
        expect(outcome(referee, 4)).to_be_focused()
        keys.press("d")  # driver 4 did not start → the "save draft" button
        expect(referee.locator("#save-draft")).to_be_focused()

        assert outcome(referee, 1).input_value() == "2"
        assert outcome(referee, 3).input_value() == "1"
        assert referee.locator("select[name='d2-cause']").input_value() == "off_track"
        # The summary follows as the referee types (French by default).
        summary = referee.locator("#summary")
        expect(summary).to_contain_text("1er 3 Pilote3 Lefèvre")
        expect(summary).to_contain_text("2e 1 Pilote1 Lefèvre")
        expect(summary).to_contain_text("Sortie de route")
        expect(summary.locator(".summary-unwritten")).to_have_count(0)

        keys.press("Enter")  # save the draft
        submit = referee.locator("#submit-result")
        expect(submit).to_be_focused()  # the draft is whole: Enter again sends it
        assert RaceTable.objects.get(pk=table(event).pk).result_status == "draft"
        keys.press("Enter")
        expect(referee.locator(".result-state")).to_have_class(re.compile("status-submitted"))
    finally:
        context.close()

    result = RaceResult.objects.get(table=table(event))
    assert (result.finish, result.dns) == ([3, 1], [4])
    assert result.retired == [{"driver": 2, "cause": "off_track", "lap": 1, "note": ""}]

    # The desk saw it arrive by itself (htmx polling), then race control confirms.
    row = page.locator("#table-1")
    expect(row).to_have_attribute("data-status", "submitted", timeout=12_000)
    expect(row).to_contain_text("3 Pilote3 Lefèvre")
    row.locator(f"form[action='{reverse('result-confirm', args=[event.slug, 1])}'] button").click()
    expect(page.locator("#table-1")).to_have_attribute("data-status", "confirmed")

    lines = list(
        ResultLine.objects.filter(table=table(event))
        .order_by("position")
        .values_list("driver__number", "position", "status", "points")
    )
    assert lines == [
        (3, 1, "finished", 10),
        (1, 2, "finished", 8),
        (2, 3, "retired", 0),
        (4, 4, "dns", 0),
    ]
    # The championship standings (the organiser sees confirmed results before publication).
    standings = live_server.url + reverse("standings", args=[event.championship.slug])
    page.goto(standings)
    for number, total in ((3, "10"), (1, "8"), (2, "0"), (4, "0")):
        expect(page.locator(f"#standings tr[data-number='{number}'] td.total")).to_have_text(
            re.compile(rf"^\s*{total}\s*$")
        )

    # A player's phone sees nothing of it until race control publishes the results.
    phone = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        player = phone.new_page()
        player.goto(standings)
        expect(player.locator("#standings tr[data-number='3']")).to_have_count(0)

        page.goto(live_server.url + reverse("event-desk", args=[event.slug]) + "#publish")
        publish = page.locator("#publish form")
        publish.locator("input[name='results']").check()
        publish.locator("button[type='submit']").click()
        expect(page.locator("#publish input[name='results']")).to_be_checked()

        player.reload()
        for number, total in ((3, "10"), (1, "8"), (2, "0"), (4, "0")):
            cell = player.locator(f"#standings tr[data-number='{number}'] td.total")
            expect(cell).to_have_text(re.compile(rf"^\s*{total}\s*$"))
    finally:
        phone.close()


def test_a_place_already_taken_makes_room_and_arrows_reorder(page: Page, live_server, event):
    page.goto(entry_url(live_server, event))
    outcome(page, 1).select_option("1")
    outcome(page, 2).select_option("2")
    outcome(page, 3).select_option("3")
    # Driver 4 actually won: the others move down one place each.
    outcome(page, 4).select_option("1")
    assert [outcome(page, n).input_value() for n in (1, 2, 3, 4)] == ["2", "3", "4", "1"]
    # ▲ on driver 3 swaps it with driver 2, nothing is sent.
    page.locator("#driver-3 button.move").first.click()
    assert [outcome(page, n).input_value() for n in (1, 2, 3, 4)] == ["2", "4", "3", "1"]
    # The arrow key in a finisher's box moves it too.
    outcome(page, 4).focus()
    page.keyboard.press("ArrowDown")
    assert [outcome(page, n).input_value() for n in (1, 2, 3, 4)] == ["1", "4", "3", "2"]
    expect(page.locator("#summary")).to_contain_text("1er 1 Pilote1 Lefèvre")
    expect(page.locator("#summary")).to_contain_text("4e 2 Pilote2 Lefèvre")
    assert not RaceResult.objects.exists()
    # Enter in a result box saves the draft as shown.
    page.keyboard.press("Enter")
    expect(page.locator(".result-state")).to_have_class(re.compile("status-draft"))
    assert RaceResult.objects.get(table=table(event)).finish == [1, 4, 3, 2]


def test_the_sheet_works_without_javascript(browser: Browser, live_server, event):
    context = browser.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(entry_url(live_server, event))
        # Every box is there at once, as on the paper sheet.
        expect(page.locator("select[name='d2-cause']")).to_be_visible()
        outcome(page, 1).select_option("1")
        outcome(page, 2).select_option("2")
        outcome(page, 3).select_option("retired")
        page.locator("select[name='d3-cause']").select_option("engine")
        page.fill("input[name='d3-lap']", "3")
        outcome(page, 4).select_option("dns")
        # Enter in a box saves a draft (not a move, though ▲▼ come first in the form).
        page.press("input[name='d3-lap']", "Enter")
        expect(page.locator(".result-state")).to_have_class(re.compile("status-draft"))
        assert RaceResult.objects.get(table=table(event)).finish == [1, 2]
        # ▼ on driver 1 posts the form and comes back reordered, saving nothing.
        page.locator("#driver-1 button.move").nth(1).click()
        expect(outcome(page, 1)).to_have_value("2")
        expect(outcome(page, 2)).to_have_value("1")
        assert RaceResult.objects.get(table=table(event)).version == 1

        page.locator("#submit-result").click()
        expect(page.locator(".result-state")).to_have_class(re.compile("status-submitted"))
    finally:
        context.close()
    result = RaceResult.objects.get(table=table(event))
    assert (result.finish, result.dns) == ([2, 1], [4])
    assert result.retired == [{"driver": 3, "cause": "engine", "lap": 3, "note": ""}]


def test_a_stale_save_keeps_what_the_referee_typed(page: Page, live_server, event, organiser):
    page.goto(entry_url(live_server, event))
    outcome(page, 1).select_option("1")
    outcome(page, 2).select_option("2")
    # Meanwhile race control writes a draft of its own.
    result_save(
        actor=Actor(user=organiser),
        table=table(event),
        version=0,
        finish=[2, 1],
        retired=[],
        dns=[],
        submit=False,
    )
    page.locator("#save-draft").click()

    expect(page.locator(".result-stale")).to_be_visible()
    expect(outcome(page, 1)).to_have_value("1")
    expect(outcome(page, 2)).to_have_value("2")
    page.locator("#save-draft").click()  # checked: save again over it
    expect(page.locator(".result-stale")).to_have_count(0)
    assert RaceResult.objects.get(table=table(event)).finish == [1, 2]


def test_the_pages_fit_a_phone(browser: Browser, live_server, event, organiser):
    result_save(
        actor=Actor(user=organiser),
        table=table(event),
        version=0,
        finish=[3, 1],
        retired=[{"driver": 2, "cause": "engine", "lap": 2}],
        dns=[],
        submit=False,
    )
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    try:
        phone = context.new_page()
        phone.goto(entry_url(live_server, event))
        expect(phone.locator("#driver-2 select[name='d2-cause']")).to_be_visible()
        expect(phone.locator("#driver-1 select[name='d1-cause']")).to_be_hidden()
        # Tap "finished" for driver 4: the next free place.
        phone.locator("#driver-4 button.next-place").tap()
        expect(outcome(phone, 4)).to_have_value("3")
        assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    finally:
        context.close()


# --- Digits, on a keyboard; a thumb, on a phone (issue 12) ------------------------------------


@pytest.fixture
def ten(make_event, organiser):
    """A table of ten (drivers 1-10 in grid order): places go up to 10th."""
    actor = Actor(user=organiser)
    event = make_event(n_drivers=10, qualifying_mode="draw", separate_teams=False, slug="dix")
    draw_record(actor=actor, event=event, rolls={n: [n] for n in range(1, 11)})
    allocation_run(actor=actor, event=event, table_size=10)
    return event


def places_in_selects(page: Page) -> dict[str, str]:
    """{place: driver number} as the result boxes show it."""
    found = {}
    for number in range(1, 11):
        value = outcome(page, number).input_value()
        if value.isdigit():
            found[value] = str(number)
    return found


def places_in_summary(page: Page) -> dict[str, str]:
    """{place: driver number} as the summary says it ("1er 3 Pilote3 Lefèvre")."""
    found = {}
    for finisher in page.locator("#summary .finisher").all_inner_texts():
        place, number = finisher.split()[:2]
        found[re.sub(r"\D", "", place)] = number
    return found


def test_digits_are_places_and_the_summary_always_agrees(page: Page, live_server, ten):
    page.goto(entry_url(live_server, ten))
    keys = page.keyboard
    outcome(page, 1).focus()
    keys.type("1")
    expect(outcome(page, 1)).to_have_value("1")
    keys.type("1")  # "1" again on a box showing 1st: still 1st, never 10th
    expect(outcome(page, 1)).to_have_value("1")
    keys.press("Tab")
    page.wait_for_timeout(1100)  # a new place, not a second digit of the first
    keys.type("10")  # two digits in a row: 10th
    expect(outcome(page, 2)).to_have_value("10")
    keys.press("Tab")
    keys.type("2")
    keys.press("Tab")
    keys.type("1")  # 1st is taken: driver 1 makes room (2nd), driver 3 (2nd) goes 3rd
    expect(outcome(page, 4)).to_have_value("1")
    assert places_in_selects(page) == {"1": "4", "2": "1", "3": "3", "10": "2"}
    expect(page.locator("#summary .finisher")).to_have_count(4)
    expect(page.locator("#summary")).to_contain_text("1er 4 Pilote4")
    assert places_in_summary(page) == places_in_selects(page)
    keys.press("Enter")  # saves the draft as shown
    expect(page.locator(".result-state")).to_have_class(re.compile("status-draft"))
    assert RaceResult.objects.get(table=table(ten)).finish == [4, 1, 3, 2]


def test_the_result_entry_takes_a_thumb(browser: Browser, live_server, ten):
    context = browser.new_context(viewport=VIEWPORT, is_mobile=True, has_touch=True)
    try:
        phone = context.new_page()
        phone.goto(entry_url(live_server, ten))
        assert small_targets(phone, "#result-sheet") == []
        assert page_width(phone) <= 390
        for number in (3, 1, 2):
            phone.locator(f"#driver-{number} button.next-place").tap()
        expect(phone.locator("#summary .finisher")).to_have_count(3)
        assert (
            places_in_summary(phone) == places_in_selects(phone) == {"1": "3", "2": "1", "3": "2"}
        )
    finally:
        context.close()


def test_an_unsaved_result_says_so_survives_a_reload_and_is_forgotten_once_saved(
    page: Page, live_server, event
):
    page.goto(entry_url(live_server, event))
    note = page.locator("#result-sheet .unsaved-note")
    expect(note).to_be_hidden()
    outcome(page, 1).select_option("2")
    outcome(page, 3).select_option("dns")
    expect(note).to_have_text("Non enregistré : cette saisie n’est que sur cet appareil.")
    assert page.locator("#result-sheet").evaluate("f => f.classList.contains('unsaved')")
    # Leaving asks first.
    asked = []
    page.on("dialog", lambda dialog: (asked.append(dialog.type), dialog.accept()))
    page.reload()
    assert asked == ["beforeunload"]
    # Back from the server: nothing saved there, what was typed is offered back.
    expect(outcome(page, 1)).to_have_value("")
    offer = page.locator("#result-sheet .restore")
    expect(offer).to_contain_text("Saisi sur cet appareil et non enregistré")
    offer.locator("[data-restore]").click()
    expect(outcome(page, 1)).to_have_value("2")
    expect(outcome(page, 3)).to_have_value("dns")
    expect(note).to_be_visible()
    # Only the boxes come back: each ▲/▼ still moves its own driver.
    expect(page.locator("#driver-1 button.move").first).to_have_attribute("value", "1:up")
    expect(page.locator("#driver-3 button.move").last).to_have_attribute("value", "3:down")
    assert not RaceResult.objects.exists()

    page.locator("#save-draft").click()
    expect(page.locator(".result-state")).to_have_class(re.compile(r"status-draft"))
    expect(note).to_be_hidden()
    stored = RaceResult.objects.get(table=table(event))
    assert stored.version == 1 and 3 in stored.dns
    # Saved: the device forgets it, a reload offers nothing and asks nothing.
    asked.clear()
    page.reload()
    assert asked == []
    expect(page.locator("#result-sheet .restore")).to_be_hidden()
    assert (
        page.evaluate(
            "() => Object.keys(localStorage).filter(k => k.startsWith('paddock:result:'))"
        )
        == []
    )


def test_the_desk_keeps_the_keyboard_when_a_refresh_was_already_on_its_way(
    page: Page, live_server, event
):
    """The results desk refreshes itself every 5 s and waits while the keyboard is inside it
    (paddock.js). A refresh sent just before race control tabbed in must not take the focus
    either: its answer is dropped, and the first refresh after the focus has left swaps."""
    page.clock.install()  # the desk's polls, moved on by the test instead of awaited
    desk = reverse("results-desk", args=[event.slug])
    log_in(page, live_server, desk)
    held = []  # the first refresh, kept on its way until the link has the focus

    def hold_the_first(route) -> None:
        if held:
            route.continue_()
        else:
            held.append(route)

    page.route(lambda url: "part=status" in url, hold_the_first)
    status = page.locator("#desk-status")
    status.evaluate("block => { block.dataset.mark = 'before'; }")
    page.evaluate(
        "() => document.addEventListener('htmx:beforeSwap', () => { window.answered = true; })"
    )
    page.clock.fast_forward(5_000)  # a refresh is sent …
    for _ in range(400):  # a state, bounded: Playwright hands the route over while it waits
        if held:
            break
        page.wait_for_timeout(25)
    assert held, "the desk sent no refresh"
    link = page.locator("#table-1 a[href*='/history/']")
    link.focus()  # … and race control tabs into the desk before its answer comes
    held[0].continue_()
    page.wait_for_function("() => window.answered === true")
    expect(link).to_be_focused()
    expect(page.locator("#desk-status[data-mark='before']")).to_have_count(1)

    link.blur()
    page.clock.fast_forward(5_000)
    expect(page.locator("#desk-status[data-mark='before']")).to_have_count(0)
    expect(page.locator("#table-1")).to_have_attribute("data-status", "empty")
