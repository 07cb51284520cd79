"""Runs that cannot go silently wrong through the API (issue 12, API.md "Qualifying"): the
stopwatch's plausible floor and ``confirm_short``, tyres without a default, qualifying
closed by the allocation (``409`` for table tokens, race control's correction with a reason
and its warning), fast tables and drivers (§1-0-4).

Callers: the organiser's token, the referee link of table 1 (drivers 1-3), the referee
account of table 1, an outsider (organiser elsewhere), nobody.
"""

from __future__ import annotations

import pytest

from qualifying.models import QualifyingTable, Run
from races.grid.services import allocation_run
from tests.api.conftest import Api, make_user, player_of
from tests.api.test_runs import RUNS, lap, open_session
from tournament.access import Actor
from tournament.models import ApiToken, Entry, Event

pytestmark = pytest.mark.django_db


@pytest.fixture
def dry(event: Event):
    return open_session(event, roll=12)


# --- The stopwatch's plausible floor --------------------------------------------------------


def test_a_decimal_comma_for_a_colon_is_refused_with_both_readings(referee, dry):
    response = referee.post(RUNS, lap(stopwatch="1,48"))
    assert response.status_code == 400
    body = response.json()
    assert body["detail"] == "“1,48” = 1.48 s. Did you mean 1:48? Correct it, or confirm 1.48 s."
    assert body["errors"] == {"stopwatch": [body["detail"]]}
    assert not Run.objects.exists()


def test_the_same_reading_once_confirmed_is_recorded(referee, dry):
    response = referee.post(RUNS, lap(stopwatch="1,48", confirm_short=True))
    assert response.status_code == 201, response.content
    assert response.json()["stopwatch"] == "0:01.48"
    assert Run.objects.get().stopwatch_cs == 148


def test_the_answer_is_in_the_caller_s_language(event, dry):
    referee = Api(QualifyingTable.objects.get(event=event, number=1).token, language="fr")
    body = referee.post(RUNS, lap(stopwatch="1.48")).json()
    assert body["detail"] == (
        "«\u00a01.48\u00a0» = 1,48\u00a0s. Vouliez-vous dire 1:48\u00a0? Corrigez-le, ou confirmez "
        "1,48\u00a0s."
    )


def test_the_floor_is_the_event_s(organiser, event, dry):
    Event.objects.filter(pk=event.pk).update(min_stopwatch_cs=6000)
    response = organiser.post(RUNS, lap(stopwatch="0:45"))
    assert response.status_code == 400
    assert response.json()["detail"] == (
        "“0:45” = 45.00 s, under this event's plausible floor (1:00). Correct it, or confirm "
        "45.00 s."
    )
    assert organiser.post(RUNS, lap(stopwatch="1:05")).status_code == 201


def test_a_stopwatch_above_the_ceiling_is_refused_unless_confirmed_1_1_13(referee, dry):
    """DOMAIN.md: above a ceiling (default 5:00) the reading is refused unless confirmed:
    "10:00" is ten full minutes, ten throws added (§1-1-13)."""
    response = referee.post(RUNS, lap(stopwatch="10:00"))
    assert response.status_code == 400
    body = response.json()
    assert body["detail"] == (
        "“10:00” = 10:00, above the plausible 5:00: 10 full minutes, 10 throws added. "
        "Correct it, or confirm 10:00."
    )
    assert body["errors"] == {"stopwatch": [body["detail"]]}
    assert not Run.objects.exists()
    assert referee.post(RUNS, lap(stopwatch="5:00")).status_code == 201


def test_a_confirmed_long_time_is_recorded(referee, dry):
    response = referee.post(RUNS, lap(stopwatch="10:00", confirm_short=True))
    assert response.status_code == 201, response.content
    assert Run.objects.get().stopwatch_cs == 60000


def test_an_eliminated_run_is_not_held_to_the_floor(referee, dry):
    response = referee.post(RUNS, lap(stopwatch="0:05", eliminated=True))
    assert response.status_code == 201, response.content


def test_a_confirmed_short_time_is_not_questioned_again_by_a_correction(referee, dry):
    first = referee.post(RUNS, lap(stopwatch="0:15", confirm_short=True)).json()
    url = f"{RUNS}/1"
    throws = referee.patch(url, {"version": first["version"], "throws": 21})
    assert throws.status_code == 200, throws.content
    assert throws.json()["stopwatch"] == "0:15.00"
    # A new short reading is another matter.
    other = referee.patch(url, {"version": 2, "stopwatch": "0:12"})
    assert other.status_code == 400
    assert list(other.json()["errors"]) == ["stopwatch"]
    fixed = referee.patch(url, {"version": 2, "stopwatch": "1:12"})
    assert fixed.json()["stopwatch"] == "1:12.00"


def test_confirm_short_must_be_a_boolean(referee, dry):
    response = referee.post(RUNS, lap(stopwatch="1,48", confirm_short="yes"))
    assert response.status_code == 400
    assert "confirm_short" in response.json()["errors"]


# --- Tyres have no default -----------------------------------------------------------------


@pytest.mark.parametrize("tyres", [None, ""])
def test_a_run_without_tyres_is_refused(referee, dry, tyres):
    body = lap()
    if tyres is None:
        del body["tyres"]
    else:
        body["tyres"] = tyres
    response = referee.post(RUNS, body)
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["tyres"]
    assert not Run.objects.exists()


def test_an_unknown_tyre_is_refused(referee, dry):
    response = referee.post(RUNS, lap(tyres="slick"))
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["tyres"]


# --- Qualifying closes with the allocation ---------------------------------------------------


@pytest.fixture
def allocated(event, dry, organiser, referee):
    """Runs of drivers 1 (22), 2 (25), 4 (30); then race control builds the race tables."""
    for api, number, throws in ((referee, 1, 21), (referee, 2, 24), (organiser, 4, 29)):
        assert api.post(RUNS, lap(driver=number, throws=throws)).status_code == 201
    user = event.championship.organisers.get()
    allocation_run(actor=Actor(user=user), event=event, table_size=3)
    return event


def test_a_table_link_can_no_longer_record_a_run_409(referee, allocated):
    response = referee.post(RUNS, lap(driver=3))
    assert response.status_code == 409
    assert response.json()["detail"] == (
        "Qualifying is closed: the race tables were built on its classification. "
        "Ask race control to correct this run."
    )
    assert not Run.objects.filter(driver__number=3).exists()


def test_a_table_link_can_no_longer_correct_nor_cancel_409(referee, allocated):
    assert referee.patch(f"{RUNS}/1", {"version": 1, "throws": 10}).status_code == 409
    assert referee.post(f"{RUNS}/1/cancel", {"reason": "Dé tombé"}).status_code == 409
    run = Run.objects.get(driver__number=1)
    assert (run.throws, run.version, run.cancelled) == (21, 1, False)


def test_a_referee_account_is_closed_out_too(event, allocated):
    rita = make_user("rita")
    QualifyingTable.objects.filter(event=event, number=1).update(referee=rita)
    account = Api(ApiToken.issue(rita))
    assert account.patch(f"{RUNS}/1", {"version": 1, "throws": 10}).status_code == 409


def test_race_control_corrects_only_with_a_reason(organiser, allocated):
    response = organiser.patch(f"{RUNS}/1", {"version": 1, "throws": 30})
    assert response.status_code == 400
    assert response.json()["errors"] == {"reason": ["Required once the race tables exist."]}
    assert Run.objects.get(driver__number=1).throws == 21


def test_race_control_s_correction_warns_whose_ranks_moved(organiser, allocated):
    # Driver 1 from 22 to 31 throws: behind 2 (25) and 4 (30).
    response = organiser.patch(
        f"{RUNS}/1", {"version": 1, "throws": 30, "reason": "Fiche mal recopiée"}
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["reason"] == "Fiche mal recopiée"
    assert [(c["driver"]["number"], c["before"], c["after"]) for c in body["rank_changes"]] == [
        (2, 2, 1),
        (4, 3, 2),
        (1, 1, 3),
    ]
    assert body["warning"].startswith(
        "The general classification moved after the race tables were built (2 Bruno Petit: "
        "rank 2 → 1; 4 David Leroy: rank 3 → 2; 1 Alice Martin: rank 1 → 3)."
    )
    run = Run.objects.get(driver__number=1)
    assert (run.throws, run.version, run.reason) == (30, 2, "Fiche mal recopiée")
    assert run.history.first().reason == "Fiche mal recopiée"


def test_a_correction_that_moves_nobody_says_so(organiser, allocated):
    response = organiser.patch(
        f"{RUNS}/1", {"version": 1, "throws": 20, "reason": "Un jet de trop"}
    )
    assert response.status_code == 200
    assert (response.json()["warning"], response.json()["rank_changes"]) == (None, [])


def test_race_control_records_a_late_run_with_a_reason(organiser, allocated):
    response = organiser.post(RUNS, lap(driver=3, throws=10, reason="Fiche retrouvée"))
    assert response.status_code == 201, response.content
    assert response.json()["rank_changes"][0]["driver"]["number"] == 3
    assert response.json()["rank_changes"][0]["after"] == 1


def test_before_the_allocation_nothing_is_said_of_ranks(referee, dry):
    body = referee.post(RUNS, lap()).json()
    assert (body["warning"], body["rank_changes"]) == (None, None)


# --- Fast tables and drivers (§1-0-4) ----------------------------------------------------------


def test_race_control_flags_fast_drivers_and_marks_a_table(organiser, event):
    response = organiser.post("/events/monaco-2025/fast-drivers", {"numbers": [5, 2]})
    assert response.status_code == 200, response.content
    assert [d["number"] for d in response.json()] == [2, 5]
    assert organiser.post(
        "/events/monaco-2025/fast-drivers", {"numbers": [2], "fast": False}
    ).json() == [{"number": 5, "name": "Emma Moreau", "team": None, "player": player_of(5)}]
    assert list(Entry.objects.filter(fast=True).values_list("driver__number", flat=True)) == [5]

    tables = organiser.post(
        "/events/monaco-2025/qualifying-tables", {"number": 2, "drivers": [4, 5, 6], "fast": True}
    ).json()
    assert [(t["number"], t["fast"]) for t in tables] == [(1, False), (2, True)]


def test_an_unregistered_fast_driver_is_refused(organiser, event):
    response = organiser.post("/events/monaco-2025/fast-drivers", {"numbers": [99]})
    assert response.status_code == 400
    assert not Entry.objects.filter(fast=True).exists()


@pytest.mark.parametrize(("who", "status"), [("referee", 403), ("outsider", 403), ("anon", 401)])
def test_only_organisers_flag_fast_drivers(request, event, who, status):
    api = request.getfixturevalue(who)
    assert api.post("/events/monaco-2025/fast-drivers", {"numbers": [1]}).status_code == status
    assert api.get("/events/monaco-2025/fast-drivers").status_code == status
    assert not Entry.objects.filter(fast=True).exists()
