"""Every way a driver is created sets its player (tournament/players/identity.py): the
registration service and Setup API, the CSV import, a championship's import from a file."""

from __future__ import annotations

import pytest

from paddock.venue.championship_backup import export_championship, import_championship
from tests.api.conftest import Api
from tests.tournament.players.conftest import Clubs
from tournament.errors import Conflict, InvalidInput, NotAllowed
from tournament.models import ApiToken, Championship, Driver, Player
from tournament.players.changes import players_merge
from tournament.players.matching import proposals
from tournament.registration.services import driver_create, drivers_import

pytestmark = pytest.mark.django_db


def test_a_known_licence_number_finds_its_player_else_a_new_player(clubs: Clubs):
    first = clubs.register(clubs.season_2025, 1, "Élodie", "Lefèvre", licence=" ffj-42 ")
    assert first.player.licence == "FFJ-42"
    assert first.player.name_key == "elodie lefevre"

    again = clubs.register(clubs.season_2026, 9, "Elodie", "Lefevre-Martin", licence="FFJ-42")
    stranger = clubs.register(clubs.other_club, 1, "Élodie", "Lefèvre")
    nobody = clubs.register(clubs.other_club, 2, "Paul", "Martin", licence="")

    assert again.player == first.player  # the licence, whatever the name says
    assert stranger.player != first.player  # a name alone never joins players
    assert nobody.player.licence is None  # never "" (unique when given)
    assert Player.objects.count() == 3


def test_a_licence_already_driving_in_the_championship_is_refused(clubs: Clubs):
    clubs.register(clubs.season_2026, 1, "Jean", "Dupont", licence="J-1")
    with pytest.raises(Conflict, match="driver 1"):
        clubs.register(clubs.season_2026, 2, "Jean", "Dupont", licence="j-1")
    assert not Driver.objects.filter(number=2).exists()
    with pytest.raises(InvalidInput, match="at most 30"):
        clubs.register(clubs.season_2026, 3, "Jean", "Long", licence="X" * 31)


def test_a_merged_player_s_licence_leads_to_the_player_it_was_merged_into(clubs: Clubs):
    kept = clubs.register(clubs.season_2025, 1, "Jean", "Dupont")
    merged = clubs.register(clubs.other_club, 1, "Jean", "Dupont", licence="J-1")
    players_merge(actor=clubs.admin, keep=kept.player, other=merged.player)

    later = clubs.register(clubs.season_2026, 4, "Jean", "Dupont", licence="J-1")

    assert later.player == kept.player


CSV = """number;first_name;last_name;team;email;licence
1;Élodie;Lefèvre;Rouge;;FFJ-42
2;Théo;Marchand;;theo@example.org;
"""


def test_the_csv_import_finds_players_by_licence_and_updates_by_number(clubs: Clubs):
    known = clubs.register(clubs.season_2025, 5, "Élodie", "Lefèvre", licence="FFJ-42")

    drivers_import(actor=clubs.pc, championship=clubs.season_2026, text=CSV)

    one, two = Driver.objects.filter(championship=clubs.season_2026).order_by("number")
    assert one.player == known.player
    assert two.player is not None and two.player != known.player
    theo = two.player
    # Imported again (update by number): the same players, no new one.
    count = Player.objects.count()
    drivers_import(actor=clubs.pc, championship=clubs.season_2026, text=CSV)
    assert Player.objects.count() == count
    assert Driver.objects.get(pk=two.pk).player == theo
    # A licence given later goes to the driver's own player.
    drivers_import(
        actor=clubs.pc, championship=clubs.season_2026, text=CSV.replace("org;\n", "org;T-2\n")
    )
    assert Player.objects.get(pk=theo.pk).licence == "T-2"


def test_a_csv_with_one_licence_on_two_lines_imports_nothing(clubs: Clubs):
    text = "number;first_name;last_name;licence\n1;Jean;Dupont;J-1\n2;Jean;Dupont;J-1\n"
    with pytest.raises(InvalidInput) as refused:
        drivers_import(actor=clubs.pc, championship=clubs.season_2026, text=text)
    (error,) = refused.value.current
    assert error.line == 3 and "J-1" in error.message
    assert not Driver.objects.filter(championship=clubs.season_2026).exists()
    assert not Player.objects.exists()


def test_the_api_takes_a_licence_and_answers_the_player(clubs: Clubs):
    known = clubs.register(clubs.season_2025, 5, "Élodie", "Lefèvre", licence="FFJ-42")
    api = Api(ApiToken.issue(clubs.pc.user))

    response = api.post(
        "/championships/cf/drivers",
        {"number": 8, "first_name": "Élodie", "last_name": "Lefèvre", "licence": "ffj-42"},
    )

    assert response.status_code == 201, response.content
    assert response.json()["player"]["id"] == known.player_id
    again = api.post(
        "/championships/cf/drivers",
        {"number": 9, "first_name": "Élodie", "last_name": "L", "licence": "FFJ-42"},
    )
    assert again.status_code == 409 and list(again.json()["errors"]) == ["licence"]


def forget(slug: str) -> None:
    """The championship gone from this database, its history too (as on another server)."""
    Championship.objects.filter(slug=slug).delete()
    Championship.history.filter(slug=slug).delete()


def test_a_championship_file_brings_its_players_back_by_licence(clubs: Clubs):
    first = clubs.register(clubs.season_2025, 1, "Élodie", "Lefèvre", licence="FFJ-42")
    clubs.register(clubs.season_2025, 2, "Théo", "Marchand")
    data = export_championship("cf-2025")
    assert {p["licence"] for p in data["players"]} == {"FFJ-42", None}
    forget("cf-2025")
    theo_before = set(Player.objects.filter(last_name="Marchand").values_list("pk", flat=True))

    import_championship(data)

    back = {d.number: d.player for d in Driver.objects.filter(championship__slug="cf-2025")}
    assert back[1] == first.player  # found again by its licence
    assert back[2].pk not in theo_before and back[2].name == "Théo Marchand"  # a new one


def test_an_older_file_without_players_gives_each_driver_a_new_player(clubs: Clubs):
    clubs.register(clubs.season_2025, 1, "Élodie", "Lefèvre")
    data = export_championship("cf-2025")
    del data["players"]
    for row in data["objects"]:
        row["fields"].pop("player", None)
    forget("cf-2025")

    import_championship(data)

    (driver,) = Driver.objects.filter(championship__slug="cf-2025")
    assert driver.player is not None and driver.player.name == "Élodie Lefèvre"


def test_another_clubs_licence_only_proposes_the_match_and_never_names_its_holder(clubs: Clubs):
    """Any organiser attached a driver to another club's player by licence number, the
    answer named that player (a licence → name oracle), and the driver's results fed that
    player's career (issue 32). Now the licence only proposes the match: the driver gets a
    player of its own, and only an organiser of a championship the holder plays in (or an
    administrator) confirms it."""
    holder = clubs.register(clubs.season_2025, 5, "Élodie", "Lefèvre", licence="FFJ-42").player
    api = Api(ApiToken.issue(clubs.club.user))

    response = api.post(
        "/championships/club-2026/drivers",
        {"number": 3, "first_name": "Marie", "last_name": "Curie", "licence": "ffj-42"},
    )

    assert response.status_code == 201, response.content
    assert response.json()["player"]["id"] != holder.pk
    assert response.json()["player"]["name"] == "Marie Curie"
    assert "Lefèvre" not in response.content.decode()
    claimant = Driver.objects.get(championship=clubs.other_club, number=3).player
    assert claimant.licence is None and claimant.claimed_licence == "FFJ-42"
    # The CSV import says the same (the same player, still only claiming).
    drivers_import(
        actor=clubs.club, championship=clubs.other_club,
        text="number;first_name;last_name;licence\n3;Marie;Curie;FFJ-42\n",
    )  # fmt: skip
    assert Driver.objects.get(championship=clubs.other_club, number=3).player == claimant

    # Proposed to the holder's organisers, not to the club that typed it.
    assert proposals(clubs.club) == []
    (proposal,) = proposals(clubs.pc)
    assert {proposal.player, proposal.other} == {holder, claimant}
    assert "same licence number" in proposal.reasons
    with pytest.raises(NotAllowed):
        players_merge(actor=clubs.club, keep=holder, other=claimant)
    players_merge(actor=clubs.pc, keep=holder, other=claimant)
    assert Driver.objects.get(championship=clubs.other_club, number=3).player == holder


def test_an_organiser_of_the_holders_championship_still_joins_by_licence(clubs: Clubs):
    """The organiser who runs a championship the holder plays in sees that player: the
    licence joins at once, as before."""
    holder = clubs.register(clubs.other_club, 5, "Élodie", "Lefèvre", licence="FFJ-42").player
    clubs.other_club.organisers.add(clubs.pc.user)

    driver = driver_create(
        actor=clubs.pc, championship=clubs.season_2026, number=8, first_name="Élodie",
        last_name="Lefèvre", licence="FFJ-42",
    )  # fmt: skip

    assert driver.player == holder
