"""Race day in real Chromium: the organiser allocates the tables, swaps two drivers and
downloads every race sheet in one PDF; a player finds their table on a phone.

Pages are in French by default; the selectors use form actions and ids, not words.
"""

from __future__ import annotations

import io
import re

import pytest
from django.urls import reverse
from playwright.sync_api import Browser, Page, expect
from pypdf import PdfReader

from races.grid.services import allocation_run
from races.models import GridSlot, ManualSwap, RaceTable, SheetBatch
from tests.browser.conftest import NAMES
from tournament.access import Actor

pytestmark = pytest.mark.django_db(transaction=True)


# Classified 4, 2, 5, 1, 6, 3: tables of three are [4, 2, 5] and [1, 6, 3].
@pytest.fixture
def event(classified):
    """The six drivers of ``tests/browser/conftest.py``, qualified in its ``ORDER``."""
    return classified


def log_in_and_allocate(page: Page, live_server, event) -> None:
    """The organiser logs in (the shared fixture's password) and allocates tables of 3."""
    allocation = reverse("allocation", args=[event.slug])
    page.goto(f"{live_server.url}{reverse('login')}?next={allocation}")
    page.fill("input[name='username']", "pc")
    page.fill("input[name='password']", "pc-password-1")
    page.locator("main form button[type='submit']").click()
    page.wait_for_url(f"**{allocation}")
    expect(page.locator("article.race-table")).to_have_count(0)

    run = page.locator(f"form[action='{reverse('allocation-run', args=[event.slug])}']")
    run.locator("input[name='table_size']").fill("3")
    run.locator("button[type='submit']").click()

    expect(page.locator("article.race-table")).to_have_count(2)
    expect(page.locator("#table-1 li[data-number]")).to_have_count(3)
    assert grid_on_page(page, 1) == [4, 2, 5]
    assert grid_on_page(page, 2) == [1, 6, 3]


def grid_on_page(page: Page, number: int) -> list[int]:
    items = page.locator(f"#table-{number} li[data-number]")
    return [int(n) for n in items.evaluate_all("els => els.map(e => e.dataset.number)")]


def test_organiser_allocates_and_swaps_two_drivers(page: Page, live_server, event):
    log_in_and_allocate(page, live_server, event)

    swap = page.locator(f"form[action='{reverse('allocation-swap', args=[event.slug])}']")
    swap.locator("input[name='a']").fill("2")
    swap.locator("input[name='b']").fill("6")
    swap.locator("input[name='reason']").fill("Même club")
    swap.locator("button[type='submit']").click()

    # Each grid sorted again by qualifying rank: 6 is 5th, 2 is 2nd.
    expect(page.locator("#table-2 li[data-number='2']")).to_be_visible()
    expect(page.locator("#table-1 li[data-number='6']")).to_be_visible()
    assert grid_on_page(page, 1) == [4, 5, 6]
    assert grid_on_page(page, 2) == [2, 1, 3]
    expect(page.locator("main")).to_contain_text("Même club")
    swap_record = ManualSwap.objects.get()
    assert (swap_record.driver_a.number, swap_record.driver_b.number) == (2, 6)
    assert swap_record.user.username == "pc"


def test_organiser_requests_the_race_sheets_and_downloads_the_pdf(page: Page, live_server, event):
    log_in_and_allocate(page, live_server, event)

    page.locator(
        f"form[action='{reverse('sheet-batch-request', args=[event.slug])}'] "
        "button[name='kind'][value='race']"
    ).click()

    page.wait_for_url(f"**{reverse('sheet-batch', args=[event.slug, 'race'])}")
    download = page.locator(
        f"a[href='{reverse('sheet-batch-download', args=[event.slug, 'race'])}']"
    )
    expect(download).to_be_visible()
    expect(page.locator("#batch-progress progress")).to_have_attribute("value", "100")

    # The logged-in browser context fetches the file behind the link.
    response = page.request.get(live_server.url + download.get_attribute("href"))
    assert response.ok
    assert response.headers["content-type"] == "application/pdf"
    body = response.body()
    assert body.startswith(b"%PDF")
    texts = [p.extract_text() for p in PdfReader(io.BytesIO(body)).pages]
    for number in (1, 2):
        assert any(f"Table {number}" in text for text in texts), number
    everything = "\n".join(texts)
    for first, last in NAMES.values():
        assert f"{first} {last}" in everything
    assert SheetBatch.objects.get().status == "done"


def test_player_finds_their_table_on_a_phone(browser: Browser, live_server, event, organiser):
    allocation_run(actor=Actor(user=organiser), event=event, table_size=3)
    event.published_allocation = True
    event.save()
    assert GridSlot.objects.get(driver__number=3).table == RaceTable.objects.get(number=2)

    context = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    try:
        phone = context.new_page()
        phone.goto(f"{live_server.url}{reverse('where', args=[event.slug])}")
        search = phone.locator("input[type='search'][name='q']")
        expect(search).to_be_focused()  # autofocus: the player types at once
        phone.keyboard.type("lea")
        phone.keyboard.press("Enter")

        seat = phone.locator("article.seat")
        expect(seat).to_have_count(1)
        expect(seat.locator(".seat-table")).to_have_text(re.compile(r"^\s*Table 2\s*$"))
        expect(seat).to_contain_text("3 Léa Morel")
        expect(seat).to_be_in_viewport()
        # Nothing wider than the phone: no sideways scrolling to read the table.
        assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    finally:
        context.close()
