"""The desk on a 390 px phone, in real Chromium: every button a thumb's height (44 px),
and one tap on "✓ Présent" never un-checks a driver (undoing is a button of its own)."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from playwright.sync_api import Browser, expect

from tournament.models import Entry

pytestmark = pytest.mark.django_db(transaction=True)


def test_desk_buttons_are_44_px_and_present_is_not_a_toggle(
    browser: Browser, live_server, classified, organiser
):
    event = classified
    client = Client()
    client.force_login(organiser)
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
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
        phone.goto(f"{live_server.url}{reverse('event-desk', args=[event.slug])}")
        heights = phone.eval_on_selector_all(
            "main button",
            "all => all.filter(b => b.getClientRects().length)"
            ".map(b => [b.textContent.trim(), b.getBoundingClientRect().height])",
        )
        assert heights and all(height >= 44 for _text, height in heights), heights

        row = phone.locator("form.checkin", has=phone.locator("button[value='present']")).first
        action = row.get_attribute("action")
        row.locator("button[value='present']").tap()
        mark = phone.locator(f"form.checkin[action='{action}'] .checkin-state")
        expect(mark).to_have_text("✓ Présent")
        mark.tap()  # a tap on the mark is not an undo
        expect(mark).to_have_text("✓ Présent")
        assert Entry.objects.filter(event=event, checked_in=True).count() == 1
        phone.locator(f"form.checkin[action='{action}'] button[value='none']").tap()
        expect(
            phone.locator(f"form.checkin[action='{action}'] button[value='present']")
        ).to_be_visible()
    finally:
        context.close()
    assert not Entry.objects.filter(event=event, checked_in=True).exists()
