"""A club's season pages (issue 41, item 3): DOMAIN.md "Clubs and who may do what" — a
club's owners and organisers create its championships and circuits; the desk keeps the day's
counter and nothing else; circuits are one catalogue read by all and changed only by the
club that made it. Bad input is a sentence in the page, nothing saved, never a 500.

The world is tests/tournament/clubs/conftest.py's: club ``aix`` (``patronne`` its owner,
``orga`` its organiser, ``guichet`` its desk) with its circuit ``monaco``; the rival club
``nice`` and its owner ``rival``."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from tests.security.conftest import english
from tournament.models import Championship, Circuit

pytestmark = pytest.mark.django_db

SCALE = {
    "rain_from": 1,
    "rain_to": 5,
    "variable_from": 6,
    "variable_to": 10,
    "sun_from": 11,
    "sun_to": 20,
}


def client_of(clubs: Any, username: str | None) -> Client:
    client = english(Client())
    if username:
        client.force_login(clubs.users[username])
    return client


def new_championship(club: str = "aix") -> str:
    return reverse("club-championship-new", kwargs={"club": club})


def championship_data(**changes: Any) -> dict[str, Any]:
    return {
        "name": "Coupe de Provence",
        "season": "2027",
        "preset": "f1",
        "custom_scale": "",
        "points_mode": "per_table",
        "best_results": "",
        "organisers": "",
        **changes,
    }


@pytest.mark.parametrize(("username", "guests"), [("patronne", "invitee"), ("orga", "")])
def test_owner_and_organiser_create_a_championship(clubs: Any, username: str, guests: str) -> None:
    """Guest organisers are named by the owners (DOMAIN.md): the field is theirs."""
    client = client_of(clubs, username)
    assert ('name="organisers"' in client.get(new_championship()).content.decode()) == bool(guests)
    response = client.post(
        new_championship(),
        championship_data(preset="custom", custom_scale="10-8-6-5-4-3-2-1", organisers=guests),
        follow=True,
    )
    championship = Championship.objects.get(slug="coupe-de-provence-2027")
    assert championship.club == clubs.club
    assert championship.points_scale == [10, 8, 6, 5, 4, 3, 2, 1]
    assert [u.username for u in championship.organisers.all()] == ([guests] if guests else [])
    assert response.redirect_chain[-1][0] == reverse("championship", args=[championship.slug])
    page = response.content.decode()
    assert "/c/coupe-de-provence-2027/" in page and "Next step: create its first event" in page
    assert reverse("event-new", args=[championship.slug]) in page


def test_the_preset_scale_is_formula_de_by_default(clubs: Any) -> None:
    page = client_of(clubs, "orga").get(new_championship()).content.decode()
    assert "25-18-15-12-10-8-6-4-2-1 (Formula Dé’s default)" in page
    client_of(clubs, "orga").post(new_championship(), championship_data())
    scale = Championship.objects.get(slug="coupe-de-provence-2027").points_scale
    assert scale == [25, 18, 15, 12, 10, 8, 6, 4, 2, 1]


@pytest.mark.parametrize(
    ("username", "club"),
    [("guichet", "aix"), ("rival", "aix"), ("invitee", "aix"), (None, "aix"), ("patronne", "nice")],
)
def test_desk_rival_and_outsiders_may_not_create(
    clubs: Any, username: str | None, club: str
) -> None:
    client = client_of(clubs, username)
    refused = 302 if username is None else 403  # nobody signed in: to the login page first
    for url in (new_championship(club), reverse("club-circuit-new", kwargs={"club": club})):
        assert client.get(url).status_code == refused
        assert client.post(url, championship_data() | SCALE | {"laps": 3}).status_code == refused
    assert not Championship.objects.filter(slug="coupe-de-provence-2027").exists()
    assert not Circuit.objects.filter(name="Coupe de Provence").exists()


def test_the_desk_is_told_why(clubs: Any) -> None:
    page = client_of(clubs, "guichet").get(new_championship()).content.decode()
    assert "The desk keeps the day’s counter" in page


def test_an_unknown_club_is_404(clubs: Any) -> None:
    assert client_of(clubs, "patronne").get(new_championship("nowhere")).status_code == 404


def test_a_taken_slug_gets_a_suffix_and_the_page_says_it(clubs: Any) -> None:
    """The address is made from the name and the season; taken, it gets -2 (said in the
    form and in the message after saving)."""
    client = client_of(clubs, "orga")
    client.post(new_championship(), championship_data(name="Coupe d’Aix", season="2026 "))
    created = Championship.objects.exclude(pk=clubs.championship.pk).get()
    assert created.slug == "coupe-d-aix-2026" and created.season == "2026"
    page = client.get(new_championship()).content.decode()
    assert "if another championship has it already, -2 is added" in page
    response = client.post(
        new_championship(), championship_data(name="Coupe d’Aix", season="2026"), follow=True
    )
    assert Championship.objects.filter(slug="coupe-d-aix-2026-2").exists()
    assert "/c/coupe-d-aix-2026-2/" in response.content.decode()


def test_an_unknown_guest_organiser_saves_nothing(clubs: Any) -> None:
    response = client_of(clubs, "patronne").post(
        new_championship(), championship_data(organisers="invitee nobody-here")
    )
    assert response.status_code == 200
    assert "No active account is named “nobody-here”." in response.content.decode()
    assert not Championship.objects.filter(slug="coupe-de-provence-2027").exists()


@pytest.mark.parametrize(
    ("changes", "sentence"),
    [
        ({"preset": "custom", "custom_scale": "10-huit-6"}, "“huit” is not a number of points"),
        ({"preset": "custom", "custom_scale": ""}, "Type the points of the 1st, 2nd, 3rd…"),
        ({"preset": "nonsense"}, "Select a valid choice"),
        ({"name": "!!!"}, "a name with a letter or a digit"),
        ({"name": "A\nB"}, "One line only"),
        ({"best_results": "0"}, "greater than or equal to 1"),
        ({"name": "Coupe\x00"}, "Null characters are not allowed"),
    ],
)
def test_bad_championship_input_is_a_sentence(clubs: Any, changes: dict, sentence: str) -> None:
    response = client_of(clubs, "orga").post(new_championship(), championship_data(**changes))
    assert response.status_code == 200
    assert sentence in response.content.decode()
    assert Championship.objects.count() == 1


# --- Circuits ---------------------------------------------------------------------------------


def test_an_organiser_creates_a_circuit_with_a_derived_slug(clubs: Any) -> None:
    client = client_of(clubs, "orga")
    url = reverse("club-circuit-new", kwargs={"club": "aix"})
    page = client.get(url).content.decode()
    assert page.count('class="d20-face') == 20 and "d20-face weather-hole" not in page
    response = client.post(url, {"name": "Zandvoort", "laps": 2, **SCALE}, follow=True)
    circuit = Circuit.objects.get(slug="zandvoort")
    assert circuit.club == clubs.club and circuit.laps == 2
    assert (circuit.rain_from, circuit.rain_to, circuit.sun_to) == (1, 5, 20)
    assert response.redirect_chain[-1][0].endswith("#circuit-zandvoort")
    client.post(url, {"name": "Zandvoort", "laps": 2, **SCALE})
    assert Circuit.objects.filter(slug="zandvoort-2", name="Zandvoort").exists()


@pytest.mark.parametrize(
    ("changes", "sentence", "marked"),
    [
        ({"variable_from": 7}, "missing: 6.", "weather-hole"),
        ({"variable_to": 12}, "in two ranges: 11, 12.", "weather-overlap"),
    ],
)
def test_a_scale_with_a_hole_or_an_overlap_is_refused_in_words(
    clubs: Any, changes: dict, sentence: str, marked: str
) -> None:
    response = client_of(clubs, "orga").post(
        reverse("club-circuit-new", kwargs={"club": "aix"}),
        {"name": "Spa", "laps": 3, **SCALE, **changes},
    )
    page = response.content.decode()
    assert response.status_code == 200 and sentence in page
    assert f'd20-face {marked}" data-face="{6 if marked == "weather-hole" else 11}"' in page
    assert not Circuit.objects.filter(name="Spa").exists()


@pytest.mark.parametrize("bad", ["", "0", "21", "x", "-3", "1e3"])
def test_a_face_out_of_the_d20_is_a_sentence(clubs: Any, bad: str) -> None:
    response = client_of(clubs, "orga").post(
        reverse("club-circuit-new", kwargs={"club": "aix"}),
        {"name": "Spa", "laps": 3, **SCALE, "sun_to": bad},
    )
    assert response.status_code == 200 and 'class="errorlist' in response.content.decode()
    assert not Circuit.objects.filter(name="Spa").exists()


@pytest.mark.parametrize("username", ["patronne", "orga"])
def test_the_club_that_made_a_circuit_changes_it(clubs: Any, username: str) -> None:
    url = reverse("circuit-edit", kwargs={"slug": "monaco"})
    client = client_of(clubs, username)
    assert 'value="Monaco"' in client.get(url).content.decode()
    response = client.post(url, {"name": "Monaco GP", "laps": 4, **SCALE})
    assert response.status_code == 302
    circuit = Circuit.objects.get(slug="monaco")
    assert (circuit.name, circuit.laps, circuit.variable_to) == ("Monaco GP", 4, 10)


@pytest.mark.parametrize("username", ["guichet", "rival", "invitee", None])
def test_no_one_else_changes_a_circuit(clubs: Any, username: str | None) -> None:
    url = reverse("circuit-edit", kwargs={"slug": "monaco"})
    client = client_of(clubs, username)
    refused = 302 if username is None else 403
    assert client.get(url).status_code == refused
    assert client.post(url, {"name": "Pris", "laps": 4, **SCALE}).status_code == refused
    assert Circuit.objects.get(slug="monaco").name == "Monaco"


def test_a_refused_change_keeps_the_circuit(clubs: Any) -> None:
    url = reverse("circuit-edit", kwargs={"slug": "monaco"})
    response = client_of(clubs, "orga").post(
        url, {"name": "Monaco GP", "laps": 4, **SCALE, "rain_to": 3}
    )
    assert response.status_code == 200 and "missing: 4, 5." in response.content.decode()
    circuit = Circuit.objects.get(slug="monaco")
    assert (circuit.name, circuit.rain_to) == ("Monaco", 4)


# --- The catalogue ----------------------------------------------------------------------------


def _rival_circuit() -> Circuit:
    from tournament.models import Club

    return Circuit.objects.create(
        slug="ecosse", name="Écosse", laps=2, rain_from=1, rain_to=8, variable_from=9,
        variable_to=12, sun_from=13, sun_to=20, club=Club.objects.get(slug="nice"),
    )  # fmt: skip


def test_everyone_reads_the_catalogue_with_scales_and_clubs(clubs: Any) -> None:
    _rival_circuit()
    response = client_of(clubs, None).get(reverse("circuit-catalogue"))
    page = response.content.decode()
    assert response.status_code == 200
    assert "Monaco" in page and "Écosse" in page
    assert "Club d’Aix" in page and "Club de Nice" in page
    assert page.count('class="d20-face') == 40
    assert "rain 1–8 · variable 9–12 · sun 13–20" in page
    assert "/edit/" not in page


def test_the_catalogue_is_searched_by_name(clubs: Any) -> None:
    _rival_circuit()
    client = client_of(clubs, "invitee")
    page = client.get(reverse("circuit-catalogue"), {"q": "écos"}).content.decode()
    assert "Écosse" in page and "Monaco" not in page
    page = client.get(reverse("circuit-catalogue"), {"q": "zzz"}).content.decode()
    assert "0 circuits named like “zzz”." in page
    for odd in ("\x00", "x" * 500, "%", "_"):
        assert client.get(reverse("circuit-catalogue"), {"q": odd}).status_code == 200


def test_the_edit_link_is_only_for_the_club_that_made_it(clubs: Any) -> None:
    _rival_circuit()
    for username, editable in (("orga", "monaco"), ("rival", "ecosse"), ("guichet", None)):
        page = client_of(clubs, username).get(reverse("circuit-catalogue")).content.decode()
        links = {slug for slug in ("monaco", "ecosse") if f"/circuits/{slug}/edit/" in page}
        assert links == ({editable} if editable else set()), username


def test_an_organiser_s_guest_organisers_and_a_member_as_guest_save_nothing(clubs: Any) -> None:
    """Only the owners name guest organisers, and never a member of the club."""
    sent = client_of(clubs, "orga").post(
        new_championship(), championship_data(organisers="invitee")
    )
    assert "Only the owners of the championship’s club name its guest organisers." in (
        sent.content.decode().replace("&#x27;", "’").replace("'", "’")
    )
    member = client_of(clubs, "patronne").post(
        new_championship(), championship_data(organisers="orga")
    )
    assert "“orga”: a member of Club d’Aix runs its championships" in (
        member.content.decode().replace("&#x27;", "’")
    )
    assert not Championship.objects.filter(slug="coupe-de-provence-2027").exists()
