"""A club's erasure is the club's (DOMAIN.md "Many clubs on one server"; API.md "Many clubs
on one server"; issue 49, item 1): club B's driver "Marie Curie" is untouched, byte for byte,
when club A erases a sign-up of the same name and address; a player joined across clubs on
purpose keeps B's side; the server's operator alone reaches every club."""

from __future__ import annotations

import datetime
import json
from dataclasses import dataclass

import pytest
from django.test import Client
from django.utils import timezone

from tests.tournament.signup.conftest import last_token
from tournament.access import Actor
from tournament.models import ApiToken, Championship, Club, Driver, Event, Membership, Player
from tournament.offline.models import IdempotencyKey
from tournament.players import erasure
from tournament.players.changes import players_merge
from tournament.signup import checkin, services
from tournament.signup.models import Announcement, Mail, Registration

pytestmark = pytest.mark.django_db

EMAIL = "marie.curie@example.org"


@dataclass
class Clubs:
    a: Event
    b: Event
    organiser_a: Actor
    token_a: str
    #: Club A's sign-up of "Marie Curie" (not confirmed) and club B's, checked in as n° 1.
    signed_a: Registration
    signed_b: Registration


def _event(club: Club, slug: str, name: str, circuit) -> Event:
    championship = Championship.objects.create(
        club=club, slug=slug, name=name, season="2026", points_scale=[10, 8, 6]
    )
    event = Event.objects.create(
        championship=championship,
        slug=f"gp-{slug}",
        name="Grand Prix",
        date=datetime.date(2026, 7, 14),
        circuit=circuit,
    )
    Announcement.objects.create(
        event=event, capacity=None, opens_at=timezone.now() - datetime.timedelta(days=1)
    )
    return event


def _sign_up(event: Event) -> Registration:
    services.registration_sign_up(
        event=event, first_name="Marie", last_name="Curie", email=EMAIL, team="Écurie Radium"
    )
    return Registration.objects.filter(event=event).latest("pk")


def api(token: str, method: str, path: str, body: object = None, key: str = ""):
    headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"}
    if key:
        headers["HTTP_IDEMPOTENCY_KEY"] = key
    return getattr(Client(**headers), method)(
        f"/api/v1{path}", json.dumps(body) if body is not None else None,
        content_type="application/json",
    )  # fmt: skip


@pytest.fixture
def clubs(django_user_model, circuit) -> Clubs:
    users = {}
    events = {}
    for side, name in (("a", "Coupe Alpha"), ("b", "Trophée Bêta")):
        club = Club.objects.create(slug=f"club-{side}", name=f"Club {side.upper()}")
        users[side] = django_user_model.objects.create_user(f"org-{side}", password="long-pass-1")
        Membership.objects.create(club=club, user=users[side], role="organiser")
        events[side] = _event(club, f"champ-{side}", name, circuit)
    signed_b = _sign_up(events["b"])
    services.registration_confirm(token=last_token(EMAIL))
    # Checked in through the API with a key: an answer kept for replays names her.
    answer = api(
        ApiToken.issue(users["b"]), "post",
        f"/events/{events['b'].slug}/registrations/{signed_b.pk}/checkin", {}, key="club-b-door",
    )  # fmt: skip
    assert answer.status_code == 200, answer.content
    return Clubs(
        a=events["a"],
        b=events["b"],
        organiser_a=Actor(user=users["a"]),
        token_a=ApiToken.issue(users["a"]),
        signed_a=_sign_up(events["a"]),
        signed_b=Registration.objects.get(pk=signed_b.pk),
    )


def rows_of_b(clubs: Clubs) -> list[list[dict]]:
    """Every row club B keeps about its people, as stored."""
    registrations = Registration.objects.filter(event=clubs.b)
    ids = list(registrations.values_list("pk", flat=True))
    drivers = Driver.objects.filter(championship=clubs.b.championship)
    return [
        list(registrations.order_by("pk").values()),
        list(Registration.history.filter(id__in=ids).order_by("history_id").values()),
        list(drivers.order_by("pk").values()),
        list(Player.objects.filter(drivers__in=drivers).order_by("pk").values()),
        list(Mail.objects.filter(registration__in=ids).order_by("pk").values()),
        list(IdempotencyKey.objects.filter(path__contains=clubs.b.slug).order_by("pk").values()),
    ]


def test_one_club_s_erasure_leaves_another_club_s_person_as_it_was(clubs):
    """Issue 49, item 1: the preview and the export show A's rows only; the erasure blanks
    A's sign-up, answers A's championship only, and B's rows stay byte for byte."""
    before = rows_of_b(clubs)
    door = f"/events/{clubs.a.slug}/registrations/{clubs.signed_a.pk}"
    page = Client()
    page.force_login(clubs.organiser_a.user)
    preview = page.post(
        f"/e/{clubs.a.slug}/desk/registrations/",
        {"action": "erase", "id": clubs.signed_a.pk, "reason": "asked"},
    )
    exported = api(clubs.token_a, "get", f"{door}/export")
    for shown in (preview.content.decode(), exported.content.decode()):
        assert "Bêta" not in shown and "champ-b" not in shown and clubs.b.slug not in shown
    assert preview.status_code == 200 and 'name="confirm"' in preview.content.decode()
    assert exported.json()["registration"]["email"] == EMAIL
    answer = api(clubs.token_a, "post", f"{door}/erase", {"reason": "asked"})
    assert answer.status_code == 200, answer.content
    assert answer.json() == {"driver": None, "championships": ["champ-a"]}
    assert rows_of_b(clubs) == before
    erased = Registration.objects.get(pk=clubs.signed_a.pk)
    assert (erased.first_name, erased.email, erased.team) == ("Pilote anonyme", "", "")
    assert not Mail.objects.filter(registration=erased).exclude(to="").exists()


def test_a_player_joined_across_clubs_keeps_the_other_club_s_side(clubs, django_user_model):
    """Joined on purpose (race control's merge): A's driver leaves the player for an
    anonymous one of its own; the player and B's driver stay as they were."""
    services.registration_confirm(token=last_token(EMAIL))
    driver_a = checkin.registration_check_in(reg=clubs.signed_a, actor=clubs.organiser_a).driver
    operator = Actor(user=django_user_model.objects.create_superuser("op", password="op-pass-1"))
    kept = clubs.signed_b.driver.player
    players_merge(actor=operator, keep=kept, other=driver_a.player, reason="the same person")
    assert Driver.objects.get(pk=driver_a.pk).player == kept
    before = rows_of_b(clubs)
    person = erasure.person_erase(
        registration=clubs.signed_a, actor=clubs.organiser_a, reason="asked"
    )
    assert person.championships() == ["champ-a"] and person.detached == {driver_a.pk}
    assert rows_of_b(clubs) == before
    driver_a.refresh_from_db()
    assert driver_a.name == "Pilote anonyme" and driver_a.player != kept
    assert driver_a.player.name == "Pilote anonyme" and driver_a.player.email == ""
    assert list(kept.drivers.all()) == [clubs.signed_b.driver]


def test_only_the_server_s_operator_erases_across_the_whole_server(clubs, django_user_model):
    before = rows_of_b(clubs)
    path = f"/events/{clubs.a.slug}/registrations/{clubs.signed_a.pk}/erase"
    server = {"reason": "asked", "scope": "server"}
    assert api(clubs.token_a, "post", path, server).status_code == 403
    assert rows_of_b(clubs) == before
    assert Registration.objects.get(pk=clubs.signed_a.pk).email == EMAIL
    operator = django_user_model.objects.create_superuser("op", password="op-pass-1")
    answer = api(ApiToken.issue(operator), "post", path, server)
    assert answer.status_code == 200, answer.content
    assert answer.json() == {"driver": None, "championships": ["champ-a", "champ-b"]}
    driver_b = Driver.objects.get(pk=clubs.signed_b.driver_id)
    assert (driver_b.name, driver_b.email, driver_b.number) == ("Pilote anonyme", "", 1)
    assert not Registration.objects.filter(email=EMAIL).exists()
