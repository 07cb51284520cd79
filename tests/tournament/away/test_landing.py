"""The way back landing on the hosted server, on files written here (the whole trip, with a
laptop of its own, is test_round_trip's): an entry deleted on the laptop is deleted here,
with the laptop's history of it; a driver created at the door comes back as the player the
laptop joined it to (by that player's id here), or as a new player proposed for matching."""

from __future__ import annotations

import datetime
import json

import pytest

from tournament.access import Actor
from tournament.away import bundle
from tournament.away import checkout as trip
from tournament.away.trip.landing import land
from tournament.models import Championship, Driver, Entry
from tournament.players.identity import new_player
from tournament.players.matching import proposals

pytestmark = pytest.mark.django_db

#: The laptop's own ids: its drivers are 100 + their number, its entries 10 + it.
LAPTOP_DRIVER, LAPTOP_ENTRY = 100, 10


def way_back(out: dict, event, **day) -> str:
    """A laptop's way back of ``event`` (its check-out's bundle ``out``): entries of every
    driver but those ``day`` changes, nothing else happened."""
    numbers = [d["number"] for d in out["drivers"]]
    data = {
        "format": bundle.BACK,
        "checkout": {"id": out["checkout"]["id"]},
        "event": {"slug": event.slug, "id": 1},
        "numbers": {str(LAPTOP_DRIVER + n): n for n in numbers},
        "entries": [
            {"id": LAPTOP_ENTRY + n, "driver": n, "checked_in": True}
            for n in numbers
            if n not in day.get("withdrawn", ())
        ],
        "drivers": [],
        "registrations": [],
        "objects": [],
        "files": {},
        **{k: v for k, v in day.items() if k != "withdrawn"},
    }
    return json.dumps(bundle.signed(data, out["checkout"]["key"]))


def deleted_on_the_laptop(number: int, history_id: int) -> dict:
    """The laptop's history row of its entry of driver ``number``, deleted at the door."""
    return {
        "model": "tournament.historicalentry",
        "pk": history_id,
        "fields": {
            "id": LAPTOP_ENTRY + number,
            "event": 1,
            "driver": LAPTOP_DRIVER + number,
            "checked_in": False,
            "absent": False,
            "fast": False,
            "paid": False,
            "registered_at": "2026-07-14T08:00:00+00:00",
            "history_date": "2026-07-14T09:30:00+00:00",
            "history_change_reason": None,
            "history_type": "-",
            "history_user": None,
            "history_actor": "rc",
        },
    }


def test_an_entry_withdrawn_at_the_door_is_withdrawn_here(make_event, organiser):
    event = make_event(3)
    out = trip.check_out(actor=Actor(user=organiser), event=event)
    withdrawn = Entry.objects.get(event=event, driver__number=3)
    before = Entry.history.count()

    land(way_back(out, event, withdrawn=[3], objects=[deleted_on_the_laptop(3, 7)]))

    entries = Entry.objects.filter(event=event).order_by("driver__number")
    assert [(e.driver.number, e.checked_in) for e in entries] == [(1, True), (2, True)]
    assert Driver.objects.filter(championship=event.championship, number=3).exists()
    # The laptop's record of it, under this server's id: who and when, no other row.
    assert Entry.history.count() == before + 1
    gone = Entry.history.get(history_type="-")
    assert (gone.id, gone.history_actor) == (withdrawn.pk, "rc")
    assert gone.history_date == datetime.datetime(2026, 7, 14, 9, 30, tzinfo=datetime.UTC)


def test_a_door_driver_comes_back_as_the_player_the_laptop_joined_or_proposed(
    make_event, organiser, django_user_model
):
    event = make_event(2)
    actor = Actor(user=organiser)
    # Zoé drives in another championship of this organiser; Paul too, under the same name
    # as a door driver; Ana in another club's.
    mine = Championship.objects.create(slug="cc", name="Coupe", season="2026")
    mine.organisers.add(organiser)
    theirs = Championship.objects.create(slug="ailleurs", name="Ailleurs", season="2026")
    theirs.organisers.add(django_user_model.objects.create_user("other"))
    known = {}
    for championship, number, first, last in (
        (mine, 1, "Zoé", "Retardataire"),
        (mine, 2, "Paul", "Martin"),
        (theirs, 1, "Ana", "López"),
    ):
        known[first] = new_player(first, last)
        Driver.objects.create(
            championship=championship, number=number, first_name=first, last_name=last,
            player=known[first],
        )  # fmt: skip
    out = trip.check_out(actor=actor, event=event)
    first, second, third = out["reserved_numbers"][:3]

    def door(number: int, first: str, last: str, hosted_id: int | None) -> dict:
        player = {"id": hosted_id, "first_name": first, "last_name": last, "licence": None}
        return {"number": number, "first_name": first, "last_name": last, "player": player}

    landed = land(
        way_back(
            out,
            event,
            drivers=[
                # Joined on the laptop to the player its bundle brought: that player here,
                # whatever name the door typed.
                door(first, "Zoe", "Retardatair", known["Zoé"].pk),
                # A player of the door: a new one, proposed for matching by its name.
                door(second, "Paul", "Martin", None),
                # Another club's player, named by id: not joined, proposed at most.
                door(third, "Ana", "López", known["Ana"].pk),
            ],
        ),
        actor=actor,
    )
    assert landed["landed"]["drivers"] == 3
    players = dict(
        Driver.objects.filter(championship=event.championship, number__gt=2).values_list(
            "number", "player"
        )
    )
    assert players[first] == known["Zoé"].pk
    assert players[second] != known["Paul"].pk and players[third] != known["Ana"].pk
    proposed = {
        frozenset((p.player.pk, p.other.pk))
        for p in proposals(actor, championship=event.championship)
    }
    assert frozenset((players[second], known["Paul"].pk)) in proposed
