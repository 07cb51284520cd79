"""Race result pages through the Django test client: a referee's result entry (draft,
submit, refusals, a stale save, the read-only confirmed page) and race control's desk
(statuses, the polled fragment, confirm, reopen with a reason).

Users: the organiser (logged in), an outsider (logged in, organises nothing), an anonymous
visitor, and a referee's phone (anonymous, with the table's link). Rules: DOMAIN.md "Race
result and retirements" (§2-0-3 the race sheet, §20 causes, §21-1-2 only finishers score).

The grid comes from a d20 draw so that it is plain: seven drivers drawn in number order,
tables of 4 → table 1 is 1, 2, 3, 4 and table 2 is 5, 6, 7. Points scale 10, 8, 6.
"""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from qualifying.models import Run
from qualifying.services import draw_record, session_create
from races.grid.services import allocation_run, referee_link_regenerate
from races.grid.start import table_start
from races.models import RaceResult, RaceTable, ResultLine, ResultStatus
from races.results.services import result_confirm, result_save
from races.weather.services import race_weather_draw, table_weather_draw, table_weather_undo
from tests.races.test_table_views import VARIABLE, stands_in_order
from tournament.access import Actor
from tournament.models import Driver

#: Reads response.context (tests/conftest.py keeps it then).
pytestmark = pytest.mark.keeps_context

# Table 1 as written on the sheet: 3 wins, 1 second; 2 off the road in lap 1; 4 no start.
T1 = {
    3: {"outcome": "1"},
    1: {"outcome": "2"},
    2: {"outcome": "retired", "cause": "off_track", "lap": "1"},
    4: {"outcome": "dns"},
}


@pytest.fixture
def actor(organiser):
    return Actor(user=organiser)


@pytest.fixture
def event(make_event, actor):
    event = make_event(n_drivers=7, qualifying_mode="draw", separate_teams=False)
    draw_record(actor=actor, event=event, rolls={n: [n] for n in range(1, 8)})
    allocation_run(actor=actor, event=event, table_size=4)
    return event


def english(client: Client) -> Client:
    client.cookies["django_language"] = "en"
    return client


@pytest.fixture
def as_organiser(organiser):
    client = Client()
    client.force_login(organiser)
    return english(client)


@pytest.fixture
def as_outsider(django_user_model):
    client = Client()
    client.force_login(django_user_model.objects.create_user("curieux"))
    return english(client)


@pytest.fixture
def phone():
    """A referee's phone: nobody logged in, the table's link in hand."""
    return english(Client())


def table(event, number: int = 1) -> RaceTable:
    return RaceTable.objects.get(event=event, number=number)


def entry_url(event, number: int = 1) -> str:
    return reverse("result-entry", args=[table(event, number).token])


def desk_url(event) -> str:
    return reverse("results-desk", args=[event.slug])


def sheet_data(rows: dict[int, dict[str, str]], *, version: int = 0, **extra: str) -> dict:
    data = {"version": str(version), **extra}
    for number, values in rows.items():
        for part, value in values.items():
            data[f"d{number}-{part}"] = value
    return data


def post(client, event, rows, *, version=0, action="draft", number=1, follow=False, **extra):
    return client.post(
        entry_url(event, number),
        sheet_data(rows, version=version, action=action, **extra),
        follow=follow,
    )


def flashes(response) -> list[str]:
    return [str(m) for m in response.context["messages"]] if response.context else []


def chosen(html: str, name: str) -> str:
    """The selected option of select ``name`` in the page ("" when none)."""
    match = re.search(rf'<select name="{name}"[^>]*>(.*?)</select>', html, re.S)
    assert match, f"no select {name}"
    option = re.search(r'<option value="([^"]*)" selected>', match.group(1))
    return option.group(1) if option else ""


def typed(html: str, name: str) -> str:
    match = re.search(rf'name="{name}" value="([^"]*)"', html)
    assert match, f"no input {name}"
    return match.group(1)


def stored(event, number: int = 1) -> RaceResult:
    return RaceResult.objects.get(table=table(event, number))


def save(event, number=1, *, version=0, submit=True, **sheet) -> RaceResult:
    sheet = {"finish": [], "retired": [], "dns": [], **sheet}
    return result_save(
        actor=Actor(table=table(event, number)),
        table=table(event, number),
        version=version,
        submit=submit,
        **sheet,
    )


T1_SHEET = {
    "finish": [3, 1],
    "retired": [{"driver": 2, "cause": "off_track", "lap": 1}],
    "dns": [4],
}


# --- Who may open what ------------------------------------------------------------------------


@pytest.mark.parametrize("who", ["as_organiser", "phone", "as_outsider"])
def test_the_result_entry_opens_for_whoever_holds_the_tables_link(request, event, who):
    client = request.getfixturevalue(who)
    response = client.get(entry_url(event))
    assert response.status_code == 200
    html = response.content.decode()
    assert [int(n) for n in re.findall(r'class="result-row[^"]*" id="driver-(\d+)"', html)] == [
        1,
        2,
        3,
        4,
    ]


@pytest.mark.parametrize("who", ["as_organiser", "phone", "as_outsider"])
def test_the_result_entry_without_the_link_is_not_found(request, event, who):
    client = request.getfixturevalue(who)
    assert client.get(reverse("result-entry", args=["not-a-token"])).status_code == 404
    response = client.post(reverse("result-entry", args=["not-a-token"]), sheet_data(T1))
    assert response.status_code == 404
    assert client.post(reverse("result-summary", args=["nope"]), {}).status_code == 404
    assert not RaceResult.objects.exists()


def test_an_old_link_says_it_was_replaced(phone, event, actor):
    old = table(event).token
    referee_link_regenerate(actor=actor, table=table(event))
    assert phone.get(reverse("result-entry", args=[old])).status_code == 410
    assert phone.post(reverse("result-entry", args=[old]), sheet_data(T1)).status_code == 410
    assert not RaceResult.objects.exists()


def test_the_organiser_may_enter_a_result_and_is_recorded_by_name(as_organiser, event):
    response = post(as_organiser, event, T1, action="submit")
    assert response.status_code == 302
    assert stored(event).history.first().history_actor == "pc"


def test_a_save_through_the_link_is_recorded_as_the_link(phone, event):
    post(phone, event, T1)
    assert stored(event).history.first().history_actor == "referee link of Table 1"


def test_the_desk_is_for_the_organisers_only(as_organiser, as_outsider, phone, event):
    url = desk_url(event)
    assert as_organiser.get(url).status_code == 200
    assert as_outsider.get(url).status_code == 403
    # The table's link opens its own table, never race control's desk.
    phone.get(entry_url(event))
    assert phone.get(url).status_code == 403
    assert as_organiser.get(reverse("results-desk", args=["nowhere"])).status_code == 404


@pytest.mark.parametrize("who", ["as_outsider", "phone"])
def test_confirm_and_reopen_are_refused_to_non_organisers(request, event, actor, who):
    client = request.getfixturevalue(who)
    save(event, **T1_SHEET)
    confirm = reverse("result-confirm", args=[event.slug, 1])
    assert client.post(confirm).status_code == 403
    assert table(event).result_status == ResultStatus.SUBMITTED

    result_confirm(actor=actor, table=table(event))
    reopen = reverse("result-reopen", args=[event.slug, 1])
    assert client.post(reopen, {"reason": "Just because"}).status_code == 403
    assert table(event).result_status == ResultStatus.CONFIRMED


def test_confirm_of_an_unknown_table_is_not_found(as_organiser, event):
    assert as_organiser.post(reverse("result-confirm", args=[event.slug, 9])).status_code == 404
    assert as_organiser.get(reverse("result-confirm", args=[event.slug, 1])).status_code == 405


# --- Entering the result ------------------------------------------------------------------------


def test_a_draft_may_be_incomplete_and_comes_back_in_the_form(phone, event):
    response = post(
        phone, event, {3: {"outcome": "1"}, 2: {"outcome": "retired", "cause": "engine"}}
    )

    assert response.status_code == 302
    assert response["Location"] == entry_url(event)
    result = stored(event)
    assert (result.version, result.finish, result.submitted_at) == (1, [3], None)
    assert result.retired == [{"driver": 2, "cause": "engine", "lap": None, "note": ""}]
    assert table(event).result_status == ResultStatus.DRAFT

    page = phone.get(response["Location"])
    assert flashes(page) == ["Draft saved (version 1)."]
    html = page.content.decode()
    assert chosen(html, "d3-outcome") == "1"
    assert chosen(html, "d2-outcome") == "retired"
    assert chosen(html, "d2-cause") == "engine"
    assert chosen(html, "d1-outcome") == ""
    assert 'name="version" value="1"' in html
    # The summary says what is there and who is still missing.
    assert "<strong>1st</strong> 3 Pilote3 Lefèvre" in html
    assert "Retired: 2 Pilote2 Lefèvre (Engine)" in html
    assert "Not written yet: 1 Pilote1 Lefèvre, 4 Pilote4 Lefèvre" in html
    # The keyboard starts at the first driver not written yet.
    assert re.search(r'<select name="d1-outcome"[^>]*autofocus', html)


def test_an_empty_first_save_saves_nothing_and_keeps_the_allocation_open(phone, event):
    response = post(phone, event, {1: {"outcome": ""}}, follow=True)
    assert flashes(response) == ["Nothing written yet: nothing saved."]
    assert not RaceResult.objects.exists()
    assert table(event).result_status == ResultStatus.EMPTY


def test_a_complete_submit_goes_to_race_control(phone, event):
    response = post(phone, event, T1, action="submit")

    assert response.status_code == 302
    result = stored(event)
    assert result.finish == [3, 1]
    assert result.retired == [{"driver": 2, "cause": "off_track", "lap": 1, "note": ""}]
    assert result.dns == [4]
    assert result.submitted_at is not None
    assert table(event).result_status == ResultStatus.SUBMITTED
    page = phone.get(entry_url(event))
    assert flashes(page) == ["Result sent to race control (version 1)."]
    html = page.content.decode()
    assert "Sent to race control, waiting for confirmation." in html
    assert "Did not start: 4 Pilote4 Lefèvre" in html


def test_a_finisher_whose_engine_broke_on_the_last_lap_is_noted_on_the_sheet(
    phone, event, as_organiser
):
    """§16-0-6 vs §20-4-1 (the referee decides, DOMAIN.md): 1 crossed the line on inertia
    and stays a finisher; the note typed on its row is saved, comes back in the form, and
    is printed on the confirmed results."""
    note = "Engine broken in the last corner (§16-0-6)"
    rows = {**T1, 1: {"outcome": "2", "note": note}}
    assert post(phone, event, rows, action="submit").status_code == 302
    assert stored(event).game_data == {"notes": {"1": note}}
    assert typed(phone.get(entry_url(event)).content.decode(), "d1-note") == note
    result_confirm(actor=Actor(user=event.championship.organisers.get()), table=table(event))
    line = ResultLine.objects.get(table=table(event), driver__number=1)
    assert (line.status, line.note) == ("finished", note)
    assert note in phone.get(entry_url(event)).content.decode()


def test_a_complete_draft_puts_the_keyboard_on_submit(phone, event):
    post(phone, event, T1)
    html = phone.get(entry_url(event)).content.decode()
    assert re.search(r'<button type="submit" name="action" value="submit"[^>]*autofocus', html)


def test_places_may_have_gaps_and_are_closed_up_when_saved(phone, event):
    post(phone, event, {**T1, 3: {"outcome": "2"}, 1: {"outcome": "4"}}, action="submit")
    assert stored(event).finish == [3, 1]


def test_retirements_go_in_the_order_of_their_laps_then_the_order_typed(phone, event):
    rows = {
        1: {"outcome": "1"},
        # Grid order 2, 3, 4; laps 3, 1, 1; in lap 1, 4 went out before 3.
        2: {"outcome": "retired", "cause": "engine", "lap": "3"},
        3: {"outcome": "retired", "cause": "blocked", "lap": "1", "order": "2"},
        4: {"outcome": "retired", "cause": "body", "lap": "1", "order": "1"},
    }
    assert post(phone, event, rows, action="submit").status_code == 302
    assert [r["driver"] for r in stored(event).retired] == [4, 3, 2]


def test_two_retirements_in_one_lap_without_order_keep_the_grid_order(phone, event):
    rows = {
        1: {"outcome": "1"},
        4: {"outcome": "retired", "cause": "body", "lap": "2"},
        2: {"outcome": "retired", "cause": "engine", "lap": "2"},
        3: {"outcome": "dns"},
    }
    post(phone, event, rows, action="submit")
    assert [r["driver"] for r in stored(event).retired] == [2, 4]


def test_a_move_button_reorders_the_finishers_without_saving(phone, event):
    post(phone, event, T1)
    rows = {**T1}
    response = post(phone, event, rows, version=1, move="1:up")

    assert response.status_code == 200
    html = response.content.decode()
    assert chosen(html, "d1-outcome") == "1"
    assert chosen(html, "d3-outcome") == "2"
    assert chosen(html, "d2-cause") == "off_track"
    assert "Order changed: not saved yet." in html
    assert stored(event).finish == [3, 1]  # nothing saved
    assert 'name="version" value="1"' in html


def test_the_summary_follows_what_is_typed_without_saving(phone, event):
    response = phone.post(
        reverse("result-summary", args=[table(event).token]),
        sheet_data({1: {"outcome": "1"}, 4: {"outcome": "retired", "cause": "engine", "lap": "2"}}),
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert "<html" not in html
    assert "<strong>1st</strong> 1 Pilote1 Lefèvre" in html
    assert "Retired: 4 Pilote4 Lefèvre (Engine, lap 2)" in html
    assert "Not written yet: 2 Pilote2 Lefèvre, 3 Pilote3 Lefèvre" in html
    assert not RaceResult.objects.exists()


def test_the_summary_says_the_places_as_typed_never_others(phone, event):
    """A gap is announced, not silently closed: the boxes say 3rd, so does the summary
    (issue 12: the selects and the summary can never disagree)."""
    response = phone.post(
        reverse("result-summary", args=[table(event).token]),
        sheet_data({1: {"outcome": "1"}, 2: {"outcome": "3"}}),
    )
    html = response.content.decode()
    assert "<strong>1st</strong> 1 Pilote1 Lefèvre" in html
    assert "<strong>3rd</strong> 2 Pilote2 Lefèvre" in html
    assert "Nobody in 2nd place yet" in html


def test_french_agrees_the_first_place_and_the_plural(event):
    """ "la 1re place", "aux 1re, 2e places": the first agrees with "place" (feminine), the
    sentence with how many places are empty (issue 12, French typography)."""
    url = reverse("result-summary", args=[table(event).token])
    one = Client().post(url, sheet_data({1: {"outcome": "2"}})).content.decode()
    assert "Personne à la 1re place pour l’instant" in one
    assert "<strong>2e</strong> 1 Pilote1 Lefèvre" in one
    retired = {"outcome": "retired", "cause": "engine", "lap": "2"}
    colon = Client().post(url, sheet_data({2: retired, 3: {"outcome": "dns"}})).content.decode()
    assert "Abandon\u00a0: 2 Pilote2 Lefèvre" in colon  # no colon without its space
    assert "Non partant\u00a0: 3 Pilote3 Lefèvre" in colon
    two = Client().post(url, sheet_data({1: {"outcome": "3"}})).content.decode()
    assert "Personne aux 1re, 2e places pour l’instant\u00a0: les suivants" in two


# --- Refusals: every value typed stays, the message names the driver ----------------------------


def test_a_submit_missing_a_driver_names_them_and_keeps_the_sheet(phone, event):
    rows = {k: v for k, v in T1.items() if k != 4}
    response = post(phone, event, rows, action="submit")

    assert response.status_code == 400
    html = response.content.decode()
    assert "4 Pilote4 Lefèvre is missing: every driver of the grid appears exactly once." in html
    assert chosen(html, "d3-outcome") == "1"
    assert chosen(html, "d1-outcome") == "2"
    assert chosen(html, "d2-outcome") == "retired"
    assert chosen(html, "d2-cause") == "off_track"
    assert typed(html, "d2-lap") == "1"
    # The driver's own row says it too, and the keyboard goes there.
    assert re.search(
        r'id="driver-4".*?class="row-errors"><li>4 Pilote4 Lefèvre is missing', html, re.S
    )
    assert re.search(r'<select name="d4-outcome"[^>]*autofocus', html)
    assert not RaceResult.objects.exists()


def test_other_without_a_note_is_refused_naming_the_driver(phone, event):
    rows = {**T1, 2: {"outcome": "retired", "cause": "other", "lap": "1", "note": "  "}}
    response = post(phone, event, rows, action="submit")

    assert response.status_code == 400
    html = response.content.decode()
    assert "2 Pilote2 Lefèvre: “other” needs a note (disqualification, withdrawal…)." in html
    assert chosen(html, "d2-cause") == "other"
    assert not RaceResult.objects.exists()

    rows[2]["note"] = "Disqualification"
    assert post(phone, event, rows, action="submit").status_code == 302
    assert stored(event).retired[0]["note"] == "Disqualification"


def test_a_lap_beyond_the_race_is_refused_naming_the_driver(phone, event):
    rows = {**T1, 2: {"outcome": "retired", "cause": "engine", "lap": "4"}}
    response = post(phone, event, rows, action="submit")
    assert response.status_code == 400
    assert "2 Pilote2 Lefèvre: the retirement lap must be between 1 and the race" in (
        response.content.decode().replace("&#x27;", "'")
    )
    assert typed(response.content.decode(), "d2-lap") == "4"


def test_a_retirement_needs_its_cause(phone, event):
    response = post(phone, event, {2: {"outcome": "retired", "lap": "2", "note": "boom"}})
    assert response.status_code == 400
    html = response.content.decode()
    assert "2 Pilote2 Lefèvre: choose the cause of the retirement." in html
    assert typed(html, "d2-note") == "boom"
    assert not RaceResult.objects.exists()


def test_two_drivers_in_one_place_are_refused(phone, event):
    response = post(phone, event, {1: {"outcome": "2"}, 3: {"outcome": "2"}})
    assert response.status_code == 400
    html = response.content.decode()
    assert (
        "Place 2 is written for 1 Pilote1 Lefèvre, 3 Pilote3 Lefèvre: one driver a place." in html
    )
    assert chosen(html, "d1-outcome") == "2"
    assert chosen(html, "d3-outcome") == "2"
    assert not RaceResult.objects.exists()


def test_a_stale_save_says_what_changed_and_keeps_what_was_typed(phone, event, actor):
    # The referee opened the page at version 0; meanwhile race control saved a draft.
    save(event, version=0, submit=False, finish=[1, 3])
    rows = {**T1, 2: {"outcome": "retired", "cause": "engine", "lap": "2", "note": "smoke"}}

    response = post(phone, event, rows, version=0, action="submit")

    assert response.status_code == 409
    html = response.content.decode()
    assert re.search(r"saved this result meanwhile, at \d\d:\d\d: check it and save again\.", html)
    assert "(version" not in html
    changes = re.findall(r"<tr><td>(.*?)</td><td>(.*?)</td><td><strong>(.*?)</strong>", html)
    assert changes == [
        ("1 Pilote1 Lefèvre", "1st", "2nd"),
        ("2 Pilote2 Lefèvre", "not written", "retired (Engine, lap 2, « smoke »)"),
        ("3 Pilote3 Lefèvre", "2nd", "1st"),
        ("4 Pilote4 Lefèvre", "not written", "did not start"),
    ]
    # Nothing typed is lost …
    assert chosen(html, "d3-outcome") == "1"
    assert chosen(html, "d2-cause") == "engine"
    assert typed(html, "d2-lap") == "2"
    assert typed(html, "d2-note") == "smoke"
    assert stored(event).finish == [1, 3]
    # … and the form now carries the stored version: saving again (after checking) works.
    assert 'name="version" value="1"' in html
    assert post(phone, event, rows, version=1, action="submit").status_code == 302
    assert stored(event).finish == [3, 1]


def test_a_stale_incomplete_sheet_still_hears_that_the_result_changed(phone, event):
    """The state of the stored result comes first: an incomplete sheet sent at an old
    version hears "changed meanwhile", with the differences and the new version."""
    save(event, version=0, submit=False, finish=[1])
    response = post(phone, event, {3: {"outcome": "1"}}, version=0, action="submit")
    assert response.status_code == 409
    html = response.content.decode()
    assert "This result was saved by someone else meanwhile." in html
    assert "saved this result meanwhile, at" in html
    assert chosen(html, "d3-outcome") == "1"
    assert 'name="version" value="1"' in html


# --- Confirmed: read-only -----------------------------------------------------------------------


def test_a_confirmed_result_is_read_only_for_the_referee(phone, event, actor):
    save(event, **T1_SHEET)
    result_confirm(actor=actor, table=table(event))

    response = phone.get(entry_url(event))

    assert response.status_code == 200
    html = response.content.decode()
    assert "Confirmed by race control" in html
    assert "<select" not in html.split("<main", 1)[1]
    assert 'name="action"' not in html
    lines = re.findall(r'<tr data-number="(\d+)"><td>(\d+)</td>.*?<td>(\d+)</td></tr>', html, re.S)
    assert lines == [("3", "1", "10"), ("1", "2", "8"), ("2", "3", "0"), ("4", "4", "0")]
    assert "Retired (Off track, lap 1)" in html


def test_a_save_sent_to_a_confirmed_result_is_refused_and_shown_back(phone, event, actor):
    save(event, **T1_SHEET)
    result_confirm(actor=actor, table=table(event))
    rows = {**T1, 3: {"outcome": "2"}, 1: {"outcome": "1"}}

    response = post(phone, event, rows, version=2, action="submit")

    assert response.status_code == 409
    html = response.content.decode()
    assert "This result is confirmed: only race control can reopen it." in html
    assert "What you sent was not saved." in html
    assert "<strong>1st</strong> 1 Pilote1 Lefèvre" in html
    assert stored(event).finish == [3, 1]
    assert table(event).result_status == ResultStatus.CONFIRMED


# --- Race control's desk ------------------------------------------------------------------------


def desk_rows(html: str) -> dict[int, str]:
    return {int(n): s for n, s in re.findall(r'<tr id="table-(\d+)" data-status="(\w+)">', html)}


def test_the_desk_lists_every_table_with_its_status_and_result(as_organiser, event):
    save(event, **T1_SHEET)
    save(event, 2, submit=False, finish=[7])

    response = as_organiser.get(desk_url(event))

    html = response.content.decode()
    assert desk_rows(html) == {1: "submitted", 2: "draft"}
    assert "0 of 2 tables confirmed" in html
    assert "<strong>1st</strong> 3 Pilote3 Lefèvre" in html
    assert "Retired: 2 Pilote2 Lefèvre (Off track, lap 1)" in html
    assert "referee link of Table 1" in html  # who changed it last
    assert reverse("result-confirm", args=[event.slug, 1]) in html
    # Only a submitted result can be confirmed from here.
    assert reverse("result-confirm", args=[event.slug, 2]) not in html
    # The table part polls by itself; the reopen forms live outside it.
    status_part = html.split('id="desk-status"', 1)[1].split('<section id="reopen">', 1)[0]
    assert 'hx-trigger="every 5s' in html
    assert 'name="reason"' not in status_part


def test_the_desk_shows_not_started_tables(as_organiser, event):
    html = as_organiser.get(desk_url(event)).content.decode()
    assert desk_rows(html) == {1: "empty", 2: "empty"}
    assert "Not started" in html


def test_a_started_table_is_in_the_race_not_not_started(as_organiser, event):
    RaceTable.objects.filter(event=event, number=1).update(started_at=timezone.now())

    html = as_organiser.get(desk_url(event)).content.decode()

    row = html.split('id="table-1"', 1)[1].split("</tr>", 1)[0]
    assert ">In the race</span>" in row
    assert "Not started" not in row


def test_the_polled_fragment_is_only_the_status_table(as_organiser, event):
    url = desk_url(event) + "?part=status"
    before = as_organiser.get(url, HTTP_HX_REQUEST="true").content.decode()
    assert desk_rows(before) == {1: "empty", 2: "empty"}
    save(event, **T1_SHEET)

    response = as_organiser.get(url, HTTP_HX_REQUEST="true")

    assert response.status_code == 200
    html = response.content.decode()
    assert "<html" not in html
    assert html.lstrip().startswith('<div id="desk-status"')
    assert 'hx-trigger="every 5s' in html
    assert desk_rows(html) == {1: "submitted", 2: "empty"}
    assert 'name="reason"' not in html


def test_the_polled_fragment_is_refused_to_an_outsider(as_outsider, event):
    response = as_outsider.get(desk_url(event) + "?part=status", HTTP_HX_REQUEST="true")
    assert response.status_code == 403


def test_confirm_from_the_desk_stores_the_points(as_organiser, event):
    save(event, **T1_SHEET)

    response = as_organiser.post(reverse("result-confirm", args=[event.slug, 1]), {"version": "1"})

    assert response.status_code == 302
    assert response["Location"] == desk_url(event) + "#table-1"
    page = as_organiser.get(desk_url(event))
    assert flashes(page) == ["Table 1: result confirmed."]
    assert desk_rows(page.content.decode())[1] == "confirmed"
    assert list(
        ResultLine.objects.order_by("position").values_list("driver__number", "points")
    ) == [(3, 10), (1, 8), (2, 0), (4, 0)]


def test_confirm_of_a_version_that_changed_meanwhile_is_refused(as_organiser, event):
    save(event, **T1_SHEET)
    save(event, version=1, **T1_SHEET)  # the referee corrected it after the desk loaded

    response = as_organiser.post(
        reverse("result-confirm", args=[event.slug, 1]), {"version": "1"}, follow=True
    )

    assert len(flashes(response)) == 1
    assert re.fullmatch(
        r"Table 1: .+ changed this result meanwhile, at \d\d:\d\d: check it first\.",
        flashes(response)[0],
    )
    assert table(event).result_status == ResultStatus.SUBMITTED
    assert not ResultLine.objects.exists()


def test_confirm_of_a_draft_is_refused(as_organiser, event):
    save(event, submit=False, finish=[1])
    response = as_organiser.post(reverse("result-confirm", args=[event.slug, 1]), follow=True)
    assert flashes(response) == ["Table 1: Only a submitted result can be confirmed."]


def test_reopen_needs_a_reason(as_organiser, event, actor):
    save(event, **T1_SHEET)
    result_confirm(actor=actor, table=table(event))
    url = reverse("result-reopen", args=[event.slug, 1])

    response = as_organiser.post(url, {"reason": "  ", "version": "2"})

    assert response["Location"] == desk_url(event) + "?reopen=1#reopen-1"
    page = as_organiser.get(response["Location"])
    assert flashes(page) == ["Table 1: Say why the result is reopened."]
    assert re.search(r'id="reopen-1".*?name="reason"[^>]*autofocus', page.content.decode(), re.S)
    assert table(event).result_status == ResultStatus.CONFIRMED
    assert ResultLine.objects.filter(table=table(event)).count() == 4


def test_reopen_with_a_reason_sends_the_result_back(as_organiser, phone, event, actor):
    save(event, **T1_SHEET)
    result_confirm(actor=actor, table=table(event))
    html = as_organiser.get(desk_url(event)).content.decode()
    assert 'id="reopen-1"' in html

    response = as_organiser.post(
        reverse("result-reopen", args=[event.slug, 1]),
        {"reason": "1 and 3 swapped on the sheet", "version": "2"},
        follow=True,
    )

    assert flashes(response) == ["Table 1: result reopened; it waits for confirmation again."]
    html = response.content.decode()
    assert desk_rows(html)[1] == "submitted"
    assert "1 and 3 swapped on the sheet" in html
    assert table(event).result_status == ResultStatus.SUBMITTED
    assert not ResultLine.objects.exists()
    # The referee may correct it again and sees why.
    referee = phone.get(entry_url(event)).content.decode()
    assert "Reopened by race control" in referee
    assert "1 and 3 swapped on the sheet" in referee
    assert chosen(referee, "d3-outcome") == "1"


# --- Links and languages ----------------------------------------------------------------------


def test_the_table_page_links_to_the_result_and_the_allocation_to_the_desk(
    as_organiser, phone, event
):
    assert (
        entry_url(event) in phone.get(reverse("rtable", args=[table(event).token])).content.decode()
    )
    allocation = as_organiser.get(reverse("allocation", args=[event.slug])).content.decode()
    assert desk_url(event) in allocation


def test_pages_are_in_french_by_default(event, organiser):
    save(event, **T1_SHEET)
    client = Client()
    entry = client.get(entry_url(event))
    html = entry.content.decode()
    assert entry["Content-Language"] == "fr"
    assert '<html lang="fr">' in html
    assert ">Soumis</span>" in html
    assert "<strong>1er</strong> 3 Pilote3 Lefèvre" in html
    assert "<strong>2e</strong> 1 Pilote1 Lefèvre" in html
    assert '<option value="off_track" selected>Sortie de route</option>' in html

    client.force_login(organiser)
    desk = client.get(desk_url(event)).content.decode()
    assert '<html lang="fr">' in desk
    assert "Commissaire" in desk
    assert "Brouillon" not in desk and ">Soumis</span>" in desk


def test_pages_are_in_english_with_the_language_cookie(phone, as_organiser, event):
    save(event, **T1_SHEET)
    html = phone.get(entry_url(event)).content.decode()
    assert '<html lang="en">' in html
    assert ">Submitted</span>" in html
    assert "Submit to race control" in html
    assert "<strong>1st</strong> 3 Pilote3 Lefèvre" in html
    assert "<strong>2nd</strong> 1 Pilote1 Lefèvre" in html
    desk = as_organiser.get(desk_url(event)).content.decode()
    assert "Results desk" in desk and "Referee" in desk


# --- The race weather first (§2-0-1; DOMAIN.md "The race's order") --------------------------


@pytest.fixture
def competition(make_event, actor):
    """A competition (mode ``best``: it draws a race weather), four drivers qualified in
    number order, one table of 4 built, no race weather yet."""
    event = make_event(n_drivers=4, slug="gp-competition", separate_teams=False)
    session = session_create(actor=actor, event=event, number=1, weather_roll=15)
    for driver in Driver.objects.filter(championship=event.championship, number__lte=4):
        Run.objects.create(
            session=session, driver=driver, tyres="hard", throws=10 + driver.number,
            stopwatch_cs=5000,
        )  # fmt: skip
    allocation_run(actor=actor, event=event, table_size=4)
    return event


def test_a_result_typed_before_the_race_weather_is_refused_and_kept(phone, competition, actor):
    """The page says it before anything is typed, and a save is a 409 with every value
    kept: the table does not start, so race control can still draw the weather."""
    page = phone.get(entry_url(competition)).content.decode()
    assert 'id="result-weather"' in page and "The race weather is not drawn yet" in page

    response = post(phone, competition, {2: {"outcome": "1"}})

    assert response.status_code == 409
    html = response.content.decode()
    assert "The race weather is not drawn yet" in html
    assert chosen(html, "d2-outcome") == "1"
    assert (table(competition).result_status, table(competition).started_at) == ("empty", None)
    race_weather_draw(actor=actor, event=competition, roll=15)
    assert 'id="result-weather"' not in phone.get(entry_url(competition)).content.decode()
    assert post(phone, competition, {2: {"outcome": "1"}}).status_code == 302
    assert table(competition).started_at is not None


def test_a_phone_straight_on_the_result_page_is_asked_its_name(phone, event):
    """Issue 32, item 8: the name was asked on the table page only; a phone that opened the
    result page directly stayed anonymous in the trail."""
    page = phone.get(entry_url(event)).content.decode()
    assert 'id="referee-name"' in page and 'name="back" value="result"' in page

    named = phone.post(
        reverse("rtable-name", args=[table(event).token]), {"name": "Zoé", "back": "result"}
    )
    assert named.status_code == 302 and named["Location"] == entry_url(event)
    post(phone, event, {1: {"outcome": "1"}})

    history = phone.get(reverse("rtable-history", args=[table(event).token])).content.decode()
    assert "Zoé (referee link of Table 1)" in history
    assert "Your changes are recorded as Zoé." in phone.get(entry_url(event)).content.decode()


def test_the_desk_shows_each_table_s_weather_draws(as_organiser, allocated, actor):
    """Issue 32, item 8: a table's weather draws (§3-2-4) were on its page only; race
    control checks them beside the result. An undone draw is not shown."""
    race_weather_draw(actor=actor, event=allocated, roll=VARIABLE)
    stands_in_order(actor, allocated, 1)
    started = table_start(actor=actor, table=table(allocated, 1))
    table_weather_draw(actor=actor, table=started, roll=3)
    table_weather_undo(actor=actor, table=started, reason="dé tombé")
    table_weather_draw(actor=actor, table=started, roll=15)

    html = as_organiser.get(desk_url(allocated)).content.decode()
    row = html.split('id="table-1"')[1].split("</tr>")[0]
    assert 'class="desk-weather"' in row and "d20 = 15 → " in row
    assert "d20 = 3 → " not in row
    assert 'class="desk-weather"' not in html.split('id="table-2"')[1].split("</tr>")[0]
