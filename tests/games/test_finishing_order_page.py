"""The referee's page of a finishing-order table (API.md "Any racing game"), through the
table link: the crossing order saved as a draft then sent, a driver written twice or a
grid driver missing refused in the page with what was typed kept, the table link and the
Formula Dé result link leading here, the three users; the sheet PDF read back, hostile
names printed as written; the sheets' batch printing this game's sheet."""

from __future__ import annotations

import io

import pdfplumber
import pytest
from django.urls import reverse

from races.games.finishing_order import selectors
from races.grid.services import allocation_run, sheet_batch_request
from races.models import RaceResult, RaceTable, SheetBatch
from tournament.access import Actor
from tournament.models import Driver

pytestmark = pytest.mark.django_db

HEAT = "Heat: Pedal to the Metal"


@pytest.fixture
def en(client):
    client.cookies["django_language"] = "en"
    return client


@pytest.fixture
def heat(make_event, organiser):
    """Three drivers at one table, seated by rating (all unrated: entry order)."""
    event = make_event(
        3, slug="heat", game="finishing_order", game_name=HEAT, grid="rating", laps=3
    )
    event.circuit = None  # the game's own track
    event.save(update_fields=["circuit"])
    allocation_run(actor=Actor(user=organiser), event=event, table_size=4)
    return event, RaceTable.objects.get(event=event, number=1)


def _text(pdf: bytes) -> str:
    with pdfplumber.open(io.BytesIO(pdf)) as document:
        return "\n".join(page.extract_text() or "" for page in document.pages)


def test_the_table_link_and_the_result_link_open_the_game_s_page(en, heat):
    _event, table = heat
    entry = reverse("finishing-order-entry", args=[table.token])
    for name in ("rtable", "result-entry"):
        response = en.get(reverse(name, args=[table.token]))
        assert (response.status_code, response["Location"]) == (302, entry)
    page = en.get(entry)
    assert page.status_code == 200
    html = page.content.decode()
    assert HEAT in html and 'name="place-1"' in html and 'name="out-3"' in html
    # A table link's page: the offline bar and outbox are there, the form posts to the link.
    assert 'id="offline-bar"' in html and 'data-kind="table"' in html
    assert f'action="{entry}"' in html
    assert en.get(reverse("rtable-history", args=[table.token])).status_code == 200


def test_referee_saves_a_draft_then_sends_the_crossing_order(en, heat):
    event, table = heat
    url = reverse("finishing-order-entry", args=[table.token])
    draft = {"version": "0", "place-2": "1", "place-1": "2", "action": "draft"}
    assert en.post(url, draft).status_code == 302
    result = RaceResult.objects.get(table=table)
    assert (result.finish, result.retired, result.dns) == ([2, 1], [], [])
    table.refresh_from_db()
    assert table.result_status == "draft"
    page = en.get(url).content.decode()
    assert 'name="place-2" value="1"' in page
    sent = {
        **draft,
        "version": "1",
        "out-3": "retired",
        "lap-3": "2",
        "note-3": "spun out <b>heat</b>",
        "action": "submit",
    }
    assert en.post(url, sent).status_code == 302
    result.refresh_from_db()
    assert result.retired == [
        {"driver": 3, "cause": "other", "lap": 2, "note": "spun out <b>heat</b>"}
    ]
    table.refresh_from_db()
    assert table.result_status == "submitted"
    html = en.get(url).content.decode()
    assert "spun out &lt;b&gt;heat&lt;/b&gt;" in html and "<b>heat</b>" not in html


def test_the_referee_orders_two_retirements_of_one_lap_and_a_later_save_keeps_it(en, heat):
    """DOMAIN.md "Every game's evening": on one lap, the one listed later went out later
    and ranks ahead; the page's move buttons say who went out first, keeping what is typed."""
    _event, table = heat
    url = reverse("finishing-order-entry", args=[table.token])
    typed = {
        "version": "0",
        "place-3": "1",
        **{f"out-{n}": "retired" for n in (1, 2)},
        **{f"lap-{n}": "2" for n in (1, 2)},
        "note-2": "spun <i>out</i>",
    }
    page = en.post(url, {**typed, "move": "up-2"})  # 2 went out first, then 1
    assert page.status_code == 200
    html = page.content.decode()
    assert 'name="retired-order" value="2,1"' in html
    assert 'name="place-3" value="1"' in html and "spun &lt;i&gt;out&lt;/i&gt;" in html
    assert 'value="up-2"' in html and 'value="down-1"' in html
    assert not RaceResult.objects.filter(table=table).exists()  # a move saves nothing
    assert en.post(url, {**typed, "retired-order": "2,1", "action": "draft"}).status_code == 302
    result = RaceResult.objects.get(table=table)
    assert [r["driver"] for r in result.retired] == [2, 1]
    # A later save of the page as shown keeps that order.
    html = en.get(url).content.decode()
    assert 'name="retired-order" value="2,1"' in html
    again = {**typed, "version": "1", "retired-order": "2,1", "action": "draft"}
    assert en.post(url, again).status_code == 302
    result.refresh_from_db()
    assert [r["driver"] for r in result.retired] == [2, 1]
    # A move past a retirement of another lap is not one: laps never go down.
    later = {**again, "version": "2", "lap-1": "3", "move": "down-2"}
    assert 'name="retired-order" value="2,1"' in en.post(url, later).content.decode()


def test_an_empty_sheet_does_not_say_everything_is_sent(client, heat):
    _event, table = heat
    url = reverse("finishing-order-entry", args=[table.token])
    html = client.get(url).content.decode()
    shown = html.split('class="outbox-count"')[1].split("</p>")[0]
    assert shown.endswith(">Rien n’est encore écrit sur cette feuille.")
    assert 'data-sheet-empty="1"' in html  # the phone's outbox says so too until it sends
    assert client.post(url, {"version": "0", "place-1": "1"}).status_code == 302
    html = client.get(url).content.decode()
    assert html.split('class="outbox-count"')[1].split("</p>")[0].endswith(">Tout est envoyé.")


def test_a_driver_twice_is_refused_in_the_page_and_the_typing_kept(en, heat):
    _event, table = heat
    url = reverse("finishing-order-entry", args=[table.token])
    # Driver 1 crossed the line and retired: written twice.
    twice = {"version": "0", "place-1": "1", "out-1": "retired", "note-1": "engine"}
    response = en.post(url, twice)
    assert response.status_code == 400
    html = response.content.decode()
    assert "1 Pilote1 Lefèvre is written more than once." in html
    assert 'name="place-1" value="1"' in html and 'value="engine"' in html
    same_place = en.post(url, {"version": "0", "place-1": "1", "place-2": "1"})
    assert same_place.status_code == 400
    assert "crossing 1: one car a place" in same_place.content.decode()
    assert not RaceResult.objects.filter(table=table).exists()


def test_a_grid_driver_missing_on_submit_is_named_in_french(client, heat):
    _event, table = heat
    url = reverse("finishing-order-entry", args=[table.token])
    response = client.post(
        url, {"version": "0", "place-1": "1", "place-2": "2", "action": "submit"}
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert 'lang="fr"' in html and "3 Pilote3 Lefèvre" in html
    assert 'name="place-2" value="2"' in html
    # The same sheet as a draft is fine: a draft may leave drivers out.
    assert client.post(url, {"version": "0", "place-1": "1", "place-2": "2"}).status_code == 302


def test_outsiders_and_other_games_get_no_page(en, heat, make_event, organiser):
    _event, table = heat
    assert en.get("/r/not-a-link/finishing-order/").status_code == 404
    other = make_event(2, slug="fd")
    allocation_run(actor=Actor(user=organiser), event=other, table_size=4)
    fd_table = RaceTable.objects.get(event=other, number=1)
    assert en.get(reverse("finishing-order-entry", args=[fd_table.token])).status_code == 404
    # The organiser, signed in, opens the table's page as the referee does.
    en.force_login(organiser)
    assert en.get(reverse("finishing-order-entry", args=[table.token])).status_code == 200


def test_the_sheet_prints_the_grid_the_boxes_and_hostile_names_as_written(en, heat):
    """Printed in the event's language, as every race sheet."""
    event, table = heat
    event.language = "en"
    event.save(update_fields=["language"])
    Driver.objects.filter(championship=event.championship, number=2).update(
        first_name="<font color=red>Zoé</font>", last_name="O'Brien & <b>Fils</b>"
    )
    response = en.get(reverse("finishing-order-sheet", args=[table.token]))
    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
    text = _text(response.content)
    assert "Heat: Pedal to the Metal · Table 1" in text
    assert "<font color=red>Zoé</font> O'Brien & <b>Fils</b>" in text
    for words in ("Crossing order", "Did not start", "Retirements", "Lap", "3 laps"):
        assert words in text
    assert "/r/" in text  # the table's link, beside its QR code


def test_the_sheets_batch_prints_the_game_s_sheets(
    en, heat, organiser, django_capture_on_commit_callbacks
):
    event, _table = heat
    with django_capture_on_commit_callbacks(execute=True):
        sheet_batch_request(
            actor=Actor(user=organiser), event=event, kind="race", language="fr", inline=True
        )
    batch = SheetBatch.objects.get(event=event, kind="race")
    assert batch.status == "done", batch.error
    text = _text(bytes(batch.pdf))
    assert "Heat: Pedal to the Metal · Table 1" in text and "Ordre de passage" in text
    # Race control's pages of the evening open without a circuit.
    en.force_login(organiser)
    for name in ("results-desk", "allocation", "event-desk"):
        assert en.get(reverse(name, args=[event.slug])).status_code == 200, name
    assert len(selectors.sheet_data(event=event)) == 1
