"""Qualifying services: sessions and weather, tables, runs and their history, the d20 draw."""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone

from qualifying.forms import RunForm
from qualifying.models import DrawRoll, QualifyingSeat, QualifyingSession, QualifyingTable, Run
from qualifying.scoring import Breakdown
from qualifying.seating.services import qualifying_table_set, qualifying_tables_auto
from qualifying.selectors import draw_classification
from qualifying.services import (
    counted_run,
    draw_record,
    run_cancel,
    run_record,
    run_update,
    session_create,
)
from tests.integrity.conftest import needs_postgresql
from tests.integrity.waits import second_meets_first
from tournament.access import Actor
from tournament.errors import Conflict, InvalidInput, NotAllowed, NotFound
from tournament.models import Entry


@pytest.fixture(autouse=True)
def fast_passwords(settings):
    # The shared organiser fixture sets a password; PBKDF2 would cost ~0.3 s per test.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def actor(organiser):
    return Actor(user=organiser)


def cleaned(**fields):
    """Run data exactly as the pages and the API pass it on: cleaned by RunForm."""
    data = {"tyres": "hard", "throws": "20", "stopwatch": "0:50.00", **fields}
    if data.get("eliminated") is False:
        data.pop("eliminated")
    form = RunForm(data=data)
    assert form.is_valid(), form.errors
    return form.cleaned_data


@pytest.fixture
def event_with_tables(make_event, actor):
    """Six drivers; table 1 seats 1-3, table 2 seats 4-5; driver 6 sits nowhere."""
    event = make_event(n_drivers=6)
    qualifying_table_set(actor=actor, event=event, number=1, drivers=[1, 2, 3])
    qualifying_table_set(actor=actor, event=event, number=2, drivers=[4, 5])
    return event


# --- Sessions and weather -----------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("roll", "weather", "track"),
    [(2, "rain", "wet"), (6, "variable", "dry"), (15, "sun", "dry")],
)
def test_session_create_draws_weather_through_the_circuit_scale(
    actor, make_event, roll, weather, track
):
    event = make_event(n_drivers=2)

    session = session_create(actor=actor, event=event, number=1, weather_roll=roll)

    stored = QualifyingSession.objects.get(pk=session.pk)
    assert (stored.roll, stored.source, stored.weather, stored.track) == (
        roll,
        "physical",
        weather,
        track,
    )
    assert stored.history.first().history_actor == "pc"


@pytest.mark.django_db
def test_session_create_without_roll_lets_the_system_roll(actor, make_event, monkeypatch):
    event = make_event(n_drivers=2)

    first = session_create(actor=actor, event=event, number=1)
    assert first.source == "system"
    assert 1 <= first.roll <= 20
    assert first.weather == event.circuit.weather_scale.weather_for(first.roll)

    monkeypatch.setattr("qualifying.scoring.roll_d20", lambda: 3)
    second = session_create(actor=actor, event=event, number=2)
    assert (second.roll, second.source, second.weather, second.track) == (
        3,
        "system",
        "rain",
        "wet",
    )


@pytest.mark.django_db
def test_session_create_refuses_a_roll_outside_the_d20(actor, make_event):
    event = make_event(n_drivers=2)

    with pytest.raises(InvalidInput):
        session_create(actor=actor, event=event, number=1, weather_roll=21)
    assert not QualifyingSession.objects.exists()


@pytest.mark.django_db
def test_session_create_duplicate_is_a_conflict(actor, make_event):
    event = make_event(n_drivers=2)
    session_create(actor=actor, event=event, number=1, weather_roll=15)

    with pytest.raises(Conflict):
        session_create(actor=actor, event=event, number=1, weather_roll=2)
    assert list(QualifyingSession.objects.values_list("number", "weather")) == [(1, "sun")]


@needs_postgresql
@pytest.mark.django_db(transaction=True)
def test_session_create_twice_at_once_is_a_conflict_not_an_error(actor, make_event):
    """The second request checks before the first commits, and meets its row on insert (the
    red team's replay, issue 20: a 500 on the sessions' unique number)."""
    event = make_event()
    first, second = second_meets_first(
        lambda: session_create(actor=actor, event=event, number=1, weather_roll=12),
        lambda: session_create(actor=actor, event=event, number=1, weather_roll=3),
    )
    assert isinstance(first, QualifyingSession), first
    assert isinstance(second, Conflict), second
    assert QualifyingSession.objects.get(event=event).roll == 12


@pytest.mark.django_db
def test_session_create_refused_for_a_draw_event(actor, make_event):
    event = make_event(n_drivers=2, qualifying_mode="draw")

    with pytest.raises(Conflict):
        session_create(actor=actor, event=event, number=1, weather_roll=15)
    assert not QualifyingSession.objects.exists()


@pytest.mark.django_db
def test_session_create_refused_to_a_table_link(actor, event_with_tables):
    table = QualifyingTable.objects.get(event=event_with_tables, number=1)

    with pytest.raises(NotAllowed):
        session_create(actor=Actor(table=table), event=event_with_tables, number=1, weather_roll=2)


# --- Runs ---------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("roll", "tyres", "expected"),
    [
        # §1-1-10 … §1-1-13: 18 throws, 1 placement error (10), 3 exit squares, 1:45.20.
        pytest.param(15, "soft", Breakdown(18, 10, 6, 1), id="soft-on-dry-doubles-exits"),
        pytest.param(15, "hard", Breakdown(18, 10, 3, 1), id="hard-on-dry"),
        pytest.param(2, "rain", Breakdown(18, 10, 3, 1), id="rain-on-wet-is-1"),
        pytest.param(15, "rain", Breakdown(18, 10, 6, 1), id="rain-on-dry-is-2"),
        pytest.param(2, "soft", Breakdown(18, 10, 6, 1), id="soft-on-wet-is-2"),
    ],
)
def test_run_record_computes_the_breakdown(actor, make_event, roll, tyres, expected):
    event = make_event(n_drivers=2)
    session = session_create(actor=actor, event=event, number=1, weather_roll=roll)

    run = run_record(
        actor=actor,
        session=session,
        driver_number=1,
        data=cleaned(
            tyres=tyres, throws="18", placement_errors="1", exit_squares="3", stopwatch="1:45.20"
        ),
    )

    stored = Run.objects.get(pk=run.pk)
    assert stored.stopwatch_cs == 10520
    assert stored.breakdown() == expected
    assert stored.version == 1


@pytest.mark.django_db
def test_run_record_without_minute_penalty(actor, make_event):
    event = make_event(n_drivers=2, minute_penalty=False)
    session = session_create(actor=actor, event=event, number=1, weather_roll=15)

    run = run_record(
        actor=actor, session=session, driver_number=1, data=cleaned(throws="18", stopwatch="2:05")
    )

    assert run.breakdown() == Breakdown(18, 0, 0, 0)


@pytest.mark.django_db
def test_run_record_eliminated_has_no_absolute_time(actor, make_event):
    event = make_event(n_drivers=2)
    session = session_create(actor=actor, event=event, number=1, weather_roll=15)

    run = run_record(
        actor=actor,
        session=session,
        driver_number=2,
        data=cleaned(throws="", stopwatch="", eliminated="on"),
    )

    stored = Run.objects.get(pk=run.pk)
    assert (stored.eliminated, stored.throws, stored.stopwatch_cs) == (True, None, None)
    assert stored.breakdown() is None


@pytest.mark.django_db
def test_run_record_second_run_is_a_conflict(actor, make_event):
    event = make_event(n_drivers=2)
    session = session_create(actor=actor, event=event, number=1, weather_roll=15)
    first = run_record(actor=actor, session=session, driver_number=1, data=cleaned(throws="18"))

    with pytest.raises(Conflict) as caught:
        run_record(actor=actor, session=session, driver_number=1, data=cleaned(throws="25"))

    assert caught.value.current.pk == first.pk
    assert list(Run.objects.values_list("throws", flat=True)) == [18]


@pytest.mark.django_db
def test_run_record_for_an_unregistered_driver_is_invalid(actor, make_event):
    event = make_event(n_drivers=2)
    session = session_create(actor=actor, event=event, number=1, weather_roll=15)

    with pytest.raises(InvalidInput):
        run_record(actor=actor, session=session, driver_number=9, data=cleaned())
    assert not Run.objects.exists()


@pytest.mark.django_db
def test_run_update_with_the_right_version_bumps_it_and_records_history(actor, make_event):
    event = make_event(n_drivers=2)
    session = session_create(actor=actor, event=event, number=1, weather_roll=15)
    run = run_record(
        actor=actor, session=session, driver_number=1, data=cleaned(throws="18", stopwatch="1:05")
    )

    updated = run_update(
        actor=actor, run=run, version=1, data=cleaned(throws="21", stopwatch="1:05")
    )

    stored = Run.objects.get(pk=run.pk)
    assert (stored.version, stored.throws) == (2, 21)
    assert updated.version == 2
    history = list(stored.history.order_by("history_id"))
    assert [h.history_type for h in history] == ["+", "~"]
    assert [(h.history_user, h.history_actor) for h in history] == [
        (actor.user, "pc"),
        (actor.user, "pc"),
    ]
    delta = history[1].diff_against(history[0])
    changes = {c.field: (c.old, c.new) for c in delta.changes}
    assert changes == {"throws": (18, 21), "version": (1, 2)}


@pytest.mark.django_db
def test_run_update_with_a_stale_version_is_a_conflict_and_changes_nothing(actor, make_event):
    event = make_event(n_drivers=2)
    session = session_create(actor=actor, event=event, number=1, weather_roll=15)
    run = run_record(actor=actor, session=session, driver_number=1, data=cleaned(throws="18"))
    run_update(actor=actor, run=run, version=1, data=cleaned(throws="19"))

    with pytest.raises(Conflict) as caught:
        run_update(actor=actor, run=run, version=1, data=cleaned(throws="30"))

    assert (caught.value.current.pk, caught.value.current.version) == (run.pk, 2)
    assert caught.value.current.throws == 19
    stored = Run.objects.get(pk=run.pk)
    assert (stored.version, stored.throws) == (2, 19)
    assert stored.history.count() == 2


@pytest.mark.django_db
def test_run_cancel_refused_without_allow_redo(actor, make_event):
    event = make_event(n_drivers=2, allow_redo=False)
    session = session_create(actor=actor, event=event, number=1, weather_roll=15)
    run = run_record(actor=actor, session=session, driver_number=1, data=cleaned())

    with pytest.raises(Conflict):
        run_cancel(actor=actor, run=run, reason="Dé tombé")

    assert Run.objects.get(pk=run.pk).cancelled is False


@pytest.mark.django_db
def test_run_cancel_allows_one_redo_per_session(actor, make_event):
    event = make_event(n_drivers=2, allow_redo=True)
    session = session_create(actor=actor, event=event, number=1, weather_roll=15)
    first = run_record(actor=actor, session=session, driver_number=1, data=cleaned(throws="30"))

    with pytest.raises(InvalidInput):
        run_cancel(actor=actor, run=first, reason="   ")
    cancelled = run_cancel(actor=actor, run=first, reason=" Dé tombé de la table ")
    second = run_record(actor=actor, session=session, driver_number=1, data=cleaned(throws="19"))

    stored = Run.objects.get(pk=first.pk)
    assert (stored.cancelled, stored.cancel_reason, stored.version) == (
        True,
        "Dé tombé de la table",
        2,
    )
    assert cancelled.cancelled is True
    assert counted_run(session=session, driver_number=1).pk == second.pk
    assert Run.objects.filter(session=session, driver__number=1).count() == 2

    with pytest.raises(Conflict):
        run_cancel(actor=actor, run=second, reason="encore")
    assert Run.objects.get(pk=second.pk).cancelled is False


@pytest.mark.django_db
def test_run_update_of_a_cancelled_run_is_a_conflict(actor, make_event):
    event = make_event(n_drivers=2, allow_redo=True)
    session = session_create(actor=actor, event=event, number=1, weather_roll=15)
    run = run_record(actor=actor, session=session, driver_number=1, data=cleaned(throws="30"))
    run_cancel(actor=actor, run=run, reason="Dé tombé")

    with pytest.raises(Conflict):
        run_update(actor=actor, run=run, version=2, data=cleaned(throws="10"))
    assert Run.objects.get(pk=run.pk).throws == 30
    with pytest.raises(NotFound):
        counted_run(session=session, driver_number=1)


@pytest.mark.django_db
def test_referee_link_records_runs_only_for_its_drivers(actor, event_with_tables):
    session = session_create(actor=actor, event=event_with_tables, number=1, weather_roll=15)
    table = QualifyingTable.objects.get(event=event_with_tables, number=1)
    referee = Actor(table=table)

    run = run_record(actor=referee, session=session, driver_number=2, data=cleaned())
    run_update(actor=referee, run=run, version=1, data=cleaned(throws="22"))

    history = list(Run.objects.get(pk=run.pk).history.order_by("history_id"))
    assert [(h.history_user, h.history_actor) for h in history] == [
        (None, referee.label),
        (None, referee.label),
    ]
    assert str(table) in referee.label
    for number in (4, 6):  # at table 2; at no table
        with pytest.raises(NotAllowed):
            run_record(actor=referee, session=session, driver_number=number, data=cleaned())
    other_run = run_record(actor=actor, session=session, driver_number=4, data=cleaned())
    with pytest.raises(NotAllowed):
        run_update(actor=referee, run=other_run, version=1, data=cleaned(throws="1"))
    assert sorted(Run.objects.values_list("driver__number", "throws")) == [(2, 22), (4, 20)]


@pytest.mark.django_db
def test_referee_account_records_runs_only_for_its_table(
    actor, event_with_tables, django_user_model
):
    session = session_create(actor=actor, event=event_with_tables, number=1, weather_roll=15)
    user = django_user_model.objects.create_user("arbitre")
    QualifyingTable.objects.filter(event=event_with_tables, number=2).update(referee=user)
    referee = Actor(user=user)

    run_record(actor=referee, session=session, driver_number=5, data=cleaned())
    with pytest.raises(NotAllowed):
        run_record(actor=referee, session=session, driver_number=1, data=cleaned())

    assert list(Run.objects.values_list("driver__number", flat=True)) == [5]
    assert Run.objects.get().history.get().history_user == user


# --- Qualifying tables --------------------------------------------------------------------


def seating(event) -> list[list[int]]:
    return [
        [s.driver.number for s in table.seats.select_related("driver")]
        for table in QualifyingTable.objects.filter(event=event).order_by("number")
    ]


@pytest.mark.django_db
def test_qualifying_tables_auto_balances_sizes(actor, make_event):
    event = make_event(n_drivers=23)

    tables = qualifying_tables_auto(actor=actor, event=event, table_size=10)

    assert [t.number for t in tables] == [1, 2, 3]
    assert seating(event) == [
        list(range(1, 9)),
        list(range(9, 17)),
        list(range(17, 24)),
    ]
    assert QualifyingSeat.objects.filter(event=event).count() == 23


@pytest.mark.django_db
def test_qualifying_tables_auto_uses_checked_in_entries_when_some_are(actor, make_event):
    event = make_event(n_drivers=12)
    first_tables = qualifying_tables_auto(actor=actor, event=event, table_size=5)
    token = first_tables[0].token
    assert [len(t) for t in seating(event)] == [4, 4, 4]
    Entry.objects.filter(event=event, driver__number__in=[2, 3, 5, 8, 11, 12]).update(
        checked_in=True
    )

    tables = qualifying_tables_auto(actor=actor, event=event, table_size=5)

    assert seating(event) == [[2, 3, 5], [8, 11, 12]]
    # The table kept, its referee link too; the third table is gone.
    assert tables[0].token == token
    assert QualifyingTable.objects.filter(event=event).count() == 2


@pytest.mark.django_db
def test_qualifying_tables_auto_without_entries_is_invalid(actor, make_event):
    event = make_event(n_drivers=0)

    with pytest.raises(InvalidInput):
        qualifying_tables_auto(actor=actor, event=event, table_size=10)
    assert not QualifyingTable.objects.exists()


@pytest.mark.django_db
def test_qualifying_table_set_moves_a_driver_from_another_table(actor, event_with_tables):
    qualifying_table_set(
        actor=actor, event=event_with_tables, number=2, drivers=[4, 5, 1], referee_name=" Marc "
    )

    assert seating(event_with_tables) == [[2, 3], [4, 5, 1]]
    assert QualifyingTable.objects.get(event=event_with_tables, number=2).referee_name == "Marc"
    with pytest.raises(InvalidInput):
        qualifying_table_set(actor=actor, event=event_with_tables, number=1, drivers=[2, 2])
    with pytest.raises(InvalidInput):
        qualifying_table_set(actor=actor, event=event_with_tables, number=1, drivers=[2, 99])
    assert seating(event_with_tables) == [[2, 3], [4, 5, 1]]


# --- The d20 draw (quick rules §2) ---------------------------------------------------------


@pytest.mark.django_db
def test_draw_record_reports_physical_ties_as_pending(actor, make_event):
    event = make_event(n_drivers=3, qualifying_mode="draw")

    outcome = draw_record(actor=actor, event=event, rolls={1: [5], 2: [5], 3: [12]})

    assert outcome.order == [1, 2, 3]
    assert outcome.pending_ties == [[1, 2]]
    assert sorted(DrawRoll.objects.values_list("driver__number", "rolls", "source")) == [
        (1, [5], "physical"),
        (2, [5], "physical"),
        (3, [12], "physical"),
    ]

    settled = draw_record(actor=actor, event=event, rolls={1: [5, 14], 2: [5, 2]})

    assert settled.order == [2, 1, 3]
    assert settled.pending_ties == []
    assert [line.driver.number for line in draw_classification(event=event)] == [2, 1, 3]


@pytest.mark.django_db
def test_draw_record_rolls_for_everyone_without_physical_dice(actor, make_event):
    event = make_event(n_drivers=5, qualifying_mode="draw")

    outcome = draw_record(actor=actor, event=event)

    assert sorted(outcome.order) == [1, 2, 3, 4, 5]
    assert outcome.pending_ties == []
    records = list(DrawRoll.objects.filter(event=event))
    assert len(records) == 5
    assert {r.source for r in records} == {"system"}
    assert all(r.rolls and all(1 <= v <= 20 for v in r.rolls) for r in records)
    lines = draw_classification(event=event)
    assert [line.driver.number for line in lines] == outcome.order
    assert [line.rank for line in lines] == [1, 2, 3, 4, 5]


@pytest.mark.django_db
def test_draw_record_refuses_bad_rolls_and_non_draw_events(actor, make_event):
    event = make_event(n_drivers=2, qualifying_mode="draw")
    with pytest.raises(InvalidInput):
        draw_record(actor=actor, event=event, rolls={1: [21]})
    with pytest.raises(InvalidInput):
        draw_record(actor=actor, event=event, rolls={9: [3]})
    assert not DrawRoll.objects.exists()

    best = make_event(n_drivers=2, slug="gp-best")
    with pytest.raises(Conflict):
        draw_record(actor=actor, event=best, rolls={1: [3]})


@pytest.mark.django_db
def test_run_record_keeps_the_performed_at_given(actor, make_event):
    event = make_event(n_drivers=2)
    session = session_create(actor=actor, event=event, number=1, weather_roll=15)
    moment = timezone.now() - datetime.timedelta(hours=2)

    run = run_record(
        actor=actor, session=session, driver_number=1, data=cleaned(performed_at=moment.isoformat())
    )

    assert Run.objects.get(pk=run.pk).performed_at == moment
