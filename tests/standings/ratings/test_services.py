"""Ratings computed from the results race control confirms (standings/ratings/services.py,
tasks.py, soon.py): what counts, the fixed order, a correction recomputed to exactly what a
fresh computation gives, idempotence, and the recompute asked for after each commit.

Everything goes through the services race control uses; the recompute runs as the task
does, inline after the commit (``django_capture_on_commit_callbacks``).
"""

from __future__ import annotations

import datetime
from io import StringIO

import pytest
from django.core.management import call_command

from races.games.table_sheet.services import game_result_save
from races.grid.services import allocation_run
from races.models import RaceTable, ResultLine
from races.results.services import result_confirm
from standings.ratings import rules
from standings.ratings.services import ratings_recompute
from tournament.models import Entry, Event, Player, PlayerRating, RatingPoint
from tournament.registration.services import event_publish
from tournament.signals import results_changed_soon

pytestmark = pytest.mark.django_db


def ratings_by_number(season) -> dict[int, tuple]:
    """Each driver's rating (by number), and their career's points without event ids."""
    out = {}
    for number, driver in season.drivers.items():
        rating = PlayerRating.objects.filter(player=driver.player, family="formula_de").first()
        points = RatingPoint.objects.filter(player=driver.player).order_by("seq")
        out[number] = (
            rating and (rating.mu, rating.sigma, rating.rating, rating.races),
            [(p.seq, p.table_number, p.place, p.mu, p.sigma, p.rating) for p in points],
        )
    return out


def test_each_confirmed_table_of_a_published_event_is_a_match(
    season, django_capture_on_commit_callbacks
):
    """Table 1: 1, 2, 3, 4; table 2: 5 wins, 7 retires on lap 2, 6 does not start."""
    s = season(drivers=7)
    with django_capture_on_commit_callbacks(execute=True):
        event = s.event(day=1, table_size=4)
        s.confirm(event, 1, [3, 1, 4, 2])
        s.confirm(event, 2, [5], retired=[{"driver": 7, "cause": "engine", "lap": 2}], dns=[6])
    rated = {r.player_id: r for r in PlayerRating.objects.filter(family="formula_de")}
    assert set(rated) == {s.player(n).pk for n in (1, 2, 3, 4, 5, 7)}  # 6 did not start
    assert all(r.races == 1 for r in rated.values())
    expected = rules.rate(
        [
            rules.Table(event.date, event.pk, 1, tuple(
                rules.Seat(s.player(n).pk, place) for place, n in enumerate([3, 1, 4, 2], 1))),
            rules.Table(event.date, event.pk, 2, (
                rules.Seat(s.player(5).pk, 1), rules.Seat(s.player(7).pk, 2))),
        ]
    ).skills  # fmt: skip
    for player, skill in expected.items():
        assert (rated[player].mu, rated[player].sigma) == (skill.mu, skill.sigma)
        assert rated[player].rating == skill.rating
    assert RatingPoint.objects.count() == 6
    assert rated[s.player(3).pk].rating > rated[s.player(2).pk].rating


def test_who_wins_every_table_of_two_seasons_ranks_above_who_is_last_at_every_table(
    season, django_capture_on_commit_callbacks
):
    first = season("s2026", drivers=4)
    players = [first.player(n) for n in (1, 2, 3, 4)]
    with django_capture_on_commit_callbacks(execute=True):
        for day, middle in ((1, [2, 3]), (8, [3, 2])):
            first.confirm(first.event(day=day, table_size=4), 1, [1, *middle, 4])
        second = season("s2027", drivers=4, players=players)  # the same people a year later
        for day, middle in ((15, [2, 3]), (22, [3, 2])):
            second.confirm(second.event(day=day, table_size=4), 1, [1, *middle, 4])
    ranking = list(PlayerRating.objects.filter(family="formula_de").order_by("-rating"))
    assert ranking[0].player == players[0] and ranking[-1].player == players[3]
    assert [r.races for r in ranking] == [4, 4, 4, 4]
    seqs = RatingPoint.objects.filter(player=players[0]).values_list("seq", flat=True)
    assert sorted(seqs) == [1, 2, 3, 4]


def test_only_published_results_count(season, actor, django_capture_on_commit_callbacks):
    s = season(drivers=4)
    with django_capture_on_commit_callbacks(execute=True):
        event = s.event(day=1, table_size=4, published=False)
        s.confirm(event, 1, [1, 2, 3, 4])
    assert not PlayerRating.objects.exists()
    with django_capture_on_commit_callbacks(execute=True):
        event_publish(actor=actor, event=event, results=True)
    assert PlayerRating.objects.filter(family="formula_de").count() == 4
    with django_capture_on_commit_callbacks(execute=True):
        event_publish(actor=actor, event=event, results=False)
    assert not PlayerRating.objects.exists() and not RatingPoint.objects.exists()


def test_a_reopened_result_confirmed_in_another_order_rates_as_if_entered_so_first(
    season, actor, django_capture_on_commit_callbacks
):
    """The issue's "done when": reopening a result and confirming a different order gives
    exactly the ratings of a fresh championship where that order was entered first."""
    corrected = season("corrige", drivers=5)
    with django_capture_on_commit_callbacks(execute=True):
        early = corrected.event(day=1, table_size=5)
        corrected.confirm(early, 1, [1, 2, 3, 4, 5])
        later = corrected.event(day=8, table_size=5)
        corrected.confirm(later, 1, [2, 1, 5], retired=[{"driver": 4, "cause": "body", "lap": 1}],
                          dns=[3])  # fmt: skip
        corrected.reopen(early, 1)
        corrected.confirm(early, 1, [5, 3], retired=[{"driver": 1, "cause": "engine", "lap": 3}],
                          dns=[2, 4])  # fmt: skip
    after_correction = ratings_by_number(corrected)
    assert after_correction[5][0][3] == 2  # both tables counted
    with django_capture_on_commit_callbacks(execute=True):  # out of the ratings
        for event in (early, later):
            event_publish(actor=actor, event=event, results=False)
    fresh = season("frais", drivers=5)
    with django_capture_on_commit_callbacks(execute=True):
        first = fresh.event(day=1, table_size=5)
        fresh.confirm(first, 1, [5, 3], retired=[{"driver": 1, "cause": "engine", "lap": 3}],
                      dns=[2, 4])  # fmt: skip
        second = fresh.event(day=8, table_size=5)
        fresh.confirm(second, 1, [2, 1, 5], retired=[{"driver": 4, "cause": "body", "lap": 1}],
                      dns=[3])  # fmt: skip
    assert ratings_by_number(fresh) == after_correction


def test_the_recompute_is_idempotent(season, django_capture_on_commit_callbacks):
    s = season(drivers=6)
    with django_capture_on_commit_callbacks(execute=True):
        s.confirm(s.event(day=1, table_size=3), 1, [3, 2, 1])
    before = ratings_by_number(s)
    assert ratings_recompute(game="formula_de") == 3
    assert ratings_recompute(game="formula_de") == 3
    assert ratings_by_number(s) == before
    assert PlayerRating.objects.count() == 3 and RatingPoint.objects.count() == 3
    assert ratings_recompute(game="rallyman") == 0  # another family: nothing of this one


def test_an_unknown_game_is_refused():
    with pytest.raises(ValueError, match="unknown game"):
        ratings_recompute(game="monopoly")


def test_a_merge_of_players_asks_every_family_again(season, django_capture_on_commit_callbacks):
    """What the players' merge calls (``results_changed_soon()``, no game: all of them):
    the two drivers' races become one player's, the merged player's rating goes."""
    s = season(drivers=4)
    with django_capture_on_commit_callbacks(execute=True):
        s.confirm(s.event(day=1, table_size=2), 1, [1, 2])
        s.confirm(s.event(day=8, table_size=2), 1, [2, 1])
    kept, merged = s.player(1), s.player(3)
    with django_capture_on_commit_callbacks(execute=True):
        s.drivers[3].player = kept
        s.drivers[3].save(update_fields=["player"])
        Player.objects.filter(pk=merged.pk).update(merged_into=kept)
        results_changed_soon()
    assert not PlayerRating.objects.filter(player=merged).exists()
    assert PlayerRating.objects.get(player=kept, family="formula_de").races == 2


def test_the_ratings_command_computes_them_here_and_now(season):
    """Results confirmed before the ratings existed (nothing asked for them): the command."""
    s = season(drivers=2)
    s.confirm(s.event(day=1, table_size=2), 1, [2, 1])  # no commit: nothing computed yet
    assert not PlayerRating.objects.exists()
    out = StringIO()
    call_command("ratings", "--game", "formula_de", stdout=out)
    assert out.getvalue() == "formula_de: 2 players rated.\n"
    assert (
        PlayerRating.objects.get(player=s.player(2)).rating
        > 0
        > (PlayerRating.objects.get(player=s.player(1)).rating)
    )


def stored(game: str = "formula_de") -> tuple[list[tuple], list[tuple]]:
    """The family's points (with their rows' ids) and ratings, as stored."""
    points = RatingPoint.objects.filter(family=game).order_by("seq", "place", "player_id")
    ratings = PlayerRating.objects.filter(family=game).order_by("player_id")
    return (
        list(points.values_list("pk", "seq", "event_id", "table_number", "player_id", "place",
                                "mu", "sigma", "rating")),
        list(ratings.values_list("pk", "player_id", "mu", "sigma", "rating", "races")),
    )  # fmt: skip


def without_ids(rows: list[tuple]) -> list[tuple]:
    return [row[1:] for row in rows]


@pytest.fixture
def three_events(season, django_capture_on_commit_callbacks):
    """Six players, three events of two tables each, rated as each was confirmed."""
    s = season(drivers=6)
    with django_capture_on_commit_callbacks(execute=True):
        for day, finish in ((1, [3, 1, 2]), (8, [1, 2, 3]), (15, [2, 3, 1])):
            event = s.event(day=day, table_size=3)
            s.confirm(event, 1, finish)
            s.confirm(event, 2, [n + 3 for n in finish])
    return s


def test_a_recompute_keeps_the_points_before_the_first_changed_table(
    three_events, django_capture_on_commit_callbacks
):
    """DOMAIN.md: a correction recomputes from the first table it changes. The second
    event's second table corrected: the points of the four tables before it stay the same
    rows; the rest are what a computation from the start gives, to the bit."""
    s = three_events
    points, _ratings = stored()
    with django_capture_on_commit_callbacks(execute=True):
        s.reopen(s.events[1], 2)
        s.confirm(s.events[1], 2, [6, 5, 4])
    after, ratings = stored()
    kept = [point for point in points if point[1] <= 3]
    assert after[: len(kept)] == kept  # same rows, untouched
    assert after[len(kept) :] != points[len(kept) :]
    assert all(point[0] not in {p[0] for p in points} for point in after[len(kept) :])
    assert ratings_recompute(game="formula_de", full=True) == 6
    fresh_points, fresh_ratings = stored()
    assert without_ids(fresh_points) == without_ids(after)
    assert without_ids(fresh_ratings) == without_ids(ratings)


def test_a_recompute_that_finds_nothing_changed_writes_nothing(three_events):
    before = stored()
    assert ratings_recompute(game="formula_de") == 6
    assert stored() == before  # the very same rows


def test_the_latest_event_published_rates_its_own_tables_only(
    three_events, actor, django_capture_on_commit_callbacks
):
    s = three_events
    with django_capture_on_commit_callbacks(execute=True):
        late = s.event(day=22, table_size=3, published=False)
        s.confirm(late, 1, [1, 2, 3])
        s.confirm(late, 2, [4, 5, 6])
    before, _ratings = stored()
    assert len(before) == 18  # not counted yet
    with django_capture_on_commit_callbacks(execute=True):
        event_publish(actor=actor, event=late, results=True)
    after, ratings = stored()
    assert after[:18] == before
    assert [point[1] for point in after[18:]] == [7, 7, 7, 8, 8, 8]
    ratings_recompute(game="formula_de", full=True)
    assert (without_ids(stored()[0]), without_ids(stored()[1])) == (
        without_ids(after),
        without_ids(ratings),
    )


def test_points_another_model_computed_are_computed_again_from_the_start(three_events):
    """A stored first table this model rates otherwise (a parameter or the library changed):
    everything again, as from the start."""
    expected = stored()
    RatingPoint.objects.filter(seq__gt=1).delete()
    RatingPoint.objects.filter(seq=1).update(mu=30.0)
    PlayerRating.objects.filter(player=three_events.player(1)).update(mu=1.0, races=9)
    assert ratings_recompute(game="formula_de") == 6
    assert without_ids(stored()[0]) == without_ids(expected[0])
    assert without_ids(stored()[1]) == without_ids(expected[1])


def test_a_shared_place_rates_its_players_equal(season, django_capture_on_commit_callbacks):
    """A published Cannes–Monaco tie (« à égalité »: equal squares share the place) is a tie
    in the ratings too: the two players end with equal ratings, never in grid order (the
    stored ``place``, not the table ``position``, is the match's order)."""
    s = season("cm", drivers=4)
    event = Event.objects.create(
        championship=s.championship, slug="cm-1", name="Cannes–Monaco", circuit=s.circuit,
        date=datetime.date(2026, 3, 1), game="cannes_monaco", qualifying_mode="draw",
        separate_teams=False, published_results=True,
    )  # fmt: skip
    for driver in s.drivers.values():
        Entry.objects.create(event=event, driver=driver)
    allocation_run(actor=s.actor, event=event, table_size=6)
    table = RaceTable.objects.get(event=event)
    sheet = {"squares": {1: 9, 2: 5, 3: 5, 4: 2}, "crossed": []}
    with django_capture_on_commit_callbacks(execute=True):
        game_result_save(actor=s.actor, table=table, version=0, data=sheet, submit=True)
        result_confirm(actor=s.actor, table=table)
    places = dict(ResultLine.objects.filter(table=table).values_list("driver__number", "place"))
    assert places == {1: 1, 2: 2, 3: 2, 4: 4}
    rated = {
        number: PlayerRating.objects.get(player=s.player(number), family="cannes_monaco")
        for number in (1, 2, 3, 4)
    }
    assert (rated[2].mu, rated[2].sigma, rated[2].rating) == (
        rated[3].mu,
        rated[3].sigma,
        rated[3].rating,
    )
    assert rated[1].rating > rated[2].rating > rated[4].rating
