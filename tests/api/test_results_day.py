"""The day's results: ``GET /events/{event}/results`` (API.md, Race; DOMAIN.md, Points)."""

from __future__ import annotations

import pytest

from races.models import RaceTable, ResultLine
from tests.api.conftest import Api, make_user, player_of
from tests.api.test_race_tables import TABLES, table_api
from tests.api.test_results_table import (
    RESULT_1,
    RESULT_2,
    RESULTS,
    SHEET_1,
    SHEET_2,
    allocated_gp_race,
    enter,
    make_drivers,
    race_day,
    save,
)
from tournament.models import ApiToken, Championship

pytestmark = pytest.mark.django_db


@pytest.fixture
def allocated(championship, circuit, drivers, organiser):
    return allocated_gp_race(championship, circuit, drivers, organiser)


def line(rank, table, position, number, name, team, status, cause, lap, points, note=""):
    return {
        "rank": rank,
        "table": table,
        "position": position,
        "driver": {"number": number, "name": name, "team": team, "player": player_of(number)},
        "status": status,
        "cause": cause,
        "lap": lap,
        "points": points,
        "points_removed": 0,
        "note": note,
    }


def day() -> list[dict]:
    """The day's classification as the API answers it (players looked up now)."""
    return [
        line(1, 1, 1, 5, "Emma Moreau", None, "finished", None, None, 10),
        line(2, 1, 2, 1, "Alice Martin", "Ferrari", "finished", None, None, 6),
        # 7 retired after 3 (the latest retirement first); 3rd place scores 4, but only
        # finishers score (§21-1-2).
        line(3, 1, 3, 7, "Gaëlle Roux", None, "retired", "other", 3, 0, "Disqualified"),
        line(4, 1, 4, 3, "Chloé Durand", None, "retired", "engine", 2, 0),
        line(5, 2, 1, 8, "Hugo Blanc", None, "finished", None, None, 10),
        line(6, 2, 2, 2, "Bruno Petit", "Ferrari", "finished", None, None, 6),
        line(7, 2, 3, 4, "David Leroy", None, "finished", None, None, 4),
        line(8, 2, 4, 6, "Félix Simon", None, "dns", None, None, 0),
    ]


def test_day_classification_of_confirmed_tables(organiser, allocated):
    assert organiser.get(RESULTS).json() == []
    enter(organiser, "gp-race", 2, SHEET_2)
    # Only confirmed tables count; table 2's ranks follow table 1's four seats already.
    assert organiser.get(RESULTS).json() == day()[4:]
    save(organiser, RESULT_1, 0, SHEET_1, submit=True)
    assert organiser.get(RESULTS).json() == day()[4:]
    organiser.post(f"{TABLES}/1/confirm", {})
    response = organiser.get(RESULTS)
    assert response.status_code == 200
    assert response.json() == day()
    assert sum(line.points for line in ResultLine.objects.filter(status="retired")) == 0


def test_results_are_public_once_published(organiser, outsider, anon, allocated, event):
    enter(organiser, "gp-race", 1, SHEET_1)
    response = anon.get(RESULTS)
    assert response.status_code == 404
    assert response.json()["detail"] == "Unknown event “gp-race”."
    assert outsider.get(RESULTS).status_code == 403
    # The event's referees read their own table, not the day's results (API.md): a link
    # is told nothing, like an anonymous reader; an account is refused like any user.
    response = table_api(allocated, 2).get(RESULTS)
    assert response.status_code == 404
    assert response.json()["detail"] == "Unknown event “gp-race”."
    rita = make_user("rita")
    RaceTable.objects.filter(event=allocated, number=2).update(referee=rita)
    rita_api = Api(ApiToken.issue(rita))
    assert rita_api.get(RESULTS).status_code == 403
    organiser.post("/events/gp-race/publish", {"results": True})
    assert anon.get(RESULTS).json() == day()[:4]
    assert outsider.get(RESULTS).json() == day()[:4]
    assert table_api(allocated, 2).get(RESULTS).json() == day()[:4]
    assert rita_api.get(RESULTS).json() == day()[:4]
    assert anon.get("/events/nope/results").status_code == 404


def test_reopened_table_leaves_the_day_classification(organiser, allocated):
    enter(organiser, "gp-race", 1, SHEET_1)
    enter(organiser, "gp-race", 2, SHEET_2)
    organiser.post(f"{TABLES}/1/reopen", {"reason": "Protest"})
    assert organiser.get(RESULTS).json() == day()[4:]
    assert organiser.get(RESULT_2).json()["status"] == "confirmed"


# ---------------------------------------------------------------------------
# Points mode ``overall``: points by rank of the day
# ---------------------------------------------------------------------------


@pytest.fixture
def overall(organiser, championship, circuit):
    Championship.objects.filter(pk=championship.pk).update(
        points_mode="overall", points_scale=[25, 18, 15, 12, 10, 8, 6, 4, 2, 1]
    )
    drivers = make_drivers(championship, list(range(11, 27)))
    return race_day(
        organiser,
        championship,
        circuit,
        drivers,
        slug="overall-gp",
        grids=[list(range(11, 19)), list(range(19, 27))],
    )


def test_overall_mode_scores_by_rank_of_the_day(organiser, overall):
    # Table 2 confirmed first: its winner is rank 9 behind table 1's 8 seats.
    table_2 = {"finish": [20, 19, 21, 22, 23, 24, 25], "retired": [], "dns": [26]}
    enter(organiser, "overall-gp", 2, table_2)
    lines = organiser.get("/events/overall-gp/results").json()
    assert [(x["rank"], x["position"], x["driver"]["number"], x["points"]) for x in lines] == [
        (9, 1, 20, 2),
        (10, 2, 19, 1),
        (11, 3, 21, 0),
        (12, 4, 22, 0),
        (13, 5, 23, 0),
        (14, 6, 24, 0),
        (15, 7, 25, 0),
        (16, 8, 26, 0),
    ]
    # Table 1: 11 retires on lap 1 and takes rank 8 with no points; 12 is 1st.
    table_1 = {
        "finish": [12, 13, 14, 15, 16, 17, 18],
        "retired": [{"driver": 11, "cause": "off_track", "lap": 1}],
        "dns": [],
    }
    enter(organiser, "overall-gp", 1, table_1)
    lines = organiser.get("/events/overall-gp/results").json()
    assert [(x["rank"], x["driver"]["number"], x["status"], x["points"]) for x in lines[:9]] == [
        (1, 12, "finished", 25),
        (2, 13, "finished", 18),
        (3, 14, "finished", 15),
        (4, 15, "finished", 12),
        (5, 16, "finished", 10),
        (6, 17, "finished", 8),
        (7, 18, "finished", 6),
        (8, 11, "retired", 0),
        (9, 20, "finished", 2),
    ]
    assert lines[7]["cause"] == "off_track" and lines[7]["lap"] == 1


def test_per_table_mode_scores_by_position_at_the_table(organiser, championship, circuit):
    drivers = make_drivers(championship, list(range(11, 27)))
    race_day(
        organiser,
        championship,
        circuit,
        drivers,
        slug="per-table-gp",
        grids=[list(range(11, 19)), list(range(19, 27))],
    )
    enter(organiser, "per-table-gp", 2, {"finish": list(range(19, 27))})
    lines = organiser.get("/events/per-table-gp/results").json()
    # Scale 10, 6, 4: table 2's winner scores 10 although rank 9 of the day.
    assert [(x["rank"], x["position"], x["points"]) for x in lines[:4]] == [
        (9, 1, 10),
        (10, 2, 6),
        (11, 3, 4),
        (12, 4, 0),
    ]
