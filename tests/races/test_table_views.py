"""A race table's page for its referee (races/table_views.py), in the order of the game
(§4-0-1 stands, §5 configurations, §5-0-2 the start, §3-2-4 the table's weather draws): no
tap starts a race by mistake, the referee gives a name for the trail, and the trail tells
the start in local time and each draw once.

Fixtures (tests/races/conftest.py): tables of 3, [4, 2, 5] and [1, 6, 3]; ``phone`` is the
referee's phone holding the link (nobody logged in).
"""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import formats, timezone

from qualifying.services import draw_record
from races.grid.services import allocation_run
from races.grid.start import stands_set, table_start
from races.weather.services import race_weather_draw, table_weather_draw, table_weather_undo
from tests.races.test_views import flashes, table
from tournament.access import Actor
from tournament.models import Event

pytestmark = [pytest.mark.django_db, pytest.mark.keeps_context]

VARIABLE = 6


def sections(html: str) -> list[str]:
    return re.findall(r'<section id="([a-z-]+)"', html)


def stands_in_order(actor: Actor, event: Event, number: int) -> None:
    t = table(event, number)
    grid = t.slots.order_by("position").values_list("driver__number", flat=True)
    stands_set(actor=actor, table=t, stands={n: stand for stand, n in enumerate(grid, 1)})


def test_the_page_follows_the_order_of_the_game(phone, allocated, actor):
    """Stands, configurations, start, then the weather of the race: "roll for me" is never
    on the page before the start (§3-2-4: a draw ends a game turn of the race)."""
    Event.objects.filter(pk=allocated.pk).update(use_configurations=True)
    race_weather_draw(actor=actor, event=allocated, roll=VARIABLE)
    url = reverse("rtable", args=[table(allocated, 1).token])

    before = phone.get(url).content.decode()
    assert sections(before) == ["stands", "configurations", "start", "weather"]
    assert 'name="system"' not in before and 'id="id_roll"' not in before
    assert "Race weather: <strong>Variable</strong>" in before  # known to configure the cars

    Event.objects.filter(pk=allocated.pk).update(use_configurations=False)
    stands_in_order(actor, allocated, 1)
    table_start(actor=actor, table=table(allocated, 1))
    after = phone.get(url).content.decode()
    assert sections(after) == ["stands", "start", "weather"]
    assert after.index('id="started"') < after.index('id="weather-system"')


def test_one_tap_on_start_asks_first_then_the_confirmation_starts(phone, allocated, actor):
    race_weather_draw(actor=actor, event=allocated, roll=VARIABLE)
    stands_in_order(actor, allocated, 1)
    start = reverse("rtable-start", args=[table(allocated, 1).token])

    asked = phone.post(start)
    assert asked.status_code == 200 and 'class="confirm-step"' in asked.content.decode()
    assert table(allocated, 1).started_at is None
    # Issue 32, item 9: nothing is cancelled by a start; it says what changes for good.
    assert "Once the race starts:" in asked.content.decode()
    assert "This will undo" not in asked.content.decode()

    done = phone.post(start, {"confirmed": "1"}, follow=True)
    assert flashes(done) == [
        "The race has started at Table 1: stands and configurations are locked."
    ]
    assert table(allocated, 1).started_at is not None


def test_the_start_waits_for_the_race_weather_on_the_page(phone, allocated, actor):
    """§3-0-1: the weather decides the cars' configuration, so it is drawn before the start."""
    stands_in_order(actor, allocated, 1)
    token = table(allocated, 1).token
    html = phone.get(reverse("rtable", args=[token])).content.decode()
    assert 'id="start-weather"' in html
    assert re.search(r'id="start-race"\s+disabled', html)

    refused = phone.post(reverse("rtable-start", args=[token]), {"confirmed": "1"}, follow=True)
    assert flashes(refused) == [
        "The race weather is not drawn yet: the overall pole draws it (§2-0-1) before the "
        "race starts at Table 1."
    ]
    assert table(allocated, 1).started_at is None


def test_a_quick_rules_table_starts_without_stands(phone, make_event, actor):
    """Quick rules: « l'arrêt au stand » is an optional rule the text leaves out; the
    standard car is every driver's configuration; the weather (also optional) is not awaited."""
    car = {"tyres": 7, "brakes": 3, "gearbox": 3, "body": 3, "engine": 3, "road_holding": 3}
    event = make_event(n_drivers=4, qualifying_mode="draw", laps=2, use_configurations=True,
                       standard_configuration={**car, "stand_points": 0})  # fmt: skip
    draw_record(actor=actor, event=event, rolls={1: [17], 2: [3], 3: [11], 4: [8]})
    allocation_run(actor=actor, event=event, table_size=4)
    token = table(event, 1).token

    html = phone.get(reverse("rtable", args=[token])).content.decode()
    assert "stands" not in sections(html) and "Still missing" not in html
    done = phone.post(reverse("rtable-start", args=[token]), {"confirmed": "1"}, follow=True)
    assert flashes(done) == [
        "The race has started at Table 1: stands and configurations are locked."
    ]


def test_the_race_referee_gives_a_name_and_the_trail_says_it(phone, allocated, actor):
    token = table(allocated, 1).token
    named = phone.post(
        reverse("rtable-name", args=[token]), {"name": " Zoé  Arbitre "}, follow=True
    )
    assert flashes(named) == ["Your changes are recorded as Zoé Arbitre."]
    assert 'value="Zoé Arbitre"' in named.content.decode()

    phone.post(reverse("rtable-stand", args=[token, 4]), {"stand": "3"})

    history = phone.get(reverse("rtable-history", args=[token])).content.decode()
    assert "Zoé Arbitre (referee link of Table 1)" in history
    assert "gave stand 3 to 4 Hugo Moreau" in history


def test_the_trail_tells_the_start_in_local_time_words(phone, allocated, actor):
    race_weather_draw(actor=actor, event=allocated, roll=VARIABLE)
    stands_in_order(actor, allocated, 1)
    token = table(allocated, 1).token
    phone.post(reverse("rtable-start", args=[token]), {"confirmed": "1"})
    started = timezone.localtime(table(allocated, 1).started_at)

    html = phone.get(reverse("rtable-history", args=[token])).content.decode()
    history = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))  # the words a person reads
    assert f"started the race at {formats.time_format(started, 'H:i')}" in history
    assert not re.search(r"\d\d:\d\d:\d\d\.\d{6}", history)  # no raw timestamp
    assert "+00:00" not in history


def test_a_quick_car_is_typed_without_stand_points(phone, make_event, actor):
    """Quick rules point 1: the six parts carry the 22 points; there is no stand to keep any."""
    event = make_event(n_drivers=2, qualifying_mode="draw", laps=2, use_configurations=True)
    draw_record(actor=actor, event=event, rolls={1: [17], 2: [3]})
    allocation_run(actor=actor, event=event, table_size=2)
    token = table(event, 1).token

    html = phone.get(reverse("rtable", args=[token])).content.decode()
    assert 'name="c2-tyres"' in html and 'name="c2-stand_points"' not in html
    car = {"tyres": 7, "brakes": 3, "gearbox": 3, "body": 3, "engine": 3, "road_holding": 3}
    typed = {f"c2-{part}": str(points) for part, points in car.items()}
    saved = phone.post(reverse("rtable-configuration", args=[token, 2]), typed, follow=True)
    assert flashes(saved) == ["Configuration of driver 2 saved."]
    assert table(event, 1).slots.get(driver__number=2).configuration.stand_points == 0


def test_french_colons_keep_their_non_breaking_space(allocated, actor):
    """Issue 32, item 8: "Météo de la course: Variable", "annulé: « … »" glued the colon to
    the word (and let a line break before it) on the race page and its history. Every
    colon of the French words follows a non-breaking space."""
    race_weather_draw(actor=actor, event=allocated, roll=VARIABLE)
    stands_in_order(actor, allocated, 1)
    started = table_start(actor=actor, table=table(allocated, 1))
    table_weather_draw(actor=actor, table=started, roll=VARIABLE)
    table_weather_undo(actor=actor, table=started, reason="dé tombé")
    french = Client()
    french.cookies["django_language"] = "fr"
    token = table(allocated, 1).token
    for url in (reverse("rtable", args=[token]), reverse("rtable-history", args=[token])):
        html = french.get(url).content.decode()
        words = re.sub(
            r"\s+", " ", re.sub(r"<(script|style)\b.*?</\1>|<[^>]+>", " ", html, flags=re.S)
        ).replace("d&#x27;Été", "")  # the event's name, as typed
        assert "Météo de la course" in words or "Historique" in words, url
        glued = re.findall(r".{0,60}[^\s\u00a0\d]:(?= )", words)
        assert glued == [], (url, glued)
        straight = re.findall(r"\S*(?:'|&#x27;)\S*", words)  # « l’arbitre », never « l'arbitre »
        assert straight == [], (url, re.findall(r".{0,50}(?:'|&#x27;).{0,30}", words))
