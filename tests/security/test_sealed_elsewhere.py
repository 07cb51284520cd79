"""A database restored without its ``SECRET_KEY`` (issue 20, finding 5): every referee link
was sealed with another key, which this server does not have. The desk, the allocation, the
results desk and the organiser API answered 500 (the only server errors the red team saw).

Now every page and API operation of the permission matrix answers each caller exactly as
the matrix says, with the links sealed elsewhere: a referee's phone still opens its table
(the address holds the secret), and the organiser's pages say that the link cannot be read
here and that a new one must be given and printed.

The callers asked are those a link concerns: the organiser (shown the links), the phones
holding table 1's and table 2's links, and table 1's referee account. A logged-in outsider
and an anonymous visitor hold no link and see none: what they are answered does not read
one, and the permission matrix holds it.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client, override_settings
from django.urls import reverse

from qualifying.models import QualifyingTable
from races.grid.services import referee_link_regenerate
from races.models import RaceTable
from tests.security.conftest import World, logged_in
from tests.security.test_permission_matrix import (
    API,
    PAGES,
    api_path,
    api_request,
    api_token,
    codes,
    mismatches,
    page_clients,
    run_matrix,
)
from tournament import sealing
from tournament.access import Actor

#: The key of the laptop the backup came from: not this server's, nor among its fallbacks.
OTHER_KEY = "the-other-laptops-key-" + "x7Qm2" * 10
SAID = "sealed with another secret key"
#: The matrix's callers a link concerns (see above).
HOLDERS = ("organiser", "link", "account", "other")


@pytest.fixture(scope="module")
def sealed_elsewhere(world: World, django_db_blocker: Any) -> World:
    """Every table's link sealed under another key: committed once for the module, with the
    module's world (flushed after its last test); each test's writes are rolled back."""
    tables = [(table, table.token) for table in [*world.qtables, *world.rtables]]
    with override_settings(SECRET_KEY=OTHER_KEY, SECRET_KEY_FALLBACKS=[]):
        resealed = [(table, sealing.seal(secret)) for table, secret in tables]
    with django_db_blocker.unblock():
        for table, sealed in resealed:
            type(table).objects.filter(pk=table.pk).update(token_sealed=sealed)
        for model in (QualifyingTable, RaceTable):
            for table in model.objects.filter(event=world.event):
                assert not table.link_available  # the tests would prove nothing otherwise
    return world


@pytest.mark.django_db
@pytest.mark.parametrize("method", ["GET", "POST"])
@pytest.mark.parametrize("name", sorted(PAGES))
def test_every_page_answers_as_in_the_matrix(sealed_elsewhere: World, name: str, method: str):
    world = sealed_elsewhere
    arguments, expected_by_method = PAGES[name]
    clients = page_clients(world)
    requests = {}
    for role in HOLDERS:
        url = reverse(name, kwargs=arguments(world, role))
        send = clients[role].get if method == "GET" else clients[role].post
        requests[role] = lambda send=send, url=url: send(url)
    expected = codes(expected_by_method[method])
    assert not mismatches(expected, run_matrix(requests)), (name, method)


@pytest.mark.django_db
@pytest.mark.parametrize("operation", sorted(API), ids=lambda op: f"{op[0]} {op[1]}")
def test_every_api_operation_answers_as_in_the_matrix(
    sealed_elsewhere: World, operation: tuple[str, str]
) -> None:
    world = sealed_elsewhere
    method, path = operation
    body, expected_text = API[operation]
    body = body(world) if callable(body) else body
    url = "/api/v1" + api_path(world, path)
    requests = {}
    for role in HOLDERS:
        token = api_token(world, role, path)
        client = Client(HTTP_AUTHORIZATION=f"Bearer {token}") if token else Client()
        requests[role] = lambda client=client: api_request(client, method, url, body)
    expected = codes(expected_text)
    assert not mismatches(expected, run_matrix(requests)), (method, path)


def text_of(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    return response.content.decode()


@pytest.mark.django_db
def test_the_organisers_pages_say_why_and_a_new_link_mends_it(sealed_elsewhere: World) -> None:
    world = sealed_elsewhere
    organiser = page_clients(world)["organiser"]
    slug = world.event.slug
    for name in ("event-desk", "allocation", "results-desk"):
        assert SAID in text_of(organiser, reverse(name, args=[slug])), name
    edit = reverse("desk-table-edit", args=[slug, world.qtables[0].number])
    assert SAID in text_of(organiser, edit)
    # The referee account's list of its tables says to ask race control.
    assert "ask race control for a new link" in text_of(
        logged_in(world.users["ref1"]), reverse("my-tables")
    )
    # The API says nothing it cannot read, and answers.
    tables = Client(HTTP_AUTHORIZATION=f"Bearer {world.api_tokens['organiser']}").get(
        f"/api/v1/events/{slug}/tables"
    )
    assert tables.status_code == 200
    assert {(t["referee_link"], t["referee_token"]) for t in tables.json()} == {(None, None)}

    # A new link (the desk's button) is sealed with this server's key: the table is whole.
    table = RaceTable.objects.get(pk=world.rtables[0].pk)
    renewed = referee_link_regenerate(actor=Actor(user=world.users["organiser"]), table=table)
    fresh = RaceTable.objects.get(pk=renewed.pk)
    assert fresh.link_available and fresh.token == renewed.token
    allocation = text_of(organiser, reverse("allocation", args=[slug]))
    assert reverse("rtable", args=[fresh.token]) in allocation


@pytest.mark.django_db
def test_a_referee_phone_opens_its_table_by_the_link_it_holds(sealed_elsewhere: World) -> None:
    """The secret is in the address: the table's pages link to themselves with it."""
    world = sealed_elsewhere
    phone: Any = Client()
    token = world.rtables[0].token
    page = text_of(phone, reverse("rtable", args=[token]))
    assert reverse("result-entry", args=[token]) in page
    qtoken = world.qtables[0].token
    page = text_of(phone, reverse("qtable", args=[qtoken]))
    assert reverse("qtable-history", args=[qtoken]) in page
