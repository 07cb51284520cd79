"""Runs: POST, PATCH (versioned), cancel; absolute time visible through the API (§1-1-10..13)."""

from __future__ import annotations

import pytest

from qualifying.models import QualifyingSession, Run
from tests.api.conftest import player_of
from tournament.models import Event

pytestmark = pytest.mark.django_db

RUNS = "/events/monaco-2025/sessions/1/runs"


def open_session(event: Event, number: int = 1, *, roll: int = 12) -> QualifyingSession:
    """Session ``number`` on Monaco's scale: 1-4 rain (wet), 5-8 variable, 9-20 sun (dry)."""
    weather = "rain" if roll <= 4 else "variable" if roll <= 8 else "sun"
    return QualifyingSession.objects.create(
        event=event,
        number=number,
        roll=roll,
        source="physical",
        weather=weather,
        track="wet" if weather == "rain" else "dry",
    )


def lap(driver: int = 1, **fields) -> dict:
    return {
        "driver": driver,
        "tyres": "hard",
        "throws": 20,
        "placement_errors": 0,
        "exit_squares": 0,
        "stopwatch": "1:30",
        "eliminated": False,
        **fields,
    }


@pytest.fixture
def dry(event: Event) -> QualifyingSession:
    return open_session(event, roll=12)


@pytest.fixture
def wet(event: Event) -> QualifyingSession:
    return open_session(event, roll=3)


def test_referee_records_a_run(referee, dry):
    response = referee.post(
        RUNS, lap(throws=20, placement_errors=1, exit_squares=3, stopwatch="1:45.2")
    )
    assert response.status_code == 201, response.content
    body = response.json()
    performed_at = body.pop("performed_at")
    assert performed_at
    assert body == {
        "driver": {"number": 1, "name": "Alice Martin", "team": "Ferrari", "player": player_of(1)},
        "session": 1,
        "version": 1,
        "tyres": "hard",
        "throws": 20,
        "placement_errors": 1,
        "exit_squares": 3,
        "stopwatch": "1:45.20",
        "eliminated": False,
        "absolute_time": 34,
        "breakdown": {
            "throws": 20,
            "placement": 10,
            "corner_exits": 3,
            "minutes": 1,
            "sanction": 0,
        },
        "cancelled": False,
        "cancel_reason": "",
        "reason": "",
        "warning": None,
        "rank_changes": None,
    }
    run = Run.objects.get()
    assert (run.stopwatch_cs, run.session, run.driver.number) == (10520, dry, 1)


@pytest.mark.parametrize(
    ("text", "stored"), [("1:45", "1:45.00"), ("1:45.20", "1:45.20"), ("1'45\"20", "1:45.20")]
)
def test_stopwatch_formats(organiser, dry, text, stored):
    response = organiser.post(RUNS, lap(stopwatch=text))
    assert response.status_code == 201, response.content
    assert response.json()["stopwatch"] == stored


@pytest.mark.parametrize(
    ("session_roll", "tyres", "factor"),
    [
        (12, "hard", 1),
        (12, "soft", 2),
        (12, "rain", 2),
        (3, "hard", 1),
        (3, "soft", 2),
        (3, "rain", 1),
    ],
)
def test_tyre_factor_on_corner_exits(organiser, event, session_roll, tyres, factor):
    """§1-1-12, §8: soft tyres on a dry track double the corner-exit squares."""
    open_session(event, roll=session_roll)
    response = organiser.post(RUNS, lap(tyres=tyres, exit_squares=3, throws=20))
    assert response.status_code == 201
    body = response.json()
    assert body["breakdown"]["corner_exits"] == 3 * factor
    assert body["absolute_time"] == 20 + 3 * factor + 1


@pytest.mark.parametrize(("stopwatch", "minutes"), [("0:59.99", 0), ("1:00.00", 1), ("2:05", 2)])
def test_full_minute_rule(organiser, dry, stopwatch, minutes):
    """§1-1-13: each full minute of the stopwatch is one more throw."""
    body = organiser.post(RUNS, lap(stopwatch=stopwatch, throws=20)).json()
    assert body["breakdown"]["minutes"] == minutes
    assert body["absolute_time"] == 20 + minutes


def test_minute_rule_off(organiser, event, dry):
    Event.objects.filter(pk=event.pk).update(minute_penalty=False)
    body = organiser.post(RUNS, lap(stopwatch="2:05", throws=20)).json()
    assert body["breakdown"]["minutes"] == 0
    assert body["absolute_time"] == 20


def test_eliminated_run_has_no_absolute_time(referee, dry):
    response = referee.post(RUNS, {"driver": 2, "tyres": "soft", "eliminated": True})
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["eliminated"] is True
    assert body["absolute_time"] is None and body["breakdown"] is None
    assert body["throws"] is None and body["stopwatch"] is None


def test_second_run_is_409_with_current(referee, dry):
    first = referee.post(RUNS, lap(throws=20)).json()
    response = referee.post(RUNS, lap(throws=25))
    assert response.status_code == 409
    body = response.json()
    assert body["detail"] and body["errors"] == {}
    assert body["current"] == first
    assert Run.objects.get().throws == 20


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"tyres": "medium"}, {"tyres"}),
        ({"throws": 0}, {"throws"}),
        ({"throws": "many"}, {"throws"}),
        ({"throws": True}, {"throws"}),
        ({"placement_errors": -1}, {"placement_errors"}),
        ({"stopwatch": "1:5"}, {"stopwatch"}),
        ({"stopwatch": 105}, {"stopwatch"}),
        ({"stopwatch": "1:45", "throws": None}, {"throws"}),
        ({"stopwatch": None, "throws": None}, {"throws", "stopwatch"}),
        ({"eliminated": "no"}, {"eliminated"}),
        ({"performed_at": "yesterday"}, {"performed_at"}),
        ({"performed_at": "0001-01-01T00:00:00"}, {"performed_at"}),
        ({"tyres": None, "throws": -3}, {"tyres", "throws"}),
    ],
)
def test_invalid_run_is_400_naming_the_fields(organiser, dry, fields, expected):
    response = organiser.post(RUNS, lap(**fields))
    assert response.status_code == 400, response.content
    body = response.json()
    assert set(body["errors"]) == expected
    for field in expected:
        assert field in body["detail"]
    assert not Run.objects.exists()


def test_run_messages_are_those_of_the_referee_page(organiser, dry):
    from qualifying.forms import RunForm

    form = RunForm(data={"tyres": "hard", "throws": "", "stopwatch": "1:45"})
    assert not form.is_valid()
    response = organiser.post(RUNS, lap(throws=None))
    assert response.json()["errors"]["throws"] == form.errors["throws"]


def test_driver_not_registered_is_400(organiser, dry):
    response = organiser.post(RUNS, lap(driver=99))
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["driver"]


def test_unknown_session_is_404(organiser, dry):
    response = organiser.post("/events/monaco-2025/sessions/7/runs", lap())
    assert response.status_code == 404
    assert organiser.post("/events/nowhere/sessions/1/runs", lap()).status_code == 404


def test_referee_of_another_table_is_403(other_referee, referee, dry):
    response = other_referee.post(RUNS, lap(driver=1))
    assert response.status_code == 403
    assert referee.post(RUNS, lap(driver=4)).status_code == 403
    assert not Run.objects.exists()


def test_outsider_and_anonymous_cannot_record(outsider, anon, dry):
    assert outsider.post(RUNS, lap()).status_code == 403
    assert anon.post(RUNS, lap()).status_code == 401
    assert not Run.objects.exists()


def test_referee_of_another_event_is_403(championship, circuit, drivers, dry):
    from qualifying.models import QualifyingTable
    from tests.api.conftest import Api, make_event

    elsewhere = make_event(championship, circuit, slug="spa")
    table = QualifyingTable.objects.create(event=elsewhere, number=1)
    assert Api(table.token).post(RUNS, lap()).status_code == 403


def test_correct_a_run_with_its_version(referee, dry):
    referee.post(RUNS, lap(throws=20, exit_squares=2, tyres="soft"))
    response = referee.patch(f"{RUNS}/1", {"version": 1, "throws": 18})
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["version"], body["throws"], body["exit_squares"], body["tyres"]) == (
        2,
        18,
        2,
        "soft",
    )
    assert body["absolute_time"] == 18 + 4 + 1
    assert Run.objects.get().version == 2
    assert Run.history.count() == 2


def test_stale_version_is_409_with_current(referee, organiser, dry):
    referee.post(RUNS, lap(throws=20))
    assert organiser.patch(f"{RUNS}/1", {"version": 1, "throws": 19}).status_code == 200
    response = referee.patch(f"{RUNS}/1", {"version": 1, "throws": 21})
    assert response.status_code == 409
    body = response.json()
    assert body["current"]["version"] == 2
    assert body["current"]["throws"] == 19
    assert body["current"]["driver"] == {
        "number": 1,
        "name": "Alice Martin",
        "team": "Ferrari",
        "player": player_of(1),
    }
    assert Run.objects.get().throws == 19


def test_correction_to_eliminated_clears_the_absolute_time(organiser, dry):
    organiser.post(RUNS, lap())
    body = organiser.patch(
        f"{RUNS}/1", {"version": 1, "eliminated": True, "throws": None, "stopwatch": None}
    ).json()
    assert body["eliminated"] is True and body["absolute_time"] is None
    assert body["breakdown"] is None


def test_invalid_correction_is_400(organiser, dry):
    organiser.post(RUNS, lap())
    response = organiser.patch(f"{RUNS}/1", {"version": 1, "stopwatch": "soon"})
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["stopwatch"]
    missing = organiser.patch(f"{RUNS}/1", {"throws": 3})
    assert missing.status_code == 400
    assert list(missing.json()["errors"]) == ["version"]
    assert Run.objects.get().version == 1


def test_correction_of_missing_run_is_404(organiser, dry):
    assert organiser.patch(f"{RUNS}/2", {"version": 1}).status_code == 404
    assert organiser.patch(f"{RUNS}/99999999999", {"version": 1}).status_code == 404


def test_correction_by_another_table_is_403(referee, other_referee, dry):
    referee.post(RUNS, lap())
    assert other_referee.patch(f"{RUNS}/1", {"version": 1, "throws": 2}).status_code == 403
    assert Run.objects.get().throws == 20


def test_get_a_run_and_the_runs_of_a_session(referee, dry):
    referee.post(RUNS, lap(driver=2, performed_at="2025-05-24T10:05:00+02:00"))
    referee.post(RUNS, lap(driver=1, performed_at="2025-05-24T10:00:00+02:00"))
    assert referee.get(f"{RUNS}/2").json()["driver"]["number"] == 2
    listed = referee.get(RUNS).json()
    assert [r["driver"]["number"] for r in listed] == [1, 2]
    assert listed[0]["performed_at"].startswith("2025-05-24T08:00:00")


def test_cancel_then_run_again(referee, dry):
    referee.post(RUNS, lap(throws=30))
    response = referee.post(f"{RUNS}/1/cancel", {"reason": "Dice fell off the table"})
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["cancelled"] is True
    assert body["cancel_reason"] == "Dice fell off the table"
    again = referee.post(RUNS, lap(throws=22))
    assert again.status_code == 201
    assert again.json()["throws"] == 22
    assert Run.objects.count() == 2
    assert referee.get(f"{RUNS}/1").json()["throws"] == 22


def test_cancel_needs_a_reason(referee, dry):
    referee.post(RUNS, lap())
    response = referee.post(f"{RUNS}/1/cancel", {"reason": ""})
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["reason"]


def test_cancel_where_no_redo_is_allowed_is_409(organiser, event, dry):
    Event.objects.filter(pk=event.pk).update(allow_redo=False)
    organiser.post(RUNS, lap())
    assert organiser.post(f"{RUNS}/1/cancel", {"reason": "again"}).status_code == 409
    assert not Run.objects.get().cancelled


def test_cancel_by_another_table_is_403(referee, other_referee, dry):
    referee.post(RUNS, lap())
    assert other_referee.post(f"{RUNS}/1/cancel", {"reason": "x"}).status_code == 403
