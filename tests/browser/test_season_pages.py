"""A club's new circuit on a 390 px phone in real Chromium (DOMAIN.md "Clubs and who may do
what": a club's organiser makes its circuits): the d20 bar follows the six number inputs as
they are typed (static/js/weather_bar.js), a hole is refused in words and nothing is saved,
the page fits the screen with 44 px targets, and axe-core finds nothing (WCAG 2 A/AA)."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from playwright.sync_api import Browser, Page

from tests.browser.phone import VIEWPORT, page_width, small_targets
from tests.browser.test_accessibility import axe_violations
from tournament.models import Circuit, Club, Membership

pytestmark = pytest.mark.django_db(transaction=True)


def kinds(page: Page) -> dict[int, str]:
    """Each face of the bar and its drawn kind (rain, variable, sun, hole, overlap)."""
    return page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('[data-d20-bar] [data-face]')]
             .map(c => [c.dataset.face, c.className.replace('d20-face weather-', '')]))"""
    )


def test_the_circuit_bar_follows_the_ranges_on_a_phone(
    live_server: Any, browser: Browser, django_user_model: Any
) -> None:
    organiser = django_user_model.objects.create_user("orga", password="pw")
    club = Club.objects.create(slug="aix", name="Écurie des Montagnes Noires")
    Membership.objects.create(club=club, user=organiser, role="organiser")
    client = Client()
    client.force_login(organiser)
    context = browser.new_context(viewport=VIEWPORT, bypass_csp=True)
    context.add_cookies(
        [
            {"name": "django_language", "value": "en", "url": live_server.url},
            {
                "name": settings.SESSION_COOKIE_NAME,
                "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
                "url": live_server.url,
            },
        ]
    )
    page = context.new_page()
    try:
        page.goto(f"{live_server.url}/clubs/aix/circuits/new/", wait_until="load")
        drawn = kinds(page)
        assert (drawn["1"], drawn["5"], drawn["20"]) == ("rain", "variable", "sun")
        assert page_width(page) <= VIEWPORT["width"]
        assert small_targets(page, "main") == []
        assert axe_violations(page) == []

        page.fill("input[name=name]", "Circuit des Crêtes")
        page.fill("input[name=variable_from]", "7")  # face 5 and 6 now in no range
        drawn = kinds(page)
        assert (drawn["5"], drawn["6"], drawn["7"]) == ("hole", "hole", "variable")
        page.fill("input[name=sun_from]", "8")  # face 8 in two ranges
        assert kinds(page)["8"] == "overlap"

        page.get_by_role("button", name="Create the circuit").click()
        page.wait_for_selector("[role=alert]")
        alert = page.locator("[role=alert]").inner_text()
        assert "missing: 5, 6." in alert and "in two ranges: 8." in alert
        assert kinds(page)["5"] == "hole"  # the server's bar says it too
        assert not Circuit.objects.exists()
        assert small_targets(page, "main") == []
        assert axe_violations(page) == []

        page.fill("input[name=variable_from]", "5")
        page.fill("input[name=sun_from]", "9")
        page.get_by_role("button", name="Create the circuit").click()
        page.wait_for_url(f"{live_server.url}/circuits/#circuit-circuit-des-cretes")
        assert "Circuit des Crêtes" in page.locator("main").inner_text()
        assert page_width(page) <= VIEWPORT["width"]
        assert axe_violations(page) == []
        assert Circuit.objects.get(slug="circuit-des-cretes").club == club
    finally:
        context.close()
