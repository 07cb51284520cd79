"""Cannes–Monaco and Racetrack results through ``PUT .../tables/{t}/result`` (API.md,
"Other games"): draft → submitted → confirmed, the game's places and points in the day's
results and the standings, errors naming the driver, and who may write."""

from __future__ import annotations

import pytest

from races.models import RaceResult
from tests.games.conftest import allocate, put, table_api

pytestmark = pytest.mark.django_db


def grid(tables: list[dict], index: int = 0) -> list[int]:
    return [line["driver"]["number"] for line in tables[index]["grid"]]


@pytest.fixture
def cannes(make_event, org_api):
    event = make_event(
        5, slug="cannes", game="cannes_monaco", qualifying_mode="draw", separate_teams=False
    )
    tables = allocate(org_api, "cannes", 6)
    return event, grid(tables)


@pytest.fixture
def racetrack(make_event, org_api):
    event = make_event(4, slug="rt", game="racetrack", qualifying_mode="draw", separate_teams=False)
    tables = allocate(org_api, "rt", 4)
    return event, grid(tables)


def test_cannes_monaco_round_trip_points_of_the_rule(cannes, org_api, anon_api):
    event, numbers = cannes
    a, b, c, d, e = numbers
    referee = table_api(event, 1)
    path = "/events/cannes/tables/1/result"
    assert referee.get(path).json()["squares"] == {}
    body = {
        "version": 0,
        "squares": {str(a): 30, str(b): 34, str(c): 30, str(d): 12},
        "crossed": [],
        "submit": False,
    }
    draft = put(referee, path, body)
    assert draft.status_code == 200, draft.content
    assert draft.json()["status"] == "draft" and draft.json()["version"] == 1
    # Submitting without car e is refused, naming the driver.
    body.update(version=1, submit=True)
    missing = put(referee, path, body)
    assert missing.status_code == 400
    assert str(e) in missing.json()["errors"]["squares." + str(e)][0]
    body["crossed"] = [e]
    done = put(referee, path, body)
    assert done.status_code == 200, done.content
    assert done.json()["crossed"] == [e] and done.json()["status"] == "submitted"
    confirmed = org_api.post("/events/cannes/tables/1/confirm", {"version": 2})
    assert confirmed.status_code == 200, confirmed.content
    results = org_api.get("/events/cannes/results").json()
    by_driver = {r["driver"]["number"]: (r["rank"], r["status"], r["points"]) for r in results}
    # Last car d on 12: a and c 18, b 22, e over the line 24 + 3 = 27 ("Décompte des points").
    assert by_driver == {
        e: (1, "finished", 27),
        b: (2, "running", 22),
        a: (3, "running", 18),
        c: (3, "running", 18),
        d: (5, "running", 0),
    }
    standings = org_api.get(f"/championships/{event.championship.slug}/standings").json()
    assert {line["driver"]["number"]: line["points"] for line in standings} == {
        e: 27,
        b: 22,
        a: 18,
        c: 18,
        d: 0,
    }
    assert RaceResult.history.filter(table__event=event).count() >= 3
    assert anon_api.get("/events/cannes/results").status_code == 404


def test_cannes_monaco_bad_square_is_400_naming_the_driver(cannes):
    event, numbers = cannes
    response = put(
        table_api(event, 1),
        "/events/cannes/tables/1/result",
        {"version": 0, "squares": {str(numbers[0]): 37}, "submit": False},
    )
    assert response.status_code == 400
    message = response.json()["errors"][f"squares.{numbers[0]}"][0]
    assert message.startswith(f"{numbers[0]} ") and "36" in message


def test_cannes_monaco_refuses_a_formula_de_body(cannes):
    event, numbers = cannes
    response = put(
        table_api(event, 1), "/events/cannes/tables/1/result",
        {"version": 0, "finish": numbers, "submit": False},
    )  # fmt: skip
    assert response.status_code == 400


def test_stale_version_is_409_with_current(cannes):
    event, numbers = cannes
    referee = table_api(event, 1)
    path = "/events/cannes/tables/1/result"
    assert put(referee, path, {"version": 0, "squares": {str(numbers[0]): 3}}).status_code == 200
    stale = put(referee, path, {"version": 0, "squares": {str(numbers[0]): 5}})
    assert stale.status_code == 409
    assert stale.json()["current"]["squares"] == {str(numbers[0]): 3}


def test_outsider_and_anonymous_may_not_write(cannes, outsider_api, anon_api):
    path = "/events/cannes/tables/1/result"
    body = {"version": 0, "squares": {}, "submit": False}
    assert put(outsider_api, path, body).status_code == 403
    assert put(anon_api, path, body).status_code == 401


def test_racetrack_round_trip_rule_order_and_scale_points(racetrack, org_api):
    event, (a, b, c, d) = racetrack
    referee = table_api(event, 1)
    path = "/events/rt/tables/1/result"
    runs = {
        str(a): {"turns": 42, "margin": 2, "crashes": 0, "finished": True, "eliminated": False},
        str(b): {"turns": 42, "margin": 3, "crashes": 0, "finished": True, "eliminated": False},
        str(c): {"turns": 40, "margin": 0, "crashes": 0, "finished": False, "eliminated": False},
        str(d): {"turns": 12, "margin": 0, "crashes": 1, "finished": False, "eliminated": True},
    }
    saved = put(referee, path, {"version": 0, "runs": runs, "submit": True})
    assert saved.status_code == 200, saved.content
    assert saved.json()["runs"][str(b)]["margin"] == 3
    assert org_api.post("/events/rt/tables/1/confirm").status_code == 200
    results = org_api.get("/events/rt/results").json()
    # "Fin du jeu": b beats a on the margin after 42 turns; scale 10, 8, 6.
    assert [(r["driver"]["number"], r["status"], r["points"]) for r in results] == [
        (b, "finished", 10),
        (a, "finished", 8),
        (c, "running", 6),
        (d, "eliminated", 0),
    ]


def test_racetrack_crash_limit_names_the_driver(racetrack):
    event, (a, *_rest) = racetrack
    response = put(
        table_api(event, 1),
        "/events/rt/tables/1/result",
        {"version": 0, "runs": {str(a): {"turns": 5, "crashes": 1}}},
    )
    assert response.status_code == 400
    assert str(a) in response.json()["detail"]


def test_racetrack_malformed_run_is_400(racetrack):
    event, (a, *_rest) = racetrack
    response = put(
        table_api(event, 1),
        "/events/rt/tables/1/result",
        {"version": 0, "runs": {str(a): {"turns": "many"}}},
    )
    assert response.status_code == 400
    assert f"runs.{a}" in response.json()["errors"]


def test_event_api_creates_a_racetrack_event_with_its_accident_rules(
    org_api, championship, circuit
):
    response = org_api.post(
        f"/championships/{championship.slug}/events",
        {
            "slug": "rt-variant",
            "name": "Racetrack",
            "date": "2026-08-01",
            "circuit": circuit.slug,
            "game": "racetrack",
            "table_size": 6,
            "crash_limit": 3,
            "collisions": False,
        },
    )
    assert response.status_code == 201, response.content
    assert (response.json()["crash_limit"], response.json()["collisions"]) == (3, False)


def run(turns=0, margin=0, crashes=0, finished=False, eliminated=False) -> dict:
    return {"turns": turns, "margin": margin, "crashes": crashes, "finished": finished,
            "eliminated": eliminated}  # fmt: skip


def test_racetrack_collision_eliminates_both_cars(racetrack, org_api):
    # rules/racetrack-rules.fr.txt "Accidents": "si on se prend une autre caisse, on est
    # éliminé aussi, en plus d'éliminer le joueur que l'on accidente".
    event, (a, b, c, d) = racetrack
    runs = {
        str(a): run(30, 1, finished=True),
        str(b): run(28, 0, finished=True),
        str(c): run(9, crashes=1, eliminated=True),  # ran into d
        str(d): run(9, eliminated=True),  # hit: out without a crash of its own
    }
    path = "/events/rt/tables/1/result"
    saved = put(table_api(event, 1), path, {"version": 0, "runs": runs, "submit": True})
    assert saved.status_code == 200, saved.content
    assert org_api.post("/events/rt/tables/1/confirm").status_code == 200
    results = org_api.get("/events/rt/results").json()
    assert [(r["driver"]["number"], r["status"], r["points"]) for r in results] == [
        (b, "finished", 10),
        (a, "finished", 8),
        (c, "eliminated", 0),
        (d, "eliminated", 0),
    ]


def test_racetrack_collision_alone_is_400_naming_the_driver(racetrack):
    event, (a, b, c, d) = racetrack
    runs = {
        str(a): run(30, 1, finished=True),
        str(b): run(28, 0, finished=True),
        str(c): run(20),
        str(d): run(9, eliminated=True),
    }
    path = "/events/rt/tables/1/result"
    response = put(table_api(event, 1), path, {"version": 0, "runs": runs, "submit": True})
    assert response.status_code == 400
    message = response.json()["errors"][f"runs.{d}"][0]
    assert message.startswith(f"{d} ") and "both cars" in message
    # As a draft (the other car not written yet) it is kept.
    alone = {"version": 0, "runs": {str(d): runs[str(d)]}, "submit": False}
    draft = put(table_api(event, 1), path, alone)
    assert draft.status_code == 200, draft.content


def test_racetrack_without_collisions_only_crashes_eliminate(racetrack):
    # "Une variante permet d'éviter les collisions entre joueurs".
    event, (a, *_rest) = racetrack
    event.collisions = False
    event.save()
    response = put(
        table_api(event, 1),
        "/events/rt/tables/1/result",
        {"version": 0, "runs": {str(a): run(9, eliminated=True)}, "submit": False},
    )
    assert response.status_code == 400
    message = response.json()["errors"][f"runs.{a}"][0]
    assert message.startswith(f"{a} ") and "collisions are off" in message


def test_racetrack_variant_a_collision_is_a_crash_for_both(racetrack):
    # "les deux joueurs ajoutent un crash à leur compteur": out only at the limit.
    event, (a, b, *_rest) = racetrack
    event.crash_limit = 2
    event.save()
    path = "/events/rt/tables/1/result"
    below = {
        str(a): run(9, crashes=1, eliminated=True),
        str(b): run(9, crashes=1, eliminated=True),
    }
    response = put(table_api(event, 1), path, {"version": 0, "runs": below})
    assert response.status_code == 400
    assert "limit of 2" in response.json()["errors"][f"runs.{a}"][0]
    at_limit = {str(a): run(9, crashes=2, eliminated=True), str(b): run(12, crashes=1)}
    assert put(table_api(event, 1), path, {"version": 0, "runs": at_limit}).status_code == 200


def test_cannes_monaco_crossing_order_names_the_winner(cannes, org_api):
    """ "Le premier pilote qui franchit la ligne d'arrivée est déclaré vainqueur": two cars
    over the line score the same, but the first over is the winner, placed first; the
    countback counts their places (1st and 2nd), not a shared 1st."""
    event, (a, b, c, d, e) = cannes
    path = "/events/cannes/tables/1/result"
    body = {
        "version": 0,
        "squares": {str(a): 30, str(b): 20, str(c): 25},
        "crossed": [e, d],
        "submit": True,
    }
    saved = put(table_api(event, 1), path, body)
    assert saved.status_code == 200, saved.content
    assert (saved.json()["crossed"], saved.json()["winner"]) == ([e, d], e)
    assert org_api.post("/events/cannes/tables/1/confirm").status_code == 200
    results = org_api.get("/events/cannes/results").json()
    assert [(r["driver"]["number"], r["rank"], r["points"]) for r in results] == [
        (e, 1, 16 + 3),
        (d, 2, 16 + 3),
        (a, 3, 10),
        (c, 4, 5),
        (b, 5, 0),
    ]
    standings = org_api.get(f"/championships/{event.championship.slug}/standings").json()
    countback = {line["driver"]["number"]: line["countback"] for line in standings}
    assert countback[e][:2] == [1, 0] and countback[d][:2] == [0, 1]
    twice = put(table_api(event, 1), path, {**body, "version": 0, "crossed": [e, e]})
    assert twice.status_code == 409  # confirmed meanwhile


def test_racetrack_stopping_at_the_winner_the_referee_places_the_running_cars(racetrack, org_api):
    event, (a, b, c, d) = racetrack
    patched = org_api.patch("/events/rt", {"race_end": "winner"})
    assert patched.status_code == 200, patched.content
    assert patched.json()["race_end"] == "winner"
    path = "/events/rt/tables/1/result"
    runs = {
        str(a): {"turns": 30, "margin": 1, "finished": True},
        str(b): {"turns": 30},
        str(c): {"turns": 30, "place": 1},
        str(d): {"turns": 30, "place": 2},
    }
    refused = put(table_api(event, 1), path, {"version": 0, "runs": runs, "submit": True})
    assert refused.status_code == 400
    assert list(refused.json()["errors"]) == [f"runs.{b}"]
    assert "place (1 = the closest to the line)" in refused.json()["detail"]
    runs[str(b)]["place"] = 3
    saved = put(table_api(event, 1), path, {"version": 0, "runs": runs, "submit": True})
    assert saved.status_code == 200, saved.content
    assert saved.json()["runs"][str(c)]["place"] == 1
    assert org_api.post("/events/rt/tables/1/confirm").status_code == 200
    results = org_api.get("/events/rt/results").json()
    assert [(r["driver"]["number"], r["rank"], r["points"]) for r in results] == [
        (a, 1, 10),
        (c, 2, 8),
        (d, 3, 6),
        (b, 4, 0),
    ]


def test_racetrack_default_end_two_cars_still_running_is_400(racetrack):
    """ "jusqu'à ce que l'avant dernier la franchisse" (the default end): a submitted sheet
    with two cars still running is a 400 naming both, not a shared 2nd place; a draft keeps
    them."""
    event, (a, b, c, d) = racetrack
    runs = {
        str(a): run(30, 1, finished=True),
        str(b): run(30),
        str(c): run(30),
        str(d): run(9, crashes=1, eliminated=True),
    }
    path = "/events/rt/tables/1/result"
    refused = put(table_api(event, 1), path, {"version": 0, "runs": runs, "submit": True})
    assert refused.status_code == 400
    body = refused.json()
    assert sorted(body["errors"]) == sorted([f"runs.{b}", f"runs.{c}"])
    assert "second-to-last" in body["detail"]
    assert not RaceResult.objects.filter(table__event=event).exists()
    draft = put(table_api(event, 1), path, {"version": 0, "runs": runs, "submit": False})
    assert draft.status_code == 200, draft.content
    runs[str(c)] = run(31, 0, finished=True)
    done = put(table_api(event, 1), path, {"version": 1, "runs": runs, "submit": True})
    assert done.status_code == 200, done.content


@pytest.fixture
def racetrack_two_tables(make_event, org_api):
    event = make_event(6, slug="rt", game="racetrack", qualifying_mode="draw", separate_teams=False)
    tables = allocate(org_api, "rt", 3)
    return event, grid(tables, 0), grid(tables, 1)


def test_racetrack_honours_the_overall_mode_and_shares_a_tie_in_the_standings(
    racetrack_two_tables, org_api
):
    """DOMAIN.md "Points mode applies to every game": in mode ``overall`` table 2's winner
    behind a 3-driver table 1 is rank 4 and takes the 4th points. "Fin du jeu": a tie
    ("égalité") shares the place, its points and its countback in the standings."""
    event, first, second = racetrack_two_tables
    championship = event.championship
    championship.points_scale = [10, 8, 6, 5, 4, 3]
    championship.points_mode = "overall"
    championship.save()
    sheets = {
        1: {str(first[0]): run(30, 1, finished=True), str(first[1]): run(30, 1, finished=True),
            str(first[2]): run(33, finished=True)},
        2: {str(second[0]): run(29, 2, finished=True), str(second[1]): run(35, finished=True),
            str(second[2]): run(36)},
    }  # fmt: skip
    for number, runs in sheets.items():
        path = f"/events/rt/tables/{number}/result"
        saved = put(table_api(event, number), path, {"version": 0, "runs": runs, "submit": True})
        assert saved.status_code == 200, saved.content
        assert org_api.post(f"/events/rt/tables/{number}/confirm").status_code == 200
    results = org_api.get("/events/rt/results").json()
    assert [(r["driver"]["number"], r["rank"], r["points"]) for r in results] == [
        (first[0], 1, 10),
        (first[1], 1, 10),
        (first[2], 3, 6),
        (second[0], 4, 5),  # not the 10 of a table's winner
        (second[1], 5, 4),
        (second[2], 6, 3),
    ]
    standings = org_api.get(f"/championships/{championship.slug}/standings").json()
    ranks = {line["driver"]["number"]: (line["rank"], line["points"]) for line in standings}
    assert ranks[first[0]] == ranks[first[1]] == (1, 10)
