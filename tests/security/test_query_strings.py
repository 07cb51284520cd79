"""No query string makes a page fail: it is ignored, or the answer is a 4xx, never a 500.

Every URL pattern of the permission matrix is opened (GET) by its organiser and by a
visitor holding table 1's link, on the published event of ``tests/security/hostile.py``,
with query strings that are wrong on purpose: pages that do not exist (``?page=0``,
``?page=abc``...), export formats that are not served (``?_export=ods``...), columns that
do not exist (``?sort=nonsense``), a table number "²" (a digit to ``str.isdigit``, not to
``int``), a NUL character (PostgreSQL refuses it in a query). Tables are also sorted by
each of their columns, both ways, on the page and in the export.

A page is sent the queries of the parameters it reads, and the ones that break a query
string itself (a value past ``int()``'s digits, a NUL) whatever it reads: which parameters
a page reads is recorded on a plain request and on one that names every parameter
(``QueryDict`` reads). A page whose code walks the whole query reads them all. What only
copies the values as text, into a link that keeps the query (django-tables2's tags, a
template) or into the public cache's key, parses none: it reads no parameter. Sending
``?rows=abc`` to a page that never reads ``rows`` cost a second of the suite per page and
could not fail.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import django_tables2 as tables
import pytest
from django.db import transaction
from django.http import QueryDict
from django.test import Client, RequestFactory
from django.urls import reverse

from tests.security.conftest import World, english, logged_in
from tests.security.hostile import hostile_world
from tests.security.query_reads import ALL, parameters_read
from tests.security.test_permission_matrix import PAGES
from tournament.clubs.scale_forms import CatalogueSearchForm

pytestmark = [pytest.mark.django_db, pytest.mark.keeps_context]


@pytest.fixture(scope="module")
def hostile(django_db_setup: None, django_db_blocker: Any) -> Any:
    with hostile_world(django_db_blocker) as world:
        yield world


QUERIES: list[dict[str, str]] = [
    # Pages of a paginated table (and the projector's).
    {"page": "2"},
    {"page": "0"},
    {"page": "-1"},
    {"page": "abc"},
    {"page": "999999"},
    {"page": "1.5"},
    {"page": "9" * 5000},  # past int()'s 4,300 digits
    {"per_page": "0"},
    {"per_page": "-1"},
    {"rows": "0"},
    {"rows": "abc"},
    # Export formats.
    {"_export": "ods"},
    {"_export": "xls"},
    {"_export": ""},
    {"_export": "json"},
    {"_export": "yaml"},
    {"_export": "latex"},
    {"_export": "tsv"},
    {"_export": "CSV"},
    # Sorting.
    {"sort": "nonsense"},
    {"sort": "-nonsense"},
    {"sort": ""},
    {"sort": ","},
    {"sort": "rank,-nonsense"},
    {"sort": "__class__"},
    {"sort": "nonsense", "_export": "csv"},
    # The other parameters pages read.
    {"table": "²"},
    {"table": "99"},
    {"table": "\u0661"},  # an Arabic-Indic 1
    {"table": "9" * 5000},
    {"table": "²", "_export": "csv"},
    {"session": "²"},
    {"session": "abc"},
    {"q": "\x00"},
    {"q": "%_"},
    {"reopen": "²"},
    {"part": "status"},
]


#: Sent to every page, whatever it reads: they break the query string itself.
WHATEVER_IS_READ = [{"page": "9" * 5000}, {"table": "9" * 5000}, {"q": "\x00"}]

#: Every query parameter a page's code reads (``request.GET``, a form given it, a library a
#: view calls: django-tables2's ``page``, ``per_page`` and ``sort``), found by reading the
#: code; ``test_every_parameter_read_is_listed`` fails when one is missing.
PARAMETERS = {
    "_export", "event", "me", "next", "page", "part", "per_page", "q", "reopen", "rows",
    "session", "sort", "start", "status", "table",
}  # fmt: skip
#: What each parameter a page reads is sent (issue 49, item 10: ``/guide/?event=%00`` was a
#: 500 on PostgreSQL): a NUL, not a number, past ``int()``'s digits, empty.
HOSTILE_VALUES = ("\x00", "abc", "9" * 5000, "")
#: The forms a page fills from the whole query (``Form(request.GET)``): their fields.
QUERY_FORMS = {"CatalogueSearchForm": CatalogueSearchForm}
#: Every parameter at once, with a value a page takes: the branches it opens read theirs.
EVERY_PARAMETER = {key: "1" for query in QUERIES for key in query} | {"part": "status"}


def queries_for(client: Client, url: str) -> list[dict[str, str]]:
    """The queries worth sending to ``url``: those naming only parameters it reads."""
    with parameters_read() as read:
        status_of(client, url, {})
        status_of(client, url, EVERY_PARAMETER)
    unlisted = read - PARAMETERS - {ALL}
    assert not unlisted, f"{url} reads {unlisted}: add them to PARAMETERS"
    chosen = [query for query in QUERIES if ALL in read or set(query) <= read]
    hostile = [
        {name: value}
        for name in sorted(PARAMETERS if ALL in read else read)
        for value in HOSTILE_VALUES
    ]
    sent = list(chosen)
    for query in WHATEVER_IS_READ + hostile:
        if query not in sent:
            sent.append(query)
    return sent


def test_what_a_page_reads_is_recorded(hostile: World) -> None:
    """The recording the choice rests on: a key read is named, a walk reads them all."""
    request = RequestFactory().get("/", {"page": "1", "unread": "x"})
    with parameters_read() as read:
        request.GET.get("page")
        assert "sort" not in request.GET
    assert read == {"page", "sort"}
    with parameters_read() as read:
        dict(request.GET.items())
    assert ALL in read
    assert "items" not in QueryDict.__dict__  # put back as it was
    # The drivers' list reads its table's parameters; its sorting links copy the rest.
    url = reverse("championship", args=[hostile.championship.slug])
    sent = queries_for(english(Client()), url)
    assert {"page": "abc"} in sent and {"sort": "__class__"} in sent and {"_export": "ods"} in sent
    assert {"session": "abc"} not in sent
    # An organiser's page, opened by nobody: the login redirect reads nothing.
    desk = reverse("event-desk", args=[hostile.event.slug])
    assert queries_for(english(Client()), desk) == WHATEVER_IS_READ


def clients(world: World) -> dict[str, Client]:
    return {"organiser": logged_in(world.users["organiser"]), "link": english(Client())}


def status_of(client: Client, url: str, query: dict[str, str]) -> Any:
    """The status code, or the exception a 500 would have been (the test client raises it)."""
    sid = transaction.savepoint()
    try:
        return client.get(url, query).status_code
    except Exception as error:  # noqa: BLE001 - what failed is the point of the test
        return f"{type(error).__name__}: {error}"[:200]
    finally:
        transaction.savepoint_rollback(sid)


GET_PAGES = sorted(name for name, (_arguments, methods) in PAGES.items() if "GET" in methods)


@pytest.mark.parametrize("name", GET_PAGES)
def test_no_query_string_makes_a_page_fail(hostile: World, name: str) -> None:
    arguments = PAGES[name][0]
    url = reverse(name, kwargs=arguments(hostile, "organiser"))
    failures = [
        (role, query, status)
        for role, client in clients(hostile).items()
        for query in queries_for(client, url)
        if not isinstance(status := status_of(client, url, query), int) or status >= 500
    ]
    assert failures == []


@pytest.mark.parametrize("name", GET_PAGES)
def test_every_column_sorts_both_ways(hostile: World, name: str) -> None:
    """Sorting by any column of a page's table, up or down, on the page or in its export."""
    arguments = PAGES[name][0]
    url = reverse(name, kwargs=arguments(hostile, "organiser"))
    client = clients(hostile)["organiser"]
    response = client.get(url)
    table = (response.context or {}).get("table") if response.status_code == 200 else None
    if not isinstance(table, tables.Table):
        return  # no sortable table on this page
    columns = [column.name for column in table.columns.iterall() if column.orderable]
    assert columns
    failures = [
        (query, status)
        for column in columns
        for sort in (column, f"-{column}")
        for query in ({"sort": sort}, {"sort": sort, "_export": "csv"})
        if (status := status_of(client, url, query)) != 200
    ]
    assert failures == []


def test_a_page_past_the_last_is_not_found(hostile: World) -> None:
    """The drivers' list pages by 100: with 8 drivers, page 2 does not exist."""
    url = reverse("championship", args=[hostile.championship.slug])
    client = english(Client())

    assert client.get(url, {"page": "1"}).status_code == 200
    for page in ("2", "0", "abc", "999999"):
        assert client.get(url, {"page": page}).status_code == 404, page
    assert client.get(url, {"page": "2", "_export": "csv"}).status_code == 200  # every row


ROOT = Path(__file__).resolve().parents[2]
#: How the code reads a parameter: ``request.GET.get("x")``, ``request.GET["x"]``,
#: ``"x" in request.GET``; a form filled from the query; a walk of it (the public cache's
#: key copies the values as text, reading none).
READ_BY_NAME = re.compile(
    r"""request\.GET(?:\.get|\.getlist|\.pop)?[(\[]\s*["']([^"']+)["']"""
    r"""|["']([^"']+)["']\s+(?:not\s+)?in\s+request\.GET\b"""
)
READ_BY_FORM = re.compile(r"\b([A-Z]\w*)\(\s*request\.GET\b")
WALKS = {"tournament/public/cache.py": "request.GET.lists()"}


def test_every_parameter_read_is_listed() -> None:
    """Every ``request.GET`` of the code names a parameter of ``PARAMETERS`` (or fills a form
    of ``QUERY_FORMS`` whose fields are listed): a view reading a new parameter fails here
    until its hostile values are sent to it."""
    unexplained, names = [], set()
    for folder in ("tournament", "races", "qualifying", "standings", "paddock"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            for number, line in enumerate(path.read_text().splitlines(), 1):
                if "request.GET" not in line or WALKS.get(relative, "-") in line:
                    continue
                found = [a or b for a, b in READ_BY_NAME.findall(line)]
                forms = READ_BY_FORM.findall(line)
                for form in forms:
                    assert form in QUERY_FORMS, f"{relative}:{number}: add {form} to QUERY_FORMS"
                    found += list(QUERY_FORMS[form].base_fields)
                if not found:
                    unexplained.append(f"{relative}:{number}: {line.strip()}")
                names.update(found)
    assert unexplained == []
    assert names - PARAMETERS == set(), "add these to PARAMETERS"
    assert {"event", "status", "q", "me", "start"} <= names  # the scan reads the code
