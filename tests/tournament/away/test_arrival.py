"""On the laptop: a bundle loaded where the championship already is (an earlier check-out:
the same drivers and players, nothing twice), a bundle changed on its way refused, and the
numbers of the drivers created at the door taken from those the check-out reserved; each
player known by its hosted id, which the way back gives for a door driver joined to one."""

from __future__ import annotations

import json

import pytest

from paddock.away import checkout as trip
from paddock.away.export import export_event
from tournament.access import Actor
from tournament.away.arrival import (
    ArrivalError,
    import_event,
    new_driver_number,
    next_door_number,
    reserved_numbers_of,
)
from tournament.away.models import ArrivedPlayer, Checkout
from tournament.errors import Conflict, InvalidInput
from tournament.models import (
    ApiToken,
    Championship,
    Circuit,
    Club,
    Driver,
    Entry,
    Event,
    Membership,
    Player,
)
from tournament.players.identity import new_player
from tournament.registration.services import driver_create, drivers_import

pytestmark = pytest.mark.django_db


def test_a_bundle_lands_where_its_championship_already_is(make_event, organiser):
    event = make_event(4)
    Entry.objects.filter(event=event, driver__number=2).update(paid=True)
    out = trip.check_out(actor=Actor(user=organiser), event=event)
    players = Player.objects.count()
    # The laptop already holds this championship (the same database plays both sides).
    Entry.objects.filter(event=event).delete()

    tampered = {**out, "reserved_numbers": [1, 2]}
    with pytest.raises(ArrivalError, match="signature"):
        import_event(json.dumps(tampered))
    assert not Checkout.objects.filter(side="venue").exists()

    arrived = import_event(json.dumps(out))
    assert arrived.event == event.slug and arrived.entries == 4
    assert Driver.objects.filter(championship=event.championship).count() == 4
    assert Player.objects.count() == players
    assert Entry.objects.get(event=event, driver__number=2).paid
    venue = Checkout.objects.get(side="venue")
    assert str(venue.uid) == out["checkout"]["id"]
    assert venue.reserved_numbers == out["reserved_numbers"]
    with pytest.raises(ArrivalError, match="already loaded"):
        import_event(json.dumps(out))


def test_a_driver_s_name_in_public_travels_with_the_bundle(make_event, organiser):
    """DOMAIN.md "Corrections": the public name is the registrant's choice everywhere, the
    laptop's projector and pages included."""
    event = make_event(2)
    Driver.objects.filter(championship=event.championship, number=1).update(
        first_name="Élodie", last_name="Lefèvre", public_name_choice="short"
    )
    out = trip.check_out(actor=Actor(user=organiser), event=event)
    # A laptop that never held the championship: it arrives whole from the bundle.
    Championship.objects.filter(pk=event.championship_id).delete()
    import_event(json.dumps(out))
    landed = Driver.objects.get(championship__slug=out["championship"]["slug"], number=1)
    assert landed.public_name == "Élodie L."
    assert landed.name == "Élodie Lefèvre"


def test_a_bundle_brings_its_championship_s_club_along(make_event, organiser):
    """DOMAIN.md "Clubs and who may do what": a bundle brings its championship's club (by
    slug, without its people); a laptop that has the club already keeps its own row."""
    event = make_event(2)
    club = Club.objects.create(slug="aix", name="Club d’Aix")
    Championship.objects.filter(pk=event.championship_id).update(club=club)
    Circuit.objects.filter(pk=event.circuit_id).update(club=club)
    Membership.objects.create(club=club, user=organiser, role="owner")
    out = trip.check_out(actor=Actor(user=organiser), event=event)
    assert out["clubs"] == [{"id": club.pk, "slug": "aix", "name": "Club d’Aix"}]
    # A laptop that never held the championship, its circuit nor the club.
    Championship.objects.filter(pk=event.championship_id).delete()
    Circuit.objects.filter(pk=event.circuit_id).delete()
    club.delete()
    import_event(json.dumps(out))
    landed = Championship.objects.select_related("club").get(slug=out["championship"]["slug"])
    assert (landed.club.slug, landed.club.name) == ("aix", "Club d’Aix")
    assert Circuit.objects.get(slug=out["circuit"]["slug"]).club == landed.club
    assert not landed.club.memberships.exists()


def test_drivers_at_the_door_take_the_reserved_numbers_until_none_is_left(make_event, organiser):
    event = make_event(4)
    Checkout.objects.create(event=event, side="venue", key="x", reserved_numbers=[7, 5])
    actor = Actor(user=organiser)

    def at_the_door(number=None):
        return driver_create(
            actor=actor, championship=event.championship, number=number,
            first_name="Tard", last_name="Venu",
        ).number  # fmt: skip

    assert next_door_number(event.championship) == 5
    with pytest.raises(Conflict, match="reserved: 5, 7"):
        at_the_door(12)
    assert at_the_door() == 5
    assert at_the_door(7) == 7
    assert next_door_number(event.championship) is None
    with pytest.raises(Conflict, match="2 numbers the check-out reserved .* are all used"):
        at_the_door()


def test_on_the_hosted_server_numbers_stay_as_typed(make_event, organiser):
    event = make_event(2)
    assert next_door_number(event.championship) is None
    driver = driver_create(
        actor=Actor(user=organiser), championship=event.championship, number=40,
        first_name="Libre", last_name="Numéro",
    )  # fmt: skip
    assert driver.number == 40


def test_the_laptop_knows_each_player_by_its_hosted_id(make_event, organiser, circuit):
    actor = Actor(user=organiser)
    event = make_event(2)
    for driver in Driver.objects.filter(championship=event.championship):
        driver.player = new_player(driver.first_name, driver.last_name)
        driver.save()
    # Zoé drives in another championship of the club, whose day this laptop ran before.
    other = Championship.objects.create(slug="cc", name="Coupe", season="2026")
    other.organisers.add(organiser)
    zoe = new_player("Zoé", "Retardataire", licence="L-42")
    Driver.objects.create(
        championship=other, number=5, first_name="Zoé", last_name="Retardataire", player=zoe
    )
    before = Event.objects.create(
        championship=other, slug="cc-gp", name="GP", date=event.date, circuit=circuit
    )
    import_event(json.dumps(trip.check_out(actor=actor, event=before)))
    import_event(json.dumps(trip.check_out(actor=actor, event=event)))
    # The same database plays both sides: here a player's id is its hosted id.
    players = Player.objects.filter(drivers__isnull=False).values_list("pk", flat=True)
    assert dict(ArrivedPlayer.objects.values_list("player", "hosted_id")) == {
        pk: pk for pk in players
    }
    ArrivedPlayer.objects.filter(player=zoe).update(hosted_id=zoe.pk + 1000)  # told apart

    # At the door: Zoé, her licence typed (her player here), and a newcomer.
    def at_the_door(first: str, last: str, licence: str | None = None) -> Driver:
        return driver_create(
            actor=actor, championship=event.championship, number=None,
            first_name=first, last_name=last, licence=licence,
        )  # fmt: skip

    assert at_the_door("Zoe", "Retardataire", "L-42").player == zoe
    at_the_door("Léa", "Nouvelle")
    back = export_event(event.slug)
    assert [(d["first_name"], d["player"]["id"]) for d in back["drivers"]] == [
        ("Zoe", zoe.pk + 1000),
        ("Léa", None),
    ]


def test_while_away_the_hosted_server_gives_no_reserved_number(make_event, organiser, client):
    """API.md "The door and a person's data": while an event is away, the numbers its
    check-out reserved are refused to new drivers on the hosted server (409 naming the
    check-out), through the API, the CSV import and the services; a driver made without a
    number (check-in of a registration at another event) skips them. DOMAIN.md "The event
    away": a driver created at the door takes one of them, and the return was refused."""
    event = make_event(2)
    make_event(2, slug="gp-2")  # another event of the championship, at home
    actor = Actor(user=organiser)
    out = trip.check_out(actor=actor, event=event)
    reserved = out["reserved_numbers"]
    assert reserved[0] == 3
    championship = event.championship
    assert reserved_numbers_of(championship) == set(reserved)
    assert new_driver_number(championship) == max(reserved) + 1

    with pytest.raises(Conflict, match="Grand Prix") as refused:
        driver_create(
            actor=actor, championship=championship, number=reserved[0],
            first_name="Sébastien", last_name="Intrus",
        )  # fmt: skip
    assert refused.value.status == 409
    token = ApiToken.issue(organiser)
    answer = client.post(
        f"/api/v1/championships/{championship.slug}/drivers",
        data={"number": reserved[1], "first_name": "Sébastien", "last_name": "Intrus"},
        content_type="application/json",
        headers={"Authorization": f"Bearer {token}"},
    )
    assert answer.status_code == 409, answer.content
    assert "Grand Prix" in answer.json()["detail"]
    with pytest.raises(InvalidInput):
        drivers_import(
            actor=actor, championship=championship,
            text=f"number;first_name;last_name\n{reserved[2]};Sébastien;Intrus\n",
        )  # fmt: skip
    assert not Driver.objects.filter(championship=championship, number__in=reserved).exists()
    # Another number is free; once the trip is back (or cancelled), so are these.
    assert driver_create(
        actor=actor, championship=championship, number=new_driver_number(championship),
        first_name="Libre", last_name="Numéro",
    ).number == max(reserved) + 1  # fmt: skip
    trip.cancel(actor=actor, event=event, reason="Salle inondée")
    assert reserved_numbers_of(championship) == set()
    assert new_driver_number(championship) == max(reserved) + 2
    assert driver_create(
        actor=actor, championship=championship, number=reserved[0],
        first_name="Sébastien", last_name="Intrus",
    ).number == reserved[0]  # fmt: skip


def test_on_the_laptop_a_driver_made_without_a_number_takes_a_reserved_one(make_event, organiser):
    event = make_event(4)
    Checkout.objects.create(event=event, side="venue", key="x", reserved_numbers=[7, 5])
    assert reserved_numbers_of(event.championship) == set()  # the laptop gives them
    assert new_driver_number(event.championship) == 5
