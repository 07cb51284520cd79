"""The sign-up API as API.md says it (paths, fields, values, statuses), with the three
callers: the organiser, an outsider with a token, and anyone."""

from __future__ import annotations

import datetime
import json

import pytest
from django.db import connection
from django.test import Client
from django.utils import timezone

from tests.tournament.signup.conftest import OWN, last_token
from tournament.models import ApiToken
from tournament.signup.models import Announcement, Registration

pytestmark = pytest.mark.django_db


def call(method: str, path: str, data=None, token: str | None = None):
    headers = {"HTTP_ACCEPT_LANGUAGE": "en"}
    if token:
        headers["HTTP_AUTHORIZATION"] = f"Bearer {token}"
    client = Client(**headers)
    body = "" if data is None else json.dumps(data)
    return getattr(client, method)(f"/api/v1{path}", body, content_type="application/json")


@pytest.fixture
def token(organiser):
    return ApiToken.issue(organiser)


@pytest.fixture
def outsider_token(django_user_model):
    return ApiToken.issue(django_user_model.objects.create_user("charlie", password="x-long-1"))


def sign_up(event, email, **extra):
    body = {"first_name": "Élodie", "last_name": "Lefèvre", "email": email, **extra}
    return call("post", f"/events/{event.slug}/registrations", body)


def test_patch_sets_the_announcement_and_answers_it(make_event, token, outsider_token):
    event = make_event(n_drivers=0)
    body = {
        "place": "Salle des fêtes, 1 rue de la Paix",
        "starts_at": "09:30",
        "schedule": [{"time": "09:30", "label": "Accueil"}, {"time": "10:00", "label": "Essais"}],
        "fee": "5 €",
        "capacity": 40,
        "registration": {
            "opens_at": "2026-05-01T10:00:00+02:00",
            "closes_at": "2026-07-01T10:00:00+02:00",
            "edit_until": "2026-07-10T10:00:00+02:00",
            "approval": "organiser",
        },
    }
    assert call("patch", f"/events/{event.slug}", body, outsider_token).status_code == 403
    answer = call("patch", f"/events/{event.slug}", body, token)
    assert answer.status_code == 200, answer.json()
    out = answer.json()
    assert out["capacity"] == 40 and out["starts_at"] == "09:30"
    assert out["schedule"][1] == {"time": "10:00", "label": "Essais"}
    assert out["registration"]["approval"] == "organiser"
    announcement = Announcement.objects.get(event=event)
    assert announcement.place.startswith("Salle") and announcement.fee == "5 €"
    assert (
        call("patch", f"/events/{event.slug}", {"capacity": None}, token).json()["capacity"] is None
    )
    bad = call("patch", f"/events/{event.slug}", {"starts_at": "25:00"}, token)
    assert bad.status_code == 400 and "starts_at" in bad.json()["errors"]


def test_sign_up_answers_the_same_for_a_new_and_a_known_address(open_event):
    event = open_event()
    first = sign_up(event, "elodie@example.org")
    second = sign_up(event, "elodie@example.org")
    assert first.status_code == second.status_code == 202
    assert first.json() == second.json() == {"status": "unconfirmed"}
    assert Registration.objects.count() == 1


def test_sign_up_409_says_when_400_names_fields(open_event):
    event = open_event()
    Announcement.objects.filter(event=event).update(
        opens_at=timezone.now() + datetime.timedelta(days=3)
    )
    closed = sign_up(event, "a@example.org")
    assert closed.status_code == 409 and "opens on" in closed.json()["detail"]
    Announcement.objects.filter(event=event).update(opens_at=timezone.now())
    bad = sign_up(event, "nope", public_name="everything")
    assert bad.status_code == 400
    assert set(bad.json()["errors"]) >= {"public_name"}


def test_too_many_tries_for_one_address_is_429(open_event, settings):
    settings.SIGNUP_TRIES_PER_EMAIL = 3
    event = open_event()
    answers = [sign_up(event, "same@example.org").status_code for _ in range(5)]
    assert answers == [202, 202, 202, 429, 429]


def test_confirm_then_own_link_read_change_cancel(open_event):
    event = open_event(capacity=1)
    sign_up(event, "a@example.org")
    sign_up(event, "b@example.org")
    confirmed = call("post", "/registrations/confirm", {"token": last_token("a@example.org")})
    assert confirmed.status_code == 200
    assert confirmed.json()["status"] == "accepted"
    link = confirmed.json()["link"]
    token_a = OWN.search(link).group(1)
    b = call("post", "/registrations/confirm", {"token": last_token("b@example.org")}).json()
    assert b["status"] == "waiting" and b["rank"] == 1
    again = call("post", "/registrations/confirm", {"token": last_token("a@example.org")})
    assert again.status_code == 409
    own = call("get", f"/registrations/{token_a}").json()
    assert own == {
        "event": event.slug,
        "status": "accepted",
        "rank": None,
        "first_name": "Élodie",
        "last_name": "Lefèvre",
        "team": "",
        "public_name": "full",
        "table": None,
    }
    assert "email" not in own
    changed = call("patch", f"/registrations/{token_a}", {"team": "Écurie Bleue"})
    assert changed.json()["team"] == "Écurie Bleue"
    cancelled = call("delete", f"/registrations/{token_a}")
    assert cancelled.json()["status"] == "cancelled"
    token_b = OWN.search(b["link"]).group(1)
    assert call("get", f"/registrations/{token_b}").json()["status"] == "accepted"
    assert call("get", "/registrations/unknown-token").status_code == 404


def test_organiser_lists_decides_and_writes(
    open_event, token, outsider_token, sign_up_confirmed, django_capture_on_commit_callbacks
):
    event = open_event(capacity=1)
    a, _ = sign_up_confirmed(event, "a@example.org")
    b, _ = sign_up_confirmed(event, "b@example.org")
    path = f"/events/{event.slug}/registrations"
    assert call("get", path).status_code == 401
    assert call("get", path, token=outsider_token).status_code == 403
    rows = call("get", path, token=token).json()
    assert [(r["email"], r["status"], r["rank"]) for r in rows] == [
        ("a@example.org", "accepted", None),
        ("b@example.org", "waiting", 1),
    ]
    assert set(rows[0]) == {
        "id",
        "first_name",
        "last_name",
        "email",
        "licence",
        "team",
        "status",
        "rank",
        "confirmed_at",
        "driver",
    }
    decide = f"{path}/{b.pk}/decision"
    full = call("post", decide, {"status": "accepted", "reason": "friend"}, token)
    assert full.status_code == 409
    no_reason = call("post", decide, {"status": "refused", "reason": ""}, token)
    assert no_reason.status_code == 400
    refused = call("post", decide, {"status": "refused", "reason": "Licence expired"}, token)
    assert refused.status_code == 200 and refused.json()["status"] == "refused"
    with django_capture_on_commit_callbacks(execute=True):
        sent = call(
            "post",
            f"/events/{event.slug}/messages",
            {"to": "accepted", "subject": "Parking", "body": "Rue de la Gare."},
            token,
        )
    assert sent.json() == {"queued": 1}
    log = call("get", f"/events/{event.slug}/messages", token=token).json()
    assert log[0]["queued"] == 1 and log[0]["delivered"] == 1 and log[0]["to"] == "accepted"
    assert call("get", f"/events/{event.slug}/messages").status_code == 401


def test_entrants_are_public_names_as_chosen_no_address(open_event, sign_up_confirmed):
    event = open_event(capacity=None)
    sign_up_confirmed(event, "a@example.org", first_name="Zoé", public_name="short", team="Rouge")
    sign_up_confirmed(event, "b@example.org", first_name="Ana")
    answer = call("get", f"/events/{event.slug}/entrants")
    assert answer.status_code == 200
    assert answer.json() == [
        {"name": "Zoé L.", "team": "Rouge", "rating": None, "races": 0},
        {"name": "Ana Lefèvre", "team": "", "rating": None, "races": 0},
    ]
    assert "example.org" not in answer.content.decode()


def test_a_registrations_history_is_read_without_making_a_class():
    """Each save reads ``Registration.history`` to write its history row: simple_history made
    a new manager class at each read (a third of a millisecond of a rush's request)."""
    assert type(Registration.history) is type(Registration.history)
    assert type(Announcement.history) is type(Announcement.history)
    assert Registration.history.model.__name__ == "HistoricalRegistration"


def test_a_sign_up_and_its_confirmation_each_ask_a_few_statements(
    make_event, django_assert_max_num_queries
):
    """Issue 42: in a rush each request is a few milliseconds of the server's time. A
    sign-up reads its event, its announcement and whether it is away in one statement (the
    away guard's, handed to the view) and writes the registration, its history and its mail;
    a confirmation reads its registration with its event, announcement and counts in one
    statement, writes the same three, then
    takes the seats' lock for one statement. Savepoints included (the test's transaction)."""
    event = make_event(n_drivers=0)
    Announcement.objects.create(
        event=event, capacity=1, opens_at=timezone.now() - datetime.timedelta(days=1)
    )
    # SQLite seats the confirmation through the ORM (``services._seat``): four more.
    most = 8 if connection.vendor == "postgresql" else 12
    for n in range(2):  # the second waits: its answer carries its rank
        with django_assert_max_num_queries(8):  # one more when old registrations are cleaned
            assert sign_up(event, f"p{n}@example.org").status_code == 202
        token = last_token(f"p{n}@example.org")
        with django_assert_max_num_queries(most):
            answer = call("post", "/registrations/confirm", {"token": token})
        assert answer.json()["status"] == ("accepted", "waiting")[n]
        assert answer.json()["rank"] == (None, 1)[n]


def test_the_organisers_list_is_what_its_schema_would_write(open_event, token, sign_up_confirmed):
    """Race control's list is written from rows, not through each row's schema: the answer
    is byte for byte what django-ninja writes for ``RegistrationOut`` (a seated driver's
    number, a rank only on the waiting list, a sign-up not yet confirmed)."""
    from ninja.responses import NinjaJSONEncoder

    from tournament.models import Driver
    from tournament.signup import selectors
    from tournament.signup.api import RegistrationOut, registration_out

    event = open_event(capacity=1)
    seated, _ = sign_up_confirmed(event, "a@example.org")
    sign_up_confirmed(event, "b@example.org")
    sign_up(event, "c@example.org")  # not confirmed: no rank, no confirmation time
    driver = Driver.objects.create(
        championship=event.championship, number=42, first_name="Ana", last_name="Cruz"
    )
    Registration.objects.filter(pk=seated.pk).update(driver=driver, licence="L-1")
    answer = call("get", f"/events/{event.slug}/registrations", token=token)
    assert answer["Content-Type"] == "application/json; charset=utf-8"
    through_schema = [
        RegistrationOut.model_validate(registration_out(r, rank)).model_dump()
        for r, rank in selectors.ranked(event)
    ]
    assert answer.content.decode() == json.dumps(through_schema, cls=NinjaJSONEncoder)
    rows = {r["email"]: (r["driver"], r["licence"], r["rank"], r["confirmed_at"] is None)
            for r in answer.json()}  # fmt: skip
    assert rows == {
        "a@example.org": (42, "L-1", None, False),
        "b@example.org": (None, "", 1, False),
        "c@example.org": (None, "", None, True),
    }
