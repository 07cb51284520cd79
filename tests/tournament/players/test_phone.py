"""The players' pages on a 390 px phone, in real Chromium: nothing wider than the screen,
the buttons a thumb's height (44 px), the long names of a real field."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from playwright.sync_api import Browser

from tests.browser.phone import VIEWPORT, small_targets
from tournament.access import Actor
from tournament.models import Championship
from tournament.players.changes import players_merge
from tournament.registration.services import driver_create

pytestmark = pytest.mark.django_db(transaction=True)

LONG = ("Maximilien-Alexandre", "Wolfeschlegelsteinhausenbergerdorff-Sainte-Colombe")


def test_the_players_pages_fit_a_phone(browser: Browser, live_server, organiser):
    actor = Actor(user=organiser)
    drivers = []
    for season in ("2025", "2026"):
        championship = Championship.objects.create(
            slug=f"cf-{season}", name="Coupe de France des clubs de Formula Dé",
            season=season, points_scale=[10, 8, 6],
        )  # fmt: skip
        championship.organisers.add(organiser)
        drivers.append(
            driver_create(
                actor=actor,
                championship=championship,
                number=12,
                first_name=LONG[0],
                last_name=LONG[1],
                email="maximilien.alexandre.wolfeschlegel@example.org",
            )  # fmt: skip
        )
    client = Client()
    client.force_login(organiser)
    context = browser.new_context(viewport=VIEWPORT, is_mobile=True, has_touch=True)
    context.add_cookies(
        [
            {
                "name": settings.SESSION_COOKIE_NAME,
                "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
                "url": live_server.url,
            }
        ]
    )
    try:
        phone = context.new_page()
        phone.goto(live_server.url + reverse("player-matches"))
        assert phone.locator(".player-match").count() == 1
        assert small_targets(phone, "main") == []
        wider = phone.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert wider <= 0, wider

        players_merge(actor=actor, keep=drivers[0].player, other=drivers[1].player)
        for url in (
            reverse("player-changes"),
            reverse("player-split", args=[drivers[0].player_id]),
            reverse("championship-next-season", args=["cf-2026"]),
        ):
            phone.goto(live_server.url + url)
            assert small_targets(phone, "main") == [], url
            wider = phone.evaluate("document.documentElement.scrollWidth - window.innerWidth")
            assert wider <= 0, (url, wider)
            # A checkbox counts by its label: each driver's whole row is the target.
            rows = phone.eval_on_selector_all(
                ".player-split-driver", "all => all.map(r => r.getBoundingClientRect().height)"
            )
            assert all(height >= 44 for height in rows), (url, rows)
    finally:
        context.close()
