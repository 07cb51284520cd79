"""Sanctions (API.md, "Sanctions"; §1-2-3: "l'organisateur décidera des conséquences à
donner"): recorded with a reason, who and when; applied to the qualifying classification,
the day's results and the standings; withdrawn with a reason; all in the history.

gp-race (``tests/api/test_race_tables.py``): qualifying order 5, 1, 2, 7, 3, 8, 4, 6;
table 1 is 5, 1, 7, 3; table 2 is 2, 8, 4, 6; scale 10, 6, 4 (per table).
"""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from paddock.venue.championship_backup import export_championship
from tests.api.test_results_table import (
    SHEET_1,
    SHEET_2,
    allocated_gp_race,
    enter,
)
from tournament.models import Championship, Sanction

pytestmark = pytest.mark.django_db

SANCTIONS = "/events/gp-race/sanctions"
RESULTS = "/events/gp-race/results"
STANDINGS = "/championships/cfd-2025/standings"


def delete(api, path: str, data: dict) -> object:
    return api._send("delete", path, data)


@pytest.fixture
def raced(championship, circuit, drivers, organiser):
    """gp-race with both tables confirmed: table 1 5, 1 finish, 3 and 7 retire; table 2
    8, 2, 4 finish, 6 does not start."""
    event = allocated_gp_race(championship, circuit, drivers, organiser)
    enter(organiser, "gp-race", 1, SHEET_1)
    enter(organiser, "gp-race", 2, SHEET_2)
    return event


def day(organiser) -> list[tuple]:
    return [
        (line["rank"], line["driver"]["number"], line["status"], line["points"])
        for line in organiser.get(RESULTS).json()
    ]


def test_a_warning_is_recorded_with_reason_who_and_when(organiser, raced):
    response = organiser.post(
        SANCTIONS, {"driver": 7, "kind": "warning", "reason": "Ignored the referee's “Levier”"}
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert {k: body[k] for k in ("kind", "value", "session", "reason", "who", "withdrawn")} == {
        "kind": "warning",
        "value": None,
        "session": None,
        "reason": "Ignored the referee's “Levier”",
        "who": "alice (API)",
        "withdrawn": False,
    }
    assert body["driver"]["number"] == 7 and body["when"]
    assert organiser.get(SANCTIONS).json() == [body]
    assert Sanction.history.count() == 1


def test_points_removed_for_the_event_show_in_results_and_standings(organiser, raced):
    before = day(organiser)
    assert before[0] == (1, 5, "finished", 10)
    response = organiser.post(
        SANCTIONS, {"driver": 5, "kind": "points", "value": 4, "reason": "Hand on the die"}
    )
    assert response.status_code == 201, response.content
    lines = organiser.get(RESULTS).json()
    assert (lines[0]["points"], lines[0]["points_removed"]) == (6, 4)
    standings = {
        line["driver"]["number"]: line["points"] for line in organiser.get(STANDINGS).json()
    }
    assert standings[5] == 6
    # The event's line never shows below 0: 3 retired with 0 points keeps 0 there...
    organiser.post(SANCTIONS, {"driver": 3, "kind": "points", "value": 5, "reason": "Rude"})
    assert {line["driver"]["number"]: line["points"] for line in organiser.get(RESULTS).json()}[
        3
    ] == 0


def test_a_points_sanction_on_a_0_point_result_still_comes_off_the_standings(organiser, raced):
    """§1-2-3, as DOMAIN.md decides it ("Points removed come off the championship total
    after best-K ... it applies in full even where the event scored fewer points ... The
    total may go below zero"): 3 retired with 0 points and loses 5 points: -5 in the
    standings, with the points removed in their own field, not a silent 0."""
    response = organiser.post(
        SANCTIONS, {"driver": 3, "kind": "points", "value": 5, "reason": "Rude to the referee"}
    )
    assert response.status_code == 201, response.content
    standings = {line["driver"]["number"]: line for line in organiser.get(STANDINGS).json()}
    assert (standings[3]["points"], standings[3]["points_removed"]) == (-5, 5)
    assert standings[3]["results"][0]["points_removed"] == 5
    assert standings[3]["rank"] == len(standings)  # below everyone at 0
    # 5 won table 1 (10) and loses 4: 6, the event's points shown before the sanction.
    organiser.post(SANCTIONS, {"driver": 5, "kind": "points", "value": 4, "reason": "Hand on die"})
    five = {line["driver"]["number"]: line for line in organiser.get(STANDINGS).json()}[5]
    assert (five["points"], five["points_removed"], five["results"][0]["points"]) == (6, 4, 10)
    raced.published_results = True
    raced.save()
    reader = Client()
    reader.cookies["django_language"] = "en"
    page = reader.get(reverse("standings", args=["cfd-2025"]))
    row = page.content.decode().split('data-number="3"')[1].split("</tr>")[0]
    assert "Points removed" in page.content.decode() and ">-5<" in row


def test_a_disqualified_driver_is_classed_last_of_the_event_with_no_points(organiser, raced):
    """Table 1's winner 5 disqualified: 1 wins table 1 (10 points), everyone after moves up
    one rank, and 5 is last of the event, status dsq, 0 points."""
    response = organiser.post(
        SANCTIONS, {"driver": 5, "kind": "disqualified", "reason": "Swapped dice"}
    )
    assert response.status_code == 201, response.content
    assert day(organiser) == [
        (1, 1, "finished", 10),
        (2, 7, "retired", 0),
        (3, 3, "retired", 0),
        (4, 8, "finished", 10),
        (5, 2, "finished", 6),
        (6, 4, "finished", 4),
        (7, 6, "dns", 0),
        (8, 5, "dsq", 0),
    ]
    standings = {line["driver"]["number"]: line for line in organiser.get(STANDINGS).json()}
    assert standings[5]["points"] == 0
    assert standings[5]["results"][0]["status"] == "dsq"
    assert standings[1]["points"] == 10
    # Withdrawn with a reason: the day as it was, the sanction still listed.
    (listed,) = organiser.get(SANCTIONS).json()
    refused = delete(organiser, f"{SANCTIONS}/{listed['id']}", {"reason": ""})
    assert refused.status_code == 400
    withdrawn = delete(organiser, f"{SANCTIONS}/{listed['id']}", {"reason": "Appeal upheld"})
    assert withdrawn.status_code == 200, withdrawn.content
    assert withdrawn.json()["withdrawn"] is True
    assert withdrawn.json()["withdraw_reason"] == "Appeal upheld"
    assert day(organiser)[0] == (1, 5, "finished", 10)
    again = delete(organiser, f"{SANCTIONS}/{listed['id']}", {"reason": "twice"})
    assert again.status_code == 409
    assert organiser.get(SANCTIONS).json()[0]["withdrawn"] is True
    history = Sanction.history.filter(id=listed["id"]).order_by("history_id")
    assert [h.history_change_reason for h in history] == [None, "Appeal upheld"]


def test_throws_are_added_to_the_run_of_a_session_and_the_classification_says_so(organiser, raced):
    """Driver 5 qualified first with 20 throws; +15 throws puts 5 behind 2 (22 throws)."""
    assert organiser.get("/events/gp-race/qualifying").json()[0]["driver"]["number"] == 5
    response = organiser.post(
        SANCTIONS,
        {"driver": 5, "kind": "throws", "value": 15, "session": 1, "reason": "Ignored “main”"},
    )
    assert response.status_code == 201, response.content
    lines = organiser.get("/events/gp-race/sessions/1/classification").json()
    by_number = {line["driver"]["number"]: line for line in lines}
    assert by_number[5]["breakdown"]["sanction"] == 15
    assert by_number[5]["absolute_time"] == by_number[5]["breakdown"]["throws"] + 15 + 1
    assert [line["driver"]["number"] for line in lines][:4] == [1, 2, 7, 3]
    general = organiser.get("/events/gp-race/qualifying").json()
    assert general[0]["driver"]["number"] == 1


@pytest.mark.parametrize(
    ("body", "field", "detail"),
    [
        (
            {"driver": 5, "kind": "warning", "reason": ""},
            "reason",
            "Say why: every sanction has a reason.",
        ),
        (
            {"driver": 5, "kind": "points", "reason": "r"},
            "value",
            "Say how many throws or points (a whole number from 1 to 999).",
        ),
        (
            {"driver": 5, "kind": "throws", "value": 2, "reason": "r"},
            "session",
            "Say which qualifying session's run gets the throws.",
        ),
        (
            {"driver": 5, "kind": "throws", "value": 2, "session": 4, "reason": "r"},
            "session",
            "This event has no qualifying session 4.",
        ),
        (
            {"driver": 5, "kind": "warning", "value": 3, "reason": "r"},
            "value",
            "A warning or a disqualification takes no number.",
        ),
        (
            {"driver": 5, "kind": "fine", "reason": "r"},
            "kind",
            "A sanction is a warning, throws, points or a disqualification.",
        ),
        (
            {"driver": 42, "kind": "warning", "reason": "r"},
            "driver",
            "Driver 42 is not registered for this event.",
        ),
    ],
)
def test_bad_sanctions_are_400_saying_what_is_missing(organiser, raced, body, field, detail):
    response = organiser.post(SANCTIONS, body)
    assert response.status_code == 400, response.content
    assert response.json()["detail"] == detail
    assert field in response.json()["errors"]
    assert not Sanction.objects.exists()


def test_sanctions_permissions(anon, outsider, referee, organiser, raced):
    body = {"driver": 5, "kind": "warning", "reason": "r"}
    assert anon.post(SANCTIONS, body).status_code == 401
    assert outsider.post(SANCTIONS, body).status_code == 403
    assert referee.post(SANCTIONS, body).status_code == 403
    created = organiser.post(SANCTIONS, body).json()
    assert anon.get(SANCTIONS).status_code == 404  # results not published
    assert outsider.get(SANCTIONS).status_code == 403
    assert delete(outsider, f"{SANCTIONS}/{created['id']}", {"reason": "x"}).status_code == 403
    assert delete(organiser, f"{SANCTIONS}/999999", {"reason": "x"}).status_code == 404
    organiser.post("/events/gp-race/publish", {"results": True})
    assert [s["reason"] for s in anon.get(SANCTIONS).json()] == ["r"]


def test_a_sanction_is_in_the_backup(organiser, raced):
    organiser.post(SANCTIONS, {"driver": 5, "kind": "warning", "reason": "r"})
    labels = {row["model"] for row in export_championship("cfd-2025")["objects"]}
    assert {"tournament.sanction", "tournament.historicalsanction"} <= {
        label.lower() for label in labels
    }
    assert Championship.objects.count() == 1
