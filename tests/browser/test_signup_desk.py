"""Race control's list of registrations in real Chromium at 1366 px (a laptop at the door),
in French (the longer words): one line a registrant, the rarely used actions behind "Plus"
(issue 40: eight registrants made a 3,928-px page of six or seven stacked controls a row)."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from django.utils import timezone
from playwright.sync_api import Browser

from tournament.signup import services
from tournament.signup.models import Announcement, Registration

pytestmark = pytest.mark.django_db(transaction=True)

LAPTOP = {"width": 1366, "height": 768}
PEOPLE = ["Élodie", "Théo", "Léa", "Hugo", "Zoé", "Jules", "Inès", "Baptiste"]


def test_eight_registrants_fit_a_laptop_screen_one_line_each(
    live_server: Any, browser: Browser, make_event, organiser
) -> None:
    event = make_event(n_drivers=0)
    Announcement.objects.create(
        event=event, capacity=5, opens_at=timezone.now() - datetime.timedelta(days=1)
    )
    now = timezone.now()
    for index, first in enumerate(PEOPLE):
        Registration.objects.create(
            event=event,
            first_name=first,
            last_name="Lefèvre-Marchand",
            email=f"{first.lower()}@example.org",
            licence=f"FR-{index:05d}",
            team="Écurie des Trois Vallées",
            status="accepted" if index < 5 else "waiting",
            confirmed_at=now + datetime.timedelta(seconds=index),
        )
    assert services.accepted_count(event) == 5
    client = Client()
    client.force_login(organiser)
    context = browser.new_context(viewport=LAPTOP, locale="fr")
    context.add_cookies(
        [
            {"name": "django_language", "value": "fr", "url": live_server.url},
            {
                "name": settings.SESSION_COOKIE_NAME,
                "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
                "url": live_server.url,
            },
        ]
    )
    try:
        page = context.new_page()
        page.goto(f"{live_server.url}/e/{event.slug}/desk/registrations/")
        rows = page.eval_on_selector_all(
            "table.registrations tbody tr",
            "rows => rows.map(r => r.getBoundingClientRect().height)",
        )
        assert len(rows) == 8 and max(rows) <= 60, rows
        height = page.evaluate("document.documentElement.scrollHeight")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert height <= 1500 and width <= LAPTOP["width"], (height, width)
        page.locator("table.registrations details.dropdown summary").first.click()
        assert page.get_by_role("button", name="Effacer sur demande").first.is_visible()
    finally:
        context.close()
