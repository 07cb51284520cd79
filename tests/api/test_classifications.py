"""Session and general classifications (§1-3-2, §1-1-14) and who may read them."""

from __future__ import annotations

import pytest

from tests.api.conftest import player_of
from tests.api.test_runs import lap, open_session

pytestmark = pytest.mark.django_db

SESSION_1 = "/events/monaco-2025/sessions/1"
GENERAL = "/events/monaco-2025/qualifying"


def at(minute: int) -> str:
    return f"2025-05-24T10:{minute:02d}:00+02:00"


@pytest.fixture
def session_one(event, organiser):
    """Session 1 (dry): 3 best on absolute time; 1 and 5 tie, 5 is faster on the stopwatch;
    2 is eliminated first, 4 eliminated later; 6 has no run."""
    open_session(event, 1, roll=12)
    runs = [
        lap(1, throws=20, stopwatch="1:10", performed_at=at(0)),
        lap(2, eliminated=True, throws=None, stopwatch=None, performed_at=at(1)),
        lap(3, throws=18, stopwatch="1:20", performed_at=at(2)),
        lap(4, eliminated=True, throws=15, stopwatch="0:50", performed_at=at(3)),
        lap(5, throws=20, stopwatch="1:05", performed_at=at(4)),
    ]
    for run in runs:
        assert organiser.post(f"{SESSION_1}/runs", run).status_code == 201


def test_session_classification(organiser, session_one):
    response = organiser.get(f"{SESSION_1}/classification")
    assert response.status_code == 200
    lines = response.json()
    assert [(line["rank"], line["driver"]["number"], line["status"]) for line in lines] == [
        (1, 3, "ok"),
        (2, 5, "ok"),
        (3, 1, "ok"),
        (4, 2, "eliminated"),
        (5, 4, "eliminated"),
    ]
    assert lines[0] == {
        "rank": 1,
        "driver": {"number": 3, "name": "Chloé Durand", "team": None, "player": player_of(3)},
        "status": "ok",
        "absolute_time": 19,
        "stopwatch": "1:20.00",
        "session": 1,
        "breakdown": {"throws": 18, "placement": 0, "corner_exits": 0, "minutes": 1, "sanction": 0},
    }
    assert lines[3]["absolute_time"] is None and lines[3]["breakdown"] is None
    assert lines[4]["absolute_time"] is None


def test_perfect_tie_goes_to_the_run_performed_first(organiser, event):
    open_session(event, 1, roll=12)
    organiser.post(f"{SESSION_1}/runs", lap(2, throws=20, stopwatch="1:10", performed_at=at(5)))
    organiser.post(f"{SESSION_1}/runs", lap(1, throws=20, stopwatch="1:10", performed_at=at(1)))
    lines = organiser.get(f"{SESSION_1}/classification").json()
    assert [line["driver"]["number"] for line in lines] == [1, 2]


def test_general_classification_best_run(organiser, event, session_one):
    open_session(event, 2, roll=3)  # wet
    # Driver 2 was eliminated in session 1 and now sets the best time of the day.
    organiser.post("/events/monaco-2025/sessions/2/runs", lap(2, throws=10, stopwatch="0:40"))
    response = organiser.get(GENERAL)
    assert response.status_code == 200
    lines = response.json()
    assert [(line["driver"]["number"], line["status"], line["session"]) for line in lines] == [
        (2, "ok", 2),
        (3, "ok", 1),
        (5, "ok", 1),
        (1, "ok", 1),
        (4, "eliminated", 1),
        (6, "no_run", None),
    ]
    assert [line["rank"] for line in lines] == [1, 2, 3, 4, 5, 6]
    assert lines[0]["absolute_time"] == 10 and lines[0]["stopwatch"] == "0:40.00"
    assert lines[-1]["absolute_time"] is None and lines[-1]["stopwatch"] is None


def test_general_classification_sum_has_no_session(organiser, event, session_one):
    event.qualifying_mode = "sum"
    event.save()
    lines = organiser.get(GENERAL).json()
    assert {line["session"] for line in lines} == {None}


def test_a_table_link_is_told_nothing_of_the_unpublished_classification(
    referee, organiser, session_one
):
    """Classifications are event-wide: a table's link reads them like anyone (API.md)."""
    for path in (f"{SESSION_1}/classification", GENERAL):
        response = referee.get(path)
        assert response.status_code == 404
        assert response.json()["detail"] == "Unknown event “monaco-2025”."
    organiser.post("/events/monaco-2025/publish", {"qualifying": True})
    assert referee.get(f"{SESSION_1}/classification").status_code == 200
    assert referee.get(GENERAL).status_code == 200


def test_a_referee_account_is_403_until_published(event, organiser, session_one):
    from qualifying.models import QualifyingTable
    from tests.api.conftest import Api, make_user
    from tournament.models import ApiToken

    rita = make_user("rita")
    QualifyingTable.objects.filter(event=event, number=1).update(referee=rita)
    account = Api(ApiToken.issue(rita))
    assert account.get(GENERAL).status_code == 403
    assert account.get(f"{SESSION_1}/classification").status_code == 403
    organiser.post("/events/monaco-2025/publish", {"qualifying": True})
    assert account.get(GENERAL).status_code == 200


def test_anonymous_reads_only_once_published(anon, organiser, session_one):
    assert anon.get(f"{SESSION_1}/classification").status_code == 404
    assert anon.get(GENERAL).status_code == 404
    assert anon.get(f"{SESSION_1}/runs").status_code == 404
    organiser.post("/events/monaco-2025/publish", {"qualifying": True})
    assert anon.get(f"{SESSION_1}/classification").status_code == 200
    assert len(anon.get(GENERAL).json()) == 6


def test_outsider_is_403_until_published(outsider, organiser, session_one):
    assert outsider.get(GENERAL).status_code == 403
    organiser.post("/events/monaco-2025/publish", {"qualifying": True})
    assert outsider.get(GENERAL).status_code == 200


def test_unknown_session_classification_is_404(organiser, event):
    assert organiser.get(f"{SESSION_1}/classification").status_code == 404
