"""The race for seats on real PostgreSQL: 30 registrants confirm in the same instant, each
through the API in its own thread and database connection (released together by a
barrier), for 5 seats. Exactly 5 are accepted, the other 25 wait in confirmation order, and
each one's mail says so (rendered before the seats' lock, most of them for a seat that was
gone once they held it)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connections
from django.test import Client

from tests.integrity.conftest import needs_postgresql
from tests.tournament.signup.conftest import last_token
from tournament.signup import mails, services
from tournament.signup.models import Mail, Registration

pytestmark = [needs_postgresql, pytest.mark.django_db(transaction=True)]

RACERS = 30
SEATS = 5


def test_exactly_capacity_accepted_when_all_confirm_at_once(open_event):
    event = open_event(capacity=SEATS)
    tokens = []
    for i in range(RACERS):
        services.registration_sign_up(
            event=event, first_name=f"P{i}", last_name="Rush", email=f"p{i}@example.org"
        )
        tokens.append(last_token(f"p{i}@example.org"))
    barrier = threading.Barrier(RACERS)

    def confirm(token: str) -> dict:
        try:
            connections["default"].ensure_connection()
            barrier.wait(timeout=60)
            answer = Client().post(
                "/api/v1/registrations/confirm", {"token": token}, content_type="application/json"
            )
            return {"code": answer.status_code, **answer.json()}
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=RACERS) as pool:
        answers = list(pool.map(confirm, tokens))

    assert {a["code"] for a in answers} == {200}
    assert sorted(a["status"] for a in answers).count("accepted") == SEATS
    assert Registration.objects.filter(event=event, status="accepted").count() == SEATS
    waiting = list(
        Registration.objects.filter(event=event, status="waiting").order_by("confirmed_at", "pk")
    )
    assert len(waiting) == RACERS - SEATS
    # Each answer's rank is its place in confirmation order: 1..25, each once.
    assert sorted(a["rank"] for a in answers if a["status"] == "waiting") == list(
        range(1, RACERS - SEATS + 1)
    )
    accepted_last = Registration.objects.filter(event=event, status="accepted").latest(
        "confirmed_at"
    )
    assert all(r.confirmed_at >= accepted_last.confirmed_at for r in waiting)
    # One mail each, as the registration ended: "in", or "waiting" with its rank.
    told = {
        m.registration_id: (m.kind, m.body_text)
        for m in Mail.objects.filter(registration__event=event).exclude(kind="confirm")
    }
    assert len(told) == RACERS
    for rank, registration in enumerate(waiting, 1):
        kind, body = told[registration.pk]
        assert kind == "waiting" and f"n° {rank} sur la liste" in body
    assert all(told[r.pk][0] == "accepted" for r in Registration.objects.filter(status="accepted"))
    assert not any(mails.RANK in body for _kind, body in told.values())
    # Each one's history says the same (written before the lock, for the likely outcome).
    for registration in Registration.objects.filter(event=event):
        last = registration.history.order_by("-history_id").first()
        assert (last.status, last.confirmed_at) == (registration.status, registration.confirmed_at)
        assert last.history_change_reason == f"address confirmed: {registration.status}"
