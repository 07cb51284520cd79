"""The referee's page of a finishing-order table on a 390×844 phone, in real Chromium: the
drivers tapped in crossing order fill their places, a retirement's lap and note typed, the
sheet sent; no control under 44 px, nothing wider than the screen, no axe violation."""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import Browser, expect

from races.grid.services import allocation_run
from races.models import RaceResult, RaceTable
from tests.browser.phone import VIEWPORT, page_width, small_targets
from tests.browser.test_accessibility import axe_violations
from tournament.access import Actor

pytestmark = pytest.mark.django_db(transaction=True)


def test_referee_taps_the_crossing_order_on_a_phone(
    browser: Browser, live_server, make_event, organiser
):
    event = make_event(4, slug="heat", game="finishing_order", game_name="Heat", grid="rating")
    allocation_run(actor=Actor(user=organiser), event=event, table_size=4)
    table = RaceTable.objects.get(event=event, number=1)
    context = browser.new_context(viewport=VIEWPORT, bypass_csp=True)
    try:
        page = context.new_page()
        page.goto(live_server.url + reverse("rtable", args=[table.token]))
        expect(page.locator("#tap-order")).to_be_visible()
        for number in (3, 1, 4):
            page.locator(f".fo-tap-driver[data-driver='{number}']").click()
        expect(page.locator("input[name='place-4']")).to_have_value("3")
        page.locator(".fo-tap-driver[data-driver='1']").click()  # out of the order again
        expect(page.locator("input[name='place-4']")).to_have_value("2")
        page.locator(".fo-tap-driver[data-driver='1']").click()
        expect(page.locator("input[name='lap-2']")).to_be_hidden()
        page.select_option("select[name='out-2']", "retired")
        page.fill("input[name='lap-2']", "1")
        page.fill("input[name='note-2']", "out of heat cards")
        assert small_targets(page, "main") == []
        assert page_width(page) <= VIEWPORT["width"]
        assert axe_violations(page) == []
        page.locator("#submit").click()
        expect(page.locator(".result-state")).to_have_class("result-state status-submitted")
    finally:
        context.close()
    result = RaceResult.objects.get(table=table)
    assert (result.finish, result.dns) == ([3, 4, 1], [])
    assert result.retired == [
        {"driver": 2, "cause": "other", "lap": 1, "note": "out of heat cards"}
    ]
