"""Public pages under a publication spike (tournament.public.cache, tournament.public.freshness):
cached for visitors, never stale, compressed without a secret inside, 304 when unchanged.

The event: four drivers, one qualifying session, two race tables of two, both results
submitted (not confirmed) and the results published. Everything below goes through the
services race control uses, then reads the pages as a player's phone does.
"""

from __future__ import annotations

import gzip
import re

import brotli
import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import resolve, reverse

from qualifying.models import QualifyingSession
from races.grid.services import allocation_run
from races.models import RaceTable, ResultLine
from races.results.services import result_confirm, result_reopen, result_save
from standings.services import championship_scoring_set
from tournament.access import Actor
from tournament.models import Driver, Player, PlayerRating, RatingPoint
from tournament.public import freshness
from tournament.public.cache import is_public_request, tables_of
from tournament.registration.services import event_publish

# Committed for real: on PostgreSQL the change counters move at commit (deferred triggers,
# once per table and transaction), which a test's rolled-back transaction never reaches.
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def actor(organiser):
    return Actor(user=organiser)


@pytest.fixture
def event(make_event, actor):
    """Tables 1 and 2 of two drivers each, both results submitted, results published."""
    event = make_event(n_drivers=4, qualifying_mode="draw")
    from qualifying.services import draw_record

    draw_record(actor=actor, event=event, rolls={1: [1], 2: [2], 3: [3], 4: [4]})
    for table in allocation_run(actor=actor, event=event, table_size=2):
        grid = list(table.slots.order_by("position").values_list("driver__number", flat=True))
        result_save(actor=actor, table=table, version=0, finish=grid, retired=[], dns=[],
                    submit=True)  # fmt: skip
    event_publish(actor=actor, event=event, results=True, allocation=True)
    return event


def phone() -> Client:
    client = Client(HTTP_ACCEPT_ENCODING="gzip, deflate, br")
    client.cookies["django_language"] = "en"
    return client


def body(response) -> str:
    raw = response.content
    encoding = response.get("Content-Encoding", "")
    if encoding == "br":
        raw = brotli.decompress(raw)
    elif encoding == "gzip":
        raw = gzip.decompress(raw)
    return raw.decode()


def standings_points(html: str) -> dict[str, str]:
    """Driver name → total points, as the standings table shows them."""
    rows = re.findall(r'<tr data-number="\d+"[^>]*>(.*?)</tr>', html, re.S)
    found = {}
    for row in rows:
        name = re.search(r'<td class="driver">\s*<a [^>]*>(.*?)</a>', row, re.S)
        total = re.search(r'<td class="num total">\s*(\d+)', row)
        if name and total:
            found[name.group(1).strip()] = total.group(1)
    return found


def table(event, number: int) -> RaceTable:
    return RaceTable.objects.get(event=event, number=number)


def test_a_confirmation_shows_on_the_cached_standings_at_once(event, actor):
    url = reverse("standings", args=[event.championship.slug])
    client = phone()
    first = client.get(url)
    assert first.status_code == 200
    assert standings_points(body(first)) == {}  # nothing confirmed yet: nobody scored
    assert body(client.get(url)) == body(first)  # the second visit: the stored page

    result_confirm(actor=actor, table=table(event, 1))
    winner = ResultLine.objects.get(table__event=event, table__number=1, position=1).driver
    after = standings_points(body(client.get(url)))
    assert after[winner.name] == "10"

    # Reopening takes the points away again, on the very next visit.
    result_reopen(actor=actor, table=table(event, 1), reason="wrong sheet")
    assert winner.name not in standings_points(body(client.get(url)))


@pytest.mark.parametrize("change", ["scoring", "name", "publication"])
def test_whatever_the_standings_show_changes_their_page(event, actor, change):
    result_confirm(actor=actor, table=table(event, 1))
    url = reverse("standings", args=[event.championship.slug])
    client = phone()
    before = body(client.get(url))
    winner = ResultLine.objects.get(table__event=event, table__number=1, position=1).driver
    if change == "scoring":
        championship_scoring_set(
            actor=actor,
            championship=event.championship,
            points_scale=[25, 18],
            points_mode="per_table",
            best_results=None,
        )
        assert standings_points(body(client.get(url)))[winner.name] == "25"
    elif change == "name":
        # A bulk update, as an import or the admin's actions do: no signal, no save().
        Driver.objects.filter(pk=winner.pk).update(first_name="Renamed")
        assert "Renamed" in body(client.get(url)) and "Renamed" not in before
    else:
        event_publish(actor=actor, event=event, results=False)
        assert standings_points(body(client.get(url))) == {}


def test_the_event_results_and_where_do_i_sit_follow_the_desk(event, actor):
    results = reverse("event-results", args=[event.slug])
    where = reverse("where", args=[event.slug])
    client = phone()
    assert "Table 1" in body(client.get(where, {"q": "1"}))
    first = body(client.get(results))
    result_confirm(actor=actor, table=table(event, 2))
    assert body(client.get(results)) != first
    event_publish(actor=actor, event=event, allocation=False, results=False)
    assert client.get(where, {"q": "1"}).status_code == 404
    assert client.get(results).status_code == 404


def test_unchanged_page_answers_304_with_its_etag(event, actor):
    url = reverse("standings", args=[event.championship.slug])
    client = phone()
    first = client.get(url)
    etag, modified = first["ETag"], first["Last-Modified"]
    assert etag and modified and first["Cache-Control"] == "no-cache"
    again = client.get(url, HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304 and again.content == b""
    # Once something it shows changes, the same ETag gets the new page.
    result_confirm(actor=actor, table=table(event, 1))
    changed = client.get(url, HTTP_IF_NONE_MATCH=etag)
    assert changed.status_code == 200 and changed["ETag"] != etag


def test_a_page_changed_within_the_second_is_not_answered_304_since_it(event, actor):
    """A client that asks "modified since" the second it was given gets the page changed
    within that second: the answer goes by the ETag only (issue 20)."""
    url = reverse("standings", args=[event.championship.slug])
    client = phone()
    first = client.get(url)
    result_confirm(actor=actor, table=table(event, 1))  # within the same second, as a rule
    changed = client.get(url, HTTP_IF_MODIFIED_SINCE=first["Last-Modified"])
    assert changed.status_code == 200 and changed["ETag"] != first["ETag"]
    unchanged = client.get(url, HTTP_IF_MODIFIED_SINCE=changed["Last-Modified"])
    assert unchanged.status_code == 200  # no 304 on a date alone, ever
    assert client.get(url, HTTP_IF_NONE_MATCH=changed["ETag"]).status_code == 304


def test_a_fragment_and_its_page_are_different_answers(event):
    """htmx's fragment of the projector and the projector's whole page: each its own cached
    answer, and Vary says HX-Request to every cache on the way (issue 20)."""
    url = reverse("standings-projector", args=[event.championship.slug])
    client = phone()
    fragment = client.get(url, HTTP_HX_REQUEST="true")
    page = client.get(url)
    assert "HX-Request" in page["Vary"] and "HX-Request" in fragment["Vary"]
    assert "<html" in body(page) and "<html" not in body(fragment)
    assert "<html" not in body(client.get(url, HTTP_HX_REQUEST="true"))  # stored apart


@pytest.mark.parametrize(
    ("accepts", "encoding"),
    [
        ("gzip, deflate, br", "br"),
        ("gzip", "gzip"),
        ("", None),
        ("br;q=0, gzip", "gzip"),  # refused with q=0 (RFC 9110): never sent
        ("gzip;q=0, br;q=0", None),
        ("gzip;q=0.5", "gzip"),
    ],
)
def test_public_pages_are_compressed_as_the_phone_accepts(event, actor, accepts, encoding):
    result_confirm(actor=actor, table=table(event, 1))
    client = Client(HTTP_ACCEPT_ENCODING=accepts)
    response = client.get(reverse("standings", args=[event.championship.slug]))
    assert response.get("Content-Encoding") == encoding
    assert "Accept-Encoding" in response["Vary"]
    assert "<table" in body(response)
    if encoding:
        assert len(response.content) < len(body(response).encode()) / 3


SECRETS = re.compile(r"csrfmiddlewaretoken|X-CSRFToken|/r/[\w-]{20,}/|/q/[\w-]{20,}/")


def test_no_secret_in_a_compressed_public_page(event):
    """BREACH needs a secret in a compressed page that also reflects what the attacker
    sends: public pages carry neither a CSRF token nor a referee link, and set no cookie."""
    client = phone()
    tokens = [t.token for t in RaceTable.objects.filter(event=event)]
    pages = [
        reverse("event", args=[event.slug]),
        reverse("where", args=[event.slug]) + "?q=reflected-text",
        reverse("event-results", args=[event.slug]),
        reverse("standings", args=[event.championship.slug]),
        reverse("team-standings", args=[event.championship.slug]),
        reverse("standings-projector", args=[event.championship.slug]),
        reverse("driver", args=[event.championship.slug, 1]),
        reverse("home"),
    ]
    compressed = 0
    for url in pages:
        response = client.get(url)
        assert response.status_code == 200, url
        html = body(response)
        assert not SECRETS.search(html), (url, SECRETS.search(html))
        assert not any(token in html for token in tokens), url
        assert "csrftoken" not in response.cookies, url
        compressed += response.get("Content-Encoding") == "br"
    assert compressed == len(pages)


def test_logged_in_people_get_their_own_uncompressed_page(event, organiser):
    """Race control sees what the public does not, and a page with its CSRF token: built
    for it, never stored, never compressed."""
    client = Client(HTTP_ACCEPT_ENCODING="gzip, br")
    client.force_login(organiser)
    response = client.get(reverse("event", args=[event.slug]))
    assert response.status_code == 200
    assert "Content-Encoding" not in response
    assert "X-CSRFToken" in response.content.decode()
    assert not is_public_request(response.wsgi_request)


def test_the_counters_move_with_every_kind_of_write(event):
    tables = ["tournament_driver", "races_resultline"]
    before = freshness.versions(connection, tables)
    Driver.objects.filter(championship=event.championship).update(last_name="X")  # bulk
    ResultLine.objects.filter(event=event).delete()  # a queryset delete
    with connection.cursor() as cursor:  # raw SQL
        cursor.execute("UPDATE tournament_driver SET first_name = 'Y'")
    after = freshness.versions(connection, tables)
    assert after[0] == before[0]  # same incarnation
    assert after[1] >= before[1] + 2
    assert after[2] > before[2] or not ResultLine.objects.exists()


def career_of(event) -> list[int]:
    """Driver 1 as a player rated after table 1 (the career page reads both)."""
    driver = Driver.objects.get(championship=event.championship, number=1)
    driver.player = Player.objects.create(first_name=driver.first_name, last_name="Lefèvre")
    driver.save()
    RatingPoint.objects.create(player=driver.player, family="formula_de", seq=1, event=event,
                               table_number=1, place=1, mu=27, sigma=7, rating=6)  # fmt: skip
    PlayerRating.objects.create(player=driver.player, family="formula_de", mu=27, sigma=7,
                                rating=6, races=1)  # fmt: skip
    return [driver.player_id]


def entrants_of(event) -> list[str]:
    """Driver 1's player, rated, accepted by sign-up (the psych sheet reads the rating)."""
    from tournament.signup.models import Registration

    career_of(event)
    driver = Driver.objects.get(championship=event.championship, number=1)
    Registration.objects.create(event=event, first_name="Élodie", last_name="Lefèvre",
                                status="accepted", driver=driver)  # fmt: skip
    return [event.slug]


PUBLIC_PAGES = {
    "home": lambda e: [],
    "event": lambda e: [e.slug],
    "where": lambda e: [e.slug],
    "event-results": lambda e: [e.slug],
    "standings": lambda e: [e.championship.slug],
    "team-standings": lambda e: [e.championship.slug],
    "standings-projector": lambda e: [e.championship.slug],
    "driver": lambda e: [e.championship.slug, 1],
    "career": career_of,
    "qualifying-general": lambda e: [e.slug],
    "qualifying-session": lambda e: [e.slug, 1],
    "ratings": lambda e: ["formula_de"],
    "signup-entrants": entrants_of,
}


@pytest.mark.parametrize("name", sorted(PUBLIC_PAGES))
def test_each_cached_page_lists_every_table_it_reads(event, actor, name):
    """The key of a page is the counters of the tables it declares: a query on a table it
    does not declare would let the page go stale, so every query is checked here."""
    result_confirm(actor=actor, table=table(event, 1))
    event_publish(actor=actor, event=event, qualifying=True)
    if name == "qualifying-session":  # a draw has no session: one as a timed event has
        QualifyingSession.objects.create(
            event=event, number=1, roll=12, source="physical", weather="sun", track="dry"
        )
    url = reverse(name, args=PUBLIC_PAGES[name](event))
    declared = tables_of(resolve(url).func.public_tables) | {freshness.TABLE}
    client = phone()
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url, {"q": "Pilote"} if name == "where" else {}).status_code == 200
    read = set()
    for query in captured.captured_queries:
        read |= set(re.findall(r'(?:FROM|JOIN)\s+"?(\w+)"?', query["sql"]))
    assert read - declared == set(), f"{name} reads tables it does not declare"


# --- What may grow the cache (issue 20) ------------------------------------------------------


def kept_pages() -> int:
    """The public pages kept in the cache now (Redis in CI, a process's memory otherwise)."""
    from django.core.cache import cache

    if hasattr(cache._cache, "get_client"):  # RedisCache
        return sum(1 for _ in cache._cache.get_client().scan_iter(match="*paddock:page:*"))
    return sum(1 for key in cache._cache if "paddock:page:" in key)  # LocMemCache


def test_a_query_string_or_cookie_the_page_does_not_read_keeps_nothing(event):
    url = reverse("standings", args=[event.championship.slug])
    client = phone()
    plain = client.get(url)
    kept = kept_pages()  # the plain page and those built at the publication
    for n in range(30):
        client.cookies["paddock_me"] = f"x{n}"  # read by "your table" pages only
        client.cookies["tracker"] = str(n)
        assert client.get(url, {f"utm_{n}": "qr"}).status_code == 200
        assert client.get(url, {"sort": "-total", "sort_": str(n)}).status_code == 200
        junk = client.get(url)
        assert junk.status_code == 200 and junk["ETag"] == plain["ETag"]  # the same page
    assert kept_pages() == kept
    # A parameter twice, or a value no real one is, is answered and not kept either.
    assert client.get(f"{url}?sort=total&sort=-total").status_code == 200
    assert client.get(url, {"sort": "x" * 500}).status_code == 200
    assert kept_pages() == kept
    # What the page reads is kept, once: a sort, the same sort again.
    sorted_once = client.get(url, {"sort": "-total"})
    assert client.get(url, {"sort": "-total"})["ETag"] == sorted_once["ETag"]
    assert kept_pages() == kept + 1


def test_variants_of_a_page_are_kept_up_to_a_bound(event, monkeypatch):
    from tournament.public import cache as page_cache

    monkeypatch.setattr(page_cache, "MAX_VARIANTS", 5)
    url = reverse("where", args=[event.slug])
    client = phone()
    assert client.get(url).status_code == 200  # the plain page is always kept
    kept = kept_pages()
    for n in range(12):
        response = client.get(url, {"q": f"Pilote{n}"})
        assert response.status_code == 200 and f"Pilote{n}" in body(response)
    assert kept_pages() == kept + 5
    # A player remembered on this phone is a variant of "your table" pages too.
    event_url = reverse("event", args=[event.slug])
    assert phone().get(event_url).status_code == 200  # the plain page
    kept = kept_pages()
    for number in (1, 2, 3, 4):
        client.cookies["paddock_me"] = f"{event.championship.slug}:{number}"
        assert client.get(event_url).status_code == 200
    assert kept_pages() == kept + 4


@pytest.mark.parametrize("value", ["1", "false", "TRUE", "yes"])
def test_an_htmx_header_other_than_true_does_not_store_a_page_as_the_fragment(event, value):
    """``HX-Request: 1`` (or false, TRUE) gets the whole page, as django-htmx reads the header
    (request.htmx true for "true" only): that page must not be stored under the fragment's
    key, where the projector's next htmx poll would get a whole page (issue 32, N1)."""
    url = reverse("standings-projector", args=[event.championship.slug])
    client = phone()
    poisoned = client.get(url, HTTP_HX_REQUEST=value)
    assert "<html" in body(poisoned)  # the view answers the whole page to such a header
    assert "<html" not in body(client.get(url, HTTP_HX_REQUEST="true"))
    assert "<html" in body(client.get(url))


def test_the_variants_of_all_pages_together_are_kept_up_to_a_size(event, monkeypatch):
    """The bound of 100 variants per page multiplied across pages and versions (issue 32):
    the bytes of the variants kept, all pages together, are bounded too. Beyond, a variant
    is answered and not kept, on any page; the plain pages still are."""
    from django.core.cache import cache

    from tournament.public import cache as page_cache

    where = reverse("where", args=[event.slug])
    standings = reverse("standings", args=[event.championship.slug])
    client = phone()
    one = len(body(client.get(where, {"q": "Pilote0"})))
    monkeypatch.setattr(page_cache, "MAX_VARIANT_BYTES", 2 * one + one // 2, raising=False)
    cache.delete("paddock:public:variant-bytes")  # a new window
    kept = kept_pages()
    for n in (1, 2, 3):  # two fit, the third does not
        response = client.get(where, {"q": f"Pilote{n}"})
        assert response.status_code == 200 and f"Pilote{n}" in body(response)
    assert kept_pages() == kept + 2, "each page's own bound (100) is far away"
    assert client.get(standings, {"sort": "-total"}).status_code == 200  # another page
    assert kept_pages() == kept + 2
    assert client.get(standings).status_code == 200  # a plain page: always kept
    assert kept_pages() == kept + 3
