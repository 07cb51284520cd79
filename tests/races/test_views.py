"""Race-day pages through the Django test client: the organiser's allocation page and its
forms, the public "where do I sit?", a race table's page opened from its referee link,
the race sheet and the batch of all sheets.

Users: the organiser (logged in), an outsider (logged in, organises nothing), an anonymous
visitor, and a referee's phone (anonymous, with the table's link).
"""

from __future__ import annotations

import io
import re

import pytest
from django.test import Client
from django.urls import reverse
from pypdf import PdfReader

from qualifying.seating.services import qualifying_tables_auto
from races.grid.services import allocation_run
from races.grid.start import stands_set, table_start
from races.models import CarConfiguration, GridSlot, RaceTable, SheetBatch, WeatherDraw
from races.weather.services import race_weather_draw
from tests.races.conftest import NAMES, VALID
from tournament.models import Club, Membership

#: Reads response.context (tests/conftest.py keeps it then).
pytestmark = pytest.mark.keeps_context


def table(event, number: int) -> RaceTable:
    return RaceTable.objects.get(event=event, number=number)


def grids(event) -> list[list[int]]:
    return [
        list(t.slots.order_by("position").values_list("driver__number", flat=True))
        for t in RaceTable.objects.filter(event=event).order_by("number")
    ]


def page_grid(html: str, number: int) -> list[int]:
    """The driver numbers listed in table ``number``'s card of the allocation page."""
    match = re.search(
        rf'<article class="race-table" id="table-{number}">(.*?)</article>', html, re.S
    )
    assert match, f"table {number} is not on the page"
    return [int(n) for n in re.findall(r'<li data-number="(\d+)"', match.group(1))]


def flashes(response) -> list[str]:
    return [str(m) for m in response.context["messages"]] if response.context else []


def pdf_pages(content: bytes) -> list[str]:
    assert content.startswith(b"%PDF")
    return [page.extract_text() for page in PdfReader(io.BytesIO(content)).pages]


# --- Allocation page ------------------------------------------------------------------------


def test_allocation_page_for_the_organiser(as_organiser, allocated):
    response = as_organiser.get(reverse("allocation", args=[allocated.slug]))

    assert response.status_code == 200
    html = response.content.decode()
    assert page_grid(html, 1) == [4, 2, 5]
    assert page_grid(html, 2) == [1, 6, 3]
    assert "Hugo Moreau" in html
    assert reverse("rtable", args=[table(allocated, 1).token]) in html


def test_allocation_page_refused_to_an_outsider(as_outsider, allocated):
    assert as_outsider.get(reverse("allocation", args=[allocated.slug])).status_code == 403


def test_allocation_page_refused_to_an_anonymous_visitor(phone, allocated):
    assert phone.get(reverse("allocation", args=[allocated.slug])).status_code == 403


def test_allocation_page_of_an_unknown_event(as_organiser, db):
    assert as_organiser.get(reverse("allocation", args=["nowhere"])).status_code == 404


def test_post_allocation_allocates_and_shows_the_tables(as_organiser, event):
    url = reverse("allocation", args=[event.slug])
    assert "No race table yet." in as_organiser.get(url).content.decode()

    response = as_organiser.post(reverse("allocation-run", args=[event.slug]), {"table_size": "3"})

    assert response.status_code == 302
    assert response["Location"] == url
    assert grids(event) == [[4, 2, 5], [1, 6, 3]]
    page = as_organiser.get(url)
    assert flashes(page) == ["2 race tables allocated."]
    html = page.content.decode()
    assert page_grid(html, 1) == [4, 2, 5]
    assert page_grid(html, 2) == [1, 6, 3]


def test_post_allocation_with_a_bad_table_size_says_why(as_organiser, event):
    response = as_organiser.post(
        reverse("allocation-run", args=[event.slug]), {"table_size": "1"}, follow=True
    )
    assert response.status_code == 200
    assert len(flashes(response)) == 1
    assert not RaceTable.objects.exists()


def test_post_allocation_refused_once_a_result_is_entered(as_organiser, allocated):
    RaceTable.objects.filter(event=allocated, number=1).update(result_status="draft")
    response = as_organiser.post(
        reverse("allocation-run", args=[allocated.slug]),
        {"table_size": "2", "confirmed": "1"},
        follow=True,
    )
    assert flashes(response) == [
        "Results are already being entered: the tables can no longer change."
    ]
    assert grids(allocated) == [[4, 2, 5], [1, 6, 3]]


@pytest.mark.parametrize("who", ["as_outsider", "phone"])
def test_post_allocation_refused_to_non_organisers(request, event, who):
    client = request.getfixturevalue(who)
    response = client.post(reverse("allocation-run", args=[event.slug]), {"table_size": "3"})
    assert response.status_code == 403
    assert not RaceTable.objects.exists()


def test_post_swap_exchanges_the_drivers_on_the_page(as_organiser, allocated):
    response = as_organiser.post(
        reverse("allocation-swap", args=[allocated.slug]),
        {"a": "2", "b": "6", "reason": "Même club"},
    )

    assert response.status_code == 302
    assert response["Location"] == reverse("allocation", args=[allocated.slug])
    page = as_organiser.get(response["Location"])
    html = page.content.decode()
    assert page_grid(html, 1) == [4, 5, 6]
    assert page_grid(html, 2) == [2, 1, 3]
    assert flashes(page) == ["Théo Marchand and Jules Fournier swapped tables."]
    assert "Même club" in html


def test_post_swap_of_two_drivers_at_one_table_says_why(as_organiser, allocated):
    response = as_organiser.post(
        reverse("allocation-swap", args=[allocated.slug]),
        {"a": "4", "b": "5", "reason": "amis"},
        follow=True,
    )
    assert flashes(response) == ["These two drivers already sit at the same table."]
    assert grids(allocated) == [[4, 2, 5], [1, 6, 3]]


def test_post_swap_without_a_reason_is_refused_and_moves_nobody(as_organiser, allocated):
    """DOMAIN.md: "Swaps need a reason"."""
    response = as_organiser.post(
        reverse("allocation-swap", args=[allocated.slug]),
        {"a": "2", "b": "6", "reason": "  "},
        follow=True,
    )
    assert flashes(response) == [
        "Say why these two drivers swap tables: the reason is kept with the swap."
    ]
    assert grids(allocated) == [[4, 2, 5], [1, 6, 3]]


def test_post_race_weather_shows_the_draw(as_organiser, allocated):
    response = as_organiser.post(reverse("race-weather", args=[allocated.slug]), {"roll": "6"})

    assert response.status_code == 302
    page = as_organiser.get(response["Location"])
    assert flashes(page) == ["Race weather: d20 = 6, Variable."]
    html = page.content.decode()
    assert "d20 = 6 (physical die) → <strong>Variable</strong>" in html
    assert {(t.weather, t.track) for t in RaceTable.objects.filter(event=allocated)} == {
        ("variable", "dry")
    }


def test_post_race_weather_with_a_bad_roll_says_why(as_organiser, allocated):
    response = as_organiser.post(
        reverse("race-weather", args=[allocated.slug]), {"roll": "21"}, follow=True
    )
    assert len(flashes(response)) == 1
    assert not RaceTable.objects.exclude(weather="").exists()


def test_post_referee_link_gives_a_new_link(as_organiser, phone, allocated):
    old = table(allocated, 2).token

    response = as_organiser.post(
        reverse("race-referee-link", args=[allocated.slug, 2]), {"confirmed": "1"}
    )

    assert response.status_code == 302
    new = table(allocated, 2).token
    assert new != old
    page = as_organiser.get(response["Location"])
    assert flashes(page) == ["Table 2 has a new referee link; the old one no longer works."]
    assert reverse("rtable", args=[new]) in page.content.decode()
    assert phone.get(reverse("rtable", args=[old])).status_code == 410
    assert phone.get(reverse("rtable", args=[new])).status_code == 200


def test_post_referee_link_refused_to_an_outsider(as_outsider, allocated):
    old = table(allocated, 1).token
    response = as_outsider.post(reverse("race-referee-link", args=[allocated.slug, 1]))
    assert response.status_code == 403
    assert table(allocated, 1).token == old


# --- Where do I sit? ------------------------------------------------------------------------


def where(client, event, query: str):
    return client.get(reverse("where", args=[event.slug]), {"q": query})


def seats(response) -> list[tuple[str, str]]:
    html = response.content.decode()
    return re.findall(r'<p class="seat-table">(.*?)</p>\s*<p><strong>(.*?)</strong>', html, re.S)


def test_where_do_i_sit_is_hidden_until_the_allocation_is_published(phone, allocated):
    assert where(phone, allocated, "4").status_code == 404

    allocated.published_allocation = True
    allocated.save()

    response = where(phone, allocated, "4")
    assert response.status_code == 200
    assert seats(response) == [("Table 1", "4 Hugo Moreau")]


def test_where_do_i_sit_is_open_to_the_organiser_before_publication(as_organiser, allocated):
    response = where(as_organiser, allocated, "6")
    assert response.status_code == 200
    assert seats(response) == [("Table 2", "6 Jules Fournier")]


@pytest.fixture
def published(allocated):
    allocated.published_allocation = True
    allocated.save()
    return allocated


@pytest.mark.parametrize(
    ("query", "found"),
    [
        ("3", [("Table 2", "3 Léa Morel")]),
        ("lea", [("Table 2", "3 Léa Morel")]),
        ("LÉA", [("Table 2", "3 Léa Morel")]),
        ("Lea", [("Table 2", "3 Léa Morel")]),
        ("  léa  ", [("Table 2", "3 Léa Morel")]),
        ("zoe", [("Table 1", "5 Zoé Girard")]),
        ("LEFEVRE", [("Table 2", "1 Élodie Lefèvre")]),
        ("elodie lef", [("Table 2", "1 Élodie Lefèvre")]),
        # Part of a name: every match, table 1 first.
        ("mor", [("Table 1", "4 Hugo Moreau"), ("Table 2", "3 Léa Morel")]),
    ],
)
def test_where_do_i_sit_finds_a_driver(phone, published, query, found):
    response = where(phone, published, query)
    assert response.status_code == 200
    assert seats(response) == found


def test_where_do_i_sit_shows_the_grid_position_and_stand(phone, published, actor):
    stands_set(actor=actor, table=table(published, 2), stands={1: 3, 6: 7})
    html = where(phone, published, "jules").content.decode()
    assert "Grid position 2" in html
    assert "stand 7" in html


def test_where_do_i_sit_says_when_nobody_is_found(phone, published):
    response = where(phone, published, "Schumacher")
    assert seats(response) == []
    assert "Nobody found." in response.content.decode()


def test_where_do_i_sit_without_a_query_lists_nobody(phone, published):
    response = phone.get(reverse("where", args=[published.slug]))
    assert response.status_code == 200
    assert seats(response) == []
    assert "Nobody found." not in response.content.decode()


# --- A race table's page, from its referee link -----------------------------------------------


def chooser(html: str) -> tuple[int, list[int]] | None:
    """(driver number, free stands offered as buttons) of the stand chooser, or None."""
    match = re.search(
        r'<article class="stand-chooser" id="chooser">.*?/stands/(\d+)/".*?</form>', html, re.S
    )
    if not match:
        return None
    free = re.findall(r'class="stand free" data-stand="(\d+)"', match.group(0))
    return int(match.group(1)), [int(v) for v in free]


def taken_stands(html: str) -> list[int]:
    """The stands shown greyed (taken) in the chooser."""
    return [int(v) for v in re.findall(r'class="stand taken" disabled[^>]*>(\d+)<', html)]


def test_race_table_page_shows_the_grid_and_the_pole_chooses_first(phone, allocated):
    response = phone.get(reverse("rtable", args=[table(allocated, 2).token]))

    assert response.status_code == 200
    html = response.content.decode()
    rows = re.findall(r'<tr data-number="(\d+)"', html)
    assert [int(n) for n in rows] == [1, 6, 3]
    assert "Élodie Lefèvre" in html
    assert chooser(html) == (1, list(range(1, 11)))


def test_race_table_stands_are_chosen_in_grid_order_from_the_remaining_ones(phone, allocated):
    token = table(allocated, 1).token
    url = reverse("rtable", args=[token])

    response = phone.post(reverse("rtable-stand", args=[token, 4]), {"stand": "3"})
    assert response.status_code == 302
    assert response["Location"] == url + "#stands"
    assert chooser(phone.get(url).content.decode()) == (2, [1, 2, 4, 5, 6, 7, 8, 9, 10])

    phone.post(reverse("rtable-stand", args=[token, 2]), {"stand": "1"})
    html = phone.get(url).content.decode()
    assert chooser(html) == (5, [2, 4, 5, 6, 7, 8, 9, 10])
    assert taken_stands(html) == [1, 3]  # greyed, not offered

    phone.post(reverse("rtable-stand", args=[token, 5]), {"stand": "10"})
    html = phone.get(url).content.decode()
    assert chooser(html) is None
    assert "Every driver has a stand." in html
    assert dict(table(allocated, 1).slots.values_list("driver__number", "stand")) == {
        4: 3,
        2: 1,
        5: 10,
    }
    # Recorded as the table's link.
    assert GridSlot.objects.get(driver__number=5).history.first().history_actor == (
        "referee link of Table 1"
    )


def test_race_table_refuses_a_stand_already_taken(phone, allocated):
    token = table(allocated, 1).token
    taken = phone.post(reverse("rtable-stand", args=[token, 4]), {"stand": "3"}, follow=True)
    assert flashes(taken) == ["Stand 3 taken by driver 4."]

    response = phone.post(reverse("rtable-stand", args=[token, 2]), {"stand": "3"}, follow=True)

    assert flashes(response) == ["Stand 3 is already taken by 4 Hugo Moreau at this table."]
    assert GridSlot.objects.get(driver__number=2).stand is None


def test_race_table_refuses_a_driver_of_another_table(phone, allocated):
    token = table(allocated, 1).token
    response = phone.post(reverse("rtable-stand", args=[token, 1]), {"stand": "3"}, follow=True)
    assert flashes(response) == ["Not on the grid of Table 1: 1."]
    assert GridSlot.objects.get(driver__number=1).stand is None


def test_race_table_of_an_unknown_link_is_404(phone, allocated):
    assert phone.get(reverse("rtable", args=["not-a-token"])).status_code == 404
    assert phone.get(reverse("rtable-sheet", args=["not-a-token"])).status_code == 404


def weather_form(html: str, token: str) -> bool:
    return f'action="{reverse("rtable-weather", args=[token])}"' in html


def test_weather_draw_form_only_in_a_variable_race(phone, allocated, actor):
    token = table(allocated, 1).token
    url = reverse("rtable", args=[token])
    html = phone.get(url).content.decode()
    assert "The race weather is not drawn yet." in html
    assert not weather_form(html, token)

    race_weather_draw(actor=actor, event=allocated, roll=15)  # sun
    assert not weather_form(phone.get(url).content.decode(), token)

    race_weather_draw(actor=actor, event=allocated, roll=6, reason="wrong scale")  # variable
    html = phone.get(url).content.decode()
    assert not weather_form(html, token)  # §3-2-4: the draws come during the race
    assert "Weather draws come during the race, after the start (§3-2-4)." in html
    stands_set(actor=actor, table=table(allocated, 1), stands={4: 1, 2: 2, 5: 3})
    table_start(actor=actor, table=table(allocated, 1))
    assert weather_form(phone.get(url).content.decode(), token)


def test_weather_draw_from_the_table_page(phone, allocated, actor):
    race_weather_draw(actor=actor, event=allocated, roll=6)
    token = table(allocated, 1).token
    early = phone.post(reverse("rtable-weather", args=[token]), {"roll": "2"}, follow=True)
    assert flashes(early) == [
        "The race has not started at Table 1: start it first (stands and configurations), "
        "then draw the weather at the end of a game turn (§3-2-4)."
    ]
    assert (table(allocated, 1).started_at, WeatherDraw.objects.count()) == (None, 0)
    stands_set(actor=actor, table=table(allocated, 1), stands={4: 1, 2: 2, 5: 3})
    table_start(actor=actor, table=table(allocated, 1))

    response = phone.post(reverse("rtable-weather", args=[token]), {"roll": "2"}, follow=True)
    assert flashes(response) == ["d20 = 2: Rain, track wet."]
    response = phone.post(reverse("rtable-weather", args=[token]), {"roll": "4"}, follow=True)
    assert flashes(response) == ["d20 = 4: Rain, track wet, fixed for the rest of the race."]

    html = response.content.decode()
    assert not weather_form(html, token)
    assert "(fixed for the rest of the race)" in html
    draw = WeatherDraw.objects.get(table__number=1, number=2)
    assert (draw.roll, draw.fixed, draw.actor) == (4, True, "referee link of Table 1")


def test_weather_draw_posted_in_a_sunny_race_is_refused(phone, allocated, actor):
    race_weather_draw(actor=actor, event=allocated, roll=15)
    token = table(allocated, 1).token
    response = phone.post(reverse("rtable-weather", args=[token]), {"roll": "2"}, follow=True)
    assert flashes(response) == ["The weather evolves only in a variable race."]
    assert not WeatherDraw.objects.exists()


def config_post(number: int, values: dict) -> dict[str, str]:
    return {f"c{number}-{name}": str(value) for name, value in values.items()}


def test_configuration_forms_only_when_the_event_records_them(phone, allocated):
    token = table(allocated, 1).token
    url = reverse("rtable", args=[token])
    html = phone.get(url).content.decode()
    assert 'id="configurations"' not in html
    assert "/configurations/" not in html

    allocated.use_configurations = True
    allocated.save()

    html = phone.get(url).content.decode()
    assert 'id="configurations"' in html
    actions = re.findall(r'action="[^"]*/configurations/(\d+)/"', html)
    assert [int(n) for n in actions] == [4, 2, 5]


@pytest.fixture
def configured(allocated):
    allocated.use_configurations = True
    allocated.save()
    return allocated


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({**VALID, "tyres": 3}, "4: The parts and stand points add up to 21, not 22 (§5-0-2)."),
        ({**VALID, "brakes": 0, "engine": 6}, "4: brakes: at least 1 point per part (§5-0-2)."),
        ({**VALID, "engine": "x"}, "4: engine: a whole number is needed (§5-0-2)."),
        ({**VALID, "engine": ""}, "4: engine: missing (§5-0-2)."),
        (
            {**VALID, "stand_points": 3, "tyres": 3},
            "4: stand points: 0 to 2 points at the stand (§5-3).",
        ),
    ],
)
def test_a_bad_configuration_shows_the_message(phone, configured, values, message):
    token = table(configured, 1).token
    response = phone.post(
        reverse("rtable-configuration", args=[token, 4]), config_post(4, values), follow=True
    )
    assert response.status_code == 200
    number, _colon, reason = message.partition(": ")
    assert flashes(response) == [f"Driver {number}: {reason}"]
    html = response.content.decode()
    # The reason stands next to the box (or above them, for the sum)...
    assert re.search(r'class="error"[^>]*>' + re.escape(reason), html)
    # ...and every value typed comes back in its box.
    for name, value in values.items():
        assert f'name="c4-{name}" value="{value}"' in html or (
            value == "" and f'name="c4-{name}" min=' in html
        ), name
    assert not CarConfiguration.objects.exists()


def test_a_refused_total_keeps_the_seven_values_and_shows_the_sum(phone, configured):
    """21 instead of 22 (§5-0-2): nothing typed is lost; the page says 21 / 22."""
    token = table(configured, 1).token
    typed = {**VALID, "tyres": 3}

    response = phone.post(
        reverse("rtable-configuration", args=[token, 4]), config_post(4, typed), follow=True
    )

    html = response.content.decode()
    assert response.redirect_chain[-1][0].endswith("#config-4")
    for name, value in typed.items():
        assert f'name="c4-{name}" value="{value}"' in html, name
    assert re.search(r'<output[^>]*class="sum-off"[^>]*>Total 21 / 22</output>', html)
    assert '<p class="error" role="alert">The parts and stand points add up to 21' in html
    # Only once: the next visit shows the saved values (none) again.
    again = phone.get(reverse("rtable", args=[token])).content.decode()
    assert 'name="c4-tyres" value="3"' not in again


@pytest.mark.parametrize(
    ("use_configurations", "result", "message"),
    [
        (False, "empty", "This event does not record car configurations."),
        (
            True,
            "confirmed",
            "This table's result is confirmed: its configurations can no longer change.",
        ),
    ],
)
def test_a_refused_configuration_says_why(phone, allocated, use_configurations, result, message):
    """A refusal without per-field errors (Conflict) must still reach the referee."""
    allocated.use_configurations = use_configurations
    allocated.save()
    RaceTable.objects.filter(event=allocated, number=1).update(result_status=result)
    token = table(allocated, 1).token

    response = phone.post(
        reverse("rtable-configuration", args=[token, 4]), config_post(4, VALID), follow=True
    )

    shown = flashes(response)
    assert len(shown) == 1 and message in shown[0], shown
    assert "Configuration of driver 4 saved." not in response.content.decode()
    assert not CarConfiguration.objects.exists()


def test_a_valid_configuration_is_saved_and_shown_again(phone, configured):
    token = table(configured, 1).token
    response = phone.post(
        reverse("rtable-configuration", args=[token, 2]), config_post(2, VALID), follow=True
    )
    assert flashes(response) == ["Configuration of driver 2 saved."]
    config = CarConfiguration.objects.get()
    assert config.slot.driver.number == 2
    assert config.values() == VALID
    html = response.content.decode()
    assert 'name="c2-tyres" value="4"' in html
    assert config.history.get().history_actor == "referee link of Table 1"


# --- Printed sheets -------------------------------------------------------------------------


def test_race_sheet_pdf_lists_the_grid(phone, allocated):
    response = phone.get(reverse("rtable-sheet", args=[table(allocated, 2).token]))

    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert 'filename="gp-table-2.pdf"' in response["Content-Disposition"]
    text = "\n".join(pdf_pages(response.content))
    for name in ("Élodie Lefèvre", "Jules Fournier", "Léa Morel"):
        assert name in text
    assert "Hugo Moreau" not in text


@pytest.fixture
def request_batch(as_organiser, django_capture_on_commit_callbacks):
    """POST a batch request as the organiser; the task is sent once the request commits."""

    def post(event, kind: str, client=None):
        with django_capture_on_commit_callbacks(execute=True):
            return (client or as_organiser).post(
                reverse("sheet-batch-request", args=[event.slug]), {"kind": kind}
            )

    return post


def batch_text(client, event, kind: str) -> list[str]:
    response = client.get(reverse("sheet-batch-download", args=[event.slug, kind]))
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    return pdf_pages(response.content)


def test_race_sheets_batch_is_built_and_downloaded(as_organiser, allocated, request_batch):
    response = request_batch(allocated, "race")

    assert response.status_code == 302
    assert response["Location"] == reverse("sheet-batch", args=[allocated.slug, "race"])
    batch = SheetBatch.objects.get(event=allocated, kind="race")
    # The page was read in English; the sheets are printed in the event's language.
    assert (batch.status, batch.done, batch.total, batch.language) == ("done", 2, 2, "fr")
    page = as_organiser.get(response["Location"])
    assert page.status_code == 200
    html = page.content.decode()
    assert "Ready" in html
    assert reverse("sheet-batch-download", args=[allocated.slug, "race"]) in html
    assert "hx-get" not in html  # nothing left to poll
    pages = batch_text(as_organiser, allocated, "race")
    for number in (1, 2):
        assert any(f"Table {number}" in text for text in pages), number
    everything = "\n".join(pages)
    for first, last in NAMES.values():
        assert f"{first} {last}" in everything


def test_requesting_the_batch_twice_replaces_it(as_organiser, allocated, actor, request_batch):
    request_batch(allocated, "race")
    first = SheetBatch.objects.get()
    assert (first.status, first.total) == ("done", 2)
    allocation_run(actor=actor, event=allocated, table_size=2)  # three tables now

    request_batch(allocated, "race")

    batch = SheetBatch.objects.get()
    assert batch.pk == first.pk
    assert (batch.status, batch.done, batch.total) == ("done", 3, 3)
    pages = batch_text(as_organiser, allocated, "race")
    for number in (1, 2, 3):
        assert any(f"Table {number}" in text for text in pages), number


def test_qualifying_sheets_batch(as_organiser, allocated, actor, request_batch):
    qualifying_tables_auto(actor=actor, event=allocated, table_size=4)

    response = request_batch(allocated, "qualifying")

    assert response["Location"] == reverse("sheet-batch", args=[allocated.slug, "qualifying"])
    batch = SheetBatch.objects.get(event=allocated)
    assert (batch.kind, batch.status, batch.done, batch.total) == ("qualifying", "done", 2, 2)
    pages = batch_text(as_organiser, allocated, "qualifying")
    for number in (1, 2):
        assert any(f"Table {number}" in text for text in pages), number
    assert "Élodie Lefèvre" in "\n".join(pages)
    # Both kinds live side by side.
    request_batch(allocated, "race")
    assert sorted(SheetBatch.objects.values_list("kind", flat=True)) == ["qualifying", "race"]


def test_batch_of_an_unknown_kind_is_refused(as_organiser, allocated):
    response = as_organiser.post(
        reverse("sheet-batch-request", args=[allocated.slug]), {"kind": "menus"}, follow=True
    )
    assert response.redirect_chain[-1][0] == reverse("allocation", args=[allocated.slug])
    assert len(flashes(response)) == 1
    assert not SheetBatch.objects.exists()


def test_a_refused_batch_brings_the_desk_back_to_its_own_page(allocated, django_user_model):
    """The desk prints sheets but never opens the allocation: a refusal lands on the event's
    desk, with the sentence, not on a 403 (DOMAIN.md "Clubs and who may do what")."""
    club = Club.objects.create(slug="aix", name="Aix")
    allocated.championship.club = club
    allocated.championship.save(update_fields=["club"])
    desk = django_user_model.objects.create_user("guichet", password="pw")
    Membership.objects.create(club=club, user=desk, role="desk")
    client = Client()
    client.force_login(desk)
    response = client.post(
        reverse("sheet-batch-request", args=[allocated.slug]), {"kind": "menus"}, follow=True
    )
    assert response.status_code == 200
    assert response.redirect_chain[-1][0] == reverse("event-desk", args=[allocated.slug])
    assert len(flashes(response)) == 1
    assert not SheetBatch.objects.exists()


def test_batch_in_french_by_default(organiser, allocated, request_batch):
    client = Client()
    client.force_login(organiser)
    request_batch(allocated, "race", client=client)
    batch = SheetBatch.objects.get()
    assert (batch.language, batch.status) == ("fr", "done")
    response = client.get(reverse("sheet-batch-download", args=[allocated.slug, "race"]))
    pages = pdf_pages(response.content)
    assert any("Table 2" in text for text in pages)


def test_batch_progress_while_queued_polls_with_htmx(as_organiser, allocated):
    SheetBatch.objects.create(event=allocated, kind="race", status="running", done=1, total=4)
    url = reverse("sheet-batch", args=[allocated.slug, "race"])

    partial = as_organiser.get(url, headers={"HX-Request": "true"})

    html = partial.content.decode()
    assert "<html" not in html
    assert f'hx-get="{url}"' in html
    assert 'value="25"' in html and "1 / 4" in html
    # Not built yet: nothing to download.
    download = reverse("sheet-batch-download", args=[allocated.slug, "race"])
    assert as_organiser.get(download).status_code == 404


@pytest.mark.parametrize("who", ["as_outsider", "phone"])
def test_batches_are_for_organisers_only(request, request_batch, allocated, who):
    request_batch(allocated, "race")
    client = request.getfixturevalue(who)
    for url in (
        reverse("sheet-batch", args=[allocated.slug, "race"]),
        reverse("sheet-batch-download", args=[allocated.slug, "race"]),
    ):
        assert client.get(url).status_code == 403
    response = client.post(reverse("sheet-batch-request", args=[allocated.slug]), {"kind": "race"})
    assert response.status_code == 403
