"""The waiting list's paths (DOMAIN.md "Corrections to 'Before the day'"): a freed seat
always goes to the waiting list, whoever frees it (a cancellation, a refusal, a move back
to the waiting list, a changed capacity), and the first waiting is told; a newcomer never
confirms into a seat while someone waits; moved back, a registrant takes the list's end;
the capacity never goes below the number accepted; the list is in confirmation order; once
check-in is closed, the door decides."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import timezone

from tests.api.conftest import Api
from tests.tournament.signup.conftest import last_token, sent_text
from tournament.access import Actor
from tournament.errors import Conflict
from tournament.models import ApiToken
from tournament.signup import selectors, services
from tournament.signup.announcement import announcement_update
from tournament.signup.models import Announcement, Mail, Registration

pytestmark = pytest.mark.django_db


def status(registration: Registration) -> str:
    return Registration.objects.get(pk=registration.pk).status


def moved_in(registration: Registration) -> int:
    return Mail.objects.filter(registration=registration, kind="moved_in").count()


@pytest.fixture
def full(open_event, sign_up_confirmed):
    """One seat: ``a`` holds it, ``b`` then ``c`` wait."""
    event = open_event(capacity=1)
    a, _ = sign_up_confirmed(event, "a@ex.org", first_name="Ana")
    b, _ = sign_up_confirmed(event, "b@ex.org", first_name="Bob")
    c, _ = sign_up_confirmed(event, "c@ex.org", first_name="Cyril")
    assert [a.status, b.status, c.status] == ["accepted", "waiting", "waiting"]
    return event, a, b, c


def test_a_refused_seat_goes_to_the_first_waiting_who_is_told(full, organiser):
    """DOMAIN.md "Corrections": a refusal of an accepted registration frees a seat; the
    first waiting moves in and is told (as a cancellation does)."""
    event, a, b, c = full
    services.registration_decide(
        registration=a, actor=Actor(user=organiser), status="refused", reason="No licence"
    )
    assert (status(a), status(b), status(c)) == ("refused", "accepted", "waiting")
    assert moved_in(b) == 1 and moved_in(c) == 0
    assert Registration.history.filter(id=b.pk).first().history_change_reason == "a seat freed up"
    assert services.rank_of(Registration.objects.get(pk=c.pk)) == 1


def test_moved_back_to_the_waiting_list_takes_its_end_and_frees_the_seat(full, organiser):
    """DOMAIN.md "Corrections": moved back to the waiting list by race control, a registrant
    takes the end of the list (a new time of confirmation), never its head; the seat freed
    moves the first waiting in, who is told."""
    event, a, b, c = full
    before = Registration.objects.get(pk=a.pk).confirmed_at
    services.registration_decide(
        registration=a, actor=Actor(user=organiser), status="waiting", reason="Guest first"
    )
    assert (status(a), status(b), status(c)) == ("waiting", "accepted", "waiting")
    assert moved_in(b) == 1
    moved = Registration.objects.get(pk=a.pk)
    assert moved.confirmed_at > before
    assert [r.pk for r in selectors.waiting_list(event)] == [c.pk, a.pk]
    assert services.rank_of(moved) == 2
    told = Mail.objects.filter(registration=a, kind="waiting").order_by("pk").last()
    assert "n° 2 " in sent_text(told)  # its rank once the seat it freed was taken


def test_moved_back_alone_stays_waiting_and_a_newcomer_waits_behind(
    open_event, sign_up_confirmed, organiser
):
    """Race control moves people first, then lowers the capacity (DOMAIN.md
    "Corrections"): the one moved back does not take its own seat again; and a newcomer
    never confirms into a seat while someone waits."""
    event = open_event(capacity=1)
    a, _ = sign_up_confirmed(event, "a@ex.org")
    services.registration_decide(
        registration=a, actor=Actor(user=organiser), status="waiting", reason="Guest first"
    )
    assert status(a) == "waiting"
    newcomer, _ = sign_up_confirmed(event, "n@ex.org", first_name="Noé")
    assert newcomer.status == "waiting"
    assert services.rank_of(newcomer) == 2
    assert Mail.objects.filter(registration=newcomer, kind="waiting").count() == 1


def test_a_lowered_then_raised_capacity_moves_the_first_waiting_in(
    open_event, sign_up_confirmed, organiser
):
    """DOMAIN.md "Corrections": a lowered-then-raised capacity moves the waiting list in,
    in order, each told."""
    actor = Actor(user=organiser)
    event = open_event(capacity=3)
    a, _ = sign_up_confirmed(event, "a@ex.org")
    b, _ = sign_up_confirmed(event, "b@ex.org")
    announcement_update(actor=actor, event=event, capacity=2)
    c, _ = sign_up_confirmed(event, "c@ex.org")
    d, _ = sign_up_confirmed(event, "d@ex.org")
    assert (c.status, d.status) == ("waiting", "waiting")
    announcement_update(actor=actor, event=event, capacity=3)
    assert (status(c), status(d)) == ("accepted", "waiting")
    assert moved_in(c) == 1 and moved_in(d) == 0


def test_the_capacity_never_goes_below_the_number_accepted(
    open_event, sign_up_confirmed, organiser
):
    """DOMAIN.md "Corrections": the capacity cannot go below the number accepted; race
    control refuses or moves people first, and the answer says how many are accepted."""
    event = open_event(capacity=3)
    for name in "abc":
        sign_up_confirmed(event, f"{name}@ex.org")
    with pytest.raises(Conflict, match="3 registrants are accepted") as refused:
        announcement_update(actor=Actor(user=organiser), event=event, capacity=2)
    assert set(refused.value.errors) == {"capacity"}
    assert Announcement.objects.get(event=event).capacity == 3
    announcement_update(actor=Actor(user=organiser), event=event, capacity=3)  # as many: fine


def test_the_capacity_floor_in_the_api_and_on_the_desk_page(
    open_event, sign_up_confirmed, organiser
):
    """PATCH /api/v1/events/{event} answers 409 saying how many are accepted; race
    control's announcement page says it beside the field."""
    event = open_event(capacity=2)
    sign_up_confirmed(event, "a@ex.org")
    sign_up_confirmed(event, "b@ex.org")
    api = Api(ApiToken.issue(organiser))
    answer = api.patch(f"/events/{event.slug}", {"capacity": 1})
    assert answer.status_code == 409
    assert "2 registrants are accepted" in answer.json()["errors"]["capacity"][0]
    desk = Client(HTTP_ACCEPT_LANGUAGE="en")
    desk.cookies["django_language"] = "en"
    desk.force_login(organiser)
    page = desk.post(
        f"/e/{event.slug}/desk/announcement/",
        {"capacity": "1", "approval": "first_come", "opens_at": "2026-05-01T10:00"},
    )
    assert b"2 registrants are accepted" in page.content
    assert Announcement.objects.get(event=event).capacity == 2


def test_the_waiting_list_is_in_confirmation_order_not_sign_up_order(open_event):
    """DOMAIN.md "Before the day": the order of the waiting list is the order of
    confirmation. Here Cyril signs up last but confirms before Bob."""
    event = open_event(capacity=1)
    for first_name, email in (("Ana", "a@ex.org"), ("Bob", "b@ex.org"), ("Cyril", "c@ex.org")):
        services.registration_sign_up(
            event=event, first_name=first_name, last_name="Lefèvre", email=email
        )
    a, _ = services.registration_confirm(token=last_token("a@ex.org"))
    c, _ = services.registration_confirm(token=last_token("c@ex.org"))
    b, _ = services.registration_confirm(token=last_token("b@ex.org"))
    assert b.pk < c.pk
    assert [r.pk for r in selectors.waiting_list(event)] == [c.pk, b.pk]
    assert (services.rank_of(c), services.rank_of(b)) == (1, 2)
    assert [(r.pk, rank) for r, rank in selectors.ranked(event) if rank] == [(c.pk, 1), (b.pk, 2)]
    services.registration_cancel(registration=a)
    assert (status(c), status(b)) == ("accepted", "waiting")


def test_once_check_in_is_closed_a_freed_seat_moves_nobody_in(full, organiser):
    """DOMAIN.md "Before the day", at the door: once race control closes check-in, the
    waiting present at the door take the seats when race control confirms; a cancellation
    or a refusal then moves nobody in by itself."""
    event, a, b, c = full
    Announcement.objects.filter(event=event).update(check_in_closed_at=timezone.now())
    services.registration_cancel(
        registration=a, actor=Actor(user=organiser), reason="Called: not coming"
    )
    assert (status(a), status(b), status(c)) == ("cancelled", "waiting", "waiting")
    assert moved_in(b) == moved_in(c) == 0
