"""The Content-Security-Policy in real Chromium: the key pages work and nothing is blocked.

Race control's desk (check-in through htmx, the language menu), a qualifying table's run
entry (live preview and save through htmx), a race table's result sheet (keyboard entry,
summary through htmx, saving), the results desk refreshing itself, the allocation page and
the standings (colour dots, chart): each page is used as a person would, and the browser
reports no violation of the policy and no script error. A first test shows that a
violation would be reported.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.urls import reverse
from playwright.sync_api import Browser, Page, expect

from qualifying.models import QualifyingSeat, QualifyingSession, QualifyingTable
from qualifying.services import draw_record
from races.grid.services import allocation_run
from races.models import RaceTable
from races.results.services import result_confirm, result_save
from tournament.access import Actor
from tournament.models import Driver, Event, Team
from tournament.site.csp import POLICY

pytestmark = pytest.mark.django_db(transaction=True)


@dataclass
class Reports:
    """What the browser said about the page: policy violations and uncaught errors."""

    violations: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def clear(self) -> None:
        self.violations.clear()
        self.errors.clear()


def watch(page: Page) -> Reports:
    reports = Reports()
    page.on(
        "console",
        lambda message: (
            reports.violations.append(message.text)
            if "Content Security Policy" in message.text
            else None
        ),
    )
    page.on("pageerror", lambda error: reports.errors.append(str(error)))
    return reports


@pytest.fixture
def watched(page: Page) -> Iterator[tuple[Page, Reports]]:
    yield page, watch(page)


def visit(page: Page, url: str) -> None:
    response = page.goto(url)
    assert response is not None and response.status == 200, url
    assert response.headers.get("content-security-policy") == POLICY, url


def log_in(page: Page, base: str, next_url: str) -> None:
    visit(page, f"{base}{reverse('login')}?next={next_url}")
    page.fill("input[name='username']", "pc")
    page.fill("input[name='password']", "pc-password-1")
    page.locator("main form button[type='submit']").click()
    page.wait_for_url(f"**{next_url}")


@pytest.fixture
def qualifying(make_event: Any) -> QualifyingTable:
    """Event ``gp``: three drivers at qualifying table 1, session 1 sunny."""
    event = make_event(n_drivers=3)
    QualifyingSession.objects.create(
        event=event, number=1, roll=15, source="physical", weather="sun", track="dry"
    )
    table = QualifyingTable.objects.create(event=event, number=1, referee_name="Marc Petit")
    for order, driver in enumerate(Driver.objects.order_by("number")):
        QualifyingSeat.objects.create(event=event, table=table, driver=driver, order=order)
    return table


@pytest.fixture
def race_day(make_event: Any, organiser: Any) -> Event:
    """Event ``gp2``: eight drivers in two race tables of four; table 2's result confirmed and
    published, so the standings have a chart and a team with its colour."""
    actor = Actor(user=organiser)
    event = make_event(
        n_drivers=8,
        slug="gp2",
        qualifying_mode="draw",
        separate_teams=False,
        published_results=True,
    )
    Team.objects.update(colour="#c62828")
    draw_record(actor=actor, event=event, rolls={n: [n] for n in range(1, 9)})
    allocation_run(actor=actor, event=event, table_size=4)
    table = RaceTable.objects.get(event=event, number=2)
    grid = list(table.slots.order_by("position").values_list("driver__number", flat=True))
    result_save(actor=actor, table=table, version=0, finish=grid, retired=[], dns=[], submit=True)
    result_confirm(actor=actor, table=table)
    return event


def test_the_browser_reports_what_the_policy_blocks(watched, live_server) -> None:
    """Without this, "no violation" below could mean "not listening"."""
    page, reports = watched
    visit(page, live_server.url + reverse("home"))
    reports.clear()
    page.evaluate(
        """() => {
            document.body.insertAdjacentHTML("beforeend", '<p style="color: red">inline</p>');
            const script = document.createElement("script");
            script.textContent = "window.ranInline = true";
            document.body.appendChild(script);
        }"""
    )
    expect(page.locator("text=inline")).to_be_visible()
    page.wait_for_timeout(200)
    assert len(reports.violations) == 2, reports.violations
    assert page.evaluate("() => window.ranInline") is None


def test_the_desk_and_the_language_menu_work_under_the_policy(
    watched, live_server, qualifying
) -> None:
    page, reports = watched
    desk = reverse("event-desk", args=[qualifying.event.slug])
    log_in(page, live_server.url, desk)
    # Check-in through htmx: the button's form comes back ticked.
    page.locator("form[action$='/checkin/1/'] button[value='present']").click()
    expect(page.locator("form[action$='/checkin/1/'] .checkin-state")).to_contain_text("✓")
    # The counter above the list follows (an out-of-band swap, no inline code).
    expect(page.locator("#checkin-count")).to_contain_text("1")
    # The language menu is a pair of links (no form, no token, no script).
    page.locator(".languages a[hreflang='en']").click()
    expect(page.locator("html")).to_have_attribute("lang", "en")
    assert reports.violations == [] and reports.errors == []


def test_run_entry_works_under_the_policy(watched, live_server, qualifying) -> None:
    page, reports = watched
    visit(page, f"{live_server.url}{reverse('qtable', args=[qualifying.token])}?session=1")
    row = page.locator("#run-1")
    row.locator("label.segment").first.click()  # tyres have no default (issue 12)
    row.locator("input[name='d1-throws']").fill("18")
    row.locator("input[name='d1-stopwatch']").fill("0:50")
    expect(row.locator(".absolute")).to_have_text(re.compile(r"\d+"))  # the htmx preview
    row.locator("input[name='d1-stopwatch']").press("Enter")
    expect(page.locator("#run-1.saved")).to_be_visible()
    assert reports.violations == [] and reports.errors == []


def test_result_entry_and_the_results_desk_work_under_the_policy(
    watched, browser: Browser, live_server, race_day
) -> None:
    page, reports = watched
    # The desk's polls (every 5 s) are run by a faked clock: time still flows, and the test
    # moves it on by a poll instead of waiting for one.
    page.clock.install()
    desk = reverse("results-desk", args=[race_day.slug])
    log_in(page, live_server.url, desk)
    status = page.locator("#desk-status")

    context = browser.new_context()
    try:
        referee = context.new_page()
        referee_reports = watch(referee)
        table = RaceTable.objects.get(event=race_day, number=1)
        visit(referee, live_server.url + reverse("result-entry", args=[table.token]))
        expect(referee.locator("select[name='d1-outcome']")).to_be_focused()  # results.js
        for _ in range(4):
            referee.keyboard.press("+")  # next free place, then the next driver
        expect(referee.locator("#summary")).to_contain_text("4")  # the htmx summary
        referee.locator("#save-draft").click()
        expect(referee.locator(".flash").first).to_be_visible()
        assert referee_reports.violations == [] and referee_reports.errors == []
    finally:
        context.close()

    # The desk refreshes by itself (an htmx poll without a trigger filter): the block is
    # replaced by one that shows the draft (a poll already on its way when the draft was
    # saved may show the table before it; the next one, 5 s later at most, shows the draft).
    page.clock.fast_forward(5_000)
    expect(page.locator("#table-1")).to_have_attribute("data-status", "draft", timeout=12_000)
    # It waits while the keyboard is inside it (paddock.js, in place of a trigger filter):
    # past a poll's time, the block marked here is still the one on the page.
    link = page.locator("#table-1 a[href*='/history/']")
    link.focus()
    status.evaluate("block => block.dataset.held = 'yes'")
    page.clock.fast_forward(6_500)
    page.wait_for_timeout(300)  # the time a poll's answer would take to arrive, if sent
    expect(page.locator("#desk-status[data-held]")).to_have_count(1)
    expect(link).to_be_focused()
    link.blur()
    page.clock.fast_forward(5_000)
    expect(page.locator("#desk-status[data-held]")).to_have_count(0)
    expect(status).to_be_visible()
    assert reports.violations == [] and reports.errors == []


def test_allocation_and_standings_draw_their_colours_under_the_policy(
    watched, live_server, race_day
) -> None:
    page, reports = watched
    log_in(page, live_server.url, reverse("allocation", args=[race_day.slug]))
    dot = page.locator(".tables-board svg.team-dot rect").first
    assert dot.evaluate("rect => getComputedStyle(rect).fill") != "rgba(0, 0, 0, 0)"

    championship = race_day.championship.slug
    visit(page, live_server.url + reverse("standings", args=[championship]))
    expect(page.locator("#progression")).to_be_visible()
    swatch = page.locator(".chart-legend svg.swatch rect").first
    assert swatch.evaluate("rect => getComputedStyle(rect).fill").startswith("rgb(")

    visit(page, live_server.url + reverse("team-standings", args=[championship]))
    team = page.locator("#team-standings svg.team-dot rect").first
    assert team.evaluate("rect => getComputedStyle(rect).fill") == "rgb(198, 40, 40)"
    assert team.evaluate("rect => rect.parentNode.getBoundingClientRect().width") > 0

    visit(page, live_server.url + reverse("standings-projector", args=[championship]))
    expect(page.locator("table")).to_be_visible()
    assert reports.violations == [] and reports.errors == []
