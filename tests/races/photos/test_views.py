"""Pages of the sheets' photos (``races.photos.views``): the referee's camera on the result
page, race control's drop zone and unmatched tray, a photo beside the typed result; images
for their readers only, never cached."""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from PIL import Image

from bench import camera
from races.models import SheetPhoto
from races.results.services import result_confirm
from tests.races.photos import images
from tests.races.photos.conftest import english, logged_in
from tests.security.conftest import World
from tournament.access import Actor
from tournament.models import Club, Membership

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def scan(world: World, django_db_blocker: Any) -> bytes:
    """Table 1's sheet through a scanner: the page upright, as a JPEG."""
    with django_db_blocker.unblock():
        page = camera.printed(images.sheet_pdf(world.rtables[0]), dpi=120)
    return camera.jpeg(page, quality=80, exif=False)


def photo(data: bytes, name: str = "IMG_1.jpg") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data, content_type="image/jpeg")


def referee(world: World):
    from django.test import Client

    return english(Client())


def test_the_result_page_opens_the_phone_s_camera(world: World) -> None:
    token = world.rtables[0].token
    page = referee(world).get(reverse("result-entry", args=[token])).content.decode()
    assert 'capture="environment"' in page and 'accept="image/*"' in page
    assert "Photograph the signed sheet" in page
    assert reverse("rtable-photo-add", args=[token]) in page


def test_the_referee_sends_a_photo_then_replaces_it_and_both_stay_listed(world: World) -> None:
    token = world.rtables[0].token
    client = referee(world)
    sent = client.post(
        reverse("rtable-photo-add", args=[token]), {"photo": photo(images.oriented_jpeg())}
    )
    assert sent.status_code == 302
    first = SheetPhoto.objects.get()
    page = client.get(reverse("result-entry", args=[token])).content.decode()
    thumb = reverse("rtable-photo", args=[token, first.pk, "thumb"])
    assert thumb in page and "replaces photo 1" in page
    # One file picker, not one more per photo (issue 32, item 9).
    assert page.count('type="file"') == 1
    client.post(
        reverse("rtable-photo-add", args=[token]),
        {"photo": photo(images.transparent_png(), "back.png"), "replaces": str(first.pk)},
    )
    first.refresh_from_db()
    assert first.replaced_by is not None and first.replaced_by.source == "table"
    page = client.get(reverse("result-entry", args=[token])).content.decode()
    assert page.count('class="photo-replaced"') == 1 and thumb in page
    image = client.get(thumb)
    assert image.status_code == 200 and image["Cache-Control"] == "private, no-store"
    # The table's history tells both, and the replacement (the result's trail).
    history = client.get(reverse("rtable-history", args=[token])).content.decode()
    second = first.replaced_by.pk
    assert f"sent photo {first.pk} of the signed sheet (sent for its table)" in history
    assert f"sent photo {second} of the signed sheet" in history
    assert f"replaced photo {first.pk} by photo {second}" in history
    # Another table's link opens none of them.
    other = reverse("rtable-photo", args=[world.rtables[1].token, first.pk, "full"])
    assert referee(world).get(other).status_code == 404


@pytest.mark.parametrize(
    ("data", "name", "says"),
    [
        (b"", "empty.jpg", "The file is empty"),
        (b"%PDF-1.7\n%%EOF\n", "sheet.jpg", "This file is not a photo"),
        (images.truncated_jpeg(), "cut.jpg", "damaged or incomplete"),
    ],
    ids=["empty", "pdf", "truncated"],
)
def test_a_bad_file_from_the_phone_is_refused_in_the_page(
    world: World, data: bytes, name: str, says: str
) -> None:
    token = world.rtables[0].token
    answer = referee(world).post(
        reverse("rtable-photo-add", args=[token]), {"photo": photo(data, name)}
    )
    assert answer.status_code == 400
    text = answer.content.decode()
    assert says in text and "This photo was not kept." in text
    assert 'capture="environment"' in text  # the camera again, to send another
    assert not SheetPhoto.objects.exists()


def test_the_refusal_is_in_french_for_a_french_phone(world: World) -> None:
    from django.test import Client

    client = Client()
    client.cookies["django_language"] = "fr"
    token = world.rtables[0].token
    answer = client.post(reverse("rtable-photo-add", args=[token]), {"photo": photo(b"", "x.jpg")})
    text = answer.content.decode()
    assert "Le fichier est vide" in text and "Photographier la feuille signée" in text


def test_the_desk_matches_a_pile_and_assigns_the_unmatched_by_hand(
    world: World, scan: bytes
) -> None:
    organiser = logged_in(world.users["organiser"])
    slug = world.event.slug
    answer = organiser.post(
        reverse("photo-desk", args=[slug]),
        {"photo": [photo(scan, "scan-001.jpg"), photo(images.oriented_jpeg(), "blurry.jpg")]},
    )
    assert answer.status_code == 200
    page = answer.content.decode()
    matched, unmatched = SheetPhoto.objects.order_by("pk")
    assert (matched.table, matched.source) == (world.rtables[0], "qr")
    assert (unmatched.table, unmatched.unmatched_reason) == (None, "no_code")
    assert "scan-001.jpg" in page and "Table 1" in page
    assert "QR code could be read in it" in page
    assert reverse("photo-assign", args=[slug, unmatched.pk]) in page
    organiser.post(reverse("photo-assign", args=[slug, unmatched.pk]), {"table": "2"})
    unmatched.refresh_from_db()
    assert (unmatched.table, unmatched.source) == (world.rtables[1], "hand")
    assert SheetPhoto.history.filter(id=unmatched.pk).count() == 2
    # Nobody but race control drops photos.
    refused = logged_in(world.users["ref1"]).post(
        reverse("photo-desk", args=[slug]), {"photo": photo(scan)}
    )
    assert refused.status_code == 403


def test_the_club_s_desk_drops_the_pile_assigns_by_hand_and_reads_a_photo(
    world: World, scan: bytes, django_user_model: Any
) -> None:
    """The sheets are the day's counter (DOMAIN.md "Clubs and who may do what"): a desk
    member of the championship's club drops the pile, gives an unmatched photo its table and
    reads a photo beside its result, as the organisers do; the race tables stay theirs."""
    club = Club.objects.create(slug="club-coupe", name="Club de la Coupe")
    world.championship.club = club
    world.championship.save(update_fields=["club"])
    member = django_user_model.objects.create_user("guichet", password="guichet-password-1")
    Membership.objects.create(club=club, user=member, role="desk")
    desk, slug = logged_in(member), world.event.slug
    assert desk.get(reverse("photo-desk", args=[slug])).status_code == 200
    answer = desk.post(
        reverse("photo-desk", args=[slug]),
        {"photo": [photo(scan, "scan-001.jpg"), photo(images.oriented_jpeg(), "blurry.jpg")]},
    )
    assert answer.status_code == 200
    matched, unmatched = SheetPhoto.objects.order_by("pk")
    assert (matched.table, unmatched.table) == (world.rtables[0], None)
    desk.post(reverse("photo-assign", args=[slug, unmatched.pk]), {"table": "2"})
    unmatched.refresh_from_db()
    assert (unmatched.table, unmatched.source) == (world.rtables[1], "hand")
    assert desk.get(reverse("desk-photo", args=[slug, matched.pk])).status_code == 200
    image = desk.get(reverse("desk-photo-image", args=[slug, matched.pk, "thumb"]))
    assert image.status_code == 200 and image["Cache-Control"] == "private, no-store"
    assert desk.get(reverse("allocation", args=[slug])).status_code == 403


def test_the_desk_shows_the_photo_beside_the_result_and_a_confirmed_table_without_one(
    world: World, scan: bytes
) -> None:
    organiser = logged_in(world.users["organiser"])
    slug = world.event.slug
    desk = organiser.get(reverse("results-desk", args=[slug])).content.decode()
    assert "confirmed without a photo" not in desk  # table 1 is submitted, not confirmed
    result_confirm(actor=Actor(user=world.users["organiser"]), table=world.rtables[0])
    desk = organiser.get(reverse("results-desk", args=[slug])).content.decode()
    assert "confirmed without a photo" in desk
    assert "1 confirmed table has no photo of its sheet" in desk
    organiser.post(reverse("photo-desk", args=[slug]), {"photo": photo(scan)})
    sheet = SheetPhoto.objects.get()
    desk = organiser.get(reverse("results-desk", args=[slug])).content.decode()
    assert "confirmed without a photo" not in desk
    assert reverse("desk-photo-image", args=[slug, sheet.pk, "thumb"]) in desk
    beside = organiser.get(reverse("desk-photo", args=[slug, sheet.pk])).content.decode()
    assert 'id="sheet-photo"' in beside and 'id="typed-result"' in beside
    assert world.rtables[0].slots.first().driver.last_name in beside
    assert 'name="turn" value="90"' in beside
    image = organiser.get(reverse("desk-photo-image", args=[slug, sheet.pk, "full"]))
    assert image["Cache-Control"] == "private, no-store"
    stored = Image.open(io.BytesIO(b"".join(image.streaming_content)))
    assert stored.format == "JPEG" and not stored.getexif()


@pytest.mark.parametrize("odd", ["²", "99999999999999999999", "-1", "1.5"])
def test_an_odd_number_in_a_form_is_refused_not_an_error(world: World, odd: str) -> None:
    token = world.rtables[0].token
    sent = referee(world).post(
        reverse("rtable-photo-add", args=[token]),
        {"photo": photo(images.oriented_jpeg()), "replaces": odd},
    )
    assert sent.status_code == 302  # kept, replacing nothing
    assert SheetPhoto.objects.get().replaced_by is None
    organiser = logged_in(world.users["organiser"])
    slug = world.event.slug
    answer = organiser.post(
        reverse("photo-assign", args=[slug, SheetPhoto.objects.get().pk]), {"table": odd}
    )
    assert answer.status_code == 302
    assert "Choose the table" in organiser.get(reverse("photo-desk", args=[slug])).content.decode()


# --- Issue 32 ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def table2_scan(world: World, django_db_blocker: Any) -> bytes:
    """Table 2's sheet through a scanner."""
    with django_db_blocker.unblock():
        page = camera.printed(images.sheet_pdf(world.rtables[1]), dpi=120)
    return camera.jpeg(page, quality=80, exif=False)


def test_the_result_page_refuses_another_table_s_sheet_and_says_whose(
    world: World, table2_scan: bytes, scan: bytes
) -> None:
    """Item 1: Table 2's sheet sent from Table 1's result page is refused, naming Table 2,
    with the camera again; Table 1's own sheet is kept, its code read."""
    token = world.rtables[0].token
    answer = referee(world).post(
        reverse("rtable-photo-add", args=[token]), {"photo": photo(table2_scan, "IMG_9.jpg")}
    )
    assert answer.status_code == 400
    text = answer.content.decode()
    assert "This is Table 2&#x27;s sheet, not Table 1&#x27;s" in text
    assert 'capture="environment"' in text and not SheetPhoto.objects.exists()
    kept = referee(world).post(reverse("rtable-photo-add", args=[token]), {"photo": photo(scan)})
    assert kept.status_code == 302
    assert SheetPhoto.objects.get().code_read is True


def test_a_qualifying_table_s_page_has_its_camera(world: World) -> None:
    """Item 10: a qualifying table's referee page photographs its signed sheet, as a race
    table's result page does; the photo is listed there, its image for the link alone."""
    qtable = world.qtables[0]
    client = referee(world)
    page = client.get(reverse("qtable", args=[qtable.token])).content.decode()
    assert 'capture="environment"' in page
    assert reverse("qtable-photo-add", args=[qtable.token]) in page
    sent = client.post(
        reverse("qtable-photo-add", args=[qtable.token]), {"photo": photo(images.oriented_jpeg())}
    )
    assert sent.status_code == 302 and sent["Location"] == reverse("qtable", args=[qtable.token])
    kept = SheetPhoto.objects.get()
    assert (kept.qualifying_table, kept.table, kept.source) == (qtable, None, "table")
    assert kept.code_read is False
    page = client.get(reverse("qtable", args=[qtable.token])).content.decode()
    thumb = reverse("qtable-photo", args=[qtable.token, kept.pk, "thumb"])
    assert thumb in page and page.count('type="file"') == 1
    assert client.get(thumb)["Cache-Control"] == "private, no-store"
    other = reverse("qtable-photo", args=[world.qtables[1].token, kept.pk, "thumb"])
    assert client.get(other).status_code == 404


def test_a_link_sending_too_fast_gets_a_429_page_that_says_why(world: World, settings) -> None:
    """Item 12, on the page: past the link's rate, a 429 that says why."""
    settings.PHOTO_LINK_RATE = 1
    token = world.rtables[0].token
    url = reverse("rtable-photo-add", args=[token])
    assert referee(world).post(url, {"photo": photo(images.oriented_jpeg())}).status_code == 302
    answer = referee(world).post(url, {"photo": photo(images.oriented_jpeg())})
    assert answer.status_code == 429
    assert "This link sent 1 photo within 10 minutes" in answer.content.decode()
