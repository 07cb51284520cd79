"""A referee's table without Wi-Fi, in real Chromium (issue 31), on two origins:
``http://127.0.0.1:<port>`` (secure: the service worker opens the pages offline) and
``http://paddock.test:<port>`` (a venue's plain HTTP, mapped to loopback: no service worker,
the outbox in the page alone). Offline is the browser context's switch.

One browser and one live server for them all (the suite's); each case a new context (a new
phone). Pages are in French by default.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, Page, expect

from qualifying.models import QualifyingSeat, QualifyingSession, QualifyingTable, Run
from tournament.models import Driver

pytestmark = pytest.mark.django_db(transaction=True)

SENT = "Tout est envoyé."


@pytest.fixture
def venue_hosts(settings):
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "paddock.test"]


def origin(live_server, secure: bool) -> str:
    """``http://127.0.0.1:<port>`` (secure) or ``http://paddock.test:<port>`` (plain HTTP)."""
    port = urlsplit(live_server.url).port
    return f"http://{'127.0.0.1' if secure else 'paddock.test'}:{port}"


@pytest.fixture
def qualifying(make_event):
    """Ten drivers at one qualifying table, session 1 open (sunny, dry)."""
    event = make_event(n_drivers=10, published_qualifying=True)
    QualifyingSession.objects.create(
        event=event, number=1, roll=15, source="physical", weather="sun", track="dry"
    )
    table = QualifyingTable.objects.create(event=event, number=1)
    for order, driver in enumerate(Driver.objects.order_by("number")):
        QualifyingSeat.objects.create(event=event, table=table, driver=driver, order=order)
    return table


@pytest.fixture
def phone(browser: Browser):
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    yield context
    context.close()


def controlled(page: Page) -> None:
    """Wait for the service worker, then reload so that the page goes through it (and is
    kept)."""
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.reload()
    page.wait_for_function("navigator.serviceWorker.controller !== null")


def enter_run(page: Page, number: int) -> None:
    row = page.locator(f"#run-{number}")
    row.locator("input[value=soft]").check()
    row.locator(f"input[name='d{number}-throws']").fill(str(10 + number))
    row.locator(f"input[name='d{number}-stopwatch']").fill("1:05.20")
    row.locator("button.save").click()


def count(page: Page):
    return page.locator("#offline-bar .outbox-count")


@pytest.mark.parametrize("secure", [True, False], ids=["secure", "plain-http"])
def test_ten_runs_entered_offline_land_once_in_order_naming_the_referee(
    phone, live_server, qualifying, venue_hosts, secure
):
    page = phone.new_page()
    url = f"{origin(live_server, secure)}/q/{qualifying.token}/?session=1"
    page.goto(url)
    page.fill("#referee-name", "Marc Petit")
    page.locator("form.referee-name button").click()
    expect(page.locator("form.referee-name label")).to_contain_text("Marc Petit")
    if secure:
        controlled(page)
    else:
        assert page.evaluate("window.isSecureContext") is False
        assert page.evaluate("navigator.serviceWorker === undefined")

    phone.set_offline(True)
    for number in range(1, 11):
        enter_run(page, number)
        expect(count(page)).to_have_attribute("data-pending", str(number))
    expect(count(page)).to_have_text("10 saisies à envoyer")
    expect(page.locator("#run-1 [data-status]")).to_have_text("En attente d’envoi (hors ligne)")
    if secure:
        page.reload()  # offline: the kept copy, the outbox still there
        expect(count(page)).to_have_text("10 saisies à envoyer")
        expect(page.locator("#offline-bar .offline-since")).to_have_text(
            re.compile(r"Hors ligne depuis \d\d:\d\d")
        )
    assert not Run.objects.exists()

    phone.set_offline(False)
    expect(count(page)).to_have_text(SENT, timeout=20_000)
    expect(page.locator("#offline-bar .outbox-report")).to_contain_text(
        "Envoyées\u00a0: 10\u00a0; refusées\u00a0: 0"
    )
    made = Run.history.order_by("history_date", "history_id")
    assert [record.driver.number for record in made] == list(range(1, 11))
    assert Run.objects.count() == 10
    for run in Run.objects.all():
        (created,) = run.history.all()
        assert "Marc Petit" in created.history_actor
        assert run.throws == 10 + run.driver.number
