"""Writes that may be sent twice (API.md "Writes that may be sent twice", issue 31): the
same key and body answer the first answer and write nothing, another body is a 422, a key
still running is a 409, a failed first request releases its key, keys are per sender.

Callers: the referee link of qualifying table 1 (its page and the API with its link as
token), the link of table 2, the organiser (logged in, and by API token).
"""

from __future__ import annotations

import json
import uuid
from datetime import timedelta

import pytest
from django.db import connection
from django.http import HttpResponse
from django.test import Client, RequestFactory
from django.urls import reverse
from django.utils import timezone

from qualifying.models import Run
from tests.tournament.offline.conftest import run_row
from tests.tournament.signup.conftest import CONFIRM, OWN
from tournament.models import ApiToken
from tournament.offline import idempotency
from tournament.offline.models import IdempotencyKey
from tournament.signup import mails
from tournament.signup.models import Announcement, Mail

pytestmark = pytest.mark.django_db

RUNS = "/api/v1/events/gp/sessions/1/runs"


def key() -> str:
    return str(uuid.uuid4())


def save(client, table, number, data, idem=None):
    headers = {"HTTP_HX_REQUEST": "true"}
    if idem:
        headers["HTTP_IDEMPOTENCY_KEY"] = idem
    return client.post(reverse("run-save", args=[table.token, 1, number]), data, **headers)


def api(token):
    return Client(HTTP_AUTHORIZATION=f"Bearer {token}", HTTP_ACCEPT_LANGUAGE="en")


def lap(driver=1, **fields):
    return json.dumps(
        {
            "driver": driver,
            "tyres": "hard",
            "throws": 20,
            "placement_errors": 0,
            "exit_squares": 0,
            "stopwatch": "1:30",
            "eliminated": False,
            **fields,
        }
    )


# --- The same key and body: the first answer, nothing written -------------------------------


def test_a_table_save_retried_after_a_lost_answer_lands_once_and_answers_success(table):
    sent = key()
    first = save(Client(), table, 1, run_row(1), sent)
    assert first.status_code == 200 and 'class="run-row saved"' in first.content.decode()
    # The phone never saw that answer: it sends the same write again.
    again = save(Client(), table, 1, run_row(1), sent)
    assert again.status_code == 200
    assert again.content == first.content
    assert again["Content-Type"] == first["Content-Type"]
    assert again[idempotency.REPLAYED_HEADER] == "true"
    assert Run.objects.count() == 1
    assert Run.objects.get().history.count() == 1


def test_without_a_key_a_second_send_is_judged_again(table):
    save(Client(), table, 1, run_row(1))
    again = save(Client(), table, 1, run_row(1))
    assert idempotency.REPLAYED_HEADER not in again
    assert not IdempotencyKey.objects.exists()


def test_an_api_write_sent_twice_answers_its_first_answer(table):
    sent = key()
    client = api(table.token)
    first = client.post(RUNS, lap(), content_type="application/json", HTTP_IDEMPOTENCY_KEY=sent)
    assert first.status_code == 201, first.content
    again = client.post(RUNS, lap(), content_type="application/json", HTTP_IDEMPOTENCY_KEY=sent)
    assert (again.status_code, again.json()) == (201, first.json())
    assert Run.objects.count() == 1
    # Without the key, the API judges the second send for what it is.
    plain = client.post(RUNS, lap(), content_type="application/json")
    assert plain.status_code == 409


def test_a_redirect_is_answered_again_with_its_location(table):
    sent = key()
    url = reverse("run-save", args=[table.token, 1, 1])
    first = Client().post(url, run_row(1), HTTP_IDEMPOTENCY_KEY=sent)
    assert first.status_code == 302
    again = Client().post(url, run_row(1), HTTP_IDEMPOTENCY_KEY=sent)
    assert (again.status_code, again["Location"]) == (302, first["Location"])
    assert Run.objects.count() == 1


def test_the_csrf_token_of_another_page_load_is_the_same_body(table):
    sent = key()
    save(Client(), table, 1, {**run_row(1), "csrfmiddlewaretoken": "a" * 64}, sent)
    again = save(Client(), table, 1, {**run_row(1), "csrfmiddlewaretoken": "b" * 64}, sent)
    assert again.status_code == 200 and again[idempotency.REPLAYED_HEADER] == "true"


# --- Another body: 422; still running: 409 -------------------------------------------------


def test_the_same_key_with_another_body_is_refused_422(table):
    sent = key()
    save(Client(), table, 1, run_row(1), sent)
    other = save(Client(), table, 1, run_row(1, throws="25"), sent)
    assert other.status_code == 422
    assert "une autre requête" in other.json()["detail"]  # French, as the page
    assert Run.objects.get().throws == 18


def test_the_same_key_on_another_path_is_another_body(table):
    sent = key()
    save(Client(), table, 1, run_row(1), sent)
    assert save(Client(), table, 2, run_row(2), sent).status_code == 422
    assert Run.objects.count() == 1


def test_the_same_key_while_the_first_runs_is_409(table):
    sent = key()
    request = RequestFactory().post(
        reverse("run-save", args=[table.token, 1, 1]), run_row(1), HTTP_IDEMPOTENCY_KEY=sent
    )
    IdempotencyKey.objects.create(
        scope=idempotency.scope_of(request),
        key=sent,
        method="POST",
        path=request.path,
        body_digest=idempotency.body_digest(request),
    )
    answer = save(Client(), table, 1, run_row(1), sent)
    assert answer.status_code == 409
    assert "en cours de traitement" in answer.json()["detail"]
    assert not Run.objects.exists()


def test_a_key_left_running_by_a_killed_server_is_taken_over(table):
    sent = key()
    request = RequestFactory().post(
        reverse("run-save", args=[table.token, 1, 1]), run_row(1), HTTP_IDEMPOTENCY_KEY=sent
    )
    row = IdempotencyKey.objects.create(
        scope=idempotency.scope_of(request),
        key=sent,
        method="POST",
        path=request.path,
        body_digest=idempotency.body_digest(request),
    )
    IdempotencyKey.objects.filter(pk=row.pk).update(
        created_at=timezone.now() - idempotency.stale_after() - timedelta(seconds=1)
    )
    assert save(Client(), table, 1, run_row(1), sent).status_code == 200
    assert Run.objects.count() == 1


def test_an_unreadable_key_is_a_400():
    answer = Client().post(RUNS, "{}", content_type="application/json", HTTP_IDEMPOTENCY_KEY="x")
    assert answer.status_code == 400 and answer.json()["errors"] == {}


# --- A failed first request releases its key ------------------------------------------------


def _through(get_response, request):
    return idempotency.IdempotencyMiddleware(get_response)(request)


def _posted(table, sent):
    return RequestFactory().post(
        reverse("run-save", args=[table.token, 1, 1]), run_row(1), HTTP_IDEMPOTENCY_KEY=sent
    )


def test_an_exception_releases_the_key_and_the_next_send_runs(table):
    sent = key()

    def crash(request):
        raise RuntimeError("the view fell over")

    with pytest.raises(RuntimeError):
        _through(crash, _posted(table, sent))
    assert not IdempotencyKey.objects.exists()
    answer = _through(lambda request: HttpResponse("ok", status=201), _posted(table, sent))
    assert answer.status_code == 201


@pytest.mark.parametrize("status", [500, 503, 403, 429])
def test_a_server_error_or_a_refusal_before_judging_releases_the_key(table, status):
    sent = key()
    _through(lambda request: HttpResponse(status=status), _posted(table, sent))
    assert not IdempotencyKey.objects.exists()


def test_a_refusal_of_the_write_itself_is_kept_and_answered_again(table):
    sent = key()
    _through(lambda request: HttpResponse("stale", status=409), _posted(table, sent))
    again = _through(lambda request: HttpResponse("second", status=200), _posted(table, sent))
    assert (again.status_code, again.content) == (409, b"stale")


# --- Per sender; kept 24 h at least ---------------------------------------------------------


def test_two_tables_keys_never_meet(table, other_table):
    sent = key()
    assert save(Client(), table, 1, run_row(1), sent).status_code == 200
    answer = save(Client(), other_table, 4, run_row(4), sent)
    assert answer.status_code == 200 and idempotency.REPLAYED_HEADER not in answer
    assert Run.objects.count() == 2


def test_the_organiser_s_page_and_token_are_their_own_senders(table, organiser):
    client = Client()
    client.force_login(organiser)
    sent = key()
    assert save(client, table, 1, run_row(1), sent).status_code == 200
    factory = RequestFactory()
    request = factory.post(RUNS, "{}", content_type="application/json")
    request.user = organiser
    assert idempotency.scope_of(request) == f"user:{organiser.pk}"
    bearer = factory.post(
        RUNS, "{}", content_type="application/json", HTTP_AUTHORIZATION="Bearer t"
    )
    assert idempotency.scope_of(bearer).startswith("token:")


def test_reads_and_other_pages_are_left_alone(table):
    sent = key()
    Client().get(reverse("qtable", args=[table.token]), HTTP_IDEMPOTENCY_KEY=sent)
    Client().post(reverse("login"), {"username": "x"}, HTTP_IDEMPOTENCY_KEY=sent)
    assert not IdempotencyKey.objects.exists()


def test_keys_are_kept_a_day_and_purged_after(table):
    kept, old = key(), key()
    save(Client(), table, 1, run_row(1), kept)
    save(Client(), table, 2, run_row(2), old)
    IdempotencyKey.objects.filter(key=kept).update(created_at=timezone.now() - timedelta(hours=23))
    IdempotencyKey.objects.filter(key=old).update(
        created_at=timezone.now() - idempotency.keep_for() - timedelta(minutes=1)
    )
    assert idempotency.keep_for() >= timedelta(hours=24)
    assert idempotency.purge_old() == 1
    assert list(IdempotencyKey.objects.values_list("key", flat=True)) == [kept]


# --- Secrets never kept as they are; anonymous senders capped --------------------------------


def raw_rows(model) -> str:
    """Every value of every row of ``model``'s table as the database holds it, as text."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT * FROM {connection.ops.quote_name(model._meta.db_table)}")
        rows = cursor.fetchall()
    return "\n".join(
        bytes(value).decode("latin-1") if isinstance(value, bytes | memoryview) else str(value)
        for row in rows
        for value in row
    )


def sent_twice(client, method: str, path: str, body: dict | None = None):
    """``body`` sent twice with one key: both answers."""
    sent = key()
    answers = [
        getattr(client, method)(
            path,
            json.dumps(body or {}),
            content_type="application/json",
            HTTP_IDEMPOTENCY_KEY=sent,
        )
        for _ in range(2)
    ]
    assert answers[1][idempotency.REPLAYED_HEADER] == "true"
    assert (answers[1].status_code, answers[1].content) == (
        answers[0].status_code,
        answers[0].content,
    )  # byte for byte
    return answers[0]


def test_no_row_keeps_a_link_or_a_check_out_key_and_replays_answer_byte_for_byte(
    event, table, organiser, make_event
):
    """API.md "The door and a person's data": secrets (table links, registrants' links,
    check-out keys) are never stored as they are, the answers kept for Idempotency-Key
    replays included. The path keeps the link replaced, the answer is sealed; a replay
    still answers the first answer, byte for byte."""
    Announcement.objects.create(
        event=event,
        opens_at=timezone.now() - timedelta(days=1),
        closes_at=timezone.now() + timedelta(days=1),
    )
    anyone = Client(HTTP_ACCEPT_LANGUAGE="en")
    sign_up = {"first_name": "Élodie", "last_name": "Lefèvre", "email": "e@example.org"}
    assert sent_twice(anyone, "post", "/api/v1/events/gp/registrations", sign_up).status_code == 202
    confirm = CONFIRM.search(mails.link_of(Mail.objects.get(kind="confirm"))).group(1)
    confirmed = sent_twice(anyone, "post", "/api/v1/registrations/confirm", {"token": confirm})
    own = OWN.search(confirmed.json()["link"]).group(1)
    edited = sent_twice(anyone, "patch", f"/api/v1/registrations/{own}", {"team": "Bleu"})
    assert edited.json()["team"] == "Bleu"
    sent = key()
    first = save(Client(), table, 1, run_row(1), sent)
    assert table.token in first.content.decode()  # the table's page links to itself
    assert save(Client(), table, 1, run_row(1), sent).content == first.content
    make_event(n_drivers=2, slug="away")  # no tables yet: it may leave
    organisers = api(ApiToken.issue(organiser))
    bundle = sent_twice(organisers, "post", "/api/v1/events/away/checkout").json()
    secrets = {
        "confirmation link": confirm,
        "own link": own,
        "table link": table.token,
        "check-out key": bundle["checkout"]["key"],
    }
    kept = raw_rows(IdempotencyKey) + raw_rows(Mail)
    assert "/registrations/" in kept  # the rows are read: paths are there
    assert [name for name, secret in secrets.items() if secret in kept] == []
    assert IdempotencyKey.objects.filter(path=f"/q/{idempotency.HIDDEN}/s/1/d/1/").exists()
    assert IdempotencyKey.objects.filter(
        path=f"/api/v1/registrations/{idempotency.HIDDEN}"
    ).exists()


def test_an_anonymous_sender_keeps_so_many_keys_and_no_more(table, settings):
    """Issue 40: anonymous writes filled the table (300 rows in 12 s, kept 48 h). Each
    anonymous sender (its address) keeps ``IDEMPOTENCY_ANON_KEYS`` keys at most; past
    that its writes run as if they carried none. Another address keeps its own."""
    settings.IDEMPOTENCY_ANON_KEYS = 3
    stranger = Client(REMOTE_ADDR="203.0.113.7")
    body = json.dumps({"token": "no-such-link"})
    first = key()
    for sent in [first, *(key() for _ in range(6))]:
        answer = stranger.post(
            "/api/v1/registrations/confirm",
            body,
            content_type="application/json",
            HTTP_IDEMPOTENCY_KEY=sent,
        )
        assert answer.status_code == 404
    assert IdempotencyKey.objects.count() == 3
    again = stranger.post(
        "/api/v1/registrations/confirm",
        body,
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY=first,
    )
    assert again[idempotency.REPLAYED_HEADER] == "true"  # a kept key still answers
    other = Client(REMOTE_ADDR="198.51.100.9")
    other.post(
        "/api/v1/registrations/confirm",
        body,
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY=key(),
    )
    assert IdempotencyKey.objects.count() == 4
    assert len(set(IdempotencyKey.objects.values_list("scope", flat=True))) == 2
    # A table's link is its own sender, never capped as a stranger.
    save(Client(REMOTE_ADDR="203.0.113.7"), table, 1, run_row(1), key())
    assert IdempotencyKey.objects.count() == 5
