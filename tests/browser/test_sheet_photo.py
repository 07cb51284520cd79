"""The signed sheet in real Chromium (issue 21): on a 390 px phone, the referee photographs
the signed race sheet from the result page (a generated photo of the rendered sheet, turned,
tilted, JPEG noise); race control's results desk then shows it beside the typed result.

Pages are in French by default; the selectors use ids and names, not words.
"""

from __future__ import annotations

import base64

import pytest
from django.urls import reverse
from playwright.sync_api import Browser, Page, expect

from bench import camera
from qualifying.services import draw_record
from races.grid.services import allocation_run
from races.models import RaceTable, SheetPhoto
from races.results.services import result_save
from tests.browser.phone import VIEWPORT, page_width, small_targets
from tests.races.photos.images import sheet_pdf
from tournament.access import Actor

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def table(make_event, organiser) -> RaceTable:
    """Table 1 of an event of eight drivers (tables of four), its result submitted."""
    actor = Actor(user=organiser)
    event = make_event(n_drivers=8, qualifying_mode="draw", separate_teams=False)
    draw_record(actor=actor, event=event, rolls={n: [n] for n in range(1, 9)})
    allocation_run(actor=actor, event=event, table_size=4)
    table = RaceTable.objects.get(event=event, number=1)
    grid = list(table.slots.order_by("position").values_list("driver__number", flat=True))
    result_save(
        actor=Actor(table=table), table=table, version=0, finish=grid, retired=[], dns=[],
        submit=True,
    )  # fmt: skip
    return table


def test_a_phone_photographs_the_signed_sheet_and_the_desk_shows_it_beside_the_result(
    browser: Browser, page: Page, live_server, table: RaceTable
) -> None:
    printed = camera.printed(sheet_pdf(table), dpi=110)
    shot = camera.photograph(printed, camera.Shot(width=1200, angle=9, tilt=0.15, seed=21))
    photo = camera.jpeg(shot, quality=65)

    phone = browser.new_context(viewport=VIEWPORT, is_mobile=True, has_touch=True)
    try:
        referee = phone.new_page()
        referee.goto(live_server.url + reverse("result-entry", args=[table.token]))
        camera_input = referee.locator("#photo-input")
        assert camera_input.get_attribute("capture") == "environment"
        camera_input.set_input_files(
            files=[{"name": "IMG_2041.JPG", "mimeType": "image/jpeg", "buffer": photo}]
        )
        referee.locator("#photo-send").click()
        thumbnail = referee.locator("#sheet-photos .photo-list img")
        expect(thumbnail).to_have_count(1)
        # Shown, not only listed: the image arrives and decodes (a broken one never does).
        referee.wait_for_function(
            "() => [...document.querySelectorAll('#sheet-photos .photo-list img')]"
            ".every(img => img.complete && img.naturalWidth > 0)"
        )
        assert page_width(referee) <= VIEWPORT["width"]
        assert small_targets(referee, "#sheet-photos") == []
        # One file picker after the first photo (issue 32): replacing is a choice beside it.
        expect(referee.locator("#sheet-photos input[type=file]")).to_have_count(1)
        expect(referee.locator("#photo-replaces option")).to_have_count(2)
    finally:
        phone.close()
    sent = SheetPhoto.objects.get(table=table)
    assert sent.source == "table" and "Table 1" in sent.sent_by

    # Race control: the desk's row of table 1 shows it; opened, it sits beside the result.
    desk_url = reverse("results-desk", args=[table.event.slug])
    page.goto(f"{live_server.url}{reverse('login')}?next={desk_url}")
    page.fill("input[name='username']", "pc")
    page.fill("input[name='password']", "pc-password-1")
    page.locator("main form button[type='submit']").click()
    page.wait_for_url(f"**{desk_url}")
    page.locator("#table-1 .desk-photos a").click()
    page.wait_for_load_state("load")  # the page's images included
    photo_on_desk = page.locator("#sheet-photo")
    expect(photo_on_desk).to_be_visible()
    assert photo_on_desk.evaluate("img => img.complete && img.naturalWidth > 0")
    beside = page.locator("#typed-result")
    expect(beside).to_contain_text(table.slots.order_by("position").first().driver.last_name)
    # Side by side on a laptop: the result's box starts right of the photo's.
    photo_box, result_box = photo_on_desk.bounding_box(), beside.bounding_box()
    assert result_box["x"] >= photo_box["x"] + photo_box["width"] - 1
    # Turned a quarter, without JavaScript: the computed transform is a 90° rotation matrix.
    page.locator("input[name='turn'][value='90']").check()
    turned = photo_on_desk.evaluate("img => getComputedStyle(img).transform")
    assert turned.startswith("matrix(") and turned.split(",")[1].strip() in ("1", "1)")

    # Issue 32: the whole drop box takes a drop, not only its input's strip. Dropped on the
    # box's words, the scan fills the input; sent, it is matched to table 1 by its QR code.
    page.goto(live_server.url + reverse("photo-desk", args=[table.event.slug]))
    dropped = page.evaluate_handle(
        """(data) => {
            const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
            const files = new DataTransfer();
            files.items.add(new File([bytes], "scan-1.jpg", {type: "image/jpeg"}));
            return files;
        }""",
        base64.b64encode(photo).decode(),
    )
    box = page.locator("#photo-drop .drop-zone")
    assert box.bounding_box()["height"] > 100  # a box, not a 50 px strip
    for name in ("dragenter", "dragover", "drop"):
        page.dispatch_event("#photo-drop .drop-zone", name, {"dataTransfer": dropped})
    assert page.locator("#photo-drop input[type=file]").evaluate("i => i.files.length") == 1
    page.locator("#photo-drop button[type='submit']").click()
    expect(page.locator("#photo-outcomes")).to_contain_text("scan-1.jpg")
    expect(page.locator("#photo-outcomes a")).to_have_count(1)
