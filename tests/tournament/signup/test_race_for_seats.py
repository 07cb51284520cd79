"""The race for seats on real PostgreSQL: 30 registrants confirm in the same instant, each
through the API in its own thread and database connection (released together by a
barrier), for 5 seats. Exactly 5 are accepted, the other 25 wait in confirmation order, and
each one's mail says so (rendered before the seats' lock, most of them for a seat that was
gone once they held it)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection, connections, transaction
from django.test import Client

from tests.integrity.conftest import needs_postgresql
from tests.tournament.signup.conftest import last_token, sent_text
from tournament.access import Actor
from tournament.errors import Conflict
from tournament.signup import mails, services
from tournament.signup.models import Announcement, Mail, Registration

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
        m.registration_id: (m.kind, sent_text(m))
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


def _in_a_thread(work: Callable[[], str]) -> tuple[threading.Thread, dict[str, str]]:
    """Run ``work`` in a thread of its own (its own database connection); its answer, or
    the name of what it raised, lands in the dict."""
    outcome: dict[str, str] = {}

    def run() -> None:
        try:
            outcome["answer"] = work()
        except Exception as exc:  # noqa: BLE001 - the test reads what it raised
            outcome["answer"] = type(exc).__name__
        finally:
            connections.close_all()

    thread = threading.Thread(target=run)
    thread.start()
    return thread, outcome


def _waits_on_a_lock_or_ends(outcome: dict[str, str]) -> str:
    """Until the other thread either waits on a row lock (PostgreSQL's ``pg_locks``: a lock
    not granted) or has answered: ``"waits"`` or ``"answered"``. No sleep decides it."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if outcome:
            return "answered"
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM pg_locks WHERE NOT granted")
            if cursor.fetchone()[0]:
                return "waits"
        time.sleep(0.01)
    raise AssertionError("the other thread neither waited nor answered within 60 s")


def _take_the_last_seat(event, registration: Registration) -> None:
    """What a confirmation does under the seats' lock: the announcement's row locked (as
    ``services._seat`` takes it), then the last seat taken; the lock held until commit."""
    announcement = Announcement.objects.get(event=event)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT 1 FROM tournament_announcement WHERE id = %s FOR UPDATE", [announcement.pk]
        )
    Registration.objects.filter(pk=registration.pk).update(status="accepted")


def _decide(registration: Registration, actor: Actor) -> Callable[[], str]:
    def work() -> str:
        services.registration_decide(
            registration=registration, actor=actor, status="accepted", reason="ok"
        )
        return "accepted"

    return work


def _confirm(token: str) -> Callable[[], str]:
    return lambda: services.registration_confirm(token=token)[0].status


@pytest.mark.parametrize("who", ["decision", "confirmation"])
def test_whoever_changes_seats_waits_for_the_seats_lock(open_event, organiser, who):
    """The seats' lock (``select_for_update`` on the event's announcement, DOMAIN.md "never
    more accepted than seats"): while one transaction holds it and takes the last seat, race
    control's acceptance and a confirmation wait for it, then find the event full. Without
    the lock they would count the seat as free (the first one's write is not committed
    yet) and take it too: two accepted for one seat."""
    event = open_event(capacity=1)
    for name in ("a", "b"):
        services.registration_sign_up(
            event=event, first_name=name.upper(), last_name="Rush", email=f"{name}@example.org"
        )
    a = Registration.objects.get(email="a@example.org")
    if who == "decision":
        Announcement.objects.filter(event=event).update(approval="organiser")
        services.registration_confirm(token=last_token("a@example.org"))
        b, _link = services.registration_confirm(token=last_token("b@example.org"))
        assert b.status == "pending"
        work, expected = _decide(b, Actor(user=organiser)), Conflict.__name__
    else:
        work, expected = _confirm(last_token("b@example.org")), "waiting"
    with transaction.atomic():
        _take_the_last_seat(event, a)
        thread, outcome = _in_a_thread(work)
        seen = _waits_on_a_lock_or_ends(outcome)
    thread.join(timeout=60)
    assert (seen, outcome.get("answer")) == ("waits", expected)
    assert Registration.objects.filter(event=event, status="accepted").count() == 1
