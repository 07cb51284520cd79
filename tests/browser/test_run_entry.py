"""A referee enters runs with the keyboard alone, in real Chromium, and sees them classified."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from qualifying.models import QualifyingSeat, QualifyingSession, QualifyingTable, Run
from tournament.models import Driver

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def table(make_event):
    event = make_event(n_drivers=3, published_qualifying=True)
    QualifyingSession.objects.create(
        event=event, number=1, roll=15, source="physical", weather="sun", track="dry"
    )
    table = QualifyingTable.objects.create(event=event, number=1, referee_name="Marc Petit")
    for order, driver in enumerate(Driver.objects.order_by("number")):
        QualifyingSeat.objects.create(event=event, table=table, driver=driver, order=order)
    return table


def test_referee_enters_a_run_with_the_keyboard_and_sees_the_absolute_time(
    page: Page, live_server, table
):
    page.goto(f"{live_server.url}/q/{table.token}/?session=1")
    row = page.locator("#run-1")
    row.locator("select").focus()
    page.keyboard.press("ArrowDown")  # hard -> soft
    page.keyboard.press("Tab")
    page.keyboard.type("18")
    page.keyboard.press("Tab")
    page.keyboard.type("0")
    page.keyboard.press("Tab")
    page.keyboard.type("2")
    page.keyboard.press("Tab")
    page.keyboard.type("1'05\"20")
    # Soft tyres on a dry track double the 2 exit squares; 1:05.20 is one full minute.
    expect(row.locator(".absolute")).to_have_text("23")
    expect(row.locator(".breakdown")).to_contain_text("18 + 0 + 4 + 1")
    page.keyboard.press("Enter")
    saved = page.locator("#run-1.saved")
    expect(saved).to_be_visible()
    # The keyboard moves on to the next driver's first field.
    expect(page.locator("#run-2 select")).to_be_focused()

    run = Run.objects.get(driver__number=1)
    assert (run.tyres, run.throws, run.exit_squares, run.stopwatch_cs) == ("soft", 18, 2, 6520)
    record = run.history.get()
    # Recorded as the table's referee link (no account), in the page's language.
    assert record.history_user is None
    assert record.history_actor == "lien commissaire (Table d'essais 1)"


def test_refused_input_keeps_what_was_typed_and_says_why(page: Page, live_server, table):
    page.goto(f"{live_server.url}/q/{table.token}/?session=1")
    row = page.locator("#run-2")
    row.locator("input[name='d2-throws']").fill("20")
    row.locator("input[name='d2-stopwatch']").fill("1:75")
    row.locator("input[name='d2-stopwatch']").press("Enter")
    expect(page.locator("#run-2.has-errors")).to_be_visible()
    expect(page.locator("#run-2 input[name='d2-stopwatch']")).to_have_value("1:75")
    expect(page.locator("#run-2 input[name='d2-throws']")).to_have_value("20")
    expect(page.locator("#run-2 .error").first).to_be_visible()
    assert not Run.objects.exists()


def test_classification_page_shows_the_run_in_its_place(page: Page, live_server, table):
    session = table.event.sessions.get()
    for number, throws in ((1, 25), (2, 19), (3, 22)):
        Run.objects.create(
            session=session,
            driver=Driver.objects.get(number=number),
            tyres="hard",
            throws=throws,
            stopwatch_cs=5000,
        )
    page.goto(f"{live_server.url}/e/{table.event.slug}/qualifying/")
    rows = page.locator("#classification tbody tr")
    expect(rows).to_have_count(3)
    expect(rows.nth(0)).to_have_attribute("data-number", "2")
    expect(rows.nth(0)).to_contain_text("19")
    expect(rows.nth(2)).to_have_attribute("data-number", "1")
