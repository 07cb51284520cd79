"""A player's career page (standings/careers/views.py): both seasons, each event's
qualifying, table place and points, the rating chart in SVG without JavaScript; what is not
published stays with the organisers; a merged player leads to the one they were merged into.
"""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from tournament.models import Player, RatingPoint

pytestmark = pytest.mark.django_db


def english() -> Client:
    client = Client()
    client.cookies["django_language"] = "en"
    return client


def page(client: Client, player: Player) -> str:
    response = client.get(reverse("career", args=[player.pk]))
    assert response.status_code == 200
    return response.content.decode()


def svg(html: str) -> str:
    found = re.search(r"<svg .*?</svg>", html, re.S)
    assert found, "no chart"
    return found[0]


def test_the_public_sees_both_published_seasons_and_the_chart(seasons):
    html = page(english(), seasons.player)
    assert "Élodie Lefèvre" in html
    main = html.split("<main", 1)[1]  # the page's own text (the header has the time served)
    assert main.index("2027") < main.index("2026")  # latest season first
    assert "Grand Prix d&#x27;Été" in html and "Ouverture 2027" in html
    assert "Manche secrète" not in html  # raced, not published
    # 2026: first in qualifying (10 throws in 1:00.01), winner of table 1, 10 points.
    row = next(r for r in re.findall(r"<tr class=.*?</tr>", html, re.S) if "Grand Prix" in r)
    cells = [re.sub(r"<[^>]+>", " ", c).split() for c in re.findall(r"<td.*?</td>", row, re.S)]
    assert cells[1] == ["1", "11", "·", "1:00.01"]  # 10 throws + 1 full minute (§1-1-13)
    assert cells[2:] == [["1"], ["1"], ["10"]]
    assert "d20 draw" in html  # the quick rules' qualifying is the draw


def test_the_chart_is_drawn_on_the_server_accessible_and_without_script(seasons):
    html = page(english(), seasons.player)
    chart = svg(html)
    assert "<script" not in html.split("<footer")[0].split("<main")[1]
    assert 'role="img"' in chart and "<title" in chart and "<desc" in chart
    assert "Rating of Élodie Lefèvre in Formula Dé after each table" in chart
    # Two published tables: the rating rose from 4.0 to 9.4; the unpublished 12.0 is left out.
    assert "After 2 tables: rating from 4.0 to 9.4." in chart
    assert chart.count("<circle") == 2
    assert "12.0" not in html
    assert re.search(r'<path d="M[\d.]+,[\d.]+ L[\d.]+,[\d.]+" class="rating-line"', chart)


def test_the_organiser_also_sees_the_unpublished_event_and_its_rating(seasons, organiser):
    client = english()
    client.force_login(organiser)
    html = page(client, seasons.player)
    assert "Manche secrète" in html and "not published" in html
    assert "After 3 tables: rating from 4.0 to 12.0." in svg(html)


def test_labels_follow_the_reader_s_language(seasons):
    client = Client()
    client.cookies["django_language"] = "fr"
    html = page(client, seasons.player)
    assert "Cote · Formula Dé" in html and "9,4" in html  # the decimal comma
    assert 'cy="' in svg(html) and not re.search(r'(x|y)="\d+,\d', svg(html))  # coordinates
    # Issue 32, item 8: the quick rules' qualifying said "d20 draw" in English.
    assert "tirage au d20" in html and "d20 draw" not in html


def test_hostile_names_are_escaped_in_the_page_and_the_chart(seasons):
    Player.objects.filter(pk=seasons.player.pk).update(first_name="<script>alert(1)</script>")
    RatingPoint.objects.filter(event=seasons.gp).update(table_number=1)
    seasons.gp.name = "</title><script>x</script>"
    seasons.gp.save()
    html = page(english(), seasons.player)
    assert "<script>alert(1)" not in html and "<script>x" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in svg(html)


def test_a_merged_player_leads_to_the_one_they_were_merged_into(seasons):
    twin = Player.objects.create(
        first_name="Elodie", last_name="Lefevre", merged_into=seasons.player
    )
    response = english().get(reverse("career", args=[twin.pk]))
    assert response.status_code == 302
    assert response["Location"] == reverse("career", args=[seasons.player.pk])


def test_an_unknown_player_is_a_404(db):
    assert english().get(reverse("career", args=[987654])).status_code == 404


def test_a_player_with_nothing_published_yet_has_an_empty_career(db):
    newcomer = Player.objects.create(first_name="Zoé", last_name="Girard")
    html = page(english(), newcomer)
    assert "No published result yet." in html and "<svg" not in html


def test_the_public_page_is_served_from_the_cache_until_a_rating_changes(seasons):
    client = english()
    first = client.get(reverse("career", args=[seasons.player.pk]))
    assert first.has_header("ETag")
    again = client.get(
        reverse("career", args=[seasons.player.pk]), HTTP_IF_NONE_MATCH=first["ETag"]
    )
    assert again.status_code == 304


def test_the_driver_page_links_to_the_career(seasons):
    html = english().get(reverse("driver", args=[seasons.first.slug, 1])).content.decode()
    assert reverse("career", args=[seasons.player.pk]) in html
