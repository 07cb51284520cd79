"""Sign-up on a phone in real Chromium (390×844), in French (the longer words) and
English: the form fits the screen, its controls are 44 px touch targets, a person signs up,
confirms by the mail's button and reads their own page; a long unbreakable name fits."""

from __future__ import annotations

import datetime
import re
from typing import Any

import pytest
from django.utils import timezone
from playwright.sync_api import Browser

from tests.browser.phone import VIEWPORT, page_width, small_targets
from tournament.signup import mails
from tournament.signup.models import Announcement, Mail

pytestmark = pytest.mark.django_db(transaction=True)

LONG = "Wolfeschlegelsteinhausenbergerdorff"


def test_sign_up_confirm_and_own_page_fit_a_phone(
    live_server: Any, browser: Browser, make_event
) -> None:
    event = make_event(n_drivers=0)
    Announcement.objects.create(
        event=event,
        capacity=1,
        place="Salle polyvalente, 12 avenue du Général-de-Gaulle",
        schedule=[{"time": "09:30", "label": "Accueil des pilotes et vérification"}],
        opens_at=timezone.now() - datetime.timedelta(days=1),
    )
    for language, button, confirm, status in (
        ("fr", "S’inscrire", "Confirmer mon inscription", "Vous êtes inscrit."),
        # The one seat taken by then: the button says where the sign-up leads (issue 40).
        (
            "en",
            "Join the waiting list",
            "Confirm my registration",
            "You are n° 1 on the waiting list.",
        ),
    ):
        context = browser.new_context(viewport=VIEWPORT, locale=language)
        context.add_cookies(
            [{"name": "django_language", "value": language, "url": live_server.url}]
        )
        page = context.new_page()
        try:
            page.goto(f"{live_server.url}/e/{event.slug}/signup/")
            assert page_width(page) <= VIEWPORT["width"]
            assert small_targets(page, "form.signup-form") == []
            page.fill("input[name=first_name]", "Élodie")
            page.fill("input[name=last_name]", LONG)
            page.fill("input[name=email]", f"{language}@example.org")
            page.check("input[name=consent]")
            page.get_by_role("button", name=button).click()
            page.wait_for_selector("h1")
            mail = Mail.objects.get(to=f"{language}@example.org", kind="confirm")
            text, _html = mails.bodies_as_sent(mail)
            link = re.search(r"(/registrations/confirm/[^/\s]+/)", text).group(1)
            page.goto(live_server.url + link)
            page.get_by_role("button", name=confirm).click()
            page.wait_for_selector(".status")
            assert status in page.locator(".status").inner_text()
            assert page_width(page) <= VIEWPORT["width"]
            assert small_targets(page, "main") == []
        finally:
            context.close()
