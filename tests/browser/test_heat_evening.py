"""A club's Heat evening in real Chromium (issue 51, DOMAIN.md "Every game's evening"): a
finishing-order game without a circuit, three drivers checked in. The desk opens its page and
finds the Heat day's steps only; the organiser makes the tables; the desk prints the sheets
from its own page; the table's referee sends the result from a phone through the table's
link; the desk (race control) confirms it; the organiser publishes. The desk's checklist
ends whole, and no page walked shows a Formula Dé word: the words of the steps this game
lacks, which the same pages show for a Formula Dé event (checked with the test client).

Pages are in French by default; the selectors use ids, names and form actions.
"""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from playwright.sync_api import Browser, BrowserContext, Page, expect

from races.grid.services import allocation_run
from races.models import RaceTable, ResultLine
from races.results.services import result_confirm, result_save
from races.weather.services import race_weather_draw
from tests.api.conftest import make_user
from tests.browser.phone import VIEWPORT, page_width
from tournament.access import Actor
from tournament.models import Club, Entry, Membership
from tournament.registration.services import event_publish

pytestmark = pytest.mark.django_db(transaction=True)

HEAT = "Heat: Pedal to the Metal"
#: "Monza · 3 tours": a circuit's laps (a game without a circuit once showed "None · 0 tour").
LAPS = re.compile(r"\b\d+ tours?\b")
#: What Formula Dé's day puts on each page of the walk, in French: its qualifying (essais,
#: séances), its d20 race weather, its stands, its rules' paragraphs (§1-3-2: tables in
#: general qualifying order; §21-1-2: only finishers score), its circuit's laps.
FORMULA_DE_WORDS: dict[str, tuple[str | re.Pattern[str], ...]] = {
    "event-desk": ("essai", "séance", "météo"),
    "allocation": ("essai", "§1-3-2", "météo", "stand", LAPS),
    "result-entry": ("météo", LAPS),
    "results-desk": ("météo",),
    "event-results": ("§21-1-2",),
}
HEAT_STEPS = ["entries", "checkin", "tables", "sheets", "results", "published"]


def said(text: str, word: str | re.Pattern[str]) -> bool:
    if isinstance(word, re.Pattern):
        return word.search(text) is not None
    return word.casefold() in text.casefold()


def urls(event, token: str) -> dict[str, str]:
    slug = event.slug
    return {
        "event-desk": reverse("event-desk", args=[slug]),
        "allocation": reverse("allocation", args=[slug]),
        "result-entry": reverse("result-entry", args=[token]),
        "results-desk": reverse("results-desk", args=[slug]),
        "event-results": reverse("event-results", args=[slug]),
    }


def heat_event(make_event):
    event = make_event(3, slug="heat", game="finishing_order", game_name=HEAT, grid="rating")
    event.circuit = None  # the game's own track
    event.save(update_fields=["circuit"])
    Entry.objects.filter(event=event).update(checked_in=True)
    return event


def logged_in(browser: Browser, live_server, user, **options) -> BrowserContext:
    """A browser of ``user``'s, logged in (the test client's session), in French."""
    client = Client()
    client.force_login(user)
    context = browser.new_context(locale="fr", **options)
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
    return context


def steps(page: Page) -> dict[str, bool]:
    rows = page.locator("#steps ol.checklist > li")
    return dict(
        rows.evaluate_all("els => els.map(e => [e.id.slice(5), e.classList.contains('done')])")
    )


def test_a_heat_evening_ends_with_its_checklist_whole_and_no_formula_de_word(
    browser: Browser, live_server, make_event, organiser, championship
):
    event = heat_event(make_event)
    club = Club.objects.create(slug="club-heat", name="Club Heat")
    championship.club = club
    championship.save(update_fields=["club"])
    member = make_user("dora")
    Membership.objects.create(club=club, user=member, role="desk")
    seen: dict[str, list[str]] = {}

    def read(page: Page, name: str) -> None:
        seen.setdefault(name, []).append(page.locator("main").inner_text())

    live = live_server.url
    desk_url = live + reverse("event-desk", args=[event.slug])
    desk_context = logged_in(browser, live_server, member)
    organiser_context = logged_in(browser, live_server, organiser)
    phone_context = browser.new_context(
        locale="fr", viewport=VIEWPORT, is_mobile=True, has_touch=True
    )
    try:
        # The desk opens its page: the Heat day's steps, sign-up and check-in done.
        desk = desk_context.new_page()
        desk.goto(desk_url)
        assert steps(desk) == dict.fromkeys(HEAT_STEPS, False) | {"entries": True, "checkin": True}
        expect(desk.locator("#sessions, #tables, input[name='qualifying']")).to_have_count(0)
        read(desk, "event-desk")

        # The organiser makes the tables on the allocation page.
        org = organiser_context.new_page()
        org.goto(live + reverse("allocation", args=[event.slug]))
        run = org.locator(f"form[action='{reverse('allocation-run', args=[event.slug])}']")
        run.locator("input[name='table_size']").fill("4")
        run.locator("button[type='submit']").click()
        expect(org.locator("#table-1 li[data-number]")).to_have_count(3)
        read(org, "allocation")

        # The desk prints the sheets from its own page.
        desk.reload()
        desk.locator(".section-links a[href='#sheets']").click()
        desk.locator("#desk-race-sheets").click()
        desk.wait_for_url(f"**{reverse('sheet-batch', args=[event.slug, 'race'])}")
        download = desk.locator(
            f"a[href='{reverse('sheet-batch-download', args=[event.slug, 'race'])}']"
        )
        pdf = desk.request.get(live + download.get_attribute("href"))
        assert pdf.ok and pdf.body().startswith(b"%PDF")

        # The referee's link, on a phone: tap the drivers in crossing order, send.
        table = RaceTable.objects.get(event=event, number=1)
        phone = phone_context.new_page()
        phone.goto(live + reverse("result-entry", args=[table.token]))
        taps = phone.locator(".fo-tap-driver")
        grid = [int(n) for n in taps.evaluate_all("els => els.map(e => e.dataset.driver)")]
        assert sorted(grid) == [1, 2, 3]
        for number in reversed(grid):  # the last on the grid won
            phone.locator(f".fo-tap-driver[data-driver='{number}']").click()
        assert phone.locator(f"input[name='place-{grid[-1]}']").input_value() == "1"
        assert page_width(phone) <= VIEWPORT["width"]
        read(phone, "result-entry")
        phone.locator("#submit").click()
        expect(phone.locator(".result-state")).to_have_class(re.compile("status-submitted"))

        # Race control (the desk) confirms it on the results desk.
        desk.goto(live + reverse("results-desk", args=[event.slug]))
        read(desk, "results-desk")
        confirm = reverse("result-confirm", args=[event.slug, 1])
        desk.locator(f"#table-1 form[action='{confirm}'] button").click()
        expect(desk.locator("#table-1")).to_have_attribute("data-status", "confirmed")

        # The organiser publishes the tables and the results.
        org.goto(live + reverse("event-desk", args=[event.slug]) + "#publish")
        publish = org.locator("#publish form")
        publish.locator("input[name='allocation']").check()
        publish.locator("input[name='results']").check()
        publish.locator("button[type='submit']").click()
        expect(org.locator("#publish input[name='results']")).to_be_checked()
        read(org, "event-desk")
        org.goto(live + reverse("event-results", args=[event.slug]))
        expect(org.locator("#results-wrap")).to_contain_text("Pilote")
        read(org, "event-results")

        # The desk's checklist is whole.
        desk.goto(desk_url)
        assert steps(desk) == dict.fromkeys(HEAT_STEPS, True)
        read(desk, "event-desk")
    finally:
        for context in (desk_context, organiser_context, phone_context):
            context.close()

    places = ResultLine.objects.filter(table=table).order_by("position")
    assert [line.driver.number for line in places] == list(reversed(grid))
    assert set(seen) == set(FORMULA_DE_WORDS)
    for name, texts in seen.items():
        for text in texts:
            assert "None" not in text, name
            found = [str(word) for word in FORMULA_DE_WORDS[name] if said(text, word)]
            assert not found, (name, found)
    # The game's name stands where a circuit would.
    for name in ("event-desk", "allocation", "result-entry"):
        assert HEAT in seen[name][0], name


@pytest.mark.django_db
def test_a_formula_de_evening_s_pages_say_those_words(client, make_event, organiser):
    """The words the walk above looks for are Formula Dé's: the same pages say each of them
    for a Formula Dé event (qualifying by best run, a circuit), read once the tables are made
    and again at the end of its evening, as the walk reads them."""
    event = make_event(3, slug="fd", separate_teams=False)
    Entry.objects.filter(event=event).update(checked_in=True)
    actor = Actor(user=organiser)
    allocation_run(actor=actor, event=event, table_size=4)
    table = RaceTable.objects.get(event=event, number=1)
    client.force_login(organiser)
    texts: dict[str, str] = dict.fromkeys(FORMULA_DE_WORDS, "")

    def read() -> None:
        for name, url in urls(event, table.token).items():
            response = client.get(url)
            assert response.status_code == 200, name
            main = re.search(r"(?s)<main.*</main>", response.content.decode())
            assert main, name
            texts[name] += re.sub(r"<[^>]+>", " ", main.group())

    read()
    race_weather_draw(actor=actor, event=event, roll=12)
    result_save(
        actor=actor, table=table, version=0, finish=[1, 2, 3], retired=[], dns=[], submit=True
    )
    result_confirm(actor=actor, table=table)
    event_publish(actor=actor, event=event, allocation=True, results=True)
    read()
    for name, text in texts.items():
        missing = [str(word) for word in FORMULA_DE_WORDS[name] if not said(text, word)]
        assert not missing, (name, missing)
