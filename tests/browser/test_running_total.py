"""The car configuration's running total on a 390 px phone, in real Chromium: the total
follows the boxes while the referee types (§5-0-2: 22 in all), and a refused total (21)
comes back with the seven values typed and the sum beside them."""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import Browser, expect

from races.grid.services import allocation_run
from races.models import CarConfiguration, RaceTable
from tournament.access import Actor

pytestmark = pytest.mark.django_db(transaction=True)

TYPED = {
    "tyres": "3",
    "brakes": "3",
    "gearbox": "4",
    "body": "3",
    "engine": "4",
    "road_holding": "2",
    "stand_points": "2",
}  # 21: one point short


def test_the_total_runs_while_typing_and_a_refused_one_keeps_every_value(
    browser: Browser, live_server, classified, organiser
):
    event = classified
    event.use_configurations = True
    event.save()
    allocation_run(actor=Actor(user=organiser), event=event, table_size=3)
    table = RaceTable.objects.get(event=event, number=1)  # grid 4, 2, 5
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    try:
        phone = context.new_page()
        phone.goto(f"{live_server.url}{reverse('rtable', args=[table.token])}")
        row = phone.locator("#config-4")
        total = row.locator("output[data-sum-of]")
        for name, value in TYPED.items():
            row.locator(f"input[name='c4-{name}']").fill(value)
        expect(total).to_have_text("Total 21 / 22")
        expect(total).to_have_class("sum-off")
        row.locator("input[name='c4-tyres']").fill("4")
        expect(total).to_have_text("Total 22 / 22")
        expect(total).to_have_class("sum-ok")
        row.locator("input[name='c4-tyres']").fill("3")
        row.locator("button[type='submit']").tap()

        expect(phone.locator("#config-4 p.error")).to_contain_text("21")
        for name, value in TYPED.items():
            expect(phone.locator(f"#config-4 input[name='c4-{name}']")).to_have_value(value)
        expect(phone.locator("#config-4 output")).to_have_text("Total 21 / 22")
        assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    finally:
        context.close()
    assert not CarConfiguration.objects.exists()
