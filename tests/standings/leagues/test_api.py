"""The leagues' API (API.md "A season across clubs"): who may do what, the rounds' states and
their mail, the standings and clubs' cup from published results only (DOMAIN.md)."""

from __future__ import annotations

import csv
import io

import pytest
from openpyxl import load_workbook

from races.sanctions.services import sanction_record
from standings.leagues.models import League, Round
from tournament.signup.models import Mail

pytestmark = pytest.mark.django_db

NEW = {"slug": "nord", "name": "Coupe du Nord", "season": 2026, "club": "aix",
       "points_scale": [10, 6, 4], "points_mode": "overall", "best_results": 2}  # fmt: skip


def _played(world, *, nice_published: bool = True):
    """A round of each club, both counted: aix's table 1 finishes 1-2-3-4, nice's 2-1-4-3."""
    aix_event = world.aix.event(day=1, table_size=4)
    world.aix.confirm(aix_event, 1, [1, 2, 3, 4])
    nice_event = world.nice.event(day=8, table_size=4, published=nice_published)
    world.nice.confirm(nice_event, 1, [2, 1, 4, 3])
    for event in (aix_event, nice_event):
        Round.objects.create(league=world.league, event=event, status="counted")
    return aix_event, nice_event


# --- Leagues ----------------------------------------------------------------------------------


@pytest.mark.parametrize("who", ["patronne", "orga"])
def test_the_clubs_owner_or_organiser_creates_a_league(world, who):
    response = world.api(who).post("/leagues", NEW)
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["slug"], body["season"], body["club"]) == (
        "nord", "2026", {"slug": "aix", "name": "Club d’Aix"},
    )  # fmt: skip
    assert (body["points_mode"], body["best_results"], body["club_best"]) == ("overall", 2, 3)
    assert League.objects.get(slug="nord").history.first().history_actor.startswith(who)


@pytest.mark.parametrize(("who", "status"), [("guichet", 403), ("rival", 403), ("invitee", 403),
                                             (None, 401)])  # fmt: skip
def test_a_desk_member_another_club_or_a_stranger_creates_none(world, who, status):
    assert world.api(who).post("/leagues", NEW).status_code == status
    assert not League.objects.filter(slug="nord").exists()


@pytest.mark.parametrize(
    ("change", "field"),
    [({"points_scale": [10, -1]}, "points_scale"), ({"club_best": 0}, "club_best"),
     ({"name": "Coupe\ndu Nord"}, "name"), ({"slug": "Nord!"}, "slug"),
     ({"club": "nowhere"}, "club"), ({"best_results": 0}, "best_results")],
)  # fmt: skip
def test_a_bad_league_is_a_400_naming_the_field(world, change, field):
    response = world.api("orga").post("/leagues", {**NEW, **change})
    assert response.status_code == 400, response.content
    assert field in str(response.json()), response.json()


def test_a_slug_taken_is_a_409(world):
    assert world.api("orga").post("/leagues", {**NEW, "slug": "sud"}).status_code == 409


def test_leagues_and_their_rounds_are_public(world):
    _played(world)
    assert world.api(None).get("/leagues").json()[0]["club"]["slug"] == "aix"
    detail = world.api(None).get("/leagues/sud").json()
    assert [(r["event"], r["club"]["slug"], r["status"]) for r in detail["rounds"]] == [
        ("aix-s-1", "aix", "counted"), ("nice-s-1", "nice", "counted"),
    ]  # fmt: skip
    assert world.api(None).get("/leagues/nope").status_code == 404


# --- Rounds -----------------------------------------------------------------------------------


def test_an_event_of_the_leagues_club_counts_at_once_and_sends_no_mail(world):
    event = world.aix.event(day=1, table_size=4)
    response = world.api("orga").post("/leagues/sud/rounds", {"event": event.slug})
    assert (response.status_code, response.json()) == (201, {"status": "counted"})
    assert not Mail.objects.filter(kind="league").exists()


def test_another_clubs_event_is_proposed_its_owners_told_and_they_decide(world):
    event = world.nice.event(day=1, table_size=4)
    response = world.api("orga").post("/leagues/sud/rounds", {"event": event.slug})
    assert (response.status_code, response.json()) == (201, {"status": "proposed"})
    [mail] = Mail.objects.filter(kind="league")
    assert mail.to == "rival@x.org" and "Coupe du Sud" in mail.subject
    assert world.api("orga").post("/leagues/sud/rounds", {"event": event.slug}).status_code == 409

    path = f"/leagues/sud/rounds/{event.slug}"
    # The league's organisers change nothing of a round's event: its club decides.
    for who in ("patronne", "orga", "guichet", "invitee"):
        assert world.api(who).post(path + "/accept").status_code == 403, who
        assert world.api(who).post(path + "/decline").status_code == 403, who
    assert world.api(None).post(path + "/accept").status_code == 401
    assert world.api("rival").post(path + "/decline").json() == {"status": "declined"}
    assert world.api("rival").post(path + "/accept").json() == {"status": "counted"}
    round_ = Round.objects.get(event=event)
    assert round_.decided_by.username == "rival"
    assert [h.status for h in round_.history.order_by("history_id")] == [
        "proposed", "declined", "counted",
    ]  # fmt: skip


def test_only_the_leagues_organisers_propose_and_withdraw(world):
    event = world.nice.event(day=1, table_size=4)
    for who in ("rival", "guichet", "invitee"):
        response = world.api(who).post("/leagues/sud/rounds", {"event": event.slug})
        assert response.status_code == 403, who
    assert world.api("orga").post("/leagues/sud/rounds", {"event": "nope"}).status_code == 404
    world.api("orga").post("/leagues/sud/rounds", {"event": event.slug})
    path = f"/leagues/sud/rounds/{event.slug}"
    assert world.api("rival").delete(path).status_code == 403
    assert world.api("orga").delete(path).status_code == 204
    assert not Round.objects.exists()
    assert world.api("orga").delete(path).status_code == 404


# --- Standings --------------------------------------------------------------------------------


def test_the_standings_rank_one_person_once_across_clubs(world):
    _played(world)
    lines = world.api(None).get("/leagues/sud/standings").json()
    # Shared players 1 and 2: a win and a 2nd place each, the same countback: a shared rank.
    assert [(line["player"]["name"], line["rank"], line["points"]) for line in lines] == [
        ("Commun1 Sud", 1, 16), ("Commun2 Sud", 1, 16), ("Aix3 Seul", 3, 4),
        ("Nice4 Seul", 3, 4), ("Aix4 Seul", 5, 3), ("Nice3 Seul", 5, 3),
    ]  # fmt: skip
    assert lines[0]["clubs"] == ["aix", "nice"]
    assert [r["event"] for r in lines[0]["rounds"]] == ["aix-s-1", "nice-s-1"]
    cup = world.api(None).get("/leagues/sud/clubs").json()
    # Best 2 a round: the shared players count for aix at aix's round and for nice at
    # nice's: 10 + 6 each, equal best rounds too.
    assert cup == [
        {"rank": 1, "club": {"slug": "aix", "name": "Club d’Aix"}, "points": 16,
         "rounds": [{"event": "aix-s-1", "points": 16}]},
        {"rank": 1, "club": {"slug": "nice", "name": "Club de Nice"}, "points": 16,
         "rounds": [{"event": "nice-s-1", "points": 16}]},
    ]  # fmt: skip


def test_unpublished_results_and_proposed_rounds_never_appear(world):
    aix_event, nice_event = _played(world, nice_published=False)
    proposed = world.aix.event(day=15, table_size=4)
    world.aix.confirm(proposed, 1, [4, 3, 2, 1])
    Round.objects.create(league=world.league, event=proposed, status="declined")
    for who in (None, "patronne", "rival"):
        lines = world.api(who).get("/leagues/sud/standings").json()
        assert {r["event"] for line in lines for r in line["rounds"]} == {aix_event.slug}
        assert {line["player"]["name"] for line in lines} == {
            "Commun1 Sud", "Commun2 Sud", "Aix3 Seul", "Aix4 Seul",
        }  # fmt: skip
    assert nice_event.slug not in world.api(None).get("/leagues/sud/clubs").content.decode()


def test_a_sanction_after_publication_changes_the_league(world):
    aix_event, _ = _played(world)
    before = world.api(None).get("/leagues/sud/standings").json()
    assert before[0]["player"]["name"] == "Commun1 Sud"
    sanction_record(actor=world.aix.actor, event=aix_event, driver=1, kind="disqualified",
                    reason="injonction ignorée")  # fmt: skip
    after = world.api(None).get("/leagues/sud/standings").json()
    first = {line["player"]["name"]: line for line in after}
    # Disqualified at aix: 0 there (6 left of nice's 2nd place); 2 takes the win and 20.
    assert after[0]["player"]["name"] == "Commun2 Sud" and after[0]["points"] == 20
    assert first["Commun1 Sud"]["points"] == 6
    sanction_record(actor=world.aix.actor, event=aix_event, driver=2, kind="points", value=5,
                    reason="retard")  # fmt: skip
    lines = {line["player"]["name"]: line for line in world.api(None).get(
        "/leagues/sud/standings").json()}  # fmt: skip
    assert lines["Commun2 Sud"]["points"] == 15


def test_the_standings_as_csv_and_xlsx_keep_a_formula_as_text(world):
    _played(world)
    world.players[0].first_name = "=HYPERLINK(1)"
    world.players[0].save()
    response = world.api(None).get("/leagues/sud/standings?format=csv")
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert rows[0][:3] == ["Rank", "Player", "Points"]
    assert rows[1][1] == "'=HYPERLINK(1) Sud"
    response = world.api(None).get("/leagues/sud/standings?format=xlsx")
    sheet = load_workbook(io.BytesIO(response.content)).active
    assert sheet["B2"].value == "=HYPERLINK(1) Sud" and sheet["B2"].data_type == "s"
    assert world.api(None).get("/leagues/sud/standings?format=pdf").status_code == 400


def test_a_result_reopened_after_publication_leaves_the_league_until_confirmed(world):
    aix_event, _ = _played(world)
    world.aix.reopen(aix_event, 1)
    lines = world.api(None).get("/leagues/sud/standings").json()
    assert {r["event"] for line in lines for r in line["rounds"]} == {"nice-s-1"}


# --- Pages ------------------------------------------------------------------------------------


def test_the_leagues_page_and_projector_show_public_names_in_french_and_english(world, client):
    _played(world)
    world.players[1].first_name = "<b>Zoé</b>"
    world.players[1].save()
    page = client.get("/l/sud/").content.decode()
    assert "Classement" in page and "Coupe des clubs" in page
    assert "&lt;b&gt;Zoé&lt;/b&gt; Sud" in page and "<b>Zoé" not in page
    assert "Club de Nice" in page and "nice-s-1" in page
    client.cookies["django_language"] = "en"
    assert "Clubs' cup" in client.get("/l/sud/").content.decode()
    board = client.get("/l/sud/projector/?page=2", HTTP_HX_REQUEST="true").content.decode()
    assert "Commun1 Sud" in board and "<html" not in board
    assert client.get("/l/nope/").status_code == 404
