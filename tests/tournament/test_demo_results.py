"""load_demo's race results: two events of the demo championship, every table confirmed.

What the demo must show (DOMAIN.md "Race result and retirements", "Points"): every
retirement cause, drivers who did not start, points for finishers only, and championship
standings with a countback tie (equal points, the driver with a 1st place ahead).
"""

from __future__ import annotations

import io
from collections import Counter

import pytest
from django.core.management import call_command
from django.urls import reverse

from qualifying.models import DrawRoll, QualifyingSession
from races.models import (
    GridSlot,
    RaceResult,
    RaceTable,
    RaceWeather,
    ResultLine,
    ResultStatus,
    RetirementCause,
)
from races.sheets.selectors import race_sheets
from standings.selectors import standings_for, team_standings_for
from tests.template_db import empty_database
from tournament.models import Championship, Entry, Event, Sanction

SPRING, SUMMER = "demo-grand-prix-de-printemps", "demo-grand-prix-d-ete"


def snapshot() -> dict[str, object]:
    """Everything the demo writes for race results, to compare two loads."""
    return {
        "events": list(Event.objects.order_by("pk").values_list("pk", "slug", "published_results")),
        "tables": list(
            RaceTable.objects.order_by("pk").values_list(
                "pk", "event_id", "number", "result_status"
            )
        ),
        "results": list(RaceResult.objects.order_by("pk").values_list("pk", "table_id", "version")),
        "result_history": RaceResult.history.count(),
        "table_history": RaceTable.history.count(),
        "lines": list(
            ResultLine.objects.order_by("pk").values_list(
                "pk", "event_id", "driver_id", "position", "rank", "status", "cause", "points"
            )
        ),
        "entries": Entry.objects.count(),
        "slots": GridSlot.objects.count(),
        "draws": list(DrawRoll.objects.order_by("pk").values_list("pk", "driver_id", "rolls")),
    }


pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def demo(django_db_setup, django_db_blocker):
    """The demo loaded twice, committed once for the module and emptied after its last test
    (each test's own writes are rolled back): two loads are seconds, not a test's setup."""
    with django_db_blocker.unblock():
        call_command("load_demo", "--quiet")
        first = snapshot()
        out = io.StringIO()
        call_command("load_demo", stdout=out)
        try:
            yield {"first": first, "second": snapshot(), "output": out.getvalue()}
        finally:
            empty_database()


def test_loading_twice_changes_nothing(demo):
    assert demo["first"] == demo["second"]


def test_two_events_of_one_championship_every_table_confirmed_and_published(demo):
    championship = Championship.objects.get(slug="demo")
    events = list(Event.objects.filter(championship=championship).order_by("date"))
    assert [e.slug for e in events] == [SPRING, SUMMER]
    assert events[0].date < events[1].date
    for event in events:
        assert event.published_results and event.published_allocation
        assert Entry.objects.filter(event=event, checked_in=True).count() == 24
        tables = RaceTable.objects.filter(event=event)
        assert tables.count() == 3
        assert set(tables.values_list("result_status", flat=True)) == {ResultStatus.CONFIRMED}
        assert RaceResult.objects.filter(table__event=event).count() == 3
        assert all(
            r.confirmed_at is not None for r in RaceResult.objects.filter(table__event=event)
        )
        # One line per driver of the event, positions 1..8 at each table.
        assert ResultLine.objects.filter(event=event).count() == 24
        for table in tables:
            positions = sorted(table.result_lines.values_list("position", flat=True))
            assert positions == list(range(1, 9))


def test_the_summer_grid_comes_from_the_d20_draw(demo):
    summer = Event.objects.get(slug=SUMMER)
    assert summer.qualifying_mode == Event.QualifyingMode.DRAW
    assert summer.circuit.slug != Event.objects.get(slug=SPRING).circuit.slug
    assert not QualifyingSession.objects.filter(event=summer).exists()
    assert DrawRoll.objects.filter(event=summer, source="physical").count() == 24
    assert RaceWeather.objects.get(event=summer).weather == "sun"
    pole = GridSlot.objects.get(event=summer, table__number=1, position=1)
    assert pole.driver.number == 7  # the lowest roll (1)
    # The draw puts one driver of each team at every table: no swap needed.
    assert not GridSlot.objects.filter(event=summer, swapped=True).exists()


def test_no_duplicates(demo):
    assert Championship.objects.filter(slug="demo").count() == 1
    # The other games' demo events live in their own championship (races/games/demo.py).
    demo_events = Event.objects.filter(championship__slug="demo")
    assert demo_events.count() == 2
    counts = Counter(ResultLine.objects.values_list("event_id", "driver_id"))
    assert set(counts.values()) == {1}
    assert (
        RaceResult.objects.filter(table__event__in=demo_events).count()
        == RaceTable.objects.filter(event__in=demo_events).count()
        == 6
    )
    assert Counter(DrawRoll.objects.values_list("event_id", "driver_id")).most_common(1)[0][1] == 1


def formula_de_lines():
    """The Formula Dé demo's result lines (the other games' demo has its own championship)."""
    return ResultLine.objects.filter(event__championship__slug="demo")


def test_every_cause_appears_and_a_driver_does_not_start(demo):
    causes = set(formula_de_lines().filter(status="retired").values_list("cause", flat=True))
    assert causes == set(RetirementCause.values)
    other = formula_de_lines().get(cause="other")
    assert other.note == "Disqualification"
    assert formula_de_lines().filter(status="dns").exists()
    assert not formula_de_lines().filter(status="dns").exclude(cause="").exists()


def test_only_finishers_score(demo):
    assert not formula_de_lines().filter(points__gt=0).exclude(status="finished").exists()
    assert not formula_de_lines().exclude(status="finished").exclude(points=0).exists()
    # The scale (25, 18, 15, …) by position at the table: every table winner has 25.
    winners = formula_de_lines().filter(position=1)
    assert winners.count() == 6
    assert set(winners.values_list("points", flat=True)) == {25}


def test_the_standings_hold_a_countback_tie(demo):
    standings = standings_for(championship=Championship.objects.get(slug="demo"))
    assert len(standings.events) == 2  # both published
    assert len(standings.lines) == 24
    pairs = [
        (a, b)
        for a, b in zip(standings.lines, standings.lines[1:], strict=False)
        if a.points == b.points and a.rank < b.rank
    ]
    assert pairs, "no two drivers equal on points with different ranks"
    for better, worse in pairs:
        assert better.countback > worse.countback  # more 1sts, or as many and more 2nds, …

    # The designed tie: Camille Roux (11: a 1st and a 6th) ahead of Élodie Lefèvre
    # (1: a 2nd and a 3rd), 33 points each.
    by_number = {line.driver.number: line for line in standings.lines}
    roux, lefevre = by_number[11], by_number[1]
    assert roux.points == lefevre.points == 33
    assert roux.rank + 1 == lefevre.rank
    assert roux.countback[0] == 1 and lefevre.countback[0] == 0
    # And a tie countback cannot separate: drivers 13 and 20 share their rank.
    assert by_number[13].points == by_number[20].points == 31
    assert by_number[13].rank == by_number[20].rank
    # The team standings add up the drivers' points.
    teams = team_standings_for(championship=Championship.objects.get(slug="demo"))
    assert sum(t.points for t in teams) == sum(line.points for line in standings.lines)


def test_the_demo_prints_every_championship_and_event(demo):
    """make run prints the links of every demo championship, the other games' one too."""
    output = demo["output"]
    for championship in Championship.objects.all():
        assert championship.name in output
        assert reverse("standings", args=[championship.slug]) in output
        for event in championship.events.all():
            assert f"/e/{event.slug}/desk/" in output
            assert reverse("event", args=[event.slug]) in output
    assert Championship.objects.filter(slug="demo-club").exists()
    assert output.count("/r/") == RaceTable.objects.count() > 6


def test_the_demo_shows_a_redrawn_race_weather_and_a_sanction(demo, client):
    """The race weather of the spring event was drawn twice (§2-0-1: the second draw with
    race control's reason, both listed), and a driver was warned (§1-2-3): the warning shows
    on the results, the driver's page and the race sheet, the standings unchanged."""
    spring = Event.objects.get(slug=SPRING)
    draws = list(spring.race_weather_draws.order_by("number").values_list("roll", "reason"))
    assert draws == [(17, ""), (6, "Le dé du poleman est tombé de la table : tirage recommencé.")]
    assert RaceWeather.objects.get(event=spring).weather == "variable"
    (sanction,) = Sanction.objects.filter(event=spring)
    assert (sanction.kind, sanction.driver.number, sanction.in_force) == ("warning", 8, True)
    client.cookies["django_language"] = "fr"
    results = client.get(reverse("event-results", args=[SPRING])).content.decode()
    assert "Sanction\u00a0: Avertissement" in results
    driver = client.get(reverse("driver", args=["demo", 8])).content.decode()
    assert "A rejoué sans attendre l&#x27;annonce « Levier » du commissaire." in driver
    table = GridSlot.objects.get(event=spring, driver__number=8).table
    (data,) = race_sheets(event=spring, tables=[table])
    assert [s.kind for s in data.sanctions] == ["warning"]
    assert len(data.race_draws) == 2


def test_the_demo_league_counts_two_evenings_of_three_clubs(demo):
    """make run shows a league of three demo clubs with two published rounds each (issue 52),
    loaded twice without a second league, round or result."""
    from standings.leagues.matching import league_matches
    from standings.leagues.models import League, Round

    (league,) = League.objects.filter(slug="demo-coupe-du-sud")
    rounds = Round.objects.filter(league=league, status=Round.Status.COUNTED)
    clubs = [
        r.event.championship.club.slug for r in rounds.select_related("event__championship__club")
    ]
    assert sorted(clubs) == [
        "club-demo",
        "club-demo",
        "demo-lyon",
        "demo-lyon",
        "demo-nice",
        "demo-nice",
    ]
    assert all(r.event.published_results for r in rounds)
    # Two people race for Nice and Lyon under one name: proposed, never joined by themselves.
    found = league_matches(league=league)
    assert sorted(m.drivers[-1].name.casefold() for m in found) == ["léa girard", "tom roux"]
