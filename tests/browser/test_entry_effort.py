"""How much a referee's thumb does on a 390×844 touch phone: taps and keystrokes for one
qualifying run and for a 10-driver race result, counted while Chromium does them.

Every action goes through ``Effort``, which counts it: a tap on a control, a key typed, a
native select opened and an option chosen (two taps). The counts are printed (``-s``) and
held to what they are, so that a change that makes entry longer fails here (and one
that makes it shorter updates the figures, the issue's closing note).
"""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import Browser, Locator, Page, expect

from qualifying.models import QualifyingSeat, QualifyingSession, QualifyingTable, Run
from qualifying.services import draw_record
from races.grid.services import allocation_run
from races.models import RaceResult, RaceTable
from tournament.access import Actor
from tournament.models import Driver

pytestmark = pytest.mark.django_db(transaction=True)


class Effort:
    """Counts what a thumb does."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.taps = 0
        self.keys = 0

    def tap(self, target: Locator) -> None:
        target.tap()
        self.taps += 1

    def type(self, target: Locator, text: str) -> None:
        """Tap a box, then type ``text`` one key at a time."""
        self.tap(target)
        target.press_sequentially(text)
        self.keys += len(text)

    def choose(self, select: Locator, value: str) -> None:
        """A native select on a phone: one tap opens the list, one tap picks."""
        select.select_option(value)
        self.taps += 2

    def __str__(self) -> str:
        return f"{self.taps} taps, {self.keys} keys"


@pytest.fixture
def phone(browser: Browser):
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    yield context.new_page()
    context.close()


@pytest.fixture
def qualifying_table(make_event):
    event = make_event(n_drivers=3)
    QualifyingSession.objects.create(
        event=event, number=1, roll=15, source="physical", weather="sun", track="dry"
    )
    table = QualifyingTable.objects.create(event=event, number=1)
    for order, driver in enumerate(Driver.objects.order_by("number")):
        QualifyingSeat.objects.create(event=event, table=table, driver=driver, order=order)
    return table


def test_one_qualifying_run_on_a_phone(phone: Page, live_server, qualifying_table):
    """Soft tyres, 18 throws, no placement error, 2 exit squares, 1:05.20.

    Before issue 12: 6 taps and 10 keys, the stopwatch on a text keyboard (":" needs its
    symbols layout). Now: one tap for the tyres puts the thumb in the throws, "+" twice for
    the exit squares, the stopwatch on the decimal pad as 1.05.20.
    """
    phone.goto(f"{live_server.url}/q/{qualifying_table.token}/?session=1")
    row = phone.locator("#run-1")
    effort = Effort(phone)
    effort.tap(row.locator("label.segment").nth(1))  # Tendres
    throws = row.locator("input[name='d1-throws']")
    expect(throws).to_be_focused()
    throws.press_sequentially("18")
    effort.keys += 2
    plus = row.locator(".stepper.exit_squares button[data-step='1']")
    effort.tap(plus)
    effort.tap(plus)
    stopwatch = row.locator("input[name='d1-stopwatch']")
    assert stopwatch.get_attribute("inputmode") == "decimal"  # digits and ".", no layout switch
    effort.type(stopwatch, "1.05.20")
    effort.tap(row.locator("button.save"))
    expect(phone.locator("#run-1.saved")).to_be_visible()
    run = Run.objects.get(driver__number=1)
    assert (run.tyres, run.throws, run.exit_squares, run.stopwatch_cs) == ("soft", 18, 2, 6520)
    print(f"\nqualifying run on a phone: {effort}")
    assert (effort.taps, effort.keys) == (5, 9)


@pytest.fixture
def race_table(make_event, organiser):
    actor = Actor(user=organiser)
    event = make_event(n_drivers=10, qualifying_mode="draw", separate_teams=False)
    draw_record(actor=actor, event=event, rolls={n: [n] for n in range(1, 11)})
    allocation_run(actor=actor, event=event, table_size=10)
    return RaceTable.objects.get(event=event, number=1)


def test_a_ten_driver_result_on_a_phone(phone: Page, live_server, race_table):
    """Eight finishers (crossing order 3 1 2 5 4 6 8 7), 9 off track in lap 2, 10 did not
    start; saved, then sent to race control.

    Before issue 12: 17 taps and 1 key (a retirement and a non-starter each took the
    select's two taps). Now one tap each ("Retired", "Did not start").
    """
    phone.goto(live_server.url + reverse("result-entry", args=[race_table.token]))
    effort = Effort(phone)
    for number in (3, 1, 2, 5, 4, 6, 8, 7):
        effort.tap(phone.locator(f"#driver-{number} button.next-place"))
    effort.tap(phone.locator("#driver-9 button[data-outcome='retired']"))
    effort.choose(phone.locator("select[name='d9-cause']"), "off_track")
    effort.type(phone.locator("input[name='d9-lap']"), "2")
    effort.tap(phone.locator("#driver-10 button[data-outcome='dns']"))
    effort.tap(phone.locator("#save-draft"))
    expect(phone.locator(".result-state.status-draft")).to_be_visible()
    effort.tap(phone.locator("#submit-result"))
    expect(phone.locator(".result-state.status-submitted")).to_be_visible()
    result = RaceResult.objects.get(table=race_table)
    assert result.finish == [3, 1, 2, 5, 4, 6, 8, 7]
    assert result.retired == [{"driver": 9, "cause": "off_track", "lap": 2, "note": ""}]
    assert result.dns == [10]
    print(f"\n10-driver result on a phone: {effort}")
    assert (effort.taps, effort.keys) == (15, 1)
