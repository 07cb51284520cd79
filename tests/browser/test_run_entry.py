"""A referee enters runs in real Chromium: with the keyboard alone on a laptop, and with a
thumb on a 390×844 touch phone, where no entry can go silently wrong (issue 12): "1,48" is
refused with both readings, a run without tyres is refused, an unsaved edit says so and
survives a reload and a lost connection, a save cannot go twice, and once the race tables
exist the link gets the closed page.

Pages are in French by default; the selectors use names and ids, the texts are French.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from qualifying.models import QualifyingSeat, QualifyingSession, QualifyingTable, Run
from races.grid.services import allocation_run
from tests.browser.phone import page_width, small_targets
from tournament.access import Actor
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


@pytest.fixture
def phone(browser: Browser):
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    yield context
    context.close()


def url(live_server, table) -> str:
    return f"{live_server.url}/q/{table.token}/?session=1"


def box(page: Page, number: int, name: str):
    return page.locator(f"#run-{number} input[name='d{number}-{name}']")


# --- A laptop, the keyboard alone --------------------------------------------------------------


def test_referee_enters_a_run_with_the_keyboard_and_sees_the_absolute_time(
    page: Page, live_server, table
):
    page.goto(url(live_server, table))
    row = page.locator("#run-1")
    row.locator("input[type=radio]").first.focus()
    page.keyboard.press("t")  # Tendres (soft): a tyre by its first letter
    expect(box(page, 1, "tyres").and_(page.locator("[value=soft]"))).to_be_checked()
    page.keyboard.press("Tab")
    page.keyboard.type("18")
    page.keyboard.press("Tab")
    page.keyboard.type("1'05\"20")
    expect(row.locator(".echo")).to_have_text("= 1 min 05 s 20")
    page.keyboard.press("Tab")  # placement errors: 0 already
    page.keyboard.press("Tab")
    page.keyboard.press("ArrowUp")  # corner-exit squares 0 → 1 → 2
    page.keyboard.press("ArrowUp")
    # Soft tyres on a dry track double the 2 exit squares; 1:05.20 is one full minute.
    expect(row.locator(".absolute")).to_have_text("23")
    expect(row.locator(".breakdown")).to_contain_text("18 jets + 0 placement + 4 sorties + 1 min")
    expect(row.locator("[data-status]")).to_have_text("Non enregistré")
    page.keyboard.press("Enter")
    expect(page.locator("#run-1.saved")).to_be_visible()
    expect(page.locator("#run-1 [data-status]")).to_have_text("✓ Enregistré")
    # The keyboard moves on to the next driver without a run.
    expect(page.locator("#run-2 input[type=radio]").first).to_be_focused()

    run = Run.objects.get(driver__number=1)
    assert (run.tyres, run.throws, run.exit_squares, run.stopwatch_cs) == ("soft", 18, 2, 6520)
    record = run.history.get()
    # Recorded as the table's referee link (no account), in the page's language.
    assert record.history_user is None
    assert record.history_actor == "lien commissaire (Table d’essais 1)"


def test_after_a_save_the_keyboard_skips_drivers_who_already_ran(page: Page, live_server, table):
    Run.objects.create(
        session=table.event.sessions.get(),
        driver=Driver.objects.get(number=2),
        tyres="hard",
        throws=20,
        stopwatch_cs=5000,
    )
    page.goto(url(live_server, table))
    page.locator("#run-1 label.segment").first.click()
    box(page, 1, "throws").fill("19")
    box(page, 1, "stopwatch").fill("0:55")
    box(page, 1, "stopwatch").press("Enter")
    expect(page.locator("#run-1.saved")).to_be_visible()
    expect(page.locator("#run-3 input[type=radio]").first).to_be_focused()


def test_refused_input_keeps_what_was_typed_and_says_why(page: Page, live_server, table):
    page.goto(url(live_server, table))
    page.locator("#run-2 label.segment").nth(1).click()
    box(page, 2, "throws").fill("20")
    box(page, 2, "stopwatch").fill("1:75")
    box(page, 2, "stopwatch").press("Enter")
    expect(page.locator("#run-2.has-errors")).to_be_visible()
    expect(box(page, 2, "stopwatch")).to_have_value("1:75")
    expect(box(page, 2, "throws")).to_have_value("20")
    expect(page.locator("#run-2 .row-messages .error").first).to_be_visible()
    expect(page.locator("#run-2 [data-status]")).to_have_text("Non enregistré")
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


# --- A phone: 390×844, touch --------------------------------------------------------------------


def test_a_decimal_comma_is_refused_with_both_readings_then_accepted_once_confirmed(
    phone, live_server, table
):
    page = phone.new_page()
    page.goto(url(live_server, table))
    row = page.locator("#run-1")
    row.locator("label.segment").nth(0).tap()  # Durs
    box(page, 1, "throws").tap()
    box(page, 1, "throws").press_sequentially("21")
    box(page, 1, "stopwatch").tap()
    box(page, 1, "stopwatch").press_sequentially("1,48")
    # Read back as it is typed: 1.48 s, and the likelier 1:48.
    expect(row.locator(".echo")).to_have_text("= 0 min 01 s 48")
    warning = row.locator(".short .warning")
    expect(warning).to_have_text(
        "«\u00a01,48\u00a0» = 1,48\u00a0s. Vouliez-vous dire 1:48\u00a0? Corrigez-le, ou "
        "confirmez 1,48\u00a0s."
    )
    row.locator("button.save").tap()
    expect(page.locator("#run-1.has-errors")).to_be_visible()
    expect(page.locator("#run-1 .short .warning")).to_contain_text("Vouliez-vous dire 1:48")
    assert not Run.objects.exists()

    page.locator("#run-1 .short label.toggle").tap()  # "1,48 s is right"
    page.locator("#run-1 button.save").tap()
    expect(page.locator("#run-1.saved")).to_be_visible()
    assert Run.objects.get().stopwatch_cs == 148


def test_the_likelier_reading_is_one_tap_away(phone, live_server, table):
    page = phone.new_page()
    page.goto(url(live_server, table))
    row = page.locator("#run-1")
    row.locator("label.segment").nth(2).tap()  # Pluie
    box(page, 1, "throws").fill("21")
    box(page, 1, "stopwatch").fill("1.48")
    row.locator("button[data-fill]").tap()  # "Use 1:48"
    expect(box(page, 1, "stopwatch")).to_have_value("1:48")
    expect(row.locator(".echo")).to_have_text("= 1 min 48 s 00")
    row.locator("button.save").tap()
    expect(page.locator("#run-1.saved")).to_be_visible()
    assert Run.objects.get().stopwatch_cs == 10800


def test_a_run_without_tyres_is_refused(phone, live_server, table):
    page = phone.new_page()
    page.goto(url(live_server, table))
    box(page, 1, "throws").fill("21")
    box(page, 1, "stopwatch").fill("1:02")
    page.locator("#run-1 button.save").tap()
    expect(page.locator("#run-1.has-errors")).to_be_visible()
    expect(page.locator("#run-1 .row-messages")).to_contain_text("Choisissez les pneus")
    assert not Run.objects.exists()


def test_an_unsaved_edit_says_so_and_survives_a_reload(phone, live_server, table):
    page = phone.new_page()
    page.goto(url(live_server, table))
    row = page.locator("#run-2")
    row.locator("label.segment").nth(1).tap()
    box(page, 2, "throws").fill("17")
    box(page, 2, "stopwatch").fill("0:58.40")
    page.locator("#run-2 .stepper.exit_squares button[data-step='1']").tap()
    expect(row).to_have_class(re.compile(r"\bunsaved\b"))
    expect(row.locator("[data-status]")).to_have_text("Non enregistré")
    # Not saved looks different from saved: its edge is the warning colour.
    assert row.evaluate("r => getComputedStyle(r).borderLeftColor") == "rgb(180, 83, 9)"

    page.reload()
    row = page.locator("#run-2")
    expect(box(page, 2, "throws")).to_have_value("")
    offer = row.locator(".restore")
    expect(offer).to_be_visible()
    expect(offer).to_contain_text("Saisi sur cet appareil et non enregistré")
    offer.locator("[data-restore]").tap()
    expect(box(page, 2, "throws")).to_have_value("17")
    expect(box(page, 2, "stopwatch")).to_have_value("0:58.40")
    expect(box(page, 2, "exit_squares")).to_have_value("1")
    expect(row.locator("[data-status]")).to_have_text("Non enregistré")
    row.locator("button.save").tap()
    expect(page.locator("#run-2.saved")).to_be_visible()
    run = Run.objects.get()
    assert (run.tyres, run.throws, run.exit_squares, run.stopwatch_cs) == ("soft", 17, 1, 5840)
    # Saved: the device forgets it, a reload offers nothing.
    page.reload()
    expect(page.locator("#run-2 .restore")).to_be_hidden()


def test_a_save_without_connection_is_kept_and_sent_when_the_network_is_back(
    phone, live_server, table
):
    """Issue 31: the row goes into the table's outbox (tests/browser/test_offline.py)."""
    page = phone.new_page()
    page.goto(url(live_server, table))
    row = page.locator("#run-1")
    row.locator("label.segment").nth(0).tap()
    box(page, 1, "throws").fill("22")
    box(page, 1, "stopwatch").fill("1:10")
    phone.set_offline(True)
    row.locator("button.save").tap()
    expect(row.locator("[data-status]")).to_have_text("En attente d’envoi (hors ligne)")
    expect(row).to_have_class(re.compile(r"\bqueued\b"))
    expect(page.locator("#offline-bar .outbox-count")).to_have_text("1 saisie à envoyer")
    # Issue 32, item 8: the message was cut at the card's right edge (one line, no wrap).
    card, said = row.bounding_box(), row.locator("[data-status]").bounding_box()
    assert card is not None and said is not None
    assert said["x"] + said["width"] <= card["x"] + card["width"]
    assert row.locator("[data-status]").evaluate("e => e.scrollWidth <= e.clientWidth")
    expect(box(page, 1, "throws")).to_have_value("22")
    assert not Run.objects.exists()

    phone.set_offline(False)
    expect(page.locator("#run-1.saved")).to_be_visible()
    assert Run.objects.get().throws == 22


def test_the_save_button_cannot_send_twice(phone, live_server, table):
    page = phone.new_page()
    page.goto(url(live_server, table))
    saves = []
    page.on("request", lambda r: saves.append(r.url) if r.url.endswith("/d/1/") else None)
    row = page.locator("#run-1")
    row.locator("label.segment").nth(0).tap()
    box(page, 1, "throws").fill("22")
    box(page, 1, "stopwatch").fill("1:10")
    row.locator("button.save").evaluate("b => { b.click(); b.click(); b.click(); }")
    expect(page.locator("#run-1.saved")).to_be_visible()
    assert len(saves) == 1
    assert Run.objects.get().history.count() == 1


def test_leaving_with_an_unsaved_row_asks_first(phone, live_server, table):
    page = phone.new_page()
    page.goto(url(live_server, table))
    box(page, 3, "throws").fill("30")
    asked = []
    page.on("dialog", lambda dialog: (asked.append(dialog.type), dialog.dismiss()))
    page.close(run_before_unload=True)
    page.wait_for_timeout(300) if not page.is_closed() else None
    assert asked == ["beforeunload"]


def test_a_run_fits_half_a_phone_screen_and_every_target_takes_a_thumb(phone, live_server, table):
    page = phone.new_page()
    page.goto(url(live_server, table))
    assert page_width(page) <= 390
    assert page.locator("#run-1").bounding_box()["height"] <= 844 / 2
    small = small_targets(page, "#runs form.run-row:first-of-type")
    assert small == []


def test_the_link_gets_the_closed_page_after_the_allocation(phone, live_server, table, organiser):
    table.event.championship.organisers.add(organiser)
    allocation_run(actor=Actor(user=organiser), event=table.event, table_size=3)
    page = phone.new_page()
    page.goto(url(live_server, table))
    expect(page.locator(".qualifying-closed")).to_contain_text("Les essais sont clos.")
    expect(page.locator("form.run-row")).to_have_count(0)
    assert page_width(page) <= 390


def test_the_count_of_runs_refreshes_by_itself(phone, live_server, table):
    page = phone.new_page()
    page.clock.install()  # time flows, and the test moves it on by a poll (every 10 s)
    page.goto(url(live_server, table))
    count = page.locator("#entered")
    expect(count).to_have_text("0 essai saisi sur 3")
    # Meanwhile race control enters a run for this table from the desk.
    Run.objects.create(
        session=table.event.sessions.get(),
        driver=Driver.objects.get(number=3),
        tyres="hard",
        throws=20,
        stopwatch_cs=5000,
    )
    page.clock.fast_forward(10_000)
    expect(count).to_have_text("1 essai saisi sur 3")
