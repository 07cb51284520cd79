"""On the day: an accepted registration checks in as the championship's driver (its number
if the player has one, else a new one) and the event's entry; after check-in closes, the
waiting registrants present at the door take the absent ones' seats in order."""

from __future__ import annotations

import pytest

from tournament.access import Actor
from tournament.errors import Conflict
from tournament.models import Driver, Entry
from tournament.players.identity import new_player
from tournament.signup import checkin
from tournament.signup.models import Mail, Registration

pytestmark = pytest.mark.django_db


def test_accepted_checks_in_as_a_new_driver_or_the_one_they_already_are(
    open_event, sign_up_confirmed, organiser, championship
):
    actor = Actor(user=organiser)
    event = open_event(capacity=None)
    known = Driver.objects.create(
        championship=championship,
        number=7,
        first_name="Élodie",
        last_name="Lefèvre",
        player=new_player(first_name="Élodie", last_name="Lefèvre", licence="L-77"),
    )
    again, _ = sign_up_confirmed(event, "e@example.org", licence="L-77")
    fresh, _ = sign_up_confirmed(event, "n@example.org", first_name="Nina", licence="L-99")
    entry = checkin.registration_check_in(reg=again, actor=actor, paid=True)
    assert entry.driver == known and entry.checked_in and entry.paid
    entry = checkin.registration_check_in(reg=fresh, actor=actor)
    assert entry.driver.number == 8 and entry.driver.first_name == "Nina"
    assert entry.driver.player.licence == "L-99"
    assert Registration.objects.get(pk=fresh.pk).driver == entry.driver
    assert Entry.objects.filter(event=event, checked_in=True).count() == 2


def test_after_check_in_closes_the_present_waiting_take_the_absent_seats_in_order(
    open_event, sign_up_confirmed, organiser
):
    actor = Actor(user=organiser)
    event = open_event(capacity=2)
    here, _ = sign_up_confirmed(event, "a@example.org")
    sign_up_confirmed(event, "absent@example.org")
    first, _ = sign_up_confirmed(event, "w1@example.org")
    second, _ = sign_up_confirmed(event, "w2@example.org")
    checkin.registration_check_in(reg=here, actor=actor)
    checkin.present_set(reg=second, actor=actor)
    checkin.present_set(reg=first, actor=actor)
    assert checkin.door_candidates(event) == []  # not before check-in closes
    assert checkin.check_in_close(event=event, actor=actor) == 1
    assert checkin.door_candidates(event) == [first]  # one seat, the first in order
    with pytest.raises(Conflict):
        checkin.registration_check_in(reg=second, actor=actor)
    [entry] = checkin.door_admit(event=event, actor=actor)
    assert entry.driver.registrations.get() == first
    assert Registration.objects.get(pk=first.pk).status == "accepted"
    assert Registration.objects.get(pk=second.pk).status == "waiting"
    assert Mail.objects.filter(registration=first, kind="moved_in").exists()
