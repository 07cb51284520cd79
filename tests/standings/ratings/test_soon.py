"""What asks for a recompute of the ratings (standings/ratings/soon.py): an event's own
changes, whoever makes them (the services, the admin, a deleted championship), once per
transaction.

An event counts in the ratings by its published results, its date (the order of its tables)
and its game (the family). The recompute runs as everywhere in the ratings' tests: the task
inline (eager), after the commit (``django_capture_on_commit_callbacks``).
"""

from __future__ import annotations

import datetime

import pytest
from django.db import transaction

from standings.ratings.services import ratings_recompute
from standings.ratings.soon import _Asked
from tournament.access import Actor
from tournament.games.selectors import families
from tournament.models import Event, PlayerRating, RatingPoint
from tournament.registration.services import event_publish, event_update
from tournament.signals import results_changed_soon

pytestmark = pytest.mark.django_db


@pytest.fixture
def played(season, django_capture_on_commit_callbacks):
    """Two events of one table of drivers 1 and 2: 1 wins on March 1st, 2 on March 8th;
    the ratings computed after each confirmation."""
    s = season(drivers=2)
    with django_capture_on_commit_callbacks(execute=True):
        s.confirm(s.event(day=1, table_size=2), 1, [1, 2])
        s.confirm(s.event(day=8, table_size=2), 1, [2, 1])
    return s


def ratings() -> dict[int, tuple]:
    """Each player's rating and the events of their points, in the ratings' order."""
    return {
        r.player_id: (
            r.family,
            r.mu,
            r.sigma,
            r.races,
            list(
                RatingPoint.objects.filter(player=r.player_id, family=r.family)
                .order_by("seq")
                .values_list("event_id", flat=True)
            ),
        )
        for r in PlayerRating.objects.all()
    }


def fresh() -> dict[int, tuple]:
    """What a computation from scratch gives now (the ``ratings`` command's way)."""
    with transaction.atomic():
        sid = transaction.savepoint()
        for family in families():
            ratings_recompute(game=family)
        found = ratings()
        transaction.savepoint_rollback(sid)
    return found


def asked(callbacks) -> list[set[str]]:  # type: ignore[no-untyped-def]
    return [c.games for c in callbacks if isinstance(c, _Asked)]


def test_a_new_date_puts_the_event_in_its_new_place(played, django_capture_on_commit_callbacks):
    first, second = played.events
    before = ratings()
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        event_update(actor=played.actor, event=first, date=datetime.date(2026, 3, 15))
    assert asked(callbacks) == [{"formula_de"}]
    after = ratings()
    assert after != before
    assert after == fresh()
    assert after[played.player(1).pk][4] == [second.pk, first.pk]


def test_another_game_moves_the_event_to_that_family(played, django_capture_on_commit_callbacks):
    """The service refuses it once drivers are registered; the admin writes it directly."""
    first, _second = played.events
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        first.game = "racetrack"
        first.save()
    assert asked(callbacks) == [{"formula_de", "racetrack"}]
    after = ratings()
    assert after == fresh()
    families = PlayerRating.objects.filter(player=played.player(1)).values_list("family", "races")
    assert sorted(families) == [("formula_de", 1), ("racetrack", 1)]


def test_a_renamed_game_moves_its_ratings_to_its_new_family_and_empties_the_old(
    played, django_capture_on_commit_callbacks
):
    """DOMAIN.md "Every game's evening": a rename moves the event's ratings to its new
    family and recomputes both; no career keeps the old family once no event is in it."""
    for event in played.events:  # the admin writes it directly: a named game, "Heat"
        Event.objects.filter(pk=event.pk).update(game="finishing_order", game_name="Heat")
    with django_capture_on_commit_callbacks(execute=True):
        results_changed_soon()
    assert set(PlayerRating.objects.values_list("family", flat=True)) == {"heat"}
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        for event in Event.objects.filter(pk__in=[e.pk for e in played.events]):
            event.game_name = "Хит"
            event.save()
    assert asked(callbacks) == [{"heat", "хит"}]
    assert set(PlayerRating.objects.values_list("family", flat=True)) == {"хит"}
    assert set(RatingPoint.objects.values_list("family", flat=True)) == {"хит"}
    assert ratings() == fresh()


def test_a_deleted_event_counts_no_more(played, django_capture_on_commit_callbacks):
    first, _second = played.events
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        first.delete()
    assert asked(callbacks) == [{"formula_de"}]
    assert ratings() == fresh()
    assert PlayerRating.objects.get(player=played.player(1)).races == 1


@pytest.mark.parametrize("how", ["race control", "admin"])
def test_withdrawn_results_count_no_more(played, how, django_capture_on_commit_callbacks):
    first, _second = played.events
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        if how == "race control":
            event_publish(actor=played.actor, event=first, results=False)
        else:
            first.published_results = False
            first.save()
    assert asked(callbacks) == [{"formula_de"}]
    assert ratings() == fresh()
    assert PlayerRating.objects.get(player=played.player(2)).races == 1


def test_one_recompute_per_transaction_whatever_asked_for_it(
    played, organiser, django_capture_on_commit_callbacks
):
    first, second = played.events
    with django_capture_on_commit_callbacks(execute=True) as callbacks, transaction.atomic():
        event_publish(actor=Actor(user=organiser), event=first, results=False)
        event_update(actor=played.actor, event=second, date=datetime.date(2026, 2, 1))
        second.game = "racetrack"
        second.save()
        results_changed_soon("formula_de")
    assert asked(callbacks) == [{"formula_de", "racetrack"}]
    assert ratings() == fresh()
    # A championship deleted with its events (the first one's results published again):
    # one recompute, not one per event.
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        event_publish(actor=played.actor, event=first, results=True)
        played.championship.delete()
    assert asked(callbacks) == [{"formula_de", "racetrack"}]
    assert not PlayerRating.objects.exists()


def test_what_the_ratings_do_not_read_asks_for_nothing(
    played, season, django_capture_on_commit_callbacks
):
    first, _second = played.events
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        event_update(actor=played.actor, event=first, name="GP de Monza")
        event_publish(actor=played.actor, event=first, allocation=True)
        unpublished = season(slug="s2", drivers=2).event(day=3, table_size=2, published=False)
        unpublished.date = datetime.date(2026, 4, 1)
        unpublished.save()
        unpublished.delete()
    assert asked(callbacks) == []


class Refused(Exception):
    pass


def test_a_rolled_back_change_asks_for_nothing(played, django_capture_on_commit_callbacks):
    first, _second = played.events
    kept = first.pk
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        with pytest.raises(Refused), transaction.atomic():
            first.delete()
            raise Refused
        results_changed_soon("rallyman")
    assert asked(callbacks) == [{"rallyman"}]
    assert Event.objects.filter(pk=kept).exists()
