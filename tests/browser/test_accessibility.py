"""Accessibility of the entry pages (issue 12), in real Chromium, light and dark:

- axe-core (vendored, ``tests/browser/vendor/axe-core``) finds no WCAG 2 A/AA violation,
  text contrast (4.5:1, the orange warnings included) among them, with the rows in their
  states: unsaved, refused with both readings, failed to reach the server;
- every control is reached by the keyboard alone (Tab), and shows a focus ring of 2 px at
  least whose colour stands out 3:1 against what is around it (WCAG 2.4.11/1.4.11), which
  axe does not check: that is measured here.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from playwright.sync_api import Browser, Page, expect

from qualifying.models import QualifyingSeat, QualifyingSession, QualifyingTable, Run
from qualifying.services import draw_record
from races.grid.services import allocation_run
from tests.browser.phone import VIEWPORT
from tournament.access import Actor
from tournament.models import Driver

pytestmark = pytest.mark.django_db(transaction=True)

AXE = Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js"

#: The focused control's ring: its width and the contrast of its colour (focus_ring.js).
FOCUS_RING = (Path(__file__).parent / "focus_ring.js").read_text()

# Controls never reached by Tab (reached ones carry data-tab-stop); a radio group is
# reached through any of its radios (arrows move inside it).
_UNREACHED_JS = """() => [...document.querySelectorAll(
    'main a[href], main button, main input:not([type=hidden]), main select, main summary')]
  .filter(e => e.offsetParent !== null && e.tabIndex >= 0 && !e.disabled
               && !e.closest('[aria-hidden=true]'))
  .filter(e => !e.dataset.tabStop)
  .filter(e => !(e.type === 'radio' && document.querySelector(
      'input[type=radio][name="' + e.name + '"][data-tab-stop]')))
  .map(e => e.outerHTML.slice(0, 80))"""


def axe_violations(page: Page) -> list[str]:
    # Injected inline: the pages' Content-Security-Policy would block it, hence the
    # contexts' bypass_csp (the policy has its own tests, tests/security/test_csp*.py).
    page.add_script_tag(path=str(AXE))
    found = page.evaluate(
        """async () => (await axe.run(document, {
             runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']}
           })).violations.map(v => v.id + ': ' + v.nodes.map(n => n.target.join(' ')
             + ' ' + (n.any[0] ? n.any[0].message : '')).join(' | '))"""
    )
    return found


def axe_best_practice(page: Page, *rules: str) -> list[str]:
    """What axe-core's ``rules`` (best practices, outside the WCAG tags above) find, on a
    page where ``axe_violations`` injected axe already."""
    return page.evaluate(
        """async (rules) => (await axe.run(document, {runOnly: {type: 'rule', values: rules}}))
             .violations.map(v => v.id + ': '
               + v.nodes.map(n => n.target.join(' ')).join(' | '))""",
        list(rules),
    )


def tab_through(page: Page, limit: int = 400) -> list[dict]:
    """Tab from the top of the page until the focus comes back round: each stop's ring."""
    # From the page's first link, as a keyboard user arriving on it (Chrome would go on
    # from wherever the last click left its starting point).
    page.evaluate("document.querySelector('a[href]').focus()")
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")
    stops: list[dict] = []
    seen: set[str] = set()
    for index in range(limit):
        if index:
            page.keyboard.press("Tab")
        key = page.evaluate(
            "() => { const e = document.activeElement; if (!e || e === document.body) return '';"
            " if (!e.dataset.tabStop) e.dataset.tabStop = Math.random().toString(36).slice(2);"
            " return e.dataset.tabStop; }"
        )
        if not key or key in seen:
            break
        seen.add(key)
        stops.append(page.evaluate(FOCUS_RING))
    return stops


def check_keyboard_and_rings(page: Page) -> None:
    stops = tab_through(page)
    assert page.evaluate(_UNREACHED_JS) == [], "not reachable with Tab"
    faint = [
        (stop["what"], stop["width"], round(stop["ratio"], 2))
        for stop in stops
        if stop["width"] < 2 or stop["ratio"] < 3
    ]
    assert faint == [], "focus ring missing or under 3:1"
    assert len(stops) >= 3  # the walk went through the page, not one stop


@pytest.fixture
def qualifying(make_event):
    event = make_event(n_drivers=3)
    QualifyingSession.objects.create(
        event=event, number=1, roll=15, source="physical", weather="sun", track="dry"
    )
    table = QualifyingTable.objects.create(event=event, number=1, referee_name="Marc Petit")
    for order, driver in enumerate(Driver.objects.order_by("number")):
        QualifyingSeat.objects.create(event=event, table=table, driver=driver, order=order)
    Run.objects.create(
        session=event.sessions.get(),
        driver=Driver.objects.get(number=3),
        tyres="hard",
        throws=20,
        stopwatch_cs=5000,
    )
    return table


def rows_in_every_state(page: Page, context) -> None:
    """Row 1 refused with both readings, row 2 unsaved, row 3 kept in the outbox offline
    (issue 31), the bar counting it; the phone stays offline."""
    row = page.locator("#run-1")
    row.locator("label.segment").first.click()
    row.locator("input[name='d1-throws']").fill("20")
    row.locator("input[name='d1-stopwatch']").fill("1,48")
    row.locator("button.save").click()
    expect(page.locator("#run-1.has-errors .short .warning")).to_be_visible()
    page.locator("#run-2 input[name='d2-throws']").fill("21")
    expect(page.locator("#run-2.unsaved")).to_be_visible()
    context.set_offline(True)
    page.locator("#run-3 input[name='d3-throws']").fill("25")
    page.locator("#run-3 button.save").click()
    expect(page.locator("#run-3.queued")).to_be_visible()
    expect(page.locator("#offline-bar.has-pending")).to_be_visible()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_qualifying_table_page(browser: Browser, live_server, qualifying, scheme):
    context = browser.new_context(viewport=VIEWPORT, color_scheme=scheme, bypass_csp=True)
    try:
        page = context.new_page()
        page.goto(f"{live_server.url}/q/{qualifying.token}/?session=1")
        # Row 3 saved again: its team's name, muted, on the saved row's tint.
        page.locator("#run-3 button.save").click()
        expect(page.locator("#run-3.saved .driver .muted")).to_be_visible()
        assert axe_violations(page) == []
        rows_in_every_state(page, context)
        assert axe_violations(page) == []
        check_keyboard_and_rings(page)
    finally:
        context.close()


def test_the_closed_page_and_the_history(browser: Browser, live_server, qualifying, organiser):
    qualifying.event.championship.organisers.add(organiser)
    context = browser.new_context(viewport=VIEWPORT, bypass_csp=True)
    try:
        page = context.new_page()
        page.goto(reverse("run-history", args=[qualifying.token, 1, 3]).join([live_server.url, ""]))
        assert axe_violations(page) == []
        allocation_run(actor=Actor(user=organiser), event=qualifying.event, table_size=3)
        page.goto(f"{live_server.url}/q/{qualifying.token}/")
        expect(page.locator(".qualifying-closed")).to_be_visible()
        assert axe_violations(page) == []
        # Issue 32, item 9: an article may not be an alert (aria-allowed-role).
        assert axe_best_practice(page, "aria-allowed-role", "empty-table-header") == []
        check_keyboard_and_rings(page)
        # The desk's table of qualifying tables: its last column had an empty header.
        client = Client()
        client.force_login(organiser)
        cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
        context.add_cookies(
            [{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": live_server.url}]
        )
        page.set_viewport_size({"width": 1280, "height": 800})  # race control's laptop
        page.goto(live_server.url + reverse("event-desk", args=[qualifying.event.slug]))
        expect(page.locator("#qualifying-progress")).to_be_visible()
        axe_violations(page)  # injects axe
        assert axe_best_practice(page, "aria-allowed-role", "empty-table-header") == []
    finally:
        context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_result_entry_page(browser: Browser, live_server, make_event, organiser, scheme):
    actor = Actor(user=organiser)
    event = make_event(n_drivers=4, qualifying_mode="draw", separate_teams=False)
    draw_record(actor=actor, event=event, rolls={n: [n] for n in range(1, 5)})
    allocation_run(actor=actor, event=event, table_size=4)
    token = event.race_tables.get().token
    context = browser.new_context(viewport=VIEWPORT, color_scheme=scheme, bypass_csp=True)
    try:
        page = context.new_page()
        page.goto(live_server.url + reverse("result-entry", args=[token]))
        page.locator("#driver-1 button.next-place").click()
        page.locator("select[name='d3-outcome']").select_option("3")  # a gap: the warning
        expect(page.locator("#summary .summary-warning").first).to_be_visible()
        assert axe_violations(page) == []
        check_keyboard_and_rings(page)
    finally:
        context.close()
