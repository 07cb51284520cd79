"""Writes sent twice at the same time, on real PostgreSQL with real threads (issue 31): the
database's unique constraint decides which one runs; the others get a 409 while it runs, or
its answer once it is stored. Each thread has its own connection."""

from __future__ import annotations

import threading
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connections
from django.http import HttpResponse
from django.test import Client, RequestFactory
from django.urls import reverse

from qualifying.models import Run
from tests.integrity.conftest import needs_postgresql
from tests.tournament.offline.conftest import run_row
from tournament.offline import idempotency
from tournament.offline.models import IdempotencyKey
from tournament.sealing import unseal_bytes

pytestmark = [needs_postgresql, pytest.mark.django_db(transaction=True)]

SENDERS = 8


def test_a_key_sent_by_eight_threads_at_once_writes_once(table):
    sent = str(uuid.uuid4())
    url = reverse("run-save", args=[table.token, 1, 1])
    barrier = threading.Barrier(SENDERS)

    def send():
        try:
            connections["default"].ensure_connection()
            barrier.wait(timeout=60)
            return Client().post(url, run_row(1), HTTP_HX_REQUEST="true", HTTP_IDEMPOTENCY_KEY=sent)
        finally:
            connections.close_all()

    with ThreadPoolExecutor(SENDERS) as pool:
        answers = list(pool.map(lambda _i: send(), range(SENDERS)))
    assert Run.objects.count() == 1
    assert {a.status_code for a in answers} <= {200, 409}
    fresh = [a for a in answers if a.status_code == 200 and idempotency.REPLAYED_HEADER not in a]
    assert len(fresh) == 1
    for answer in answers:
        if answer.status_code == 200:
            assert answer.content == fresh[0].content
    row = IdempotencyKey.objects.get()
    assert row.status == 200 and unseal_bytes(bytes(row.response)) == fresh[0].content  # sealed


def test_the_second_send_while_the_first_runs_is_409_then_the_first_answer(table):
    """The first request holds its view open until the second one has had its answer."""
    sent = str(uuid.uuid4())
    url = reverse("run-save", args=[table.token, 1, 1])
    inside, second_done = threading.Event(), threading.Event()

    def slow_view(request):
        inside.set()
        assert second_done.wait(timeout=60)
        return HttpResponse("first", status=201)

    def first():
        try:
            request = RequestFactory().post(url, run_row(1), HTTP_IDEMPOTENCY_KEY=sent)
            return idempotency.IdempotencyMiddleware(slow_view)(request)
        finally:
            connections.close_all()

    def second():
        try:
            assert inside.wait(timeout=60)
            request = RequestFactory().post(url, run_row(1), HTTP_IDEMPOTENCY_KEY=sent)
            return idempotency.IdempotencyMiddleware(lambda r: HttpResponse("second"))(request)
        finally:
            second_done.set()
            connections.close_all()

    with ThreadPoolExecutor(2) as pool:
        one, two = pool.submit(first), pool.submit(second)
        assert two.result().status_code == 409
        assert one.result().status_code == 201
    request = RequestFactory().post(url, run_row(1), HTTP_IDEMPOTENCY_KEY=sent)
    third = idempotency.IdempotencyMiddleware(lambda r: HttpResponse("third"))(request)
    assert (third.status_code, third.content) == (201, b"first")
