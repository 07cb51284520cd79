"""API v1, photos of the signed sheets (``races.photos.api``): a table's referee sends and
reads its photos, race control's pile is matched by the sheets' QR codes, bad files are
400s that store nothing, and the images leave the server upright, private and without
their GPS position."""

from __future__ import annotations

import io
import itertools
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from PIL import Image

from bench import camera
from races.grid.services import referee_link_regenerate
from races.models import RaceTable, SheetPhoto
from races.photos import storage
from tests.races.photos import images
from tests.races.photos.conftest import Sheets, api_client, english, logged_in
from tests.security.conftest import World
from tournament.access import Actor
from tournament.models import ApiToken, Championship, Club, Event, Membership

pytestmark = pytest.mark.django_db


def table_url(world: World, number: int = 1) -> str:
    return f"/api/v1/events/{world.event.slug}/tables/{number}/photos"


def event_url(world: World) -> str:
    return f"/api/v1/events/{world.event.slug}/photos"


def upload(data: bytes, name: str = "sheet.jpg", field: str = "photo") -> dict:
    """A multipart body as API.md names it (``photo``), or by the older name ``file``."""
    return {field: SimpleUploadedFile(name, data, content_type="image/jpeg")}


def stored_files() -> set[Path]:
    return set(storage.folder().glob("*")) if storage.folder().exists() else set()


def test_a_photo_at_an_angle_in_heic_is_matched_to_its_table_and_loses_its_gps(
    world: World, sheets: Sheets
) -> None:
    """Done when (issue 21): an angled HEIC photo of a printed race sheet is matched by its
    QR code, and its EXIF GPS is gone from what the server returns."""
    assert Image.open(io.BytesIO(sheets.angled_heic)).getexif().get_ifd(camera.GPS_IFD)
    organiser = api_client(world, "organiser")
    answer = organiser.post(event_url(world), upload(sheets.angled_heic, "IMG_0042.HEIC"))
    assert answer.status_code == 201, answer.json()
    body = answer.json()
    assert (body["table"], body["kind"], body["source"], body["reason"]) == (1, "race", "qr", None)
    image = organiser.get(f"{event_url(world)}/{body['id']}")
    assert image.status_code == 200 and image["Content-Type"] == "image/jpeg"
    assert image["Cache-Control"] == "private, no-store"
    returned = Image.open(io.BytesIO(image.getvalue()))
    assert not returned.getexif() and b"GPS" not in image.getvalue()
    # The table's own link sees it among its photos, and gets the same image.
    listed = api_client(world, "link").get(table_url(world)).json()
    assert [p["id"] for p in listed] == [body["id"]]
    own = api_client(world, "link").get(f"{table_url(world)}/{body['id']}?size=thumbnail")
    assert own.status_code == 200 and own["Cache-Control"] == "private, no-store"


def test_a_jpeg_at_an_angle_is_matched_and_another_table_s_stays_its_own(
    world: World, sheets: Sheets
) -> None:
    organiser = api_client(world, "organiser")
    first = organiser.post(event_url(world), upload(sheets.angled_jpeg)).json()
    second = organiser.post(event_url(world), upload(sheets.table2_jpeg)).json()
    assert (first["table"], second["table"]) == (1, 2)


def test_the_club_s_desk_sends_the_pile_and_reads_the_event_s_photos(
    world: World, sheets: Sheets, django_user_model
) -> None:
    """The sheets are the day's counter (DOMAIN.md "Clubs and who may do what"): a desk
    member of the championship's club sends the pile and reads every photo of the event,
    as the organisers do (API.md "Clubs and their people")."""
    club = Club.objects.create(slug="club-coupe", name="Club de la Coupe")
    world.championship.club = club
    world.championship.save(update_fields=["club"])
    member = django_user_model.objects.create_user("guichet", password="guichet-password-1")
    Membership.objects.create(club=club, user=member, role="desk")
    desk = Client(HTTP_AUTHORIZATION=f"Bearer {ApiToken.issue(member)}")
    sent = desk.post(event_url(world), upload(sheets.angled_jpeg))
    assert sent.status_code == 201 and sent.json()["table"] == 1
    assert [p["id"] for p in desk.get(event_url(world)).json()] == [sent.json()["id"]]
    image = desk.get(f"{event_url(world)}/{sent.json()['id']}")
    assert image.status_code == 200 and image["Content-Type"] == "image/jpeg"


def test_a_replaced_link_s_sheet_lands_unmatched(world: World, sheets: Sheets) -> None:
    table = RaceTable.objects.get(pk=world.rtables[0].pk)  # the world's keeps its link
    referee_link_regenerate(actor=Actor(user=world.users["organiser"]), table=table)
    answer = api_client(world, "organiser").post(event_url(world), upload(sheets.angled_jpeg))
    body = answer.json()
    assert answer.status_code == 201
    assert (body["table"], body["source"]) == ("unmatched", "unmatched")
    assert "replaced link" in body["reason"]


def test_another_event_s_sheet_lands_unmatched(world: World, sheets: Sheets) -> None:
    other = Event.objects.create(
        championship=Championship.objects.get(slug=world.championship.slug),
        slug="gp-bis",
        name="Autre journée",
        date=world.event.date,
        circuit=world.event.circuit,
    )
    answer = api_client(world, "organiser").post(
        f"/api/v1/events/{other.slug}/photos", upload(sheets.angled_jpeg)
    )
    body = answer.json()
    assert (body["table"], answer.status_code) == ("unmatched", 201)
    assert "another event" in body["reason"]


def test_a_photo_with_no_code_lands_unmatched(world: World) -> None:
    answer = api_client(world, "organiser").post(event_url(world), upload(images.oriented_jpeg()))
    assert answer.json()["table"] == "unmatched"
    assert "no sheet's QR code" in answer.json()["reason"]


BAD_FILES = {
    "empty": (b"", "empty"),
    "pdf renamed .jpg": (b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj<<>>endobj\n%%EOF\n", "not a photo"),
    "truncated": (images.truncated_jpeg(), "damaged or incomplete"),
    "decompression bomb": (images.decompression_bomb(), "pixels"),
}


@pytest.mark.parametrize("kind", list(BAD_FILES))
@pytest.mark.parametrize("where", ["table", "event"])
def test_a_bad_file_is_a_400_that_says_why_and_stores_nothing(
    world: World, kind: str, where: str
) -> None:
    data, says = BAD_FILES[kind]
    before = stored_files()
    url = table_url(world) if where == "table" else event_url(world)
    answer = api_client(world, "link" if where == "table" else "organiser").post(url, upload(data))
    assert answer.status_code == 400, answer.content
    assert says in answer.json()["detail"] and answer.json()["errors"]["photo"]
    assert not SheetPhoto.objects.exists()
    assert stored_files() == before


def test_a_50_mb_upload_is_refused_and_stores_nothing(world: World, sheets: Sheets) -> None:
    before = stored_files()
    big = sheets.angled_jpeg + b"\x00" * (50 * 1024 * 1024)
    answer = api_client(world, "link").post(table_url(world), upload(big))
    assert answer.status_code == 400
    assert "too large (50" in answer.json()["detail"]
    assert not SheetPhoto.objects.exists() and stored_files() == before


def test_no_file_is_a_400_for_those_who_may_send_one(world: World) -> None:
    answer = api_client(world, "link").post(table_url(world))
    assert answer.status_code == 400 and "“photo”" in answer.json()["detail"]
    assert api_client(world, "other").post(table_url(world)).status_code == 404


def test_a_replaced_photo_stays_listed_with_its_replacement(world: World, sheets: Sheets) -> None:
    link = api_client(world, "link")
    first = link.post(table_url(world), upload(sheets.angled_jpeg)).json()
    assert (first["table"], first["source"]) == (1, "table")
    second = link.post(
        table_url(world), {**upload(images.oriented_jpeg()), "replaces": first["id"]}
    ).json()
    listed = link.get(table_url(world)).json()
    assert [(p["id"], p["replaced_by"]) for p in listed] == [
        (first["id"], second["id"]),
        (second["id"], None),
    ]
    assert "referee link of Table 1" in listed[0]["sent_by"]
    again = link.post(table_url(world), {**upload(images.oriented_jpeg()), "replaces": first["id"]})
    assert again.status_code == 409
    history = SheetPhoto.history.filter(id=first["id"]).order_by("history_id")
    assert [h.replaced_by_id for h in history] == [None, second["id"]]


def test_table_2_s_link_neither_sends_nor_sees_table_1_s_photos(
    world: World, sheets: Sheets
) -> None:
    sent = api_client(world, "link").post(table_url(world), upload(sheets.angled_jpeg)).json()
    other = api_client(world, "other")
    assert other.get(table_url(world)).status_code == 404
    assert other.get(f"{table_url(world)}/{sent['id']}").status_code == 404
    assert other.get(f"{table_url(world, 2)}/{sent['id']}").status_code == 404
    assert other.post(event_url(world), upload(sheets.table2_jpeg)).status_code == 403
    assert api_client(world, "outsider").get(table_url(world)).status_code == 403


def test_a_qualifying_sheet_is_matched_to_its_qualifying_table(world: World) -> None:
    """Qualifying sheets work the same (issue 21): the table sheet's QR code finds its
    qualifying table; race control may also give a photo to a qualifying table by hand."""
    qtable = world.qtables[0]
    pdf = logged_in(world.users["organiser"]).get(reverse("qtable-sheet", args=[qtable.token]))
    printed = camera.printed(pdf.content, dpi=150)
    shot = camera.photograph(printed, camera.Shot(width=1400, angle=-6, tilt=0.1, seed=8))
    organiser = api_client(world, "organiser")
    body = organiser.post(event_url(world), upload(camera.jpeg(shot))).json()
    assert (body["table"], body["kind"], body["source"]) == (qtable.number, "qualifying", "qr")
    assert SheetPhoto.objects.get(pk=body["id"]).qualifying_table == qtable
    # Not a race table's photo: table 1's race photos do not list it.
    assert api_client(world, "link").get(table_url(world)).json() == []
    # By hand: a photo of the tray given to qualifying table 2.
    loose = organiser.post(event_url(world), upload(images.oriented_jpeg())).json()
    desk = logged_in(world.users["organiser"])
    desk.post(reverse("photo-assign", args=[world.event.slug, loose["id"]]), {"table": "q2"})
    listed = {p["id"]: p for p in organiser.get(event_url(world)).json()}
    assert (listed[loose["id"]]["table"], listed[loose["id"]]["kind"]) == (2, "qualifying")
    assert listed[loose["id"]]["source"] == "hand"
    page = desk.get(reverse("photo-desk", args=[world.event.slug])).content.decode()
    assert 'id="qualifying-photos"' in page and "Qualifying table 2" in page


# --- Issue 32 ----------------------------------------------------------------------------------


def qualifying_url(world: World, number: int = 1) -> str:
    return f"/api/v1/events/{world.event.slug}/qualifying-tables/{number}/photos"


@pytest.mark.parametrize("field", ["photo", "file"])
def test_the_contract_s_field_photo_is_read_and_file_still_is(
    world: World, sheets: Sheets, field: str
) -> None:
    """Item 10: API.md names the multipart field ``photo`` (a 400 before); ``file`` stays an
    alias, on a table's photos and on race control's pile."""
    table = api_client(world, "link").post(
        table_url(world), upload(sheets.angled_jpeg, field=field)
    )
    assert table.status_code == 201, table.content
    pile = api_client(world, "organiser").post(
        event_url(world), upload(sheets.table2_jpeg, field=field)
    )
    assert pile.status_code == 201, pile.content
    assert (table.json()["table"], pile.json()["table"]) == (1, 2)


def test_another_table_s_sheet_is_refused_at_the_table_naming_whose_it_is(
    world: World, sheets: Sheets
) -> None:
    """Item 1: Table 2's signed sheet sent from Table 1's link was filed as "sent for its
    table"; its QR code is now read and the photo refused, nothing stored, in the caller's
    language."""
    before = stored_files()
    answer = api_client(world, "link").post(table_url(world), upload(sheets.table2_jpeg))
    assert answer.status_code == 400, answer.content
    assert answer.json()["detail"].startswith("This is Table 2's sheet, not Table 1's")
    assert answer.json()["errors"]["photo"]
    assert not SheetPhoto.objects.exists() and stored_files() == before
    french = api_client(world, "link")
    french.defaults["HTTP_ACCEPT_LANGUAGE"] = "fr"
    refused = french.post(table_url(world), upload(sheets.table2_jpeg)).json()["detail"]
    assert refused.startswith("C’est la feuille de la Table 2")


def test_a_photo_whose_code_cannot_be_read_is_kept_and_marked(world: World, sheets: Sheets) -> None:
    """Item 1: a photo with no readable code is kept (``code_read: false``) and the desk says
    "code not read" beside it; the table's own sheet is ``code_read: true``."""
    link = api_client(world, "link")
    blind = link.post(table_url(world), upload(images.oriented_jpeg()))
    own = link.post(table_url(world), upload(sheets.angled_jpeg))
    assert (blind.status_code, own.status_code) == (201, 201)
    assert (blind.json()["code_read"], own.json()["code_read"]) == (False, True)
    desk = logged_in(world.users["organiser"])
    page = desk.get(reverse("results-desk", args=[world.event.slug])).content.decode()
    assert page.count('class="code-not-read"') == 1
    shown = desk.get(reverse("desk-photo", args=[world.event.slug, blind.json()["id"]]))
    assert "No QR code could be read on this photo" in shown.content.decode()


def test_a_qualifying_table_has_its_photo_endpoints(world: World) -> None:
    """Item 10: ``POST|GET /events/{event}/qualifying-tables/{t}/photos`` and the image, for
    the qualifying table's link and organisers; a race table's link reads none of them."""
    qtable = world.qtables[0]
    pdf = logged_in(world.users["organiser"]).get(reverse("qtable-sheet", args=[qtable.token]))
    shot = camera.photograph(
        camera.printed(pdf.content, dpi=150), camera.Shot(width=1400, angle=5, seed=9)
    )
    link = api_client(world, "link")
    link.defaults["HTTP_AUTHORIZATION"] = f"Bearer {qtable.token}"
    sent = link.post(qualifying_url(world), upload(camera.jpeg(shot)))
    assert sent.status_code == 201, sent.content
    body = sent.json()
    assert (body["table"], body["kind"], body["source"], body["code_read"]) == (
        1,
        "qualifying",
        "table",
        True,
    )
    assert [p["id"] for p in link.get(qualifying_url(world)).json()] == [body["id"]]
    image = api_client(world, "organiser").get(f"{qualifying_url(world)}/{body['id']}")
    assert image.status_code == 200 and image["Content-Type"] == "image/jpeg"
    race_link = api_client(world, "link")
    assert race_link.get(qualifying_url(world)).status_code == 404
    assert race_link.get(f"{qualifying_url(world)}/{body['id']}").status_code == 404
    assert race_link.post(qualifying_url(world), upload(camera.jpeg(shot))).status_code == 404
    # The same sheet sent from race table 1's link is refused: whose it is, said.
    refused = race_link.post(table_url(world), upload(camera.jpeg(shot)))
    assert refused.status_code == 400
    assert refused.json()["detail"].startswith("This is Qualifying table 1's sheet")
    assert link.get(qualifying_url(world, 99)).status_code in (403, 404)


def test_a_table_s_photos_are_capped_and_a_link_s_rate_too(
    world: World, settings, sheets: Sheets
) -> None:
    """Item 12: a link sends at most ``PHOTO_LINK_RATE`` photos in its window, a table holds
    at most ``PHOTO_TABLE_MAX``; past either, a 429 that says why, and nothing is stored."""
    settings.PHOTO_LINK_RATE = 2
    link = api_client(world, "link")
    for _ in range(2):
        assert link.post(table_url(world), upload(sheets.angled_jpeg)).status_code == 201
    third = link.post(table_url(world), upload(sheets.angled_jpeg))
    assert third.status_code == 429, third.content
    assert "This link sent 2 photos within 10 minutes" in third.json()["detail"]
    assert SheetPhoto.objects.count() == 2
    # Race control is not limited by the link's rate, but by the table's maximum.
    settings.PHOTO_TABLE_MAX = 3
    organiser = api_client(world, "organiser")
    assert organiser.post(table_url(world), upload(sheets.angled_jpeg)).status_code == 201
    full = organiser.post(table_url(world), upload(sheets.angled_jpeg))
    assert full.status_code == 429
    assert "Table 1 already holds 3 photos" in full.json()["detail"]
    assert SheetPhoto.objects.count() == 3


class Tracked(io.BytesIO):
    """A request body that records whether anything read it."""

    was_read = False

    def read(self, *args: object) -> bytes:
        self.was_read = True
        return super().read(*args)

    def readline(self, *args: object) -> bytes:
        self.was_read = True
        return super().readline(*args)


def claimed(length: int) -> dict:
    """A multipart request announcing ``length`` bytes, whose body tells if it is read."""
    body = Tracked(b"--zz\r\n")
    return {
        "CONTENT_LENGTH": str(length),
        "CONTENT_TYPE": "multipart/form-data; boundary=zz",
        "wsgi.input": body,
    }


def test_a_large_photo_body_is_not_read_before_its_sender_is_known(world: World) -> None:
    """Item 16: the photos' 160 MB limit applied before authentication, so anyone's 100 MB
    was read to be refused. Without a valid token, session or link, it is now refused from
    its headers (401 in the API, 403 on a page), its body untouched."""
    hundred_mb = 100 * 1024 * 1024
    for client, url in (
        (api_client(world, "anonymous"), table_url(world)),
        (api_client(world, "anonymous"), qualifying_url(world)),
        (api_client(world, "anonymous"), event_url(world)),
    ):
        extra = claimed(hundred_mb)
        answer = client.generic("POST", url, **extra)
        assert answer.status_code == 401, (url, answer.content)
        assert "token" in answer.json()["detail"] and not extra["wsgi.input"].was_read
    bad = api_client(world, "anonymous")
    extra = claimed(hundred_mb)
    answer = bad.generic("POST", table_url(world), HTTP_AUTHORIZATION="Bearer nope", **extra)
    assert answer.status_code == 401 and not extra["wsgi.input"].was_read
    extra = claimed(hundred_mb)
    page = english(Client()).generic("POST", "/r/not-a-link-at-all-000000/photos/", **extra)
    assert page.status_code == 403 and not extra["wsgi.input"].was_read


def test_a_known_sender_keeps_the_photos_larger_limit(world: World, sheets: Sheets) -> None:
    """The other side of item 16: a table's link sending a photo past the ordinary body limit
    (a real phone photo of a few MB) is read and kept."""
    padded = sheets.angled_jpeg + b"\x00" * (django_settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1)
    answer = api_client(world, "link").post(table_url(world), upload(padded))
    assert answer.status_code == 201, answer.content


def test_a_deleted_table_or_event_takes_its_photo_files_along(
    world: World, sheets: Sheets, django_capture_on_commit_callbacks
) -> None:
    """Item 16: photo files stayed under MEDIA_ROOT (and in every backup) after their table
    or event was deleted. A file goes with the last row that names it, once committed."""
    organiser = api_client(world, "organiser")
    one = organiser.post(table_url(world, 1), upload(images.oriented_jpeg())).json()
    two = organiser.post(table_url(world, 2), upload(images.oriented_jpeg())).json()
    first, second = SheetPhoto.objects.get(pk=one["id"]), SheetPhoto.objects.get(pk=two["id"])
    assert first.image == second.image  # the same bytes: one file for both rows
    files = [storage.path_of(first.image), storage.path_of(first.thumbnail)]
    assert all(path is not None and path.exists() for path in files)
    with django_capture_on_commit_callbacks(execute=True):
        RaceTable.objects.get(pk=world.rtables[0].pk).delete()
    assert not SheetPhoto.objects.filter(pk=one["id"]).exists()
    assert all(path.exists() for path in files)  # table 2's photo still names them
    with django_capture_on_commit_callbacks(execute=True):
        Event.objects.get(pk=world.event.pk).delete()
    assert not SheetPhoto.objects.exists()
    assert not any(path.exists() for path in files)


def qualifying_table_url(world: World, number: int = 1) -> str:
    return f"/api/v1/events/{world.event.slug}/qualifying-tables/{number}/photos"


#: A part whose headers pass Django's limit on them: the body breaks once it is read.
HEADERS_PAST_THE_LIMIT = (
    b"--edge\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"a.jpg\"\r\n"
    + b"X-Padding: " + b"a" * 12_000 + b"\r\n\r\nxx\r\n--edge--\r\n"
)  # fmt: skip


@pytest.mark.parametrize("url_of", [event_url, table_url, qualifying_table_url])
def test_a_multipart_body_that_cannot_be_read_is_a_400_that_says_so(
    world: World, url_of: Any, settings: Any
) -> None:
    """Issue 49, item 14: schemathesis sent ``multipart/form-data`` without its boundary to
    the three photo uploads: a 500 with DEBUG on (Django's HTML 400 page without it). The
    API's error, whatever DEBUG says, for the headers' fault and for a part that breaks;
    nothing is stored."""
    organiser = api_client(world, "organiser")
    before = SheetPhoto.objects.count()
    for debug, (content_type, body) in itertools.product(
        (True, False),
        (
            ("multipart/form-data", b"--edge\r\n\r\n--edge--\r\n"),
            ("multipart/form-data; boundary=", b"--\r\n"),
            ("multipart/form-data; boundary=edge", HEADERS_PAST_THE_LIMIT),
        ),
    ):
        settings.DEBUG = debug
        answer = organiser.post(url_of(world), body, content_type=content_type)
        assert answer.status_code == 400, (content_type, answer.content)
        assert "multipart body could not be read" in answer.json()["detail"], answer.json()
    assert SheetPhoto.objects.count() == before
