"""Secrets at rest (issue 14): a copy of the database opens no table and acts as nobody.

Referee links (qualifying and race tables) are kept as a SHA-256 digest, to find the table
by its link, and as a copy sealed with a key derived from ``SECRET_KEY``, to print the same
link again (README, "Who may do what"); replaced links keep the digest only, and so do the
tables' history rows. Organisers' API tokens are kept as a digest only. The printed sheets
of a batch, which show every link, are sealed too.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client, override_settings
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from qualifying.models import QualifyingTable
from races.grid.services import referee_link_regenerate, sheet_batch_request
from races.models import RaceTable, SheetBatch
from tests.qr import qr_texts
from tests.security.conftest import World, english, logged_in
from tournament import sealing
from tournament.access import Actor, table_for_link

pytestmark = pytest.mark.django_db


def _text(value: Any) -> str:
    if isinstance(value, bytes | memoryview):
        return bytes(value).decode("latin-1")
    return str(value)


def tables_holding(secret: str) -> list[str]:
    """Every table of the database with a row where ``secret`` appears, in any column."""
    found = []
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names():
            cursor.execute(f"SELECT * FROM {connection.ops.quote_name(table)}")
            for row in cursor.fetchall():
                if any(secret in _text(value) for value in row if value is not None):
                    found.append(table)
                    break
    return found


def secrets_of(world: World) -> list[str]:
    links = [t.token for t in (*world.qtables, *world.rtables)]
    return links + list(world.api_tokens.values())


def test_no_link_and_no_api_token_is_in_the_database(world: World) -> None:
    held = {secret: tables_holding(secret) for secret in secrets_of(world)}
    assert held == {secret: [] for secret in held}


def page_of(table: Any) -> str:
    return "qtable" if isinstance(table, QualifyingTable) else "rtable"


@pytest.mark.parametrize("kind", ["qualifying", "race"])
def test_a_replaced_link_is_not_kept_in_clear(world: World, kind: str) -> None:
    # A fresh copy: the world's own objects stay as the module built them.
    built = world.qtables[0] if kind == "qualifying" else world.rtables[0]
    table = type(built).objects.get(pk=built.pk)
    old = table.token
    table = referee_link_regenerate(actor=Actor(user=world.users["organiser"]), table=table)

    assert tables_holding(old) == [] and tables_holding(table.token) == []
    # The old link still says it was replaced; the new one opens the table.
    replaced = english(Client()).get(reverse(page_of(table), args=[old]))
    assert replaced.status_code == 410
    assert table_for_link(table.token) == table


def test_a_link_is_looked_up_by_its_digest(world: World) -> None:
    for table in (world.qtables[1], world.rtables[1]):
        token = table.token
        with CaptureQueriesContext(connection) as queries:
            assert table_for_link(token) == table
            page = english(Client()).get(reverse(page_of(table), args=[token]))
            assert page.status_code == 200
        sent = " ".join(str(q["sql"]) for q in queries.captured_queries)
        assert token not in sent
        assert sealing.link_digest(token) in sent


def test_an_api_token_and_a_table_token_work_as_bearer_tokens(world: World) -> None:
    tables = f"/api/v1/events/{world.event.slug}/tables"
    for token in (world.api_tokens["organiser"], world.rtables[0].token):
        response = Client(HTTP_AUTHORIZATION=f"Bearer {token}").get(tables)
        assert response.status_code == 200, response.content
    organiser = Client(HTTP_AUTHORIZATION=f"Bearer {world.api_tokens['organiser']}")
    listed = organiser.get(tables).json()
    # Organisers still read each table's link and token (API.md): the sealed copy opens.
    assert [t["referee_token"] for t in listed] == [t.token for t in world.rtables]


@pytest.mark.parametrize("kind", ["qualifying", "race"])
def test_a_sheet_printed_twice_keeps_the_first_qr_code_working(world: World, kind: str) -> None:
    table = world.qtables[0] if kind == "qualifying" else world.rtables[0]
    page, sheet = ("qtable", "qtable-sheet") if kind == "qualifying" else ("rtable", "rtable-sheet")
    organiser = logged_in(world.users["organiser"])
    first = qr_texts(organiser.get(reverse(sheet, args=[table.token])).content)
    second = qr_texts(organiser.get(reverse(sheet, args=[table.token])).content)

    assert first == second and len(first) == 1
    path = urlsplit(first[0]).path
    assert path == reverse(page, args=[table.token])
    assert english(Client()).get(path).status_code == 200


def test_the_sealed_copy_needs_this_servers_secret_key(world: World) -> None:
    table = RaceTable.objects.get(pk=world.rtables[0].pk)
    token = world.rtables[0].token
    sealed, key = table.token_sealed, settings.SECRET_KEY

    assert token not in sealed and sealing.unseal(sealed) == token
    with override_settings(SECRET_KEY="another-key-" + "x" * 50):
        assert sealing.unseal(sealed) is None
    # A new key with the old one kept among the fallbacks (Django's way to rotate keys).
    with override_settings(SECRET_KEY="another-key-" + "x" * 50, SECRET_KEY_FALLBACKS=[key]):
        assert sealing.unseal(sealed) == token


def test_the_printed_batch_of_sheets_is_sealed_at_rest(
    world: World, django_capture_on_commit_callbacks: Any
) -> None:
    organiser = Actor(user=world.users["organiser"])
    for kind, tables in (("race", world.rtables), ("qualifying", world.qtables)):
        SheetBatch.objects.filter(event=world.event, kind=kind).delete()
        with django_capture_on_commit_callbacks(execute=True):
            sheet_batch_request(
                actor=organiser, event=world.event, kind=kind, language="en", inline=True
            )
        batch = SheetBatch.objects.get(event=world.event, kind=kind)
        with connection.cursor() as cursor:
            cursor.execute("SELECT pdf FROM races_sheetbatch WHERE id = %s", [batch.pk])
            stored = bytes(cursor.fetchone()[0])
        assert not stored.startswith(b"%PDF") and batch.pdf.startswith(b"%PDF")
        for table in tables:
            assert tables_holding(table.token) == []
        download = logged_in(world.users["organiser"]).get(
            reverse("sheet-batch-download", args=[world.event.slug, kind])
        )
        assert download.status_code == 200 and download.content.startswith(b"%PDF")
        found = qr_texts(download.content)
        assert any(text.endswith(f"/{tables[0].token}/") for text in found), found
