"""Qualifying services of issue 12: the stopwatch floor and tyres enforced whatever the
caller, qualifying closed by the allocation (race control corrects with a reason and learns
whose ranks moved), fast tables and drivers (§1-0-4), the previous session's tyres."""

from __future__ import annotations

import pytest

from qualifying.closure import qualifying_closed
from qualifying.forms import RunForm
from qualifying.models import QualifyingSeat, QualifyingTable, Run
from qualifying.seating.services import (
    fast_drivers_set,
    qualifying_table_set,
    qualifying_tables_auto,
)
from qualifying.selectors import previous_tyres
from qualifying.services import run_cancel, run_record, run_update, session_create
from races.grid.services import allocation_run
from tournament.access import Actor
from tournament.errors import Conflict, InvalidInput, NotAllowed
from tournament.models import Entry

pytestmark = pytest.mark.django_db


@pytest.fixture
def actor(organiser):
    return Actor(user=organiser)


def cleaned(event=None, **fields):
    data = {"tyres": "hard", "throws": "20", "stopwatch": "0:50.00", **fields}
    form = RunForm(data=data)
    assert form.is_valid(), form.errors
    return form.cleaned_data


@pytest.fixture
def event(make_event, actor):
    """Six drivers at table 1 (1-3) and table 2 (4-6); session 1 dry, allow_redo."""
    event = make_event(n_drivers=6, allow_redo=True)
    qualifying_table_set(actor=actor, event=event, number=1, drivers=[1, 2, 3])
    qualifying_table_set(actor=actor, event=event, number=2, drivers=[4, 5, 6])
    session_create(actor=actor, event=event, number=1, weather_roll=15)
    return event


@pytest.fixture
def session(event):
    return event.sessions.get()


def link(event, number=1):
    return Actor(table=QualifyingTable.objects.get(event=event, number=number))


# --- Enforced whatever the caller ------------------------------------------------------------


def test_a_short_stopwatch_needs_confirming_even_past_the_form(actor, session):
    data = {**cleaned(), "stopwatch": 148}  # 1.48 s, as if "1,48" reached the service
    with pytest.raises(InvalidInput) as refused:
        run_record(actor=actor, session=session, driver_number=1, data=data)
    assert refused.value.errors["stopwatch"] == [
        "0:01.48 is under this event's plausible floor (0:20.00): correct it, or confirm the "
        "short time."
    ]
    run = run_record(
        actor=actor, session=session, driver_number=1, data={**data, "confirm_short": True}
    )
    assert run.stopwatch_cs == 148


def test_a_long_stopwatch_needs_confirming_even_past_the_form(actor, session):
    """Above the 5:00 ceiling (DOMAIN.md), each full minute a throw (§1-1-13)."""
    data = {**cleaned(), "stopwatch": 60000}  # "10:00" reaching the service
    with pytest.raises(InvalidInput) as refused:
        run_record(actor=actor, session=session, driver_number=1, data=data)
    assert "above the plausible ceiling (5:00.00)" in refused.value.errors["stopwatch"][0]
    run = run_record(
        actor=actor, session=session, driver_number=1, data={**data, "confirm_short": True}
    )
    assert run.stopwatch_cs == 60000


def test_tyres_are_never_taken_for_granted(actor, session):
    data = cleaned()
    del data["tyres"]
    with pytest.raises(InvalidInput) as refused:
        run_record(actor=actor, session=session, driver_number=1, data=data)
    assert list(refused.value.errors) == ["tyres"]
    assert not Run.objects.exists()


def test_the_form_refuses_a_run_without_tyres():
    form = RunForm(data={"throws": "20", "stopwatch": "1:00"})
    assert not form.is_valid()
    assert form.errors["tyres"] == ["Choose the tyres: hard, soft or rain."]


def test_the_form_gives_both_readings_and_takes_the_confirmation():
    form = RunForm(data={"tyres": "soft", "throws": "20", "stopwatch": "1,48"})
    assert not form.is_valid()
    assert form.errors["stopwatch"] == [
        "“1,48” = 1.48 s. Did you mean 1:48? Correct it, or confirm 1.48 s."
    ]
    confirmed = RunForm(
        data={"tyres": "soft", "throws": "20", "stopwatch": "1,48", "confirm_short": "on"}
    )
    assert confirmed.is_valid(), confirmed.errors
    assert confirmed.short is not None  # the page keeps both readings beside the tick


# --- Qualifying closes with the allocation ---------------------------------------------------


@pytest.fixture
def allocated(event, session, actor):
    """Drivers 1 (20), 2 (22), 4 (24) ran; the race tables exist."""
    for number, throws in ((1, "20"), (2, "22"), (4, "24")):
        run_record(
            actor=link(event, 1 if number < 4 else 2),
            session=session,
            driver_number=number,
            data=cleaned(throws=throws),
        )
    allocation_run(actor=actor, event=event, table_size=3)
    return event


def test_the_race_tables_close_qualifying(event, allocated):
    assert qualifying_closed(event=allocated)
    other = event.championship.events.create(
        slug="autre", name="Autre", date=event.date, circuit=event.circuit
    )
    assert not qualifying_closed(event=other)


def test_a_link_writes_nothing_once_closed(allocated, session):
    run = Run.objects.get(driver__number=1)
    referee = link(allocated)
    with pytest.raises(Conflict):
        run_record(actor=referee, session=session, driver_number=3, data=cleaned())
    with pytest.raises(Conflict):
        run_update(actor=referee, run=run, version=1, data=cleaned(throws="30"))
    with pytest.raises(Conflict):
        run_cancel(actor=referee, run=run, reason="Dé tombé")
    run.refresh_from_db()
    assert (run.throws, run.version, run.cancelled) == (20, 1, False)
    assert not Run.objects.filter(driver__number=3).exists()


def test_a_link_of_another_table_is_still_refused_as_such(allocated, session):
    run = Run.objects.get(driver__number=4)
    with pytest.raises(NotAllowed):
        run_update(actor=link(allocated, 1), run=run, version=1, data=cleaned())


def test_race_control_needs_a_reason(actor, allocated):
    run = Run.objects.get(driver__number=1)
    with pytest.raises(InvalidInput) as refused:
        run_update(actor=actor, run=run, version=1, data=cleaned(throws="30"), reason="  ")
    assert list(refused.value.errors) == ["reason"]


def test_race_control_s_correction_lists_whose_ranks_moved(actor, allocated):
    run = Run.objects.get(driver__number=1)
    corrected = run_update(
        actor=actor, run=run, version=1, data=cleaned(throws="23"), reason="Fiche mal lue"
    )
    # 1: 20 → 23 (behind 2's 22, before 4's 24).
    assert [(m.driver.number, m.before, m.after) for m in corrected.rank_moves] == [
        (2, 2, 1),
        (1, 1, 2),
    ]
    assert corrected.reason == "Fiche mal lue"
    record = corrected.history.first()
    assert (record.reason, record.history_actor) == ("Fiche mal lue", "pc")


def test_race_control_s_cancellation_lists_whose_ranks_moved(actor, allocated):
    run = Run.objects.get(driver__number=1)
    cancelled = run_cancel(actor=actor, run=run, reason="Essai à refaire")
    # Driver 1 has no counted run any more: last of the registered drivers.
    assert (cancelled.rank_moves[0].driver.number, cancelled.rank_moves[0].before) == (2, 2)
    assert cancelled.rank_moves[-1].driver.number == 1


def test_nothing_is_said_of_ranks_while_qualifying_is_open(actor, session):
    run = run_record(actor=actor, session=session, driver_number=1, data=cleaned())
    assert run.rank_moves is None


# --- Fast tables and drivers (§1-0-4) --------------------------------------------------------


def seats(event) -> dict[int, list[int]]:
    found: dict[int, list[int]] = {}
    for seat in QualifyingSeat.objects.filter(event=event).select_related("table", "driver"):
        found.setdefault(seat.table.number, []).append(seat.driver.number)
    return {number: sorted(drivers) for number, drivers in sorted(found.items())}


def test_the_spread_seats_fast_drivers_at_the_marked_table_1_0_4(actor, make_event):
    event = make_event(n_drivers=12)
    qualifying_table_set(actor=actor, event=event, number=2, drivers=[], fast=True)
    fast_drivers_set(actor=actor, event=event, numbers=[3, 11])

    qualifying_tables_auto(actor=actor, event=event, table_size=4)

    assert seats(event) == {1: [1, 2, 4, 5], 2: [3, 6, 7, 11], 3: [8, 9, 10, 12]}
    table = QualifyingTable.objects.get(event=event, number=2)
    assert table.fast
    assert table.history.first().fast  # the mark is in the trail


def test_the_spread_refuses_fast_drivers_without_a_marked_table(actor, make_event):
    event = make_event(n_drivers=5)
    fast_drivers_set(actor=actor, event=event, numbers=[4])
    with pytest.raises(InvalidInput) as refused:
        qualifying_tables_auto(actor=actor, event=event, table_size=10)
    assert "none of tables 1 to 1 is reserved for them" in refused.value.message
    assert not QualifyingSeat.objects.filter(event=event).exists()


def test_only_replaces_the_list_of_fast_drivers(actor, make_event):
    event = make_event(n_drivers=5)
    fast_drivers_set(actor=actor, event=event, numbers=[1, 2])
    flagged = fast_drivers_set(actor=actor, event=event, numbers=[2, 5], only=True)
    assert [e.driver.number for e in flagged] == [2, 5]
    entry = Entry.objects.get(event=event, driver__number=1)
    assert not entry.fast
    assert [h.fast for h in entry.history.order_by("history_id")] == [False, True, False]


def test_only_organisers_flag_fast_drivers(event):
    with pytest.raises(NotAllowed):
        fast_drivers_set(actor=link(event), event=event, numbers=[1])


# --- The previous session's tyres ------------------------------------------------------------


def test_the_previous_session_s_tyres_are_offered(actor, event, session):
    run_record(actor=actor, session=session, driver_number=1, data=cleaned(tyres="soft"))
    run_record(actor=actor, session=session, driver_number=4, data=cleaned(tyres="rain"))
    second = session_create(actor=actor, event=event, number=2, weather_roll=15)
    table = QualifyingTable.objects.get(event=event, number=1)
    driver_1 = Entry.objects.get(event=event, driver__number=1).driver_id
    assert previous_tyres(table=table, session=second) == {driver_1: ("soft", 1)}
    assert previous_tyres(table=table, session=session) == {}
