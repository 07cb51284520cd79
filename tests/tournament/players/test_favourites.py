"""Each race table's favourites on the event page and the room's projector (issue 22):
shown only where the event says so, once its tables are published; the API's event
settings carry both options."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from qualifying.services import draw_record
from races.grid.services import allocation_run
from tournament.access import Actor
from tournament.models import ApiToken, Driver, Player, PlayerRating
from tournament.registration.services import event_publish

pytestmark = pytest.mark.django_db


def english() -> Client:
    client = Client()
    client.cookies["django_language"] = "en"
    return client


@pytest.fixture
def raced(make_event, organiser):
    """A quick-rules event of four at two tables, [1, 2] and [3, 4], tables published;
    driver 2 (« Zoé <b>Girard</b> ») rated far above the others."""
    event = make_event(n_drivers=4, qualifying_mode="draw", laps=2)
    actor = Actor(user=organiser)
    for driver in Driver.objects.filter(championship=event.championship):
        driver.player = Player.objects.create(first_name=driver.first_name, last_name="L")
        driver.save()
    Driver.objects.filter(championship=event.championship, number=2).update(
        first_name="Zoé", last_name="<b>Girard</b>"
    )
    star = Driver.objects.get(championship=event.championship, number=2).player
    PlayerRating.objects.create(
        player=star, family="formula_de", mu=38, sigma=1.5, rating=33.5, races=20
    )
    draw_record(actor=actor, event=event, rolls={1: [1], 2: [2], 3: [3], 4: [4]})
    allocation_run(actor=actor, event=event, table_size=2)
    event_publish(actor=actor, event=event, allocation=True)
    return event


# Pages are cached under the database's change counters, which move at commit: each test
# below sets the event as it wants it before its first request.


def test_the_event_page_shows_no_favourites_by_default(raced):
    html = english().get(reverse("event", args=[raced.slug])).content.decode()
    assert "Favourites, for fun" not in html and 'data-table="1"' not in html


def test_the_event_page_shows_each_table_s_favourites_when_the_event_says_so(raced):
    raced.show_favourites = True
    raced.save()
    html = english().get(reverse("event", args=[raced.slug])).content.decode()
    assert "Favourites, for fun" in html
    table_one = html[html.index('data-table="1"') : html.index('data-table="2"')]
    assert table_one.index("Zoé &lt;b&gt;Girard&lt;/b&gt;") < table_one.index("Pilote1")
    assert "<b>Girard" not in html


def test_the_projector_gives_the_favourites_a_page_of_their_own_while_the_race_is_on(raced):
    raced.show_favourites = True
    raced.save()
    url = reverse("standings-projector", args=[raced.championship.slug])
    first = english().get(url).content.decode()
    assert "Page 1 of 2" in first and "Favourites of" not in first
    second = english().get(url + "?page=2").content.decode()
    assert "Favourites of Grand Prix d&#x27;Été, for fun" in second
    assert 'data-table="2"' in second


def test_once_the_results_are_out_the_projector_shows_the_standings_only(raced):
    raced.show_favourites = True
    raced.published_results = True
    raced.save()
    url = reverse("standings-projector", args=[raced.championship.slug])
    html = english().get(url + "?page=2").content.decode()
    assert "Page 1 of 1" in html and "Favourites of" not in html


def test_the_api_sets_and_answers_both_options(raced, organiser):
    client = Client(HTTP_AUTHORIZATION=f"Bearer {ApiToken.issue(organiser)}")
    response = client.patch(
        f"/api/v1/events/{raced.slug}",
        {"seed_by_rating": True, "show_favourites": True},
        content_type="application/json",
    )
    assert response.status_code == 200
    body = response.json()
    assert (body["seed_by_rating"], body["show_favourites"]) == (True, True)
    refused = client.patch(
        f"/api/v1/events/{raced.slug}", {"seed_by_rating": "yes"}, content_type="application/json"
    )
    assert refused.status_code == 400 and "seed_by_rating" in refused.json()["errors"]
