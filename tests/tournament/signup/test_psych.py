"""The psych sheet's page (issue 29, item 9): the accepted entrants, best rating first,
unrated after in registration order, names as each chose, a "first race" mark; never an
address or a licence; names escaped; race control's only until the event announces."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from tests.tournament.signup.conftest import last_token
from tests.tournament.signup.test_views import english
from tournament.models import Driver, Player, PlayerRating
from tournament.signup import services
from tournament.signup.models import Announcement, Registration

pytestmark = pytest.mark.django_db


def rate(event, number: int, rating: float, races: int) -> Driver:
    """Driver ``number`` as a player rated ``rating`` after ``races`` races."""
    player = Player.objects.create(first_name=f"Pilote{number}", last_name="Lefèvre")
    driver = Driver.objects.create(championship=event.championship, number=number,
                                   first_name=f"Pilote{number}", last_name="Lefèvre",
                                   player=player)  # fmt: skip
    PlayerRating.objects.create(player=driver.player, family="formula_de", mu=25, sigma=5,
                                rating=rating, races=races)  # fmt: skip
    return driver


def rows(html: str) -> list[str]:
    """The text of each row of the sheet, tags and spaces squeezed."""
    body = re.search(r"<tbody>(.*?)</tbody>", html, re.S).group(1)
    found = re.findall(r"<tr>(.*?)</tr>", body, re.S)
    return [" ".join(re.sub(r"<[^>]+>", " ", row).split()) for row in found]


@pytest.fixture
def sheet(open_event, sign_up_confirmed):
    """Four accepted (two rated: 3.5 and 8.25), then one on the waiting list."""
    event = open_event(capacity=4)
    sign_up_confirmed(event, "zoe@example.org", first_name="Zoé", public_name="short",
                      team="Rouge", licence="LIC-0042")  # fmt: skip
    sign_up_confirmed(event, "ana@example.org", first_name="Ana")
    sign_up_confirmed(event, "bob@example.org", first_name="Bob", team="Bleu")
    sign_up_confirmed(event, "cy@example.org", first_name="Cyril")
    sign_up_confirmed(event, "dan@example.org", first_name="Dan")  # waiting
    # Two of them checked in before as drivers of the championship, with ratings.
    for first_name, number, rating, races in (("Ana", 1, 3.5, 2), ("Cyril", 2, 8.25, 7)):
        driver = rate(event, number, rating, races)
        Registration.objects.filter(event=event, first_name=first_name).update(driver=driver)
    return event


def test_best_rating_first_unrated_after_in_registration_order(sheet):
    page = english().get(f"/e/{sheet.slug}/entrants/")
    assert page.status_code == 200
    assert rows(page.content.decode()) == [
        "1 Cyril Lefèvre 8.25",
        "2 Ana Lefèvre 3.50",
        "3 Zoé L. first race Rouge –",
        "4 Bob Lefèvre first race Bleu –",
    ]


def test_no_address_nor_licence_nor_who_is_waiting(sheet):
    text = english().get(f"/e/{sheet.slug}/entrants/").content.decode()
    assert "example.org" not in text and "LIC-0042" not in text
    assert "Dan" not in text  # on the waiting list, not an entrant
    assert "Zoé Lefèvre" not in text  # she chose "first name and initial"


def test_in_french_by_default_with_the_mark(sheet):
    text = Client().get(f"/e/{sheet.slug}/entrants/").content.decode()
    assert "Engagés" in text and "première course" in text and "Écurie" in text


def test_hostile_names_are_escaped(open_event, sign_up_confirmed):
    event = open_event(capacity=None)
    sign_up_confirmed(event, "x@example.org", first_name="<script>alert(1)</script>",
                      team='=HYPERLINK("http://evil.example","clic")')  # fmt: skip
    text = english().get(f"/e/{event.slug}/entrants/").content.decode()
    assert "<script>alert(1)</script>" not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt; Lefèvre" in text
    assert "=HYPERLINK(&quot;http://evil.example&quot;,&quot;clic&quot;)" in text


def test_nothing_announced_is_race_controls_only(open_event, sign_up_confirmed, organiser):
    event = open_event()
    sign_up_confirmed(event, "ana@example.org", first_name="Ana")
    Announcement.objects.filter(event=event).update(opens_at=None)
    url = f"/e/{event.slug}/entrants/"
    assert english().get(url).status_code == 404
    desk = english()
    desk.force_login(organiser)
    shown = desk.get(url)
    assert shown.status_code == 200 and b"Ana Lef" in shown.content
    assert english().post(url).status_code == 405
    assert english().get("/e/no-such-event/entrants/").status_code == 404


def test_empty_sheet_says_so_and_pages_link_to_it(open_event, sign_up_confirmed):
    event = open_event()
    url = f"/e/{event.slug}/entrants/"
    assert b"No entrant yet." in english().get(url).content
    signup = english().get(f"/e/{event.slug}/signup/").content.decode()
    assert f'href="{url}"' not in signup  # nobody in yet: nothing to link to
    sign_up_confirmed(event, "ana@example.org", first_name="Ana")
    assert f'href="{url}"' in english().get(f"/e/{event.slug}/signup/").content.decode()
    type(event).objects.filter(pk=event.pk).update(published_allocation=True)
    assert f'href="{url}"' in english().get(f"/e/{event.slug}/").content.decode()


def test_before_check_in_a_known_player_is_found_by_the_address_they_confirmed(sheet):
    """Before the day no registration has its driver yet: the player who already has the
    confirmed address is rated on the sheet; a licence alone borrows no one's rank."""
    known = Player.objects.create(first_name="Robert", last_name="Lefèvre", email="BOB@example.org")
    PlayerRating.objects.create(player=known, family="formula_de", mu=30, sigma=4,
                                rating=18.0, races=12)  # fmt: skip
    holder = Player.objects.create(first_name="Zoé", last_name="Autre", licence="LIC-0042")
    PlayerRating.objects.create(player=holder, family="formula_de", mu=40, sigma=2,
                                rating=34.0, races=30)  # fmt: skip

    page = english().get(f"/e/{sheet.slug}/entrants/").content.decode()

    assert rows(page)[0] == "1 Bob Lefèvre Bleu 18.00"
    assert "34.00" not in page
    assert not Registration.objects.filter(event=sheet, first_name="Bob").exclude(driver=None)


def confirm_in_order(event, signed_up: list[str], confirmed: list[str]) -> None:
    """Sign up ``signed_up`` (first names) in that order, then confirm them in the order of
    ``confirmed``: registration order is the order of confirmation (DOMAIN.md)."""
    for name in signed_up:
        services.registration_sign_up(event=event, first_name=name, last_name="Lefèvre",
                                      email=f"{name.lower()}@example.org")  # fmt: skip
    for name in confirmed:
        services.registration_confirm(token=last_token(f"{name.lower()}@example.org"))


ORDER = ["Cyril", "Ana", "Dan", "Bob"]  # neither sign-up, alphabetical nor reverse order


def test_equal_ratings_in_registration_order(open_event):
    """API.md, the psych sheet: best rating first, ties in registration order, that is the
    order of confirmation (here neither the order of sign-up nor of names)."""
    event = open_event(capacity=None)
    confirm_in_order(event, ["Ana", "Bob", "Cyril", "Dan"], ORDER)
    for number, name in enumerate(ORDER, 1):
        Registration.objects.filter(event=event, first_name=name).update(
            driver=rate(event, number, 7.5, 3)
        )
    names = [
        row.split()[1] for row in rows(english().get(f"/e/{event.slug}/entrants/").content.decode())
    ]
    assert names == ORDER


def test_the_unrated_in_registration_order(open_event):
    """API.md, the psych sheet: the unrated after the rated, in registration order (the
    order of confirmation)."""
    event = open_event(capacity=None)
    confirm_in_order(event, ["Ana", "Bob", "Cyril", "Dan", "Eve"], [*ORDER, "Eve"])
    Registration.objects.filter(event=event, first_name="Eve").update(driver=rate(event, 1, 2.0, 1))
    names = [
        row.split()[1] for row in rows(english().get(f"/e/{event.slug}/entrants/").content.decode())
    ]
    assert names == ["Eve", *ORDER]


def test_an_address_shared_by_two_gives_neither_their_rating(open_event, sign_up_confirmed):
    """Before check-in a registrant is rated as the one player holding the address they
    confirmed. An address two players hold, or two registrants share (a parent and a child,
    DOMAIN.md "Corrections"), tells no one's rating: it would lend one's rank to the other."""
    event = open_event(capacity=None)
    sign_up_confirmed(event, "bob@example.org", first_name="Bob")
    sign_up_confirmed(event, "famille@example.org", first_name="Julie")
    sign_up_confirmed(event, "famille@example.org", first_name="Léo")
    for first_name, email, rating in (("Robert", "bob@example.org", 18.0),
                                      ("Roberto", "BOB@example.org", 11.0),
                                      ("Julie", "Famille@Example.org", 25.0)):  # fmt: skip
        player = Player.objects.create(first_name=first_name, last_name="Lefèvre", email=email)
        PlayerRating.objects.create(player=player, family="formula_de", mu=30, sigma=4,
                                    rating=rating, races=12)  # fmt: skip
    page = english().get(f"/e/{event.slug}/entrants/").content.decode()
    assert rows(page) == ["1 Bob Lefèvre first race –", "2 Julie Lefèvre first race –",
                          "3 Léo Lefèvre first race –"]  # fmt: skip
