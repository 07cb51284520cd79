"""Phones and screens in real Chromium.

- At 390×844 (a phone), no page is wider than the screen: every page of the permission
  matrix (tests/security/test_permission_matrix.py), opened as each of its callers, in the
  site's default language (French: the longer words). An error page (403, 404) is measured
  once per caller, as is the page a redirect leads to: they are the same page. The holder
  of a table's link is a visitor without an account: on an address that does not carry
  the link, the anonymous visitor's measure is theirs.
- The projector fits a 1366×768 and a 1920×1080 screen whole, its page counter in view.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from playwright.sync_api import Browser, Page
from playwright.sync_api import Error as PlaywrightError
from pytest_django.live_server_helper import LiveServer

from races.results.services import result_confirm
from tests.security.conftest import SESSIONS, build_world, open_sessions
from tests.security.test_permission_matrix import PAGES, ROLES, codes
from tests.template_db import empty_database
from tournament.access import Actor
from tournament.models import Driver
from tournament.registration.services import event_publish

PHONE = {"width": 390, "height": 844}

#: Who is logged in as whom (the matrix's callers); "link" and "anonymous" are nobody.
ACCOUNTS = {"organiser": "organiser", "account": "ref1", "other": "ref2", "outsider": "outsider"}


def browser_as(browser: Browser, world: Any, role: str, base_url: str, **options: Any) -> Any:
    context = browser.new_context(**options)
    user = ACCOUNTS.get(role)
    if user is not None:
        client = Client()
        client.force_login(world.users[user])
        session = client.cookies[settings.SESSION_COOKIE_NAME].value
        context.add_cookies(
            [{"name": settings.SESSION_COOKIE_NAME, "value": session, "url": base_url}]
        )
    return context


def overflow(page: Page, url: str, seen: set[tuple[int, str]]) -> int | None:
    """How many pixels ``url`` is wider than the screen (None: not an HTML page, or one
    already measured: the same error page, or the page a redirect already led to).

    One navigation per address: a file (a PDF, a spreadsheet) is a download, which Chromium
    does not show and Playwright reports as an error of the navigation."""
    try:
        answer = page.goto(url, wait_until="load")
    except PlaywrightError as error:
        if "Download is starting" in str(error):
            return None
        raise
    if answer is None or not answer.headers.get("content-type", "").startswith("text/html"):
        return None
    # A 403 or 404 is the same page whatever was asked; a redirect lands on a page once.
    redirected = urlsplit(page.url).path != urlsplit(url).path
    shown = (answer.status, urlsplit(page.url).path if redirected else "")
    if (answer.status >= 400 or redirected) and shown in seen:
        return None
    seen.add(shown)
    return int(
        page.evaluate(
            "Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)"
            " - window.innerWidth"
        )
    )


#: A real name, long and without a space to break at.
LONG_NAME = ("Maximilien-Alexandre", "Wolfeschlegelsteinhausenbergerdorff-Sainte-Colombe")


def published_world() -> Any:
    """The matrix's event, everything published (so that visitors see the full public
    pages, not their 404s) and driver 1 with a long name."""
    world = build_world(get_user_model())
    event_publish(
        actor=Actor(user=world.users["organiser"]),
        event=world.event,
        qualifying=True,
        allocation=True,
        results=True,
        qualifying_tables=True,
    )
    Driver.objects.filter(championship=world.championship, number=1).update(
        first_name=LONG_NAME[0], last_name=LONG_NAME[1]
    )
    return world


@pytest.fixture(scope="module")
def phone_world(django_db_setup: None, django_db_blocker: Any) -> Any:
    """The published event, committed once for the module's callers and served by a live
    server of the module's own (the suite's ``live_server`` empties the database after each
    test); emptied afterwards."""
    with django_db_blocker.unblock():
        world = published_world()
        open_sessions(world)
        server = LiveServer("localhost")
        try:
            yield world, server.url
        finally:
            server.stop()
            SESSIONS.clear()
            empty_database()


@pytest.mark.parametrize("role", ROLES)
def test_no_page_is_wider_than_a_phone(
    role: str, browser: Browser, phone_world: Any, django_db_blocker: Any
) -> None:
    world, base_url = phone_world
    context = browser.new_context(viewport=PHONE)
    user = ACCOUNTS.get(role)
    if user is not None:
        session = SESSIONS[world.users[user].pk]
        context.add_cookies(
            [{"name": settings.SESSION_COOKIE_NAME, "value": session, "url": base_url}]
        )
    paths = []
    with django_db_blocker.unblock():  # the pages' arguments (read only)
        for name, (arguments, methods) in sorted(PAGES.items()):
            if codes(methods["GET"])[role] == 405:
                continue
            path = reverse(name, kwargs=arguments(world, role))
            if role == "link" and path == reverse(name, kwargs=arguments(world, "anonymous")):
                continue  # the same request as the anonymous visitor's, measured there
            paths.append((name, path))
    page = context.new_page()
    checked, too_wide, seen = 0, [], set()
    try:
        for name, path in paths:
            url = base_url + path
            extra = overflow(page, url, seen)
            if extra is None:
                continue
            checked += 1
            if extra > 0:
                too_wide.append(f"{name} ({url}): {extra} px too wide")
    finally:
        context.close()
    assert checked > (3 if role == "link" else 10)
    assert not too_wide, "\n".join(too_wide)


@pytest.fixture
def season(phone_world: Any, django_db_blocker: Any) -> Any:
    """The module's event, its submitted race table confirmed (results are published; a
    caller measured afterwards sees the confirmed result, a page as valid as the other)."""
    world, base_url = phone_world
    organiser = Actor(user=world.users["organiser"])
    with django_db_blocker.unblock():
        for table in world.rtables:
            table.refresh_from_db()
            if table.result_status == "submitted":
                result_confirm(actor=organiser, table=table)
    return world, base_url


@pytest.mark.parametrize("screen", [(1366, 768), (1920, 1080)], ids=["768p", "1080p"])
def test_the_projector_shows_its_whole_page(
    screen: tuple[int, int], browser: Browser, season: Any
) -> None:
    (world, base_url), (width, height) = season, screen
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    try:
        url = reverse("standings-projector", args=[world.championship.slug])
        page.goto(base_url + url)
        size = page.evaluate(
            "[document.documentElement.scrollWidth, document.documentElement.scrollHeight]"
        )
        assert size[0] <= width and size[1] <= height, size
        counter = page.locator(".projector-counter")
        box = counter.bounding_box()
        assert box is not None and counter.is_visible()
        assert box["y"] >= 0 and box["y"] + box["height"] <= height
        rows = page.locator(".projector-board tbody tr")
        assert rows.count() >= 1
        last = rows.nth(rows.count() - 1).bounding_box()
        assert last is not None and last["y"] + last["height"] <= height
    finally:
        context.close()
