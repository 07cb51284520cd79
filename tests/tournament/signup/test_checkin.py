"""On the day: an accepted registration checks in as the championship's driver (the one race
control confirms it is, else a new number) and the event's entry; closing check-in makes the
accepted registrants not checked in absent and gives their seats to the waiting registrants
present at the door, in order (DOMAIN.md "Corrections to 'Before the day'")."""

from __future__ import annotations

import pytest

from tournament.access import Actor
from tournament.errors import Conflict
from tournament.models import Driver, Entry
from tournament.players.identity import new_player
from tournament.signup import checkin, selectors, services
from tournament.signup.models import Mail, Registration

pytestmark = pytest.mark.django_db


@pytest.fixture
def known(championship):
    """Driver n° 7 of the championship, Élodie Lefèvre, whose player holds licence L-77."""
    return Driver.objects.create(
        championship=championship,
        number=7,
        first_name="Élodie",
        last_name="Lefèvre",
        email="elodie@example.org",
        player=new_player(first_name="Élodie", last_name="Lefèvre", licence="L-77"),
    )


def test_accepted_checks_in_as_the_driver_race_control_confirms_or_a_new_one(
    open_event, sign_up_confirmed, organiser, known
):
    actor = Actor(user=organiser)
    event = open_event(capacity=None)
    again, _ = sign_up_confirmed(event, "elodie@example.org", licence="L-77", public_name="short")
    fresh, _ = sign_up_confirmed(event, "n@example.org", first_name="Nina", licence="L-99")
    [match] = checkin.proposals_for(again)
    assert match.driver == known and match.reasons == ["licence", "email", "name"]
    entry = checkin.registration_check_in(reg=again, actor=actor, paid=True, join=7)
    assert entry.driver == known and entry.checked_in and entry.paid
    assert Driver.objects.get(pk=known.pk).public_name_choice == "short"  # the registrant's
    assert checkin.proposals_for(fresh) == []
    entry = checkin.registration_check_in(reg=fresh, actor=actor)
    assert entry.driver.number == 8 and entry.driver.first_name == "Nina"
    assert entry.driver.player.licence == "L-99"  # no one held it
    assert Registration.objects.get(pk=fresh.pk).driver == entry.driver
    assert Entry.objects.filter(event=event, checked_in=True).count() == 2


def test_a_stranger_typing_someone_s_licence_gets_a_new_number_until_race_control_confirms(
    open_event, sign_up_confirmed, organiser, known
):
    """DOMAIN.md "Corrections": a licence typed by a registrant is a hint, never a key; the
    match is proposed side by side and joined only when race control confirms it."""
    actor = Actor(user=organiser)
    event = open_event(capacity=None)
    stranger, _ = sign_up_confirmed(event, "marc@example.org", first_name="Marc", licence="l-77")
    [match] = checkin.proposals_for(stranger)
    assert match.driver == known and match.reasons == ["licence"]
    assert (match.licence, match.email, match.folded) == (
        "L-77",
        "elodie@example.org",
        "elodie lefevre",
    )
    entry = checkin.registration_check_in(reg=stranger, actor=actor)
    assert entry.driver != known and entry.driver.number == 8
    assert entry.driver.player != known.player and entry.driver.player.licence is None
    assert entry.driver.player.claimed_licence == "L-77"  # proposed to n° 7's organisers
    assert not Entry.objects.filter(event=event, driver=known).exists()
    assert Driver.objects.get(pk=known.pk).first_name == "Élodie"
    # Taken by another registrant of this event, a driver is proposed no more.
    real, _ = sign_up_confirmed(event, "elodie@example.org", licence="L-77")
    checkin.registration_check_in(reg=real, actor=actor, join=7)
    late, _ = sign_up_confirmed(event, "late@example.org", first_name="Léa", licence="L-77")
    assert checkin.proposals_for(late) == []
    with pytest.raises(Conflict):
        checkin.registration_check_in(reg=late, actor=actor, join=7)


def test_closing_check_in_makes_absent_and_gives_the_seats_to_the_present_waiting_in_order(
    open_event, sign_up_confirmed, organiser
):
    actor = Actor(user=organiser)
    event = open_event(capacity=2)
    here, _ = sign_up_confirmed(event, "a@example.org", first_name="Anne")
    away, _ = sign_up_confirmed(event, "absent@example.org", first_name="Bruno")
    first, _ = sign_up_confirmed(event, "w1@example.org", first_name="Chloé")
    second, _ = sign_up_confirmed(event, "w2@example.org", first_name="Denis")
    checkin.registration_check_in(reg=here, actor=actor)
    checkin.present_set(reg=second, actor=actor)
    checkin.present_set(reg=first, actor=actor)
    assert checkin.door_candidates(event) == []  # not before check-in closes
    preview = checkin.check_in_preview(event=event, actor=actor)
    assert (preview.absent, preview.moved_in) == ([away], [first])  # one seat, the first
    assert Registration.objects.get(pk=away.pk).status == "accepted"  # a preview writes nothing
    closing = checkin.check_in_close(event=event, actor=actor)
    assert (closing.absent, closing.moved_in) == ([away], [first])
    assert Registration.objects.get(pk=away.pk).status == "absent"
    assert Registration.objects.get(pk=first.pk).status == "accepted"
    assert Registration.objects.get(pk=second.pk).status == "waiting"
    assert Mail.objects.filter(registration=first, kind="moved_in").exists()
    assert services.accepted_count(event) == 2  # the absent one is no longer counted
    assert [e["name"] for e in selectors.entrants(event)] == ["Anne Lefèvre", "Chloé Lefèvre"]
    with pytest.raises(Conflict):
        checkin.registration_check_in(reg=second, actor=actor)  # waiting: the door decides
    entry = checkin.registration_check_in(reg=first, actor=actor)  # then checks in
    assert entry.checked_in and entry.driver.registrations.get() == first
    with pytest.raises(Conflict):
        checkin.check_in_close(event=event, actor=actor)  # once only
    with pytest.raises(Conflict):
        checkin.check_in_preview(event=event, actor=actor)


def test_at_the_door_a_waiting_registrant_who_is_not_present_takes_no_seat(
    open_event, sign_up_confirmed, organiser
):
    actor = Actor(user=organiser)
    event = open_event(capacity=1)
    away, _ = sign_up_confirmed(event, "absent@example.org")
    waiting, _ = sign_up_confirmed(event, "w@example.org", first_name="Nina")
    closing = checkin.check_in_close(event=event, actor=actor)
    assert (closing.absent, closing.moved_in) == ([away], [])
    assert Registration.objects.get(pk=waiting.pk).status == "waiting"
    assert (
        checkin.door_candidates(event) == [] and checkin.door_admit(event=event, actor=actor) == []
    )
    checkin.present_set(reg=waiting, actor=actor)  # she comes to the door after all
    assert checkin.door_candidates(event) == [waiting]
    assert checkin.door_admit(event=event, actor=actor) == [waiting]
    assert Registration.objects.get(pk=waiting.pk).status == "accepted"
    with pytest.raises(Conflict):
        checkin.present_set(reg=Registration.objects.get(pk=away.pk), actor=actor)


def test_an_absent_registrant_arriving_late_checks_in_only_into_a_free_seat(
    open_event, sign_up_confirmed, organiser
):
    """DOMAIN.md "Corrections": absent is a status of its own; an absent registrant arriving
    late checks in only into a free seat, else joins the door's waiting line."""
    actor = Actor(user=organiser)
    event = open_event(capacity=3)
    here, _ = sign_up_confirmed(event, "a@example.org", first_name="Anne")
    bruno, _ = sign_up_confirmed(event, "b@example.org", first_name="Bruno")
    eva, _ = sign_up_confirmed(event, "e@example.org", first_name="Eva")
    chloe, _ = sign_up_confirmed(event, "c@example.org", first_name="Chloé")  # waiting 1
    denis, _ = sign_up_confirmed(event, "d@example.org", first_name="Denis")  # waiting 2
    checkin.registration_check_in(reg=here, actor=actor)
    checkin.present_set(reg=denis, actor=actor)
    closing = checkin.check_in_close(event=event, actor=actor)
    assert (closing.absent, closing.moved_in) == ([bruno, eva], [denis])  # Chloé is not here
    entry = checkin.registration_check_in(reg=bruno, actor=actor)  # the seat left free
    assert entry.checked_in and not entry.absent
    assert Registration.objects.get(pk=bruno.pk).status == "accepted"
    assert checkin.registration_check_in(reg=eva, actor=actor) is None  # no seat left
    eva = Registration.objects.get(pk=eva.pk)
    assert (eva.status, eva.present, eva.driver_id) == ("waiting", True, None)
    assert services.rank_of(eva) == 2  # at the end of the line, behind Chloé
    assert services.accepted_count(event) == 3
    # A seat frees up (Denis leaves): the present in the line take it, Chloé is not here.
    services.registration_cancel(registration=denis, actor=actor, reason="parti")
    assert checkin.door_candidates(event) == [eva]
    assert [r.pk for r in checkin.door_admit(event=event, actor=actor)] == [eva.pk]
    assert checkin.registration_check_in(reg=eva, actor=actor).checked_in
    assert Registration.objects.get(pk=chloe.pk).status == "waiting"
