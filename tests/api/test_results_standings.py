"""Championship standings: ``GET /championships/{slug}/standings`` and ``team-standings``.

Two events of two tables of 4, scale 10, 6, 4 per table (DOMAIN.md, standings):

- gp-a (5 April): table 1 finishes 1, 4, 5, 3; table 2: 2, 6 finish, 7 retires, 8 does
  not start.
- gp-b (10 May): table 1 finishes 3, 1, 4, 2; table 2: nobody finishes (5 then 6 retire,
  7 and 8 do not start). Driver 9 registers for gp-b after the allocation: no result.

Totals: 1 → 16; 2 and 3 → 10 with a win and a 4th place each (shared rank 2); 4 → 10
with a 2nd and a 3rd place (countback: rank 4); 6 → 6; 5 → 4; 7, 8, 9 → 0: 7 counts a
retirement's 3rd place; 8 never started and 9 never raced, so they count nothing and share
the last rank (DOMAIN.md: "`dns` counts nothing").
"""

from __future__ import annotations

import datetime

import pytest

from races.models import RaceTable
from tests.api.conftest import Api, player_of
from tests.api.test_results_table import enter, make_drivers, race_day
from tournament.models import Championship, Entry, Team

pytestmark = pytest.mark.django_db

STANDINGS = "/championships/cfd-2025/standings"
TEAM_STANDINGS = "/championships/cfd-2025/team-standings"
TEAMS = {1: "Ferrari", 2: "Ferrari", 3: "McLaren", 4: "McLaren", 5: "Williams", 6: "Williams"}
TEAMS |= {7: "Lotus", 8: "Lotus", 9: "Brabham"}


@pytest.fixture
def season(organiser, championship, circuit):
    names = dict.fromkeys(TEAMS.values())
    teams = {name: Team.objects.create(championship=championship, name=name) for name in names}
    drivers = make_drivers(
        championship, list(range(1, 10)), {n: teams[name] for n, name in TEAMS.items()}
    )
    april = datetime.date(2025, 4, 5)
    race_day(
        organiser, championship, circuit, drivers,
        slug="gp-a", date=april, grids=[[1, 4, 5, 3], [2, 6, 7, 8]],
    )  # fmt: skip
    enter(organiser, "gp-a", 1, {"finish": [1, 4, 5, 3]})
    sheet = {"finish": [2, 6], "retired": [{"driver": 7, "cause": "engine", "lap": 2}], "dns": [8]}
    enter(organiser, "gp-a", 2, sheet)
    may = datetime.date(2025, 5, 10)
    gp_b = race_day(
        organiser, championship, circuit, drivers,
        slug="gp-b", date=may, grids=[[3, 1, 4, 2], [5, 6, 7, 8]],
    )  # fmt: skip
    Entry.objects.create(event=gp_b, driver=drivers[9])
    enter(organiser, "gp-b", 1, {"finish": [3, 1, 4, 2]})
    retired = [
        {"driver": 5, "cause": "off_track", "lap": 1},
        {"driver": 6, "cause": "blocked", "lap": 2},
    ]
    enter(organiser, "gp-b", 2, {"finish": [], "retired": retired, "dns": [7, 8]})
    return championship


def ranks(api: Api, path: str = STANDINGS) -> list[tuple[int, int, int]]:
    """``(rank, driver number, points)`` of the standings."""
    response = api.get(path)
    assert response.status_code == 200, response.content
    return [(line["rank"], line["driver"]["number"], line["points"]) for line in response.json()]


def result(event: str, position: int, status: str, points: int, counted: bool = True) -> dict:
    return {
        "event": event,
        "position": position,
        "status": status,
        "points": points,
        "points_removed": 0,
        "counted": counted,
    }


def test_standings_sum_share_ranks_and_break_ties_by_countback(organiser, season):
    assert ranks(organiser) == [
        (1, 1, 16),
        (2, 2, 10),
        (2, 3, 10),
        (4, 4, 10),  # a 2nd and a 3rd place lose to a win and a 4th
        (5, 6, 6),
        (6, 5, 4),
        (7, 7, 0),  # a retirement holds its place (3rd) in countback
        (8, 8, 0),  # two non-starts count nothing...
        (8, 9, 0),  # ...like no result at all: registered, listed with 0 points
    ]
    lines = {line["driver"]["number"]: line for line in organiser.get(STANDINGS).json()}
    assert lines[1] == {
        "rank": 1,
        "driver": {"number": 1, "name": "Driver 1", "team": "Ferrari", "player": player_of(1)},
        "points": 16,
        "points_removed": 0,
        "results": [result("gp-a", 1, "finished", 10), result("gp-b", 2, "finished", 6)],
        "countback": [1, 1, 0, 0],
    }
    assert lines[2]["countback"] == lines[3]["countback"] == [1, 0, 0, 1]
    assert lines[4]["countback"] == [0, 1, 1, 0]
    # Retired drivers keep their place at the table but score nothing (§21-1-2).
    assert lines[6]["results"] == [
        result("gp-a", 2, "finished", 6),
        result("gp-b", 1, "retired", 0),
    ]
    assert lines[7]["results"] == [result("gp-a", 3, "retired", 0), result("gp-b", 3, "dns", 0)]
    assert lines[8]["countback"] == [0, 0, 0, 0]
    assert lines[9] == {
        "rank": 8,
        "driver": {"number": 9, "name": "Driver 9", "team": "Brabham", "player": player_of(9)},
        "points": 0,
        "points_removed": 0,
        "results": [],
        "countback": [0, 0, 0, 0],
    }


def test_best_results_count_only_the_best_k(organiser, season):
    Championship.objects.filter(pk=season.pk).update(best_results=1)
    assert ranks(organiser) == [
        (1, 1, 10),
        (2, 2, 10),
        (2, 3, 10),
        (4, 6, 6),  # countback over all results: a win (retired at gp-b) beats 4's 2nd
        (5, 4, 6),
        (6, 5, 4),
        (7, 7, 0),
        (8, 8, 0),
        (8, 9, 0),
    ]
    lines = {line["driver"]["number"]: line for line in organiser.get(STANDINGS).json()}
    assert lines[1]["results"] == [
        result("gp-a", 1, "finished", 10),
        result("gp-b", 2, "finished", 6, counted=False),
    ]
    assert [r["counted"] for r in lines[3]["results"]] == [False, True]
    response = organiser.get(TEAM_STANDINGS)
    assert response.json() == [
        {"rank": 1, "team": "Ferrari", "points": 20},
        {"rank": 2, "team": "McLaren", "points": 16},
        {"rank": 3, "team": "Williams", "points": 10},
        {"rank": 4, "team": "Lotus", "points": 0},
        {"rank": 4, "team": "Brabham", "points": 0},
    ]


def test_team_standings_sum_the_drivers_and_share_ranks(organiser, season):
    response = organiser.get(TEAM_STANDINGS)
    assert response.status_code == 200
    assert response.json() == [
        {"rank": 1, "team": "Ferrari", "points": 26},
        {"rank": 2, "team": "McLaren", "points": 20},
        {"rank": 3, "team": "Williams", "points": 10},
        {"rank": 4, "team": "Lotus", "points": 0},
        {"rank": 4, "team": "Brabham", "points": 0},
    ]


def test_public_standings_count_published_events_only(organiser, outsider, anon, season):
    for api in (anon, outsider, Api(RaceTable.objects.get(event__slug="gp-a", number=1).token)):
        assert api.get(STANDINGS).json() == []
        assert api.get(TEAM_STANDINGS).json() == []
    assert organiser.post("/events/gp-a/publish", {"results": True}).status_code == 200
    # gp-a only; driver 9 registered for gp-b only.
    expected = [
        (1, 1, 10),
        (1, 2, 10),
        (3, 4, 6),
        (3, 6, 6),
        (5, 5, 4),
        (6, 7, 0),
        (7, 3, 0),  # 4th at the table without points: a place in countback
        (8, 8, 0),  # did not start: no place
    ]
    for api in (anon, outsider):
        assert ranks(api) == expected
        assert {r["event"] for line in api.get(STANDINGS).json() for r in line["results"]} == {
            "gp-a"
        }
        assert api.get(TEAM_STANDINGS).json() == [
            {"rank": 1, "team": "Ferrari", "points": 20},
            {"rank": 2, "team": "Williams", "points": 10},
            {"rank": 3, "team": "McLaren", "points": 6},
            {"rank": 4, "team": "Lotus", "points": 0},
        ]
    assert ranks(organiser)[0] == (1, 1, 16)  # organisers see every confirmed event


def test_a_reopened_table_no_longer_counts(organiser, season):
    response = organiser.post("/events/gp-b/tables/1/reopen", {"reason": "Protest"})
    assert response.status_code == 200, response.content
    lines = {line["driver"]["number"]: line for line in organiser.get(STANDINGS).json()}
    assert lines[3]["points"] == 0
    assert [r["event"] for r in lines[3]["results"]] == ["gp-a"]
    assert lines[1]["points"] == 10


def test_standings_before_any_result_and_unknown_championship(organiser, anon, championship):
    assert organiser.get(STANDINGS).json() == []
    assert organiser.get(TEAM_STANDINGS).json() == []
    for path in ("/championships/nope/standings", "/championships/Nope!/team-standings"):
        response = anon.get(path)
        assert response.status_code == 404
        assert response.json()["detail"].startswith("Unknown championship")
