"""The ranking page on a phone in real Chromium (390×844): no wider than the screen with a
long unbreakable name in French (the longer words), the pager's links 44 px touch targets,
and the table read without any JavaScript."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse
from playwright.sync_api import Browser

from standings.ratings.views import PER_PAGE
from tests.browser.test_phone_widths import LONG_NAME, PHONE
from tests.standings.ratings.test_views import rated
from tournament.models import Player

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_ranking_fits_a_phone(live_server: Any, browser: Browser) -> None:
    players = rated(PER_PAGE + 1)
    Player.objects.filter(pk=players[0].pk).update(first_name=LONG_NAME[0], last_name=LONG_NAME[1])
    Player.objects.filter(pk=players[1].pk).update(
        first_name="Marie-Bérénice", last_name="Vandenbroucke de Saint-Exupéry"
    )
    context = browser.new_context(viewport=PHONE, java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto(live_server.url + reverse("ratings", args=["formula_de"]))
        width = page.evaluate(
            "Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)"
        )
        assert width <= PHONE["width"]
        assert page.locator("table.ranking tbody tr").count() == PER_PAGE
        assert LONG_NAME[1] in page.locator("table.ranking tbody tr").first.inner_text()
        # Issue 32, item 4: rank, player and rating in view; the rest behind "All columns";
        # a name of several words wraps at its spaces, never inside a word (the first, one
        # word wider than the column, breaks: it may).
        heads = page.locator("table.ranking thead th")
        assert [heads.nth(i).is_visible() for i in range(heads.count())] == [True] * 3 + [False] * 4
        rating = heads.nth(2).bounding_box()
        assert rating is not None and rating["x"] + rating["width"] <= PHONE["width"]
        broken = page.evaluate(
            """() => [...document.querySelectorAll(
                "table.ranking tr:not(:first-child) td.player a")].flatMap(a => {
                const text = a.firstChild, words = [], range = document.createRange();
                for (const m of text.data.matchAll(/[^\\s-]+/g)) {
                    range.setStart(text, m.index); range.setEnd(text, m.index + m[0].length);
                    if (range.getClientRects().length > 1) words.push(m[0]);
                }
                return words;
            })"""
        )
        assert broken == [], broken
        following = page.locator(".pager a[rel=next]")
        box = following.bounding_box()
        assert box is not None and box["height"] >= 44 and box["width"] >= 44
        following.click()
        assert page.locator("table.ranking tbody tr").count() == 1
        assert "Page 2 sur 2" in page.locator(".pager").inner_text()
    finally:
        context.close()
