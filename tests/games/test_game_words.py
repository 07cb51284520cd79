"""No Formula Dé word on another game's pages (issue "Every game's evening", item 4): the
tables page's qualifying order (§1-3-2) and race-weather box, the results desk's race
weather, the day's results note (§21-1-2) and the event form's circuit and laps are Formula
Dé's; the templates read the game's declaration, and Formula Dé's pages keep them."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.games.conftest import allocate, put, table_api
from tournament.games import registry
from tournament.models import Event

pytestmark = pytest.mark.django_db

HEAT = "Heat: Pedal to the Metal"
#: Formula Dé's words, in English and in French (the default language).
QUALIFYING_ORDER = ("§1-3-2", "classement général des essais")
RACE_WEATHER = ('id="race-weather"', "Météo de la course")
FINISHERS = ("§21-1-2", "Seuls les pilotes arrivés marquent des points")
QUALIFYING_SHEETS = "feuilles de table d’essais"


def _evening(make_event, org_api, **fields) -> Event:
    """An event of three drivers, checked in, on one table, its result confirmed."""
    event = make_event(3, **fields)
    spec = registry.spec_of(event.game)
    if not spec.circuit:
        event.circuit = None  # the game's own track
        event.save(update_fields=["circuit"])
    slug = event.slug
    assert org_api.post(f"/events/{slug}/checkin", {"numbers": [1, 2, 3]}).status_code == 200
    if "draw" in spec.steps(event):
        assert org_api.post(f"/events/{slug}/draw", {}).status_code < 300
    grid = [line["driver"]["number"] for line in allocate(org_api, slug, 4)[0]["grid"]]
    body = {"version": 0, "finish": grid, "submit": True}
    answer = put(table_api(event, 1), f"/events/{slug}/tables/1/result", body)
    assert answer.status_code == 200, answer.content
    confirmed = org_api.post(f"/events/{slug}/tables/1/confirm", {"version": 1})
    assert confirmed.status_code == 200, confirmed.content
    return event


def _pages(client, event: Event) -> dict[str, str]:
    urls = {
        "tables": reverse("allocation", args=[event.slug]),
        "results desk": reverse("results-desk", args=[event.slug]),
        "results": reverse("event-results", args=[event.slug]),
        "settings": reverse("event-settings", args=[event.slug]),
    }
    pages = {}
    for name, url in urls.items():
        response = client.get(url)
        assert response.status_code == 200, (name, response.status_code)
        pages[name] = response.content.decode()
    return pages


def test_a_heat_evening_shows_no_formula_de_word(client, organiser, make_event, org_api):
    event = _evening(make_event, org_api, slug="heat", game="finishing_order", game_name=HEAT)
    client.force_login(organiser)
    pages = _pages(client, event)
    for word in QUALIFYING_ORDER:
        assert word not in pages["tables"], word
    assert QUALIFYING_SHEETS not in pages["tables"]
    for word in RACE_WEATHER:
        assert word not in pages["tables"], word
        assert word not in pages["results desk"], word
    for word in FINISHERS:
        assert word not in pages["results"], word
    assert "Chaque table est classée dans l’ordre d’arrivée" in pages["results"]
    # The form neither shows nor reads a circuit or its laps (the game's own tracks).
    assert 'name="circuit"' not in pages["settings"]
    assert 'name="laps"' not in pages["settings"]
    saved = client.post(
        reverse("event-settings", args=[event.slug]),
        {"name": "Heat du jeudi", "date": "2026-07-14", "table_size": 4, "language": "fr",
         "game_name": HEAT, "grid": "rating", "laps": "7", "circuit": "1"},
    )  # fmt: skip
    assert saved.status_code == 302, saved.content.decode()[:2000]
    event.refresh_from_db()
    assert event.name == "Heat du jeudi" and event.circuit_id is None and event.laps != 7


def test_the_new_event_form_hides_circuit_and_laps_for_a_game_without_a_circuit(
    client, organiser, championship
):
    client.force_login(organiser)
    url = reverse("event-new", args=[championship.slug])
    html = client.get(url).content.decode()
    # The page's script shows them to the games run on a circuit only.
    for name in ("circuit", "laps"):
        start = html.index(f'name="{name}"')
        games = html[html.rindex("data-games=", 0, start) :].split('"')[1].split()
        assert "formula_de" in games and "finishing_order" not in games, (name, games)
    chosen = client.post(url, {"game": "finishing_order"}).content.decode()
    assert 'name="circuit"' not in chosen and 'name="laps"' not in chosen


def test_formula_de_s_pages_keep_their_words(client, organiser, make_event, org_api):
    event = _evening(make_event, org_api, slug="gp", qualifying_mode="draw", laps=1)
    client.force_login(organiser)
    pages = _pages(client, event)
    assert "§1-3-2" in pages["tables"] and 'id="race-weather"' in pages["tables"]
    assert QUALIFYING_SHEETS in pages["tables"]
    assert 'id="race-weather"' in pages["results desk"]
    for word in FINISHERS:
        assert word in pages["results"], word
    assert 'name="circuit"' in pages["settings"] and 'name="laps"' in pages["settings"]
