"""API v1, photos of the signed sheets (``races.photos.api``): a table's referee sends and
reads its photos, race control's pile is matched by the sheets' QR codes, bad files are
400s that store nothing, and the images leave the server upright, private and without
their GPS position."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from PIL import Image

from bench import camera
from races.grid.services import referee_link_regenerate
from races.models import RaceTable, SheetPhoto
from races.photos import storage
from tests.races.photos import images
from tests.races.photos.conftest import Sheets, api_client, logged_in
from tests.security.conftest import World
from tournament.access import Actor
from tournament.models import Championship, Event

pytestmark = pytest.mark.django_db


def table_url(world: World, number: int = 1) -> str:
    return f"/api/v1/events/{world.event.slug}/tables/{number}/photos"


def event_url(world: World) -> str:
    return f"/api/v1/events/{world.event.slug}/photos"


def upload(data: bytes, name: str = "sheet.jpg") -> dict:
    return {"file": SimpleUploadedFile(name, data, content_type="image/jpeg")}


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
    assert says in answer.json()["detail"] and answer.json()["errors"]["file"]
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
    assert answer.status_code == 400 and "“file”" in answer.json()["detail"]
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
    sent = api_client(world, "link").post(table_url(world), upload(sheets.table2_jpeg)).json()
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
