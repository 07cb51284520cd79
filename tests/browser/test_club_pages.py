"""A club's pages on a 390 px phone in real Chromium (DOMAIN.md "Clubs and who may do
what"): a new person opens the invitation's link, chooses a username and a password, and
lands on "my clubs", which names the empty club's next step. Both pages fit the screen, their
controls are 44 px touch targets, and axe-core finds nothing (WCAG 2 A/AA)."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from django.utils import timezone
from playwright.sync_api import Browser

from tests.browser.phone import VIEWPORT, page_width, small_targets
from tests.browser.test_accessibility import axe_violations
from tournament import sealing
from tournament.models import Club, Invitation, Membership

pytestmark = pytest.mark.django_db(transaction=True)

SECRET = "browser-invitation-secret"


def test_an_invitation_on_a_phone_lands_on_my_clubs(
    live_server: Any, browser: Browser, django_user_model: Any
) -> None:
    owner = django_user_model.objects.create_user("patronne", password="pw")
    club = Club.objects.create(
        slug="ecurie-des-montagnes-noires", name="Écurie des Montagnes Noires"
    )
    Membership.objects.create(club=club, user=owner, role="owner")
    Invitation.objects.create(
        club=club,
        email="lea@example.org",
        role="owner",
        digest=sealing.link_digest(SECRET),
        invited_by=owner,
        expires_at=timezone.now() + datetime.timedelta(days=7),
    )
    context = browser.new_context(viewport=VIEWPORT, bypass_csp=True)
    context.add_cookies([{"name": "django_language", "value": "en", "url": live_server.url}])
    page = context.new_page()
    try:
        page.goto(f"{live_server.url}/invitations/{SECRET}/", wait_until="load")
        assert "Écurie des Montagnes Noires" in page.locator("h1").inner_text()
        assert page_width(page) <= VIEWPORT["width"]
        assert small_targets(page, "main") == []
        assert axe_violations(page) == []

        page.fill("input[name=username]", "lea")
        page.fill("input[name=password]", "short")
        page.fill("input[name=password_again]", "short")
        page.get_by_role("button", name="Create my account and join").click()
        page.wait_for_selector("[role=alert]")
        assert "too short" in page.locator("main").inner_text()
        assert not Membership.objects.filter(user__username="lea").exists()

        page.fill("input[name=password]", "virage-rapide-2026")
        page.fill("input[name=password_again]", "virage-rapide-2026")
        page.get_by_role("button", name="Create my account and join").click()
        page.wait_for_url(f"{live_server.url}/clubs/")
        main = page.locator("main").inner_text()
        assert "Welcome to Écurie des Montagnes Noires" in main
        assert "create your first championship" in main
        assert page_width(page) <= VIEWPORT["width"]
        assert small_targets(page, "main") == []
        assert axe_violations(page) == []
        assert Membership.objects.get(user__username="lea").role == "owner"
    finally:
        context.close()
