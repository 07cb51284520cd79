"""The offline tables' middleware and pages (issue 31): the outbox's outcomes (a redirect
with an error message is a refusal), which pages a phone may keep (never an organiser's,
never behind a login), the service worker served at the root and the manifest.

Callers: a race table's referee link (the outbox), the organiser (logged in), nobody.
"""

from __future__ import annotations

import json
import uuid

import pytest
from django.test import Client
from django.urls import reverse

from qualifying.services import draw_record
from races.grid.services import allocation_run
from races.models import GridSlot, RaceTable
from tournament.access import Actor
from tournament.offline.middleware import KEEP_HEADER, OUTBOX_HEADER
from tournament.offline.models import IdempotencyKey
from tournament.offline.views import PRECACHE
from tournament.sealing import unseal_bytes

pytestmark = pytest.mark.django_db


@pytest.fixture
def race_table(make_event, organiser):
    """Race table 1 of an event drawn in number order: drivers 1-4."""
    actor = Actor(user=organiser)
    event = make_event(
        n_drivers=8, qualifying_mode="draw", separate_teams=False, published_allocation=True
    )
    draw_record(actor=actor, event=event, rolls={n: [n] for n in range(1, 9)})
    allocation_run(actor=actor, event=event, table_size=4)
    return RaceTable.objects.get(event=event, number=1)


def outbox_post(url, data, key=None):
    headers = {f"HTTP_{OUTBOX_HEADER.upper().replace('-', '_')}": "1"}
    headers["HTTP_IDEMPOTENCY_KEY"] = key or str(uuid.uuid4())
    return Client().post(url, data, **headers)


def stand_url(table, number):
    return reverse("rtable-stand", args=[table.token, number])


# --- The outbox's outcomes ------------------------------------------------------------------


def test_a_write_the_outbox_sends_is_answered_saved_with_its_messages(race_table):
    stand = race_table.event.stands()[0]
    answer = outbox_post(stand_url(race_table, 1), {"stand": str(stand)})
    assert answer.status_code == 200
    body = answer.json()
    assert body["outcome"] == "saved"
    assert body["location"].endswith("#stands")
    assert body["messages"][0]["level"] == "success"
    assert GridSlot.objects.get(table=race_table, driver__number=1).stand == stand


def test_a_refused_write_is_answered_refused_with_why(race_table):
    answer = outbox_post(stand_url(race_table, 1), {"stand": "not a stand"})
    body = answer.json()
    assert body["outcome"] == "refused"
    assert body["messages"][0]["level"] == "error"
    assert body["messages"][0]["text"]


def test_the_outcome_is_the_answer_kept_for_the_key(race_table):
    key = str(uuid.uuid4())
    stand = race_table.event.stands()[0]
    first = outbox_post(stand_url(race_table, 1), {"stand": str(stand)}, key)
    again = outbox_post(stand_url(race_table, 1), {"stand": str(stand)}, key)
    assert again.json() == first.json()
    # Kept sealed (no table link as it is in a row), the outcome itself.
    assert json.loads(unseal_bytes(bytes(IdempotencyKey.objects.get().response))) == first.json()


def test_a_browser_s_own_form_post_still_redirects(race_table):
    stand = race_table.event.stands()[0]
    answer = Client().post(stand_url(race_table, 1), {"stand": str(stand)})
    assert answer.status_code == 302


def test_a_replaced_link_answers_410_to_the_outbox(race_table, organiser):
    from races.grid.services import referee_link_regenerate

    old = race_table.token
    referee_link_regenerate(actor=Actor(user=organiser), table=race_table)
    answer = outbox_post(reverse("rtable-stand", args=[old, 1]), {"stand": "1"})
    assert answer.status_code == 410


# --- Which pages a phone may keep -----------------------------------------------------------


def test_a_table_page_opened_from_its_link_may_be_kept(race_table):
    page = Client().get(reverse("rtable", args=[race_table.token]))
    assert page[KEEP_HEADER] == "table"
    html = page.content.decode()
    assert 'id="offline-bar"' in html and 'data-offline-copy="0"' in html
    assert f'data-scope="/r/{race_table.token}/"' in html
    assert 'rel="manifest"' in html


def test_a_players_page_may_be_kept(race_table):
    page = Client().get(reverse("where", args=[race_table.event.slug]))
    assert page[KEEP_HEADER] == "public"
    assert 'data-kind="public"' in page.content.decode()


def test_an_organiser_s_pages_are_never_kept(race_table, organiser):
    client = Client()
    client.force_login(organiser)
    for url in (
        reverse("rtable", args=[race_table.token]),
        reverse("where", args=[race_table.event.slug]),
        reverse("results-desk", args=[race_table.event.slug]),
        "/admin/",
    ):
        assert KEEP_HEADER not in client.get(url), url


def test_the_login_page_and_the_api_are_never_kept():
    assert KEEP_HEADER not in Client().get(reverse("login"))
    assert KEEP_HEADER not in Client().get("/api/v1/championships")


# --- The service worker and the manifest ----------------------------------------------------


def test_the_service_worker_is_served_from_the_root_with_its_files():
    answer = Client().get("/sw.js")
    assert answer.status_code == 200
    assert answer["Content-Type"].startswith("text/javascript")
    assert answer["Service-Worker-Allowed"] == "/"
    assert answer["Cache-Control"] == "no-cache"
    code = answer.content.decode()
    settings_line = json.loads(code.split("\n", 1)[0].removeprefix("self.PADDOCK = ").rstrip(";"))
    assert len(settings_line["precache"]) == len(PRECACHE)
    assert all(url.startswith("/static/") for url in settings_line["precache"])
    assert 'addEventListener("fetch"' in code


def test_every_file_the_worker_keeps_exists(client):
    for name in PRECACHE:
        assert client.get(f"/static/{name}").status_code == 200, name


@pytest.mark.parametrize(
    ("language", "name"),
    [("fr", "Paddock\u00a0: table de commissaire"), ("en", "Paddock: referee's table")],
)
def test_the_manifest_starts_at_the_table_in_the_page_s_language(race_table, language, name):
    client = Client()
    client.cookies["django_language"] = language
    start = f"/r/{race_table.token}/"
    manifest = client.get(reverse("offline-manifest"), {"start": start}).json()
    assert manifest["name"] == name
    assert manifest["start_url"] == start
    assert manifest["display"] == "standalone"
    assert {icon["sizes"] for icon in manifest["icons"]} == {"192x192", "512x512"}


def test_the_manifest_starts_nowhere_else_than_a_table():
    manifest = Client().get(reverse("offline-manifest"), {"start": "https://elsewhere/"}).json()
    assert manifest["start_url"] == "/"


# --- The sheet's photo: a file digested by its content --------------------------------------


def test_a_photo_sent_twice_is_kept_once_and_another_file_with_its_key_is_422(race_table):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from races.models import SheetPhoto
    from tests.races.photos.images import oriented_jpeg

    url = reverse("rtable-photo-add", args=[race_table.token])
    key = str(uuid.uuid4())

    def photo(data: bytes):
        return {"photo": SimpleUploadedFile("feuille.jpg", data, content_type="image/jpeg")}

    first = outbox_post(url, photo(oriented_jpeg()), key)
    assert first.json()["outcome"] == "saved"
    again = outbox_post(url, photo(oriented_jpeg()), key)
    assert again.json() == first.json()
    assert SheetPhoto.objects.filter(table=race_table).count() == 1
    other = outbox_post(url, photo(oriented_jpeg(orientation=3)), key)
    assert other.status_code == 422
    assert SheetPhoto.objects.filter(table=race_table).count() == 1
