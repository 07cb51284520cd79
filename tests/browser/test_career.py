"""A player's career on a 390 px phone in real Chromium, JavaScript off: the rating chart is
drawn by the server, fits the screen, and its labels stay readable (issue 22)."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from django.urls import reverse
from playwright.sync_api import Browser

from tests.browser.test_accessibility import axe_violations
from tournament.models import Driver, Entry, Player, PlayerRating, RatingPoint

pytestmark = pytest.mark.django_db(transaction=True)

PHONE = {"width": 390, "height": 844}
#: A real name, long and without a space to break at, and markup in it.
LONG = ("Maximilien-Alexandre", "Wolfeschlegelsteinhausenbergerdorff-<b>Colombe</b>")


@pytest.fixture
def career(make_event) -> Player:
    """Forty tables of a long-named player, the rating climbing from below zero."""
    event = make_event(n_drivers=2, qualifying_mode="draw", laps=2)
    event.published_results = True
    event.save()
    player = Player.objects.create(first_name=LONG[0], last_name=LONG[1])
    Driver.objects.filter(championship=event.championship, number=1).update(
        first_name=LONG[0], last_name=LONG[1], player=player
    )
    assert Entry.objects.filter(event=event).exists()
    for seq in range(1, 41):
        mu, sigma = 25 + seq * 0.3, max(2.0, 8.3 - seq * 0.2)
        RatingPoint.objects.create(
            player=player, family="formula_de", seq=seq, event=event, table_number=1 + seq % 3,
            place=1 + seq % 4, mu=mu, sigma=sigma, rating=mu - 3 * sigma,
        )  # fmt: skip
    PlayerRating.objects.create(
        player=player, family="formula_de", mu=mu, sigma=sigma, rating=mu - 3 * sigma, races=40
    )
    assert event.date == datetime.date(2026, 7, 14)
    return player


def test_the_career_chart_fits_a_phone_without_javascript(
    career: Player, live_server: Any, browser: Browser
) -> None:
    context = browser.new_context(viewport=PHONE, java_script_enabled=False, locale="fr-FR")
    page = context.new_page()
    try:
        page.goto(live_server.url + reverse("career", args=[career.pk]), wait_until="load")
        extra = page.evaluate(
            "Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)"
            " - window.innerWidth"
        )
        assert extra <= 0, f"{extra} px too wide"
        chart = page.locator("section.rating svg")
        assert chart.is_visible()
        box = chart.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
        assert page.locator("section.rating svg circle").count() == 40
        assert page.locator("section.rating svg .rating-line").count() == 1
        # The labels are drawn at a size a phone can read (the viewBox is about one pixel a
        # unit at this width).
        label = page.locator("section.rating svg .axis text").first.bounding_box()
        assert label is not None and label["height"] >= 9
        heading = page.locator("h1").inner_text()
        assert heading == f"{LONG[0]} {LONG[1]}"  # the markup shown as text
    finally:
        context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_career_page_passes_axe(
    career: Player, live_server: Any, browser: Browser, scheme: str
) -> None:
    """WCAG 2 A/AA (axe-core), the chart's title and description and its colours included."""
    context = browser.new_context(viewport=PHONE, color_scheme=scheme, bypass_csp=True)
    page = context.new_page()
    try:
        page.goto(live_server.url + reverse("career", args=[career.pk]), wait_until="load")
        assert axe_violations(page) == []
    finally:
        context.close()
