"""The door and a person's data through the API (API.md "The door and a person's data,
through the API"): check-in, a waiting registrant present, closing check-in (preview, then
confirm), a person's export and erasure; paths, fields and values as the contract writes
them, with the three callers (the organiser, an outsider with a token, anyone). Errors are
4xx with a sentence, never 500."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from tests.tournament.signup.test_api import call
from tournament.models import ApiToken, Driver
from tournament.players.identity import new_player
from tournament.signup.models import Registration

pytestmark = pytest.mark.django_db


@pytest.fixture
def token(organiser):
    return ApiToken.issue(organiser)


@pytest.fixture
def outsider_token(django_user_model):
    return ApiToken.issue(django_user_model.objects.create_user("charlie", password="x-long-1"))


def door(event, path: str) -> str:
    return f"/events/{event.slug}{path}"


def test_check_in_answers_the_driver_under_the_public_name_the_registrant_chose(
    open_event, sign_up_confirmed, token, outsider_token
):
    event = open_event(capacity=None)
    registration, _ = sign_up_confirmed(
        event, "e@example.org", team="Écurie Rouge", public_name="short"
    )
    path = door(event, f"/registrations/{registration.pk}/checkin")
    assert call("post", path, {}).status_code == 401
    assert call("post", path, {}, outsider_token).status_code == 403
    answer = call("post", path, {"paid": True}, token)
    assert answer.status_code == 200, answer.json()
    assert answer.json() == {
        "id": registration.pk,
        "status": "accepted",
        "driver": {"number": 1, "name": "Élodie L.", "team": "Écurie Rouge"},
    }
    assert Driver.objects.get(number=1).entries.get(event=event).paid
    again = call("post", path, {}, token)  # checked in already: the same driver
    assert again.status_code == 200 and again.json()["driver"]["number"] == 1


def test_check_in_joins_a_known_driver_only_when_race_control_names_it(
    open_event, sign_up_confirmed, token, championship
):
    """DOMAIN.md "Corrections": a licence typed by a registrant is a hint, never a key."""
    event = open_event(capacity=None)
    Driver.objects.create(
        championship=championship,
        number=7,
        first_name="Élodie",
        last_name="Lefèvre",
        player=new_player(first_name="Élodie", last_name="Lefèvre", licence="L-77"),
    )
    stranger, _ = sign_up_confirmed(event, "m@example.org", first_name="Marc", licence="L-77")
    real, _ = sign_up_confirmed(event, "e@example.org", licence="L-77")
    answer = call("post", door(event, f"/registrations/{stranger.pk}/checkin"), {}, token)
    assert answer.json()["driver"]["number"] == 8  # not n° 7's number
    joined = call("post", door(event, f"/registrations/{real.pk}/checkin"), {"join": 7}, token)
    assert joined.status_code == 200 and joined.json()["driver"]["number"] == 7
    other = call("post", door(event, f"/registrations/{real.pk}/checkin"), {"join": 8}, token)
    assert other.status_code == 409 and other.json()["detail"]  # she is n° 7 already
    nina, _ = sign_up_confirmed(event, "n@example.org", first_name="Nina")
    unknown = call("post", door(event, f"/registrations/{nina.pk}/checkin"), {"join": 9}, token)
    assert unknown.status_code == 400 and "join" in unknown.json()["errors"]


def test_present_then_close_previews_then_confirms(open_event, sign_up_confirmed, token):
    event = open_event(capacity=1)
    away, _ = sign_up_confirmed(event, "absent@example.org")
    waiting, _ = sign_up_confirmed(event, "w@example.org", first_name="Nina")
    present = call(
        "post", door(event, f"/registrations/{waiting.pk}/present"), {"present": True}, token
    )
    assert present.status_code == 200
    assert present.json() == {"id": waiting.pk, "status": "waiting", "present": True, "rank": 1}
    refused = call(
        "post", door(event, f"/registrations/{away.pk}/present"), {"present": True}, token
    )
    assert refused.status_code == 409 and refused.json()["detail"]
    preview = call("post", door(event, "/checkin/close"), {}, token)
    assert preview.status_code == 200
    assert preview.json() == {"absent": [away.pk], "moved_in": [waiting.pk]}
    assert Registration.objects.get(pk=away.pk).status == "accepted"  # nothing done yet
    closed = call("post", door(event, "/checkin/close"), {"confirm": True}, token)
    assert closed.json() == {"absent": [away.pk], "moved_in": [waiting.pk]}
    assert Registration.objects.get(pk=away.pk).status == "absent"
    assert Registration.objects.get(pk=waiting.pk).status == "accepted"
    again = call("post", door(event, "/checkin/close"), {"confirm": True}, token)
    assert again.status_code == 409 and again.json()["detail"]
    late = call("post", door(event, f"/registrations/{away.pk}/checkin"), {}, token)
    assert late.status_code == 200
    assert late.json() == {"id": away.pk, "status": "waiting", "driver": None}  # no seat


def test_the_club_s_desk_keeps_the_door_and_is_refused_decisions_and_a_person_s_data(
    open_event, sign_up_confirmed, desk_member
):
    """DOMAIN.md "Clubs and who may do what" and API.md "Clubs and their people": the desk
    reads the list, checks in, marks a waiting registrant present and closes check-in; a
    decision, a message, a person's export and erasure are the organisers' (403)."""
    desk = ApiToken.issue(desk_member)
    event = open_event(capacity=1)
    accepted, _ = sign_up_confirmed(event, "a@example.org", first_name="Bruno")
    waiting, _ = sign_up_confirmed(event, "w@example.org", first_name="Nina")
    listed = call("get", door(event, "/registrations"), None, desk)
    assert listed.status_code == 200
    assert {r["email"] for r in listed.json()} == {"a@example.org", "w@example.org"}
    organisers = [
        ("post", f"/registrations/{accepted.pk}/decision", {"status": "refused", "reason": "n"}),
        ("post", "/messages", {"to": "all", "subject": "Parking", "body": "Rue de la Gare."}),
        ("get", "/messages", None),
        ("get", f"/registrations/{accepted.pk}/export", None),
        ("post", f"/registrations/{accepted.pk}/erase", {"reason": "asked"}),
    ]
    for method, path, body in organisers:
        assert call(method, door(event, path), body, desk).status_code == 403, path
    assert Registration.objects.get(pk=accepted.pk).status == "accepted"
    present = call(
        "post", door(event, f"/registrations/{waiting.pk}/present"), {"present": True}, desk
    )
    assert present.status_code == 200 and present.json()["present"] is True
    checked_in = call("post", door(event, f"/registrations/{accepted.pk}/checkin"), {}, desk)
    assert checked_in.status_code == 200 and checked_in.json()["driver"]["number"] == 1
    preview = call("post", door(event, "/checkin/close"), {}, desk)
    assert preview.status_code == 200 and preview.json() == {"absent": [], "moved_in": []}
    closed = call("post", door(event, "/checkin/close"), {"confirm": True}, desk)
    assert closed.status_code == 200


def test_export_then_erase(open_event, sign_up_confirmed, token, outsider_token):
    event = open_event(capacity=None)
    registration, _ = sign_up_confirmed(event, "e@example.org", licence="L-12")
    exported = call("get", door(event, f"/registrations/{registration.pk}/export"), None, token)
    assert exported.status_code == 200
    assert exported.json()["registration"]["email"] == "e@example.org"
    path = door(event, f"/registrations/{registration.pk}/erase")
    assert call("post", path, {"reason": "asked"}, outsider_token).status_code == 403
    assert call("post", path, {"reason": ""}, token).status_code == 400
    erased = call("post", path, {"reason": "asked by mail"}, token).json()
    assert erased == {"driver": None, "championships": ["cf"]}
    checked_in, _ = sign_up_confirmed(event, "n@example.org", first_name="Nina")
    call("post", door(event, f"/registrations/{checked_in.pk}/checkin"), {}, token)
    path = door(event, f"/registrations/{checked_in.pk}/erase")
    assert call("post", path, {"reason": "asked"}, token).json()["driver"] == 1
    exported = call("get", door(event, f"/registrations/{checked_in.pk}/export"), None, token)
    assert "n@example.org" not in json.dumps(exported.json())
    again = call("post", door(event, f"/registrations/{registration.pk}/checkin"), {}, token)
    assert again.status_code == 409  # an erased registration checks in no more


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("post", "/registrations/{id}/checkin", {"paid": "yes"}),
        ("post", "/registrations/{id}/checkin", {"join": 0}),
        ("post", "/registrations/{id}/checkin", []),
        ("post", "/registrations/{id}/present", {}),
        ("post", "/checkin/close", {"confirm": 1}),
        ("post", "/registrations/{id}/erase", {"reason": "x" * 501}),
        ("post", "/registrations/99999999999999999999999/checkin", {}),
        ("get", "/registrations/99999999999999999999999/export", None),
        ("get", "/registrations/0/export", None),
        ("post", "/registrations/-1/erase", {"reason": "asked"}),
    ],
)
def test_errors_are_4xx_with_a_sentence(open_event, sign_up_confirmed, token, method, path, body):
    event = open_event(capacity=None)
    registration, _ = sign_up_confirmed(event, "e@example.org")
    answer = call(method, door(event, path.replace("{id}", str(registration.pk))), body, token)
    assert 400 <= answer.status_code < 500, answer.content
    assert answer.json()["detail"]


def test_an_unknown_event_or_registration_is_a_404(open_event, token, make_event):
    event = open_event()
    for path in ("/registrations/4242/checkin", "/registrations/4242/present"):
        assert call("post", door(event, path), {"present": True}, token).status_code == 404
    client = Client(HTTP_AUTHORIZATION=f"Bearer {token}")
    assert client.get("/api/v1/events/nope/registrations/1/export").status_code == 404
