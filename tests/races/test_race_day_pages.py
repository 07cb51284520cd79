"""Race day as the rules run it, through the pages (Django test client): confirmation steps
naming what they undo, the race weather drawn once (every draw listed), the referee typing
the die, stands in grid order with corrections, the start and the unlock, a table draw
undone, swaps naming the team-mate clashes they create, sanctions shown everywhere.

Users as in ``test_views.py``: the organiser (logged in), a referee's phone (the link).
"""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from qualifying.models import QualifyingTable
from races.grid.start import configurations_set, stands_set, table_start
from races.models import CarConfiguration, GridSlot, RaceTable, RaceWeatherDraw, WeatherDraw
from races.weather.services import race_weather_draw, table_weather_draw
from tests.races.conftest import VALID
from tests.races.test_views import flashes, grids, pdf_pages, table
from tournament.models import Event, Sanction, Team

pytestmark = [pytest.mark.django_db, pytest.mark.keeps_context]


def confirm_page(response) -> list[str]:
    """The items of a confirmation step ("This will undo: …"), or [] if none was asked."""
    html = response.content.decode()
    if 'class="confirm-step"' not in html:
        return []
    return re.findall(r"<li>(.*?)</li>", html.split('class="confirm-undoes"')[-1].split("</ul>")[0])


# --- Confirmation steps -----------------------------------------------------------------------


def test_a_first_allocation_asks_nothing_a_new_one_names_what_it_clears(as_organiser, event, actor):
    url = reverse("allocation-run", args=[event.slug])
    first = as_organiser.post(url, {"table_size": "3"})
    assert first.status_code == 302 and grids(event) == [[4, 2, 5], [1, 6, 3]]
    stands_set(actor=actor, table=table(event, 1), stands={4: 1, 2: 2})
    Event.objects.filter(pk=event.pk).update(use_configurations=True)
    configurations_set(actor=actor, table=table(event, 1), configurations={4: VALID})
    asked = as_organiser.post(url, {"table_size": "2"})
    assert asked.status_code == 200
    assert confirm_page(asked) == [
        "the grids of the 2 race tables as they stand (manual swaps included)",
        "2 stands chosen: drivers choose again",
        "1 car configuration recorded",
    ]
    assert 'name="table_size" value="2"' in asked.content.decode()
    assert grids(event) == [[4, 2, 5], [1, 6, 3]]  # nothing done yet
    done = as_organiser.post(url, {"table_size": "2", "confirmed": "1"}, follow=True)
    assert flashes(done) == ["3 race tables allocated."]
    assert not CarConfiguration.objects.exists()


def test_a_new_referee_link_says_the_printed_qr_code_stops_working(as_organiser, allocated):
    old = table(allocated, 1).token
    asked = as_organiser.post(reverse("race-referee-link", args=[allocated.slug, 1]))
    assert confirm_page(asked) == [
        "the current link of Table 1 and the QR code printed on its sheet: they stop working "
        "at once, so its referee needs the new link or a new sheet"
    ]
    assert table(allocated, 1).token == old


def test_a_new_qualifying_link_and_a_session_are_confirmed_first(as_organiser, event):
    QualifyingTable.objects.create(event=event, number=1)
    table_1 = QualifyingTable.objects.get(event=event, number=1)
    link = as_organiser.post(reverse("qualifying-referee-link", args=[event.slug, 1]))
    (undone,) = confirm_page(link)
    assert undone.startswith(f"the current link of {table_1} and the QR code printed")
    assert QualifyingTable.objects.get(pk=table_1.pk).token == table_1.token
    session = as_organiser.post(reverse("desk-session-create", args=[event.slug]), {"number": "2"})
    html = session.content.decode()
    assert 'class="confirm-step"' in html
    assert "Session 2 opens with a d20 rolled by the system now" in html
    assert not event.sessions.filter(number=2).exists()
    done = as_organiser.post(
        reverse("desk-session-create", args=[event.slug]),
        {"number": "2", "weather_roll": "3", "confirmed": "1"},
    )
    assert done.status_code == 302 and event.sessions.get(number=2).roll == 3


def test_reopening_a_result_names_what_it_undoes(as_organiser, allocated):
    RaceTable.objects.filter(event=allocated, number=1).update(result_status="confirmed")
    html = as_organiser.get(reverse("results-desk", args=[allocated.slug]) + "?reopen=1").content
    assert (
        "This will undo: the confirmation of Table 1; its 3 drivers' places and points leave "
        "the day's results and the standings until race control confirms it again."
    ) in html.decode()


def test_a_swap_names_the_team_mate_clash_it_creates(as_organiser, allocated):
    team = Team.objects.create(championship=allocated.championship, name="Écurie <b>Rouge</b>")
    for number in (2, 6):
        allocated.championship.drivers.filter(number=number).update(team=team)
    Event.objects.filter(pk=allocated.pk).update(separate_teams=True)
    response = as_organiser.post(
        reverse("allocation-swap", args=[allocated.slug]),
        {"a": "5", "b": "6", "reason": "amis"},
        follow=True,
    )
    assert flashes(response) == [
        "Zoé Girard and Jules Fournier swapped tables.",
        "Team-mates now at the same table: 6 Jules Fournier and 2 Théo Marchand "
        "(Écurie <b>Rouge</b>) at table 1.",
    ]
    assert "<b>Rouge</b>" not in response.content.decode()  # a hostile name stays text


# --- The race weather, drawn once ---------------------------------------------------------------


def test_the_race_weather_is_drawn_once_and_every_draw_is_listed(as_organiser, allocated):
    url = reverse("race-weather", args=[allocated.slug])
    empty = as_organiser.post(url, {"roll": ""}, follow=True)
    assert flashes(empty) == [
        "Type the d20 rolled (1 to 20), or tap “Roll for me” to let the system roll."
    ]
    assert not RaceWeatherDraw.objects.exists()
    as_organiser.post(url, {"roll": "2"}, follow=True)
    again = as_organiser.post(url, {"roll": "15"}, follow=True)
    assert flashes(again)[0].startswith("The race weather is already drawn (Rain, d20 = 2)")
    redrawn = as_organiser.post(url, {"roll": "15", "reason": "Die off the table"}, follow=True)
    assert flashes(redrawn) == ["Race weather: d20 = 15, Sun."]
    html = redrawn.content.decode()
    assert "Draw 1: d20 = 2 (physical die) → Rain" in html
    assert "« Die off the table »" in html
    desk = as_organiser.get(reverse("results-desk", args=[allocated.slug])).content.decode()
    assert "Draw 2: d20 = 15" in desk and "« Die off the table »" in desk
    system = as_organiser.post(url, {"system": "1", "reason": "again"}, follow=True)
    assert RaceWeatherDraw.objects.get(number=3).source == "system", flashes(system)
    sheet = pdf_pages(
        as_organiser.get(reverse("rtable-sheet", args=[table(allocated, 1).token])).content
    )
    # Printed in the event's language (French): every draw listed.
    assert "Météo de la course tirée 3 fois" in sheet[0].replace("\n", " ").replace("\xa0", " ")
    assert "Die off the table" in sheet[0]


# --- At the table: the die typed, stands in grid order, the start --------------------------------


def start(actor, event, number: int) -> None:
    """Stands in grid order (§4-0-1), then the referee's start (§5-0-2)."""
    t = table(event, number)
    grid = t.slots.order_by("position").values_list("driver__number", flat=True)
    stands_set(actor=actor, table=t, stands={n: stand for stand, n in enumerate(grid, 1)})
    table_start(actor=actor, table=t)


def test_the_referee_types_the_die_the_system_rolls_only_when_asked(phone, allocated, actor):
    race_weather_draw(actor=actor, event=allocated, roll=6)  # variable
    start(actor, allocated, 1)
    token = table(allocated, 1).token
    url = reverse("rtable-weather", args=[token])
    empty = phone.post(url, {"roll": ""}, follow=True)
    assert flashes(empty) == [
        "Type the d20 rolled (1 to 20), or tap “Roll for me” to let the system roll."
    ]
    assert not WeatherDraw.objects.exists()
    phone.post(url, {"roll": "12"})
    phone.post(url, {"roll": "", "system": "1"})
    assert list(WeatherDraw.objects.order_by("number").values_list("roll", "source"))[0] == (
        12,
        "physical",
    )
    assert WeatherDraw.objects.get(number=2).source == "system"


def test_stands_are_corrected_before_the_start_and_locked_after(phone, allocated, actor):
    race_weather_draw(actor=actor, event=allocated, roll=6)  # §3-0-1: before the start
    token = table(allocated, 1).token
    page = reverse("rtable", args=[token])
    phone.post(reverse("rtable-stand", args=[token, 4]), {"stand": "3"}, follow=True)
    out_of_order = phone.post(reverse("rtable-stand", args=[token, 5]), {"stand": "1"}, follow=True)
    assert flashes(out_of_order) == [
        "Stands are chosen in grid order, pole first (§4-0-1): 2 Théo Marchand (P2) chooses "
        "before 5 Zoé Girard."
    ]
    html = phone.get(page).content.decode()
    assert "P2: 2 Théo Marchand chooses a stand now" in html
    assert 'id="start-race" disabled' in html
    assert "Still missing: no stand for 2 Théo Marchand, 5 Zoé Girard." in html
    corrected = phone.post(reverse("rtable-stand", args=[token, 4]), {"stand": "7"}, follow=True)
    assert flashes(corrected) == ["Stand 7 taken by driver 4."]
    phone.post(reverse("rtable-stand", args=[token, 2]), {"stand": "1"}, follow=True)
    phone.post(reverse("rtable-stand", args=[token, 5]), {"stand": "2"}, follow=True)
    asked = phone.post(reverse("rtable-start", args=[token]), follow=True)
    assert confirm_page(asked) == [
        "the stands and configurations can no longer change: they are written in ink "
        "(§5-0-2); only race control can unlock the table"
    ]
    assert table(allocated, 1).started_at is None  # one tap never starts a race
    started = phone.post(reverse("rtable-start", args=[token]), {"confirmed": "1"}, follow=True)
    assert flashes(started) == [
        "The race has started at Table 1: stands and configurations are locked."
    ]
    html = started.content.decode()
    assert "stands and configurations are written in ink (§5-0-2)" in html
    assert 'class="stand-fix"' not in html
    locked = phone.post(reverse("rtable-stand", args=[token, 5]), {"stand": "4"}, follow=True)
    assert flashes(locked)[0].startswith("The race has started at Table 1")
    assert GridSlot.objects.get(driver__number=5).stand == 2


def test_race_control_unlocks_and_undoes_a_draw_from_the_allocation_page(
    as_organiser, allocated, actor
):
    race_weather_draw(actor=actor, event=allocated, roll=6)
    start(actor, allocated, 2)
    table_weather_draw(actor=actor, table=table(allocated, 2), roll=2)
    page = as_organiser.get(reverse("allocation", args=[allocated.slug])).content.decode()
    assert "Race started at" in page
    undo = reverse("race-weather-undo", args=[allocated.slug, 2])
    assert flashes(as_organiser.post(undo, {"reason": ""}, follow=True)) == [
        "Say why this weather draw is undone."
    ]
    done = as_organiser.post(undo, {"reason": "Nobody rolled 20"}, follow=True)
    assert flashes(done) == [
        "Table 2: weather draw 1 (d20 = 2) undone; the table is now Variable, track dry."
    ]
    assert "« Nobody rolled 20 »" in done.content.decode()
    unlock = reverse("race-table-unlock", args=[allocated.slug, 2])
    unlocked = as_organiser.post(unlock, {"reason": "Stands rewritten"}, follow=True)
    assert flashes(unlocked) == [
        "Table 2 is unlocked: its stands and configurations may change again."
    ]
    assert table(allocated, 2).started_at is None


def test_the_unlock_and_undo_are_for_race_control_only(phone, allocated, actor):
    race_weather_draw(actor=actor, event=allocated, roll=6)
    stands_set(actor=actor, table=table(allocated, 1), stands={4: 1, 2: 2, 5: 3})
    table_start(actor=actor, table=table(allocated, 1))
    unlock = phone.post(reverse("race-table-unlock", args=[allocated.slug, 1]), {"reason": "x"})
    assert unlock.status_code in (302, 403)
    assert table(allocated, 1).started_at is not None


# --- Sanctions ---------------------------------------------------------------------------------


def test_sanctions_page_records_lists_and_withdraws(as_organiser, allocated):
    url = reverse("sanctions", args=[allocated.slug])
    missing = as_organiser.post(url, {"driver": "4", "kind": "points", "reason": "late"})
    assert missing.status_code == 400
    assert "Say how many throws or points" in missing.content.decode()
    created = as_organiser.post(
        url, {"driver": "4", "kind": "warning", "reason": "Hand on the <i>die</i>"}, follow=True
    )
    assert flashes(created) == ["Sanction recorded: 4 Hugo Moreau, Warning."]
    html = created.content.decode()
    assert "Hand on the &lt;i&gt;die&lt;/i&gt;" in html
    sanction = Sanction.objects.get()
    withdraw = reverse("sanction-withdraw", args=[allocated.slug, sanction.pk])
    withdrawn = as_organiser.post(withdraw, {"reason": "Appeal"}, follow=True)
    assert flashes(withdrawn) == ["Sanction withdrawn: 4 Hugo Moreau, Warning."]
    assert "withdrawn: « Appeal »" in withdrawn.content.decode()


def test_sanctions_show_on_the_sheet_the_results_and_the_driver_page(
    as_organiser, allocated, actor
):
    as_organiser.post(
        reverse("sanctions", args=[allocated.slug]),
        {"driver": "2", "kind": "warning", "reason": "Ignored “Levier”"},
    )
    sheet = pdf_pages(
        as_organiser.get(reverse("rtable-sheet", args=[table(allocated, 1).token])).content
    )
    text = sheet[0].replace("\n", " ").replace("\xa0", " ")
    assert "Sanctions : 2 Théo Marchand : Avertissement (« Ignored “Levier” »)" in text
    driver = as_organiser.get(
        reverse("driver", args=[allocated.championship.slug, 2])
    ).content.decode()
    assert "Warning</strong></span> · « Ignored “Levier” »" in driver


def test_throws_added_by_a_sanction_show_in_the_qualifying_classification(as_organiser, event):
    """§1-2-3: +30 throws on driver 4's run (pole, 10 throws) puts it last of the session;
    the classification shows the throws in a column of their own."""
    plain = as_organiser.get(reverse("qualifying-session", args=[event.slug, 1])).content
    assert "Sanction (throws)" not in plain.decode()
    response = as_organiser.post(
        reverse("sanctions", args=[event.slug]),
        {"driver": "4", "kind": "throws", "value": "30", "session": "1", "reason": "main"},
        follow=True,
    )
    assert flashes(response) == ["Sanction recorded: 4 Hugo Moreau, +30 throw(s) in session 1."]
    html = as_organiser.get(reverse("qualifying-session", args=[event.slug, 1])).content.decode()
    assert "Sanction (throws)" in html
    rows = re.findall(r'<tr data-number="(\d+)"', html)
    assert rows[-1] == "4" and "+30" in html
