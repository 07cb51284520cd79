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
from django.urls import reverse
from playwright.sync_api import Browser, Page, expect

from qualifying.models import QualifyingSeat, QualifyingSession, QualifyingTable, Run
from qualifying.services import draw_record
from races.grid.services import allocation_run, referee_link_regenerate
from races.grid.start import stands_set
from races.models import RaceResult, RaceTable, RaceWeather, WeatherDraw
from races.results.services import result_confirm, result_save
from tests.browser.phone import small_targets
from tournament.access import Actor
from tournament.models import Driver

pytestmark = pytest.mark.django_db(transaction=True)

SENT = "Tout est envoyé."
#: A table's sheet with nothing on it and nothing queued (issue 51, item 12): not "sent".
EMPTY = "Rien n’est encore écrit sur cette feuille."


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
    expect(page.locator("#offline-report .outbox-report")).to_contain_text(
        "Envoyées\u00a0: 10\u00a0; refusées\u00a0: 0"
    )
    if not secure:  # the rows come back from the server as it stored them
        expect(page.locator("form.run-row.saved")).to_have_count(10)
    made = Run.history.order_by("history_date", "history_id")
    assert [record.driver.number for record in made] == list(range(1, 11))
    assert Run.objects.count() == 10
    for run in Run.objects.all():
        (created,) = run.history.all()
        assert "Marc Petit" in created.history_actor
        assert run.throws == 10 + run.driver.number


# --- A race table: opened offline, the whole result, the desk confirming meanwhile ------------


@pytest.fixture
def race(make_event, organiser):
    """Race table 1 of an event drawn in number order: drivers 1-4 (no stands' choice needed
    for a result)."""
    actor = Actor(user=organiser)
    event = make_event(
        n_drivers=8, qualifying_mode="draw", separate_teams=False, published_allocation=True
    )
    draw_record(actor=actor, event=event, rolls={n: [n] for n in range(1, 9)})
    allocation_run(actor=actor, event=event, table_size=4)
    return RaceTable.objects.get(event=event, number=1)


def type_result(page: Page) -> None:
    """3 first, 1 second, 2 retired (off track, lap 1), 4 did not start; then submitted."""
    page.select_option("select[name='d3-outcome']", "1")
    page.select_option("select[name='d1-outcome']", "2")
    page.select_option("select[name='d2-outcome']", "retired")
    page.select_option("select[name='d2-cause']", "off_track")
    page.fill("input[name='d2-lap']", "1")
    page.select_option("select[name='d4-outcome']", "dns")
    page.locator("#submit-result").click()


def test_a_race_table_opened_once_opens_offline_and_its_result_meets_the_desk_s(
    phone, live_server, race, organiser
):
    """Secure origin: the table's page, its result page and a players' page open again
    without network, saying since when; the result typed and submitted offline comes back
    refused, beside the result race control confirmed meanwhile."""
    page = phone.new_page()
    page.on("dialog", lambda dialog: dialog.accept())
    base = origin(live_server, True)
    table_url = f"{base}{reverse('rtable', args=[race.token])}"
    entry_url = f"{base}{reverse('result-entry', args=[race.token])}"
    page.goto(table_url)
    controlled(page)
    page.goto(entry_url)  # through the worker: kept too
    # The table's web app can be added to the home screen.
    # (Chromium refuses installing from a private window, which a test's context is: the
    # manifest is read without errors, and the worker controls the page.)
    session = phone.new_cdp_session(page)
    manifest = session.send("Page.getAppManifest")
    assert manifest["errors"] == []
    assert manifest["url"].endswith(f"/manifest.webmanifest?start=/r/{race.token}/")
    where_url = f"{base}{reverse('where', args=[race.event.slug])}"
    page.goto(where_url)  # a players' page: kept too

    phone.set_offline(True)
    page.goto(where_url)
    expect(page.locator("#offline-bar .offline-since")).to_have_text(
        re.compile(r"^Hors ligne\u00a0: cette copie date de \d\d:\d\d")
    )
    page.goto(table_url)  # from its link, without network
    since = page.locator("#offline-bar .offline-since")
    expect(since).to_have_text(re.compile(r"^Hors ligne depuis \d\d:\d\d"))
    expect(page.locator("h1")).to_contain_text(str(race))
    page.goto(entry_url)
    type_result(page)
    expect(count(page)).to_have_text("1 saisie à envoyer")
    page.reload()
    expect(count(page)).to_have_text("1 saisie à envoyer")

    # Meanwhile race control types the paper sheet and confirms it: 1, 2, 3, 4.
    desk = Actor(user=organiser)
    result_save(actor=desk, table=race, version=0, finish=[1, 2, 3, 4], retired=[], dns=[],
                submit=True)  # fmt: skip
    result_confirm(actor=desk, table=race)

    phone.set_offline(False)
    refused = page.locator("#offline-report .outbox-refused-entry")
    expect(refused).to_have_count(1, timeout=20_000)
    expect(count(page)).to_contain_text("1 saisie refusée")
    expect(refused.locator(".outbox-why")).to_contain_text("confirmé")
    mine, theirs = refused.locator(".outbox-mine"), refused.locator(".outbox-theirs")
    expect(mine).to_contain_text("Sortie de route")  # what the referee typed
    expect(theirs).to_contain_text("1er")  # what race control confirmed
    expect(theirs).to_contain_text("1 Pilote1 Lefèvre")
    result = RaceResult.objects.get(table=race)
    assert result.finish == [1, 2, 3, 4]  # the desk's, untouched
    assert RaceTable.objects.get(pk=race.pk).result_status == "confirmed"
    refused.get_by_role("button", name="Garder ce que le serveur a").click()
    expect(count(page)).to_have_text(SENT)


def test_a_start_a_weather_draw_and_a_whole_result_entered_offline_on_plain_http_land_once(
    phone, live_server, race, organiser, venue_hosts
):
    """A variable race: the start entered offline asks in the page (no browser dialog), then
    lands; offline "Roll for me" is disabled and says to roll the black die; the die typed
    goes into the outbox and lands; then the whole result too."""
    RaceWeather.objects.create(event=race.event, roll=7, source="physical", weather="variable")
    stands_set(actor=Actor(user=organiser), table=race, stands={1: 1, 2: 2, 3: 3, 4: 4})
    page = phone.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: dialogs.append(dialog.message))
    base = origin(live_server, False)
    page.goto(f"{base}{reverse('rtable', args=[race.token])}")
    phone.set_offline(True)
    page.evaluate("window.dispatchEvent(new Event('offline'))")
    page.locator("#start-race").click()
    ask = page.get_by_role("alertdialog")
    expect(ask).to_contain_text("Lancer la course maintenant ?")
    ask.get_by_role("button", name="Annuler").click()
    expect(ask).to_have_count(0)
    expect(count(page)).to_have_text(EMPTY)
    page.locator("#start-race").click()
    ask.get_by_role("button", name="Donner le départ").click()
    expect(count(page)).to_have_text("1 saisie à envoyer")
    assert dialogs == [] and RaceTable.objects.get(pk=race.pk).started_at is None
    phone.set_offline(False)
    expect(count(page)).to_have_text(SENT, timeout=20_000)
    assert RaceTable.objects.get(pk=race.pk).started_at is not None
    page.reload()
    phone.set_offline(True)
    page.evaluate("window.dispatchEvent(new Event('offline'))")
    expect(page.locator("#weather-system")).to_be_disabled()
    expect(page.locator(".roll-offline")).to_have_text(
        "Hors ligne\u00a0: lancez le dé noir et tapez le résultat."
    )
    page.fill("#id_roll", "3")
    page.locator("#weather-record").click()
    expect(count(page)).to_have_text("1 saisie à envoyer")
    assert not WeatherDraw.objects.exists()
    phone.set_offline(False)
    expect(count(page)).to_have_text(SENT, timeout=20_000)
    expect(page.locator("#weather-system")).to_be_enabled()

    page.goto(f"{base}{reverse('result-entry', args=[race.token])}")
    phone.set_offline(True)
    type_result(page)
    expect(count(page)).to_have_text("1 saisie à envoyer")
    assert not RaceResult.objects.exists()
    phone.set_offline(False)
    expect(count(page)).to_have_text(SENT, timeout=20_000)
    draw = WeatherDraw.objects.get(table=race)
    assert (draw.roll, draw.source) == (3, "physical")
    result = RaceResult.objects.get(table=race)
    assert (result.finish, result.dns, result.version) == ([3, 1], [4], 1)
    assert result.retired == [{"driver": 2, "cause": "off_track", "lap": 1, "note": ""}]
    assert result.submitted_at is not None
    assert result.history.count() == 1
    assert "lien commissaire" in result.history.get().history_actor


def test_a_link_replaced_during_the_outage_deletes_its_outbox_saying_why(
    phone, live_server, qualifying, organiser, venue_hosts
):
    page = phone.new_page()
    page.goto(f"{origin(live_server, False)}/q/{qualifying.token}/?session=1")
    phone.set_offline(True)
    # The same phone holds another table's link (two referees share it): its own outbox.
    page.evaluate(
        """PaddockOutbox.add({scope: "/q/another-link/", url: "/q/another-link/s/1/d/9/",
             fields: [["d9-throws", "12"]], headers: {}, label: "9 Autre"})"""
    )
    enter_run(page, 1)  # the bar counts this link's entries only
    expect(count(page)).to_have_text("1 saisie à envoyer")
    referee_link_regenerate(actor=Actor(user=organiser), table=qualifying)
    phone.set_offline(False)
    report = page.locator("#offline-report .outbox-report")
    expect(report).to_contain_text("Ce lien a été remplacé", timeout=20_000)
    expect(report.locator("details li")).to_contain_text("1 Pilote1 Lefèvre")
    expect(count(page)).to_have_text(SENT)
    # This link's outbox is gone; the other link's is untouched.
    assert page.evaluate("PaddockOutbox.all(null).then(e => e.map(x => x.scope))") == [
        "/q/another-link/"
    ]
    assert not Run.objects.exists()


def test_a_new_service_worker_takes_over_without_losing_a_full_outbox(
    phone, live_server, qualifying, monkeypatch
):
    """Secure origin: three runs wait in the outbox (the server answers 503 meanwhile) while a
    new version of the app is deployed; the new worker takes over, the runs are still there
    and land once the server takes them."""
    from tournament.offline import idempotency, views

    page = phone.new_page()
    page.goto(f"{origin(live_server, True)}/q/{qualifying.token}/?session=1")
    controlled(page)
    old = page.evaluate("caches.keys()")

    def busy(*args, **kwargs):
        return idempotency._error(503, "busy")

    monkeypatch.setattr(idempotency, "claim", busy)
    for number in (1, 2, 3):
        enter_run(page, number)
        # Each save kept before the next row is typed (a state, not a clock): under load,
        # the next row's radio was clicked while the page still moved, and did not stick.
        expect(count(page)).to_have_attribute("data-pending", str(number))
    expect(count(page)).to_have_text("3 saisies à envoyer")

    monkeypatch.setattr(views, "PRECACHE", (*views.PRECACHE, "js/event_form.js"))
    page.evaluate(
        """navigator.serviceWorker.getRegistration().then(reg => reg.update().then(() =>
             new Promise(done => {
               if (!reg.installing && !reg.waiting) return done();
               navigator.serviceWorker.addEventListener("controllerchange", done);
             })))"""
    )
    # The new version's static files are kept, the old version's are gone.
    page.wait_for_function(
        """old => caches.keys().then(keys => {
             const mine = keys.filter(k => k.startsWith("paddock-static-"));
             return mine.length === 1 && !old.includes(mine[0]);
           })""",
        arg=old,
    )
    assert page.evaluate("PaddockOutbox.all(null).then(e => e.length)") == 3
    assert not Run.objects.exists()

    monkeypatch.undo()
    page.evaluate("window.dispatchEvent(new Event('online'))")  # the server is back
    expect(count(page)).to_have_text(SENT, timeout=20_000)
    assert sorted(Run.objects.values_list("driver__number", flat=True)) == [1, 2, 3]


# --- Back online: a run refused beside the one another phone saved meanwhile ----------------


def type_run(page: Page, number: int, tyres: str, throws: int, stopwatch: str) -> None:
    row = page.locator(f"#run-{number}")
    row.locator(f"input[value={tyres}]").check()
    row.locator(f"input[name='d{number}-throws']").fill(str(throws))
    row.locator(f"input[name='d{number}-stopwatch']").fill(stopwatch)
    row.locator("button.save").click()


def sides(card) -> tuple[dict[str, str], dict[str, str]]:
    """The two columns of a refused entry, each as {label: value}."""
    read = """section => { const out = {};
      section.querySelectorAll("dt").forEach(dt => {
        out[dt.textContent.trim()] = dt.nextElementSibling.textContent.trim(); });
      return out; }"""
    return (
        card.locator(".outbox-mine").evaluate(read),
        card.locator(".outbox-theirs").evaluate(read),
    )


def test_a_run_refused_back_online_shows_what_the_server_stored_beside_what_the_phone_typed(
    browser: Browser, phone, live_server, qualifying, venue_hosts
):
    """Issue 40, item 3; DOMAIN.md "Without Wi-Fi": a stale write "is refused with what is
    stored, and the referee sees both, on the phone, until resolved". Phone A types
    Tendres / 47 / 1:47.00 offline while phone B saves Pluie / 33 / 1:10.00 for the same
    run. Back online, A's entry is refused: "Ce que le serveur a" shows B's run as stored,
    "Saisi sur ce téléphone" A's, both under the page's own labels (never a field's name,
    never the stopwatch's live reading)."""
    url = f"{origin(live_server, False)}/q/{qualifying.token}/?session=1"
    a = phone.new_page()
    a.goto(url)
    phone.set_offline(True)
    type_run(a, 1, "soft", 47, "1:47.00")
    expect(count(a)).to_have_text("1 saisie à envoyer")

    other = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    try:
        b = other.new_page()
        b.goto(url)
        type_run(b, 1, "rain", 33, "1:10.00")
        expect(b.locator("#run-1")).to_have_class(re.compile(r"\bsaved\b"))
    finally:
        other.close()
    stored = Run.objects.get()
    assert (stored.tyres, stored.throws, stored.stopwatch_cs) == ("rain", 33, 7000)

    phone.set_offline(False)
    card = a.locator("#offline-report .outbox-refused-entry")
    expect(card).to_have_count(1, timeout=20_000)
    expect(card.locator(".outbox-theirs h4")).to_have_text("Ce que le serveur a")
    mine, theirs = sides(card)
    assert theirs == {
        "Pneus": "Pluie",
        "Jets": "33",
        "Erreurs de placement": "0",
        "Cases de sortie de virage": "0",
        "Chrono": "1:10.00",
    }
    assert mine == {
        "Pneus": "Tendres",
        "Jets": "47",
        "Erreurs de placement": "0",
        "Cases de sortie de virage": "0",
        "Chrono": "1:47.00",
    }
    # The server's run is untouched until the referee picks a side; theirs, sent again, is
    # based on the server's version and lands.
    assert Run.objects.get().throws == 33
    card.get_by_role("button", name="Renvoyer ma saisie").click()
    expect(count(a)).to_have_text(SENT, timeout=20_000)
    stored = Run.objects.get()
    assert (stored.tyres, stored.throws, stored.stopwatch_cs) == ("soft", 47, 10700)


#: The report's parts (what was sent, the refused entries) that cover a run card on screen now:
#: [[part's class, card's id], …].
OVERLAPS = """() => {
  const boxes = sel => [...document.querySelectorAll(sel)]
    .filter(e => e.offsetParent !== null).map(e => [e, e.getBoundingClientRect()]);
  const meet = (a, b) =>
    a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  const cards = boxes("form.run-row");
  const found = [];
  boxes("#offline-report .outbox-report, #offline-report .outbox-refused-entry")
    .forEach(([part, r]) => cards.forEach(([card, c]) => {
      if (meet(r, c)) found.push([part.className, card.id]);
    }));
  return found;
}"""


def test_the_back_online_report_on_a_phone_lies_beside_the_run_cards_and_drops_a_resolved_refusal(
    phone, live_server, qualifying, venue_hosts
):
    """Issue 40, item 17; DOMAIN.md "Without Wi-Fi": the referee sees a refusal "until
    resolved" (and no longer), and the count of entries to send is always on screen. At
    390 px, back online, the report (sent, refused) and the refused entry never cover a run
    card, wherever the page is scrolled; the bar that stays on screen is opaque, two lines
    at most, and the report's buttons are 44 px. A refusal the referee resolved leaves the
    report, on the page and once reloaded."""
    page = phone.new_page()
    page.goto(f"{origin(live_server, False)}/q/{qualifying.token}/?session=1")
    phone.set_offline(True)
    for number in (1, 2, 3):
        enter_run(page, number)
        expect(count(page)).to_have_attribute("data-pending", str(number))
    # Meanwhile another referee's run 2 reaches the server.
    Run.objects.create(
        session=QualifyingSession.objects.get(event=qualifying.event),
        driver=Driver.objects.get(championship=qualifying.event.championship, number=2),
        tyres="rain",
        throws=33,
        stopwatch_cs=7000,
    )
    phone.set_offline(False)
    report = page.locator("#offline-report .outbox-report")
    expect(report).to_contain_text("Envoyées\u00a0: 2\u00a0; refusées\u00a0: 1", timeout=20_000)
    refused = page.locator("#offline-report .outbox-refused-entry")
    expect(refused).to_have_count(1)
    height = page.evaluate("document.documentElement.scrollHeight")
    for top in range(0, height, 200):
        page.evaluate("y => window.scrollTo(0, y)", top)
        assert page.evaluate(OVERLAPS) == [], top
    # Scrolled to a card, the bar stays over it: opaque (no text on text) and small.
    page.evaluate("document.getElementById('run-3').scrollIntoView()")
    bar = page.locator("#offline-bar")
    assert bar.evaluate("e => getComputedStyle(e).backgroundColor").startswith("rgb(")
    assert bar.bounding_box()["height"] < 120
    page.evaluate("window.scrollTo(0, 0)")
    assert small_targets(page, "#offline-report") == []

    refused.get_by_role("button", name="Garder ce que le serveur a").click()
    expect(refused).to_have_count(0)
    expect(report.locator(".outbox-refused-list")).to_have_count(0)
    expect(report).to_contain_text("Envoyées\u00a0: 2\u00a0; refusées\u00a0: 0")
    page.reload()  # the report is kept on the phone: resolved there too
    expect(report).to_contain_text("Envoyées\u00a0: 2")
    expect(report).not_to_contain_text("Pilote2")
