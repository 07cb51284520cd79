"""A new club's season from nothing to "sign-up open", in real Chromium, in French, without
``/admin/`` and without a superuser (issue 41, "done when"): a person signed in on a server
whose ``CLUBS_OPEN`` is on makes the club, invites its organiser by mail (the outbox, read
back), who chooses an account on the invitation's page (390 px), then makes the
championship, the circuit, the event and its announcement (1366 px); a stranger's phone
then finds the event open for sign-up. axe-core finds nothing on each page.

Each step's time is printed (``-s``): the closing note of issue 41 quotes them."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from django.utils import timezone
from playwright.sync_api import Browser, Page

from tests.browser.phone import VIEWPORT, page_width, small_targets
from tests.browser.test_accessibility import axe_violations
from tournament.models import Championship, Circuit, Club, Event, Membership
from tournament.signup.models import Announcement

pytestmark = pytest.mark.django_db(transaction=True)

LAPTOP = {"width": 1366, "height": 768}
PASSWORD = "virage-rapide-2026"


def _local(moment: Any) -> str:
    return timezone.localtime(moment).strftime("%Y-%m-%dT%H:%M")


class Steps:
    """The wall time of each step, printed at the end."""

    def __init__(self) -> None:
        self.times: list[tuple[str, float]] = []
        self.last = time.monotonic()

    def done(self, name: str) -> None:
        now = time.monotonic()
        self.times.append((name, now - self.last))
        self.last = now


def _checked(page: Page, *, phone: bool = False) -> None:
    """No page of the walk is the admin's; each fits, and axe finds nothing."""
    assert "/admin/" not in page.url
    if phone:
        assert page_width(page) <= VIEWPORT["width"]
        assert small_targets(page, "main") == []
    assert axe_violations(page) == []


def test_a_new_club_reaches_sign_up_open_without_the_admin(
    live_server: Any, browser: Browser, django_user_model: Any, mailoutbox: Any, settings_: Any
) -> None:
    steps = Steps()
    founder = django_user_model.objects.create_user("patronne", password=PASSWORD)
    client = Client()
    client.force_login(founder)
    url = live_server.url
    owner_context = browser.new_context(viewport=LAPTOP, bypass_csp=True)
    owner_context.add_cookies(
        [
            {
                "name": settings.SESSION_COOKIE_NAME,
                "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
                "url": url,
            }
        ]
    )
    lea_context = browser.new_context(viewport=VIEWPORT, bypass_csp=True)
    stranger = browser.new_context(viewport=VIEWPORT, bypass_csp=True)
    try:
        # 1. The club, made on its page by the person who will own it.
        page = owner_context.new_page()
        page.goto(f"{url}/clubs/", wait_until="load")
        page.locator("main a[href='/clubs/new/']", has_text="Créer un club").click()
        page.wait_for_url(f"{url}/clubs/new/")
        _checked(page)
        page.fill("input[name=name]", "Écurie des Montagnes Noires")
        page.get_by_role("button", name="Créer le club").click()
        page.wait_for_url(re.compile(r"/clubs/#club-"))
        club = Club.objects.get()
        assert Membership.objects.get(club=club, user=founder).role == "owner"
        steps.done("the club")

        # 2. Its organiser invited by mail.
        page.goto(f"{url}/clubs/{club.slug}/people/", wait_until="load")
        _checked(page)
        page.fill("input[name=email]", "lea@example.org")
        page.select_option("select[name=role]", "organiser")
        page.get_by_role("button", name="Envoyer l’invitation").click()
        page.wait_for_url(f"{url}/clubs/{club.slug}/people/")
        (mail,) = [m for m in mailoutbox if "lea@example.org" in m.to]
        link = re.search(r"https?://[^\s\"<>]+/invitations/[^/\s\"<>]+/", mail.body)
        assert link, mail.body
        steps.done("the invitation")

        # 3. On her phone, the organiser chooses her account and lands on "my clubs".
        lea = lea_context.new_page()
        lea.goto(url + link[0][link[0].index("/invitations/") :], wait_until="load")
        _checked(lea, phone=True)
        lea.fill("input[name=username]", "lea")
        lea.fill("input[name=password]", PASSWORD)
        lea.fill("input[name=password_again]", PASSWORD)
        lea.locator("main form button[type=submit]").first.click()
        lea.wait_for_url(f"{url}/clubs/")
        _checked(lea, phone=True)
        assert Membership.objects.get(user__username="lea").role == "organiser"
        steps.done("her account")

        # 4. The championship, from the next step "my clubs" names.
        lea.set_viewport_size(LAPTOP)
        lea.locator("main a", has_text="premier championnat").click()
        _checked(lea)
        lea.fill("input[name=name]", "Coupe des Crêtes")
        lea.fill("input[name=season]", "2027")
        lea.locator("main form button[type=submit]").click()
        championship = Championship.objects.get()
        lea.wait_for_url(f"{url}/c/{championship.slug}/")
        assert championship.club == club and championship.points_scale
        steps.done("the championship")

        # 5. The circuit, from "my clubs".
        lea.goto(f"{url}/clubs/", wait_until="load")
        lea.locator("main a", has_text="Nouveau circuit").click()
        _checked(lea)
        lea.fill("input[name=name]", "Circuit des Crêtes")
        for field, value in {
            "rain_from": "1", "rain_to": "4", "variable_from": "5", "variable_to": "8",
            "sun_from": "9", "sun_to": "20",
        }.items():  # fmt: skip
            lea.fill(f"input[name={field}]", value)
        lea.locator("main form button[type=submit]").click()
        lea.wait_for_url(re.compile(r"/circuits/#circuit-"))
        assert Circuit.objects.get().club == club
        steps.done("the circuit")

        # 6. The event, from the championship's page.
        lea.goto(f"{url}/c/{championship.slug}/", wait_until="load")
        lea.locator("main a", has_text="Nouvelle épreuve").click()
        _checked(lea)
        lea.fill("input[name=name]", "Grand Prix des Crêtes")
        lea.fill("input[name=date]", "2027-05-01")
        lea.select_option("select[name=circuit]", label="Circuit des Crêtes")
        lea.locator("main form button[type=submit]").click()
        lea.wait_for_url(re.compile(r"/e/[^/]+/desk/"))
        event = Event.objects.get()
        steps.done("the event")

        # 7. The desk's first step is the announcement; opened now, for 20 seats.
        lea.locator("#step-signup_announced a").click()
        lea.wait_for_url(f"{url}/e/{event.slug}/desk/announcement/")
        _checked(lea)
        now = timezone.now()
        lea.fill("input[name=capacity]", "20")
        lea.fill("input[name=opens_at]", _local(now - timezone.timedelta(minutes=5)))
        lea.fill("input[name=closes_at]", _local(now + timezone.timedelta(days=20)))
        lea.locator("main form button[type=submit]").click()
        lea.wait_for_load_state("load")
        assert Announcement.objects.get(event=event).capacity == 20
        lea.goto(f"{url}/e/{event.slug}/desk/", wait_until="load")
        assert lea.locator("#step-signup_open").get_attribute("class") == "done"
        steps.done("sign-up open")

        # 8. A stranger's phone finds the event open for sign-up.
        phone = stranger.new_page()
        phone.goto(f"{url}/e/{event.slug}/", wait_until="load")
        phone.locator(f"main a[href='/e/{event.slug}/signup/']").first.click()
        phone.wait_for_url(f"{url}/e/{event.slug}/signup/")
        assert phone.locator("main form input[name=email]").count() == 1
        _checked(phone, phone=True)
        steps.done("a player's phone")
    finally:
        for context in (owner_context, lea_context, stranger):
            context.close()
    assert not django_user_model.objects.filter(is_superuser=True).exists()
    assert not django_user_model.objects.filter(is_staff=True).exists()
    print("\n".join(f"{name}: {seconds:.1f} s" for name, seconds in steps.times))


@pytest.fixture
def settings_(settings: Any) -> Any:
    """A server open to new clubs (API.md: ``CLUBS_OPEN``), pages in French."""
    settings.CLUBS_OPEN = True
    return settings
