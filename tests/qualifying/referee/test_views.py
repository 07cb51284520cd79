"""A qualifying table's pages for issue 12 (no entry can go silently wrong): the stopwatch
read back in words and both readings under the floor, tyres without a default (the previous
session's offered and marked), rows saying saved or not, the live count, the closed page
once the race tables exist (409 for a save through the link), race control's correction
with a reason and whose ranks moved, the referee's name in the trail, and readable history.

Callers: the table's referee link (a phone without an account), the organiser, and the
other table's link.
"""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from qualifying.forms import RunForm
from qualifying.models import QualifyingTable, Run
from qualifying.seating.services import qualifying_table_set
from qualifying.services import run_record, session_create
from races.grid.services import allocation_run
from tournament.access import Actor

pytestmark = pytest.mark.django_db


@pytest.fixture
def actor(organiser):
    return Actor(user=organiser)


@pytest.fixture
def event(make_event, actor):
    """Four drivers; table 1 seats 1-3, table 2 seats 4; session 1 is sunny (dry)."""
    event = make_event(n_drivers=4)
    qualifying_table_set(actor=actor, event=event, number=1, drivers=[1, 2, 3])
    qualifying_table_set(actor=actor, event=event, number=2, drivers=[4])
    session_create(actor=actor, event=event, number=1, weather_roll=15)
    return event


@pytest.fixture
def table(event):
    return QualifyingTable.objects.get(event=event, number=1)


@pytest.fixture
def session(event):
    return event.sessions.get()


@pytest.fixture
def link():
    client = Client()
    client.cookies["django_language"] = "en"
    return client


@pytest.fixture
def as_organiser(client, organiser):
    client.force_login(organiser)
    client.cookies["django_language"] = "en"
    return client


def row(number: int, **fields) -> dict[str, str]:
    values = {
        "tyres": "soft",
        "throws": "18",
        "placement_errors": "0",
        "exit_squares": "2",
        "stopwatch": "1:05.20",
        **fields,
    }
    return {f"d{number}-{key}": value for key, value in values.items() if value is not None}


def record(actor, session, number, **fields):
    form = RunForm(data={"tyres": "hard", "throws": "20", "stopwatch": "0:50.00", **fields})
    assert form.is_valid(), form.errors
    return run_record(actor=actor, session=session, driver_number=number, data=form.cleaned_data)


def text(response) -> str:
    return re.sub(r"\s+", " ", response.content.decode())


def save(client, table, number, data, **headers):
    return client.post(
        reverse("run-save", args=[table.token, 1, number]), data, HTTP_HX_REQUEST="true", **headers
    )


def preview(client, table, number, data):
    return client.post(reverse("run-preview", args=[table.token, 1, number]), data)


# --- The stopwatch in words; both readings under the floor ---------------------------------


@pytest.mark.parametrize("typed", ["1:48.20", "1.48.20", "1 48 20", "1'48\"20"])
def test_every_reading_is_echoed_in_words(link, table, typed):
    html = text(preview(link, table, 1, row(1, stopwatch=typed)))
    assert '<span class="echo" id="echo-1" hx-swap-oob="true">= 1 min 48 s 20</span>' in html


def test_an_unreadable_stopwatch_says_so_beside_the_field(link, table):
    html = text(preview(link, table, 1, row(1, stopwatch="1:75")))
    assert "unreadable: write 1:45.20, 1.45.20 or 1 45 20" in html


def test_a_short_reading_shows_both_readings_as_it_is_typed(link, table):
    html = text(preview(link, table, 1, row(1, stopwatch="1,48")))
    assert "= 0 min 01 s 48" in html
    assert "“1,48” = 1.48 s. Did you mean 1:48? Correct it, or confirm 1.48 s." in html
    assert 'data-fill="1:48"' in html
    assert 'name="d1-confirm_short"' in html


def test_a_short_reading_is_refused_then_saved_once_confirmed(link, table, session):
    refused = save(link, table, 1, row(1, stopwatch="1,48"))
    html = text(refused)
    assert "Did you mean 1:48?" in html
    assert 'data-shows="typed"' in html and "Not saved" in html
    assert not Run.objects.exists()

    saved = save(link, table, 1, row(1, stopwatch="1,48", confirm_short="on"))
    assert "✓ Saved" in text(saved)
    assert Run.objects.get().stopwatch_cs == 148


def test_the_floor_is_the_event_s(link, table, event):
    event.min_stopwatch_cs = 6000
    event.save(update_fields=["min_stopwatch_cs"])
    html = text(save(link, table, 1, row(1, stopwatch="0:58")))
    assert "under this event&#x27;s plausible floor (1:00)" in html
    assert not Run.objects.exists()


# --- Tyres ------------------------------------------------------------------------------------


def test_no_tyre_is_chosen_for_a_new_run(link, table):
    html = text(link.get(reverse("qtable", args=[table.token])))
    assert 'name="d1-tyres"' in html
    assert not re.search(r'name="d1-tyres" value="\w+" data-key="\w"[^>]* checked', html)


def test_a_run_without_tyres_is_refused_on_the_page(link, table):
    html = text(save(link, table, 1, row(1, tyres=None)))
    assert "Tyres: Choose the tyres: hard, soft or rain." in html
    assert not Run.objects.exists()


def test_the_previous_session_s_tyres_are_offered_and_marked(link, table, event, actor, session):
    record(actor, session, 1, tyres="rain")
    session_create(actor=actor, event=event, number=2, weather_roll=15)
    html = text(link.get(reverse("qtable", args=[table.token]) + "?session=2"))
    assert re.search(r'name="d1-tyres" value="rain" data-key="r" checked', html)
    assert "as in session 1: check" in html
    assert not re.search(r'name="d2-tyres" value="\w+" data-key="\w" checked', html)


# --- Saved or not, and the live count -----------------------------------------------------------


def test_rows_say_in_words_whether_they_are_saved(link, table, actor, session):
    record(actor, session, 2)
    html = text(link.get(reverse("qtable", args=[table.token])))
    first, second = html.split('id="run-1"')[1], html.split('id="run-2"')[1]
    assert "Not entered yet" in first.split("</form>")[0]
    assert "✓ Saved" in second.split("</form>")[0]
    assert 'placeholder="m:ss"' in html and 'inputmode="decimal"' in html
    assert 'placeholder="1:45.20"' not in html  # no placeholder that looks like a time typed


def test_a_save_also_refreshes_the_count(link, table):
    html = text(save(link, table, 1, row(1)))
    assert 'id="entered"' in html and 'hx-swap-oob="true"' in html
    assert "1 run entered out of 3" in html


def test_the_count_refreshes_by_itself(link, table, actor, session):
    url = reverse("qtable-count", args=[table.token])
    assert "0 runs entered out of 3" in text(link.get(url))
    record(actor, session, 3)
    html = text(link.get(url + "?session=1"))
    assert "1 run entered out of 3" in html
    assert 'hx-trigger="every 10s"' in html


def test_the_desk_progress_refreshes_by_itself(as_organiser, event, actor, session):
    url = reverse("event-desk", args=[event.slug])
    assert 'hx-get="' + url + '?part=progress" hx-trigger="every 10s"' in text(
        as_organiser.get(url)
    )
    record(actor, session, 1)
    part = text(as_organiser.get(url + "?part=progress", HTTP_HX_REQUEST="true"))
    assert part.startswith('<div id="qualifying-progress"')
    assert re.search(r"<td[^>]*>1 / 3</td>", part)


# --- Closed by the allocation ---------------------------------------------------------------------


@pytest.fixture
def allocated(event, session, actor):
    record(actor, session, 1, throws="20")
    record(actor, session, 2, throws="22")
    record(actor, session, 4, throws="24")
    allocation_run(actor=actor, event=event, table_size=2)
    return event


def test_the_link_gets_the_closed_page(link, table, allocated):
    response = link.get(reverse("qtable", args=[table.token]))
    assert response.status_code == 200
    html = text(response)
    assert "Qualifying is closed." in html
    assert 'id="closed-runs"' in html and 'name="d1-throws"' not in html
    # A plain visit typed nothing: it is not told that what it typed was lost.
    assert "Nothing you had typed was saved" not in html


def test_a_save_through_the_link_is_409_and_keeps_the_run(link, table, allocated):
    page = link.post(reverse("run-save", args=[table.token, 1, 1]), row(1, throws="30"))
    assert page.status_code == 409
    assert "Qualifying is closed." in text(page)
    assert "Nothing you had typed was saved" in text(page)
    fragment = save(link, table, 1, row(1, throws="30"))
    assert fragment.status_code == 409
    assert "Ask race control to correct this run." in text(fragment)
    assert 'value="30"' in text(fragment)  # what was typed is still shown
    assert Run.objects.get(driver__number=1).throws == 20


def test_race_control_corrects_with_a_reason_and_is_told_whose_ranks_moved(
    as_organiser, table, allocated
):
    page = text(as_organiser.get(reverse("qtable", args=[table.token])))
    assert "The race tables exist: qualifying is closed to the referees." in page
    assert 'name="d1-reason"' in page

    missing = text(save(as_organiser, table, 1, {**row(1, throws="23"), "version": "1"}))
    assert "Required once the race tables exist." in missing
    assert Run.objects.get(driver__number=1).throws == 20

    fixed = text(
        save(
            as_organiser,
            table,
            1,
            {
                **row(1, throws="23", tyres="hard", exit_squares="0"),
                "d1-reason": "Fiche",
                "version": "1",
            },
        )
    )
    assert "The general classification moved after the race tables were built" in fixed
    # 1 now 23 + 1 minute = 24, after 2 (22) and 4 (24, the quicker stopwatch).
    assert (
        "2 Pilote2 Lefèvre: rank 2 → 1; 4 Pilote4 Lefèvre: rank 3 → 2; "
        "1 Pilote1 Lefèvre: rank 1 → 3"
    ) in fixed
    run = Run.objects.get(driver__number=1)
    assert (run.throws, run.reason) == (23, "Fiche")


# --- The referee's name and the history ---------------------------------------------------------


def test_a_referee_gives_a_name_once_and_the_trail_uses_it(link, table, session):
    response = link.post(reverse("qtable-name", args=[table.token]), {"name": " Marc\u202e  P. "})
    assert response.status_code == 302
    assert "Your changes are recorded as Marc P.." in text(link.get(response["Location"]))
    save(link, table, 1, row(1))
    record = Run.objects.get().history.get()
    assert record.history_actor == "Marc P. (referee link of Qualifying table 1)"
    history = text(link.get(reverse("run-history", args=[table.token, 1, 1])))
    assert "Marc P. (referee link of Qualifying table 1) recorded the run" in history


def test_a_name_is_limited_and_hostile_text_stays_text(link, table, session):
    link.post(reverse("qtable-name", args=[table.token]), {"name": "<script>x</script>"})
    save(link, table, 1, row(1))
    history = link.get(reverse("run-history", args=[table.token, 1, 1])).content.decode()
    assert "<script>x</script>" not in history
    assert "&lt;script&gt;x&lt;/script&gt;" in history
    too_long = link.post(reverse("qtable-name", args=[table.token]), {"name": "x" * 41})
    assert too_long.status_code == 302


def test_the_link_s_label_follows_the_page_s_language(table, session):
    french = Client()  # French by default: the label is stored in French
    save(french, table, 1, row(1))
    assert Run.objects.get().history.get().history_actor == "lien commissaire (Table d’essais 1)"
    english = Client()
    english.cookies["django_language"] = "en"
    history = text(english.get(reverse("run-history", args=[table.token, 1, 1])))
    assert "referee link of Qualifying table 1 recorded the run" in history
    assert "lien commissaire" not in history


def test_a_label_stored_with_a_straight_apostrophe_still_follows_the_language(table, session):
    """Before the French translation took the typographic apostrophe, a label was stored as
    "Table d'essais 1": it still reads as table 1's, and the typed name keeps its own."""
    save(Client(), table, 1, row(1))
    Run.objects.get().history.update(
        history_actor="Seán O’Neil (lien commissaire, Table d'essais 1)"
    )
    english = Client()
    english.cookies["django_language"] = "en"
    history = text(english.get(reverse("run-history", args=[table.token, 1, 1])))
    assert "Seán O’Neil (referee link of Qualifying table 1) recorded the run" in history


def test_a_correction_reads_in_words(link, as_organiser, table, session):
    save(link, table, 1, row(1, throws="18"))
    save(as_organiser, table, 1, {**row(1, throws="20"), "version": "1"})
    history = text(link.get(reverse("run-history", args=[table.token, 1, 1])))
    assert "pc corrected the run: <ul><li>throws: 18 → 20</li></ul>" in history
    assert "version" not in history.split("<ol")[1]
    assert (
        "tyres Soft, throws 18, placement errors 0, corner-exit squares 2, stopwatch 1:05.20, "
        "eliminated no"
    ) in history
