"""The race result workflow against the database: draft → submitted (referee) → confirmed
(race control) → reopened, its refusals, the stored lines and points, and the history.

Rules: DOMAIN.md "Race result and retirements" and "Points"; article numbers refer to
rules/formule-de-competition-rules.fr.txt (§2-0-3 the race sheet, §20 the causes of
retirement, §21-1-2 only finishers score, §21-1-3 everyone finishes or retires).

The grid comes from a d20 draw (quick rules) so that it is plain: seven drivers drawn in
number order, tables of 4 → table 1 is 1, 2, 3, 4 and table 2 is 5, 6, 7.
"""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from qualifying.models import Run
from qualifying.services import draw_record, session_create
from races.grid.services import allocation_run, swap_drivers
from races.models import GridSlot, RaceResult, RaceTable, ResultLine, ResultStatus
from races.results.services import result_confirm, result_reopen, result_save
from races.weather.services import race_weather_draw
from tournament.access import Actor
from tournament.errors import Conflict, InvalidInput, NotAllowed
from tournament.models import Driver

T1_COMPLETE = {
    "finish": [3, 1],
    # In the order they happened: 2 first (lap 1), then 4 (lap 3).
    "retired": [
        {"driver": 2, "cause": "off_track", "lap": 1},
        {"driver": 4, "cause": "engine", "lap": 3},
    ],
    "dns": [],
}
T2_COMPLETE = {
    "finish": [7],
    "retired": [{"driver": 5, "cause": "other", "lap": 2, "note": "Disqualification"}],
    "dns": [6],
}


@pytest.fixture
def actor(organiser):
    return Actor(user=organiser)


@pytest.fixture
def outsider(django_user_model):
    return django_user_model.objects.create_user("curieux")


@pytest.fixture
def event(make_event, actor):
    event = make_event(n_drivers=7, qualifying_mode="draw", separate_teams=False)
    draw_record(actor=actor, event=event, rolls={n: [n] for n in range(1, 8)})
    allocation_run(actor=actor, event=event, table_size=4)
    return event


def table(event, number: int) -> RaceTable:
    return RaceTable.objects.get(event=event, number=number)


def link(event, number: int) -> Actor:
    """The referee link of race table ``number``."""
    return Actor(table=table(event, number))


def save(event, number: int, *, version: int, submit: bool, actor=None, **sheet) -> RaceResult:
    sheet = {"finish": [], "retired": [], "dns": [], **sheet}
    return result_save(
        actor=actor or link(event, number),
        table=table(event, number),
        version=version,
        submit=submit,
        **sheet,
    )


def status(event, number: int) -> str:
    return table(event, number).result_status


def stored(event, number: int) -> RaceResult:
    return RaceResult.objects.get(table__event=event, table__number=number)


def lines(event, number: int) -> list[tuple]:
    return list(
        ResultLine.objects.filter(table=table(event, number))
        .order_by("position")
        .values_list(
            "driver__number", "position", "rank", "status", "cause", "lap", "note", "points"
        )
    )


def test_the_grid_of_the_fixture(event):
    grids = [
        list(t.slots.order_by("position").values_list("driver__number", flat=True))
        for t in RaceTable.objects.filter(event=event).order_by("number")
    ]
    assert grids == [[1, 2, 3, 4], [5, 6, 7]]


# --- The workflow ---------------------------------------------------------------------------


def test_every_transition_of_the_workflow(event, actor):
    assert status(event, 1) == ResultStatus.EMPTY
    assert not RaceResult.objects.exists()

    # empty → draft: a draft may be incomplete (no lap yet for a retirement).
    result = save(event, 1, version=0, submit=False, finish=[3])
    assert (status(event, 1), result.version, result.submitted_at) == ("draft", 1, None)
    # draft → draft
    result = save(
        event,
        1,
        version=1,
        submit=False,
        finish=[3, 1],
        retired=[{"driver": 2, "cause": "off_track"}],
    )
    assert (status(event, 1), result.version) == ("draft", 2)
    assert result.retired == [{"driver": 2, "cause": "off_track", "lap": None, "note": ""}]
    # draft → submitted
    result = save(event, 1, version=2, submit=True, **T1_COMPLETE)
    assert (status(event, 1), result.version) == ("submitted", 3)
    assert result.submitted_at is not None
    # submitted → draft: the referee takes it back (submit false)
    result = save(event, 1, version=3, submit=False, **T1_COMPLETE)
    assert (status(event, 1), result.version, result.submitted_at) == ("draft", 4, None)
    # draft → submitted again
    result = save(event, 1, version=4, submit=True, **T1_COMPLETE)
    assert (status(event, 1), result.version) == ("submitted", 5)
    # submitted → confirmed (race control)
    result = result_confirm(actor=actor, table=table(event, 1), version=5)
    assert (status(event, 1), result.version) == ("confirmed", 6)
    assert result.confirmed_at is not None and result.confirmed_by == actor.user
    assert ResultLine.objects.filter(table=table(event, 1)).count() == 4
    # confirmed → reopened (back to submitted), with the reason
    result = result_reopen(actor=actor, table=table(event, 1), reason=" Wrong order ", version=6)
    assert (status(event, 1), result.version) == ("submitted", 7)
    assert result.reopen_reason == "Wrong order"
    assert result.confirmed_at is None and result.confirmed_by is None
    # reopened → submitted (corrected) → confirmed
    corrected = {**T1_COMPLETE, "finish": [1, 3]}
    result = save(event, 1, version=7, submit=True, **corrected)
    assert (status(event, 1), result.version, result.finish) == ("submitted", 8, [1, 3])
    result = result_confirm(actor=actor, table=table(event, 1))
    assert (status(event, 1), result.version) == ("confirmed", 9)
    assert [line[0] for line in lines(event, 1)] == [1, 3, 4, 2]
    assert RaceResult.objects.count() == 1


def test_the_table_link_the_table_referee_and_organisers_may_enter_the_result(
    event, actor, django_user_model
):
    save(event, 1, version=0, submit=False, finish=[1])
    save(event, 1, version=1, submit=False, finish=[1, 2], actor=actor)
    referee = django_user_model.objects.create_user("arbitre")
    RaceTable.objects.filter(pk=table(event, 1).pk).update(referee=referee)
    save(event, 1, version=2, submit=True, actor=Actor(user=referee), **T1_COMPLETE)
    assert stored(event, 1).version == 3


def test_only_the_table_referee_may_enter_the_result(event, outsider):
    for who in (link(event, 2), Actor(user=outsider), Actor.anonymous()):
        with pytest.raises(NotAllowed):
            save(event, 1, version=0, submit=True, actor=who, **T1_COMPLETE)
    assert not RaceResult.objects.exists()
    assert status(event, 1) == ResultStatus.EMPTY


def test_only_race_control_confirms_and_reopens(event, actor, django_user_model):
    referee = django_user_model.objects.create_user("arbitre")
    RaceTable.objects.filter(pk=table(event, 1).pk).update(referee=referee)
    save(event, 1, version=0, submit=True, **T1_COMPLETE)
    for who in (link(event, 1), Actor(user=referee)):
        with pytest.raises(NotAllowed):
            result_confirm(actor=who, table=table(event, 1))
    assert status(event, 1) == ResultStatus.SUBMITTED

    result_confirm(actor=actor, table=table(event, 1))
    for who in (link(event, 1), Actor(user=referee)):
        with pytest.raises(NotAllowed):
            result_reopen(actor=who, table=table(event, 1), reason="Typo")
    assert status(event, 1) == ResultStatus.CONFIRMED


# --- What a sheet may hold ------------------------------------------------------------------


def test_submitting_an_incomplete_result_is_refused_naming_the_missing_driver(event):
    save(event, 1, version=0, submit=False, finish=[3, 1])

    with pytest.raises(InvalidInput) as refused:
        save(event, 1, version=1, submit=True, finish=[3, 1], retired=T1_COMPLETE["retired"][:1])

    assert "4" in refused.value.errors
    assert "4 Pilote4 Lefèvre" in refused.value.message
    assert "missing" in refused.value.message
    assert (status(event, 1), stored(event, 1).version) == ("draft", 1)


@pytest.mark.parametrize(
    ("sheet", "driver", "words"),
    [
        # Written twice: finished and retired.
        (
            {"finish": [3, 1, 2], "retired": [{"driver": 2, "cause": "engine", "lap": 1}]},
            2,
            "more than once",
        ),
        # Driver 5 sits at table 2.
        ({"finish": [3, 1, 5]}, 5, "not on this table"),
        ({"retired": [{"driver": 2, "cause": "puncture", "lap": 1}]}, 2, "unknown retirement"),
        ({"retired": [{"driver": 2, "cause": "other", "lap": 1}]}, 2, "needs a note"),
        ({"retired": [{"driver": 2, "cause": "other", "lap": 1, "note": "  "}]}, 2, "needs a note"),
        ({"retired": [{"driver": 2, "cause": "body", "lap": 0}]}, 2, "between 1 and"),
        ({"retired": [{"driver": 2, "cause": "body", "lap": 4}]}, 2, "between 1 and"),
        # Refused, not silently cut to the 200 characters a line keeps.
        (
            {"retired": [{"driver": 2, "cause": "other", "lap": 1, "note": "x" * 201}]},
            2,
            "too long",
        ),
    ],
)
@pytest.mark.parametrize("submit", [False, True])
def test_a_wrong_sheet_is_refused_even_as_a_draft(event, sheet, driver, words, submit):
    with pytest.raises(InvalidInput) as refused:
        save(event, 1, version=0, submit=submit, **sheet)

    assert str(driver) in refused.value.errors
    assert words in " ".join(refused.value.errors[str(driver)])
    assert not RaceResult.objects.exists()
    assert status(event, 1) == ResultStatus.EMPTY


def test_submitting_needs_the_lap_of_each_retirement(event):
    sheet = {
        **T1_COMPLETE,
        "retired": [{"driver": 2, "cause": "off_track"}, T1_COMPLETE["retired"][1]],
    }
    save(event, 1, version=0, submit=False, **sheet)  # fine in a draft
    with pytest.raises(InvalidInput) as refused:
        save(event, 1, version=1, submit=True, **sheet)
    assert "2" in refused.value.errors


def test_the_last_lap_is_the_event_s_own_when_it_sets_one(event):
    event.laps = 5
    event.save(update_fields=["laps"])
    sheet = {"finish": [3, 1], "retired": [{"driver": 2, "cause": "blocked", "lap": 5}], "dns": [4]}
    save(event, 1, version=0, submit=True, **sheet)
    assert status(event, 1) == ResultStatus.SUBMITTED


def test_a_finisher_whose_engine_broke_late_is_just_a_finisher(event, actor):
    """§16-0-6, §20-4-1: an engine broken after the second-to-last corner may still cross
    the line; the referee writes the car in the finishing order."""
    save(event, 1, version=0, submit=True, finish=[1, 2, 3, 4])
    result_confirm(actor=actor, table=table(event, 1))
    assert {line[3] for line in lines(event, 1)} == {"finished"}


# --- Versions and states --------------------------------------------------------------------


def test_a_stale_version_is_refused_with_the_stored_result_and_nothing_changes(event):
    save(event, 1, version=0, submit=False, finish=[3])
    save(event, 1, version=1, submit=False, finish=[3, 1])  # another phone saved meanwhile
    history = RaceResult.history.count()

    with pytest.raises(Conflict) as refused:
        save(event, 1, version=1, submit=True, **T1_COMPLETE)

    current = refused.value.current
    assert isinstance(current, RaceResult)
    assert (current.pk, current.version, current.finish) == (stored(event, 1).pk, 2, [3, 1])
    result = stored(event, 1)
    assert (result.version, result.finish, result.retired) == (2, [3, 1], [])
    assert status(event, 1) == ResultStatus.DRAFT
    assert RaceResult.history.count() == history


def test_the_first_save_of_a_table_needs_version_0(event):
    with pytest.raises(Conflict) as refused:
        save(event, 1, version=1, submit=False, finish=[3])
    assert refused.value.current is None
    assert not RaceResult.objects.exists()


def test_writing_a_confirmed_result_is_refused(event, actor):
    save(event, 1, version=0, submit=True, **T1_COMPLETE)
    result_confirm(actor=actor, table=table(event, 1))
    before = lines(event, 1)

    corrected = {**T1_COMPLETE, "finish": [1, 3]}
    for who in (link(event, 1), actor):
        for submit in (False, True):
            with pytest.raises(Conflict) as refused:
                save(event, 1, version=2, submit=submit, actor=who, **corrected)
            assert refused.value.current.version == 2
    assert status(event, 1) == ResultStatus.CONFIRMED
    assert stored(event, 1).finish == [3, 1]
    assert lines(event, 1) == before


@pytest.mark.parametrize("confirmed", [True, False])
def test_the_state_of_the_result_is_told_before_the_mistakes_of_the_sheet(event, actor, confirmed):
    """A phone that sends an incomplete sheet to a table race control has confirmed (or a
    stale version) should hear "confirmed / changed meanwhile" and get the stored result
    back, not "driver 2 is missing" about a sheet that can no longer be saved anyway."""
    save(event, 1, version=0, submit=True, **T1_COMPLETE)
    if confirmed:
        result_confirm(actor=actor, table=table(event, 1))

    with pytest.raises(Conflict) as refused:
        save(event, 1, version=0 if not confirmed else 2, submit=True, finish=[1])

    assert refused.value.current == stored(event, 1)


def test_only_a_submitted_result_can_be_confirmed(event, actor):
    with pytest.raises(Conflict):  # empty
        result_confirm(actor=actor, table=table(event, 1))

    save(event, 1, version=0, submit=False, **T1_COMPLETE)
    with pytest.raises(Conflict) as refused:  # draft
        result_confirm(actor=actor, table=table(event, 1))
    assert refused.value.current.version == 1
    assert status(event, 1) == ResultStatus.DRAFT
    assert not ResultLine.objects.exists()

    save(event, 1, version=1, submit=True, **T1_COMPLETE)
    result_confirm(actor=actor, table=table(event, 1))
    with pytest.raises(Conflict):  # already confirmed
        result_confirm(actor=actor, table=table(event, 1))
    assert stored(event, 1).version == 3


def test_confirming_a_version_the_referee_changed_since_is_refused(event, actor):
    save(event, 1, version=0, submit=True, **T1_COMPLETE)
    save(event, 1, version=1, submit=True, **{**T1_COMPLETE, "finish": [1, 3]})

    with pytest.raises(Conflict) as refused:
        result_confirm(actor=actor, table=table(event, 1), version=1)

    assert refused.value.current.finish == [1, 3]
    assert status(event, 1) == ResultStatus.SUBMITTED
    assert not ResultLine.objects.exists()


@pytest.mark.parametrize("reason", ["", "   "])
def test_reopening_needs_a_reason(event, actor, reason):
    save(event, 1, version=0, submit=True, **T1_COMPLETE)
    result_confirm(actor=actor, table=table(event, 1))

    with pytest.raises(InvalidInput) as refused:
        result_reopen(actor=actor, table=table(event, 1), reason=reason)

    assert "reason" in refused.value.errors
    assert status(event, 1) == ResultStatus.CONFIRMED
    assert len(lines(event, 1)) == 4


def test_a_reason_longer_than_what_is_kept_is_refused_not_cut(event, actor):
    save(event, 1, version=0, submit=True, **T1_COMPLETE)
    result_confirm(actor=actor, table=table(event, 1))

    with pytest.raises(InvalidInput) as refused:
        result_reopen(actor=actor, table=table(event, 1), reason="r" * 201)

    assert "200" in refused.value.errors["reason"][0]
    assert status(event, 1) == ResultStatus.CONFIRMED
    result_reopen(actor=actor, table=table(event, 1), reason="r" * 200)
    assert stored(event, 1).reopen_reason == "r" * 200


def test_only_a_confirmed_result_can_be_reopened(event, actor):
    with pytest.raises(Conflict):  # empty
        result_reopen(actor=actor, table=table(event, 1), reason="Typo")
    save(event, 1, version=0, submit=False, finish=[3])
    with pytest.raises(Conflict):  # draft
        result_reopen(actor=actor, table=table(event, 1), reason="Typo")
    save(event, 1, version=1, submit=True, **T1_COMPLETE)
    with pytest.raises(Conflict):  # submitted
        result_reopen(actor=actor, table=table(event, 1), reason="Typo")
    assert (status(event, 1), stored(event, 1).version) == ("submitted", 2)


def test_reopening_deletes_the_lines_of_that_table_only(event, actor):
    save(event, 1, version=0, submit=True, **T1_COMPLETE)
    save(event, 2, version=0, submit=True, **T2_COMPLETE)
    result_confirm(actor=actor, table=table(event, 1))
    result_confirm(actor=actor, table=table(event, 2))
    assert ResultLine.objects.count() == 7

    result_reopen(actor=actor, table=table(event, 1), reason="Order of 1 and 3 swapped")

    assert lines(event, 1) == []
    assert len(lines(event, 2)) == 3


# --- Stored lines and points ----------------------------------------------------------------


def test_confirm_stores_table_positions_day_ranks_and_points_per_table(event, actor):
    """Finishers by order, retired latest first, dns last; table 2's ranks start after the
    4 drivers of table 1, whether or not table 1 is confirmed yet."""
    event.championship.points_scale = [10, 8, 6]
    event.championship.save()
    save(event, 2, version=0, submit=True, **T2_COMPLETE)
    result_confirm(actor=actor, table=table(event, 2))  # table 2 first
    save(event, 1, version=0, submit=True, **T1_COMPLETE)
    result_confirm(actor=actor, table=table(event, 1))

    # driver, position, rank, status, cause, lap, note, points
    assert lines(event, 1) == [
        (3, 1, 1, "finished", "", None, "", 10),
        (1, 2, 2, "finished", "", None, "", 8),
        (4, 3, 3, "retired", "engine", 3, "", 0),  # retired last: classed first
        (2, 4, 4, "retired", "off_track", 1, "", 0),
    ]
    assert lines(event, 2) == [
        (7, 1, 5, "finished", "", None, "", 10),  # a table winner scores the 1st's points
        (5, 2, 6, "retired", "other", 2, "Disqualification", 0),
        (6, 3, 7, "dns", "", None, "", 0),
    ]


def test_places_beyond_the_scale_score_nothing(event, actor):
    event.championship.points_scale = [10, 8, 6]
    event.championship.save()
    save(event, 1, version=0, submit=True, finish=[4, 3, 2, 1])
    result_confirm(actor=actor, table=table(event, 1))
    assert [(line[0], line[-1]) for line in lines(event, 1)] == [(4, 10), (3, 8), (2, 6), (1, 0)]


def test_confirm_scores_by_day_rank_in_overall_mode(event, actor):
    event.championship.points_scale = [10, 8, 6, 5, 4, 3, 2]
    event.championship.points_mode = "overall"
    event.championship.save()
    save(event, 1, version=0, submit=True, **T1_COMPLETE)
    save(event, 2, version=0, submit=True, **T2_COMPLETE)
    result_confirm(actor=actor, table=table(event, 1))
    result_confirm(actor=actor, table=table(event, 2))

    points = {line[0]: (line[2], line[-1]) for t in (1, 2) for line in lines(event, t)}
    # Retired and DNS drivers take their ranks and score 0: table 2's winner is rank 5.
    assert points == {3: (1, 10), 1: (2, 8), 4: (3, 0), 2: (4, 0), 7: (5, 4), 5: (6, 0), 6: (7, 0)}


def test_the_database_gives_points_to_finishers_only(event, actor):
    save(event, 1, version=0, submit=True, **T1_COMPLETE)
    result_confirm(actor=actor, table=table(event, 1))
    line = ResultLine.objects.get(event=event, driver__number=2)
    with pytest.raises(IntegrityError), transaction.atomic():
        ResultLine.objects.filter(pk=line.pk).update(points=3)


# --- Tables are frozen once a result exists -------------------------------------------------


@pytest.mark.parametrize("submit", [False, True])
def test_allocation_swaps_and_race_weather_are_refused_once_a_result_exists(event, actor, submit):
    save(event, 2, version=0, submit=submit, **(T2_COMPLETE if submit else {"finish": [7]}))
    before = list(GridSlot.objects.order_by("pk").values_list("pk", "table_id", "position"))

    with pytest.raises(Conflict):
        allocation_run(actor=actor, event=event, table_size=4)
    with pytest.raises(Conflict):
        swap_drivers(actor=actor, event=event, a=1, b=5, reason="Friends")
    with pytest.raises(Conflict):
        race_weather_draw(actor=actor, event=event, roll=15)

    assert list(GridSlot.objects.order_by("pk").values_list("pk", "table_id", "position")) == before


def test_allocation_is_refused_after_a_confirmed_then_reopened_result(event, actor):
    save(event, 1, version=0, submit=True, **T1_COMPLETE)
    result_confirm(actor=actor, table=table(event, 1))
    result_reopen(actor=actor, table=table(event, 1), reason="Check")

    with pytest.raises(Conflict):
        allocation_run(actor=actor, event=event, table_size=4)


def test_the_database_allows_one_result_per_table(event):
    save(event, 1, version=0, submit=False, finish=[3])

    with pytest.raises(IntegrityError), transaction.atomic():
        RaceResult.objects.create(table=table(event, 1), version=1, finish=[1])

    assert RaceResult.objects.filter(table=table(event, 1)).count() == 1


# --- History --------------------------------------------------------------------------------


def test_the_history_records_who_saved_confirmed_and_reopened(event, actor, organiser):
    save(event, 1, version=0, submit=False, finish=[3])
    save(event, 1, version=1, submit=True, **T1_COMPLETE)
    result_confirm(actor=actor, table=table(event, 1))
    result_reopen(actor=actor, table=table(event, 1), reason="Typo")
    save(event, 1, version=4, submit=True, actor=Actor(user=organiser, via="API"), **T1_COMPLETE)

    rows = list(
        stored(event, 1)
        .history.order_by("history_date", "history_id")
        .values_list("version", "history_actor", "history_user__username", "confirmed_at")
    )
    assert [(v, who, user) for v, who, user, _ in rows] == [
        (1, "referee link of Table 1", None),
        (2, "referee link of Table 1", None),
        (3, "pc", "pc"),
        (4, "pc", "pc"),
        (5, "pc (API)", "pc"),
    ]
    assert [confirmed is not None for *_, confirmed in rows] == [False, False, True, False, False]
    # The table's own history says the same for its status.
    statuses = list(
        table(event, 1)
        .history.filter(history_actor__in=["referee link of Table 1", "pc", "pc (API)"])
        .order_by("history_date", "history_id")
        .values_list("result_status", "history_actor")
    )
    assert statuses[-5:] == [
        ("draft", "referee link of Table 1"),
        ("submitted", "referee link of Table 1"),
        ("confirmed", "pc"),
        ("submitted", "pc"),
        ("submitted", "pc (API)"),
    ]


# --- The race weather first (§2-0-1; DOMAIN.md "The race's order") --------------------------


@pytest.fixture
def competition(make_event, actor):
    """A competition (mode ``best``, which draws a race weather): four drivers qualified in
    number order, one table of 4 built on the classification, no race weather yet."""
    event = make_event(n_drivers=4, slug="gp-competition", separate_teams=False)
    session = session_create(actor=actor, event=event, number=1, weather_roll=15)
    for driver in Driver.objects.filter(championship=event.championship, number__lte=4):
        Run.objects.create(
            session=session, driver=driver, tyres="hard", throws=10 + driver.number,
            stopwatch_cs=5000,
        )  # fmt: skip
    allocation_run(actor=actor, event=event, table_size=4)
    return event


@pytest.mark.parametrize("submit", [False, True])
def test_a_result_waits_for_the_race_weather_and_the_draw_stays_possible(
    competition, actor, submit
):
    """A draft saved before the race weather used to start the table, and the race weather
    could then never be drawn for any table of the event: the save is refused instead."""
    sheet = {"finish": [1, 2, 3, 4]} if submit else {"finish": [1]}
    with pytest.raises(Conflict) as refused:
        save(competition, 1, version=0, submit=submit, **sheet)

    assert refused.value.errors == {"race_weather": ["Race control draws the race weather first."]}
    assert "The race weather is not drawn yet" in refused.value.message
    assert (status(competition, 1), table(competition, 1).started_at) == (ResultStatus.EMPTY, None)
    assert not RaceResult.objects.exists()
    assert race_weather_draw(actor=actor, event=competition, roll=15).weather == "sun"


def test_the_first_save_once_the_race_weather_is_drawn_starts_the_table(competition, actor):
    race_weather_draw(actor=actor, event=competition, roll=15)

    save(competition, 1, version=0, submit=False, finish=[2])

    assert status(competition, 1) == ResultStatus.DRAFT
    assert table(competition, 1).started_at is not None
