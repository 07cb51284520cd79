"""No live referee link in the server's log (issue 32, item 16): a 4xx of a link's page
logged its path, the link's secret included. The log names the secret's digest instead (the
start of the table's ``token_digest``), through the handlers the settings configure."""

from __future__ import annotations

import datetime
import io
import logging
import re
import threading
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
from django.conf import settings
from django.core.handlers.wsgi import WSGIHandler
from django.core.servers.basehttp import WSGIRequestHandler, WSGIServer
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from gunicorn.app.wsgiapp import WSGIApplication
from gunicorn.config import Config as GunicornConfig

from tests.security.conftest import build_world
from tournament.models import Club, Invitation, Membership
from tournament.sealing import link_digest


@pytest.fixture
def console() -> io.StringIO:
    """What the project's console handlers write (Django's request log, runserver's)."""
    written = io.StringIO()
    handlers = [
        handler
        for name in ("django", "django.server")
        for handler in logging.getLogger(name).handlers
        if type(handler) is logging.StreamHandler  # the settings' own, not pytest's
    ]
    assert len(handlers) == 2
    streams = [handler.setStream(written) for handler in handlers]
    yield written
    for handler, stream in zip(handlers, streams, strict=True):
        handler.setStream(stream)


@pytest.mark.django_db
def test_a_link_pages_refusal_logs_the_secrets_digest_never_the_secret(
    django_user_model, console
) -> None:
    world = build_world(django_user_model)
    qtable, rtable = world.qtables[0], world.rtables[0]
    client = Client()
    missing = reverse("run-save", args=[qtable.token, 9, 999])
    assert client.post(missing, {}).status_code == 404
    assert client.get(reverse("result-restore", args=[rtable.token])).status_code in (403, 404, 405)
    logging.getLogger("django.server").info('"GET /q/%s/ HTTP/1.1" 200 10', qtable.token)

    log = console.getvalue()
    assert missing.replace(qtable.token, "") not in log  # the lines are there, without it
    assert f"/q/#{link_digest(qtable.token)[:12]}/s/9/d/999/" in log, log
    assert f"/r/#{link_digest(rtable.token)[:12]}/" in log, log
    assert qtable.token not in log and rtable.token not in log


@pytest.mark.django_db
def test_a_registrants_link_refused_is_logged_by_its_digest(console) -> None:
    """A registrant's own link opens their page (name, status, cancel): an expired or wrong
    one's 404 logs its path without the secret, on the page and in the API."""
    secret = "Zk3_q-9aRr77xYwV"
    client = Client()
    assert client.get(f"/registrations/{secret}/").status_code == 404
    assert client.post(f"/registrations/confirm/{secret}/").status_code >= 400
    assert client.get(f"/api/v1/registrations/{secret}").status_code >= 400

    log = console.getvalue()
    assert f"/registrations/#{link_digest(secret)[:12]}/" in log, log
    assert f"/api/v1/registrations/#{link_digest(secret)[:12]}" in log, log
    assert secret not in log


# --- Every secret route, whatever the status (issue 49, item 5) -----------------------------


class Runserver:
    """runserver's own server and request handler (``django.core.servers.basehttp``), each
    request handled in the test's thread (its database transaction) while a client thread
    sends it: the log lines are the ones ``manage.py runserver`` writes. The connection to
    the database stays open between requests, as the test client keeps it (the test's
    transaction holds its rows)."""

    def __init__(self) -> None:
        for signal in (request_started, request_finished):
            signal.disconnect(close_old_connections)
        self.server = WSGIServer(("127.0.0.1", 0), WSGIRequestHandler)
        # The application runserver serves (paddock.wsgi's, without its django.setup()
        # again: that would configure the logs anew, past the console fixture).
        self.server.set_app(WSGIHandler())
        self.client = httpx.Client(
            base_url=f"http://127.0.0.1:{self.server.server_port}",
            headers={"Connection": "close", "Accept-Language": "en"},
            timeout=30,
        )

    def send(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        answers: list[Any] = []

        def client() -> None:
            try:
                answers.append(self.client.request(method, path, **kwargs))
            except Exception as error:  # noqa: BLE001 - handed to the test's thread
                answers.append(error)

        thread = threading.Thread(target=client)
        thread.start()
        self.server.handle_request()
        thread.join(timeout=30)
        assert answers and isinstance(answers[0], httpx.Response), answers
        return answers[0]

    def close(self) -> None:
        self.client.close()
        self.server.server_close()
        for signal in (request_started, request_finished):
            signal.connect(close_old_connections)


@pytest.fixture
def runserver() -> Any:
    server = Runserver()
    yield server
    server.close()


def _csrf(page: httpx.Response) -> str:
    found = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
    assert found, page.text[:500]
    return found.group(1)


@pytest.mark.django_db
def test_an_invitations_secret_is_masked_in_runservers_log_whatever_the_status(
    django_user_model, console, runserver
) -> None:
    """Opened (200), refused as a form (400), a username taken (409), without the form's
    token (403), used (410) or unknown (404): each answer's lines name the digest."""
    owner = django_user_model.objects.create_user("patronne", password="pw")
    club = Club.objects.create(slug="aix", name="Club d’Aix")
    # Its sender still owns the club: an invitation holds only while its sender may invite.
    Membership.objects.create(club=club, user=owner, role="owner")
    secret, used, unknown = "Inv1tAtion-s3cret_live", "Us3d-invitation-link", "N0-such-invitation"
    for token, accepted_at in ((secret, None), (used, timezone.now())):
        Invitation.objects.create(
            club=club, email="lea@example.org", role="desk", digest=link_digest(token),
            invited_by=owner, expires_at=timezone.now() + datetime.timedelta(days=7),
            accepted_at=accepted_at,
        )  # fmt: skip
    path = f"/invitations/{secret}/"

    page = runserver.send("GET", path)
    assert page.status_code == 200
    strong = "virage-rapide-2026"
    form = {"csrfmiddlewaretoken": _csrf(page), "password": strong, "password_again": strong}
    assert runserver.send("POST", path, data=form).status_code == 400
    taken = form | {"username": "patronne"}
    assert runserver.send("POST", path, data=taken).status_code == 409
    runserver.client.cookies.clear()
    assert runserver.send("POST", path, data=taken).status_code == 403
    assert runserver.send("GET", f"/invitations/{used}/").status_code == 410
    assert runserver.send("GET", f"/invitations/{unknown}/").status_code == 404
    # A sign-in asked from the invitation carries it in its query.
    runserver.send("GET", f"/accounts/login/?next=%2Finvitations%2F{secret}%2F")

    log = console.getvalue()
    for token in (secret, used, unknown):
        assert token not in log, log
    masked = f"/invitations/#{link_digest(secret)[:12]}/"
    for status in (200, 400, 409, 403):
        assert (
            f'"GET {masked} HTTP/1.1" {status}' in log
            or f'"POST {masked} HTTP/1.1" {status}' in log
        ), (status, log)
    assert f"Conflict: {masked}" in log and f"Bad Request: {masked}" in log, log
    assert f"Not Found: /invitations/#{link_digest(unknown)[:12]}/" in log, log
    assert f"%2Finvitations%2F#{link_digest(secret)[:12]}%2F" in log, log


@pytest.mark.django_db
def test_every_secret_route_is_masked_in_runservers_log(console, runserver) -> None:
    """Each address that carries a secret: a table's link, a registrant's and its
    confirmation, an account's confirmation, a password reset (Django's own page, a 200
    saying the link is not valid), on the pages and in the API."""
    secret = "Zk3_q-9aRr77xYwV"
    routes = [
        f"/q/{secret}/",
        f"/r/{secret}/result/",
        f"/registrations/{secret}/",
        f"/registrations/confirm/{secret}/",
        f"/api/v1/registrations/{secret}",
        f"/invitations/{secret}/",
        f"/accounts/confirm/{secret}/",
        f"/accounts/reset/MQ/{secret}/",
    ]
    statuses = [runserver.send("GET", route).status_code for route in routes]
    assert statuses[-1] == 200 or not settings.PASSWORD_RESET_ENABLED, statuses
    assert all(status < 500 for status in statuses), statuses

    log = console.getvalue()
    assert secret not in log, log
    for route in routes:
        assert route.replace(secret, f"#{link_digest(secret)[:12]}") in log, (route, log)


def test_gunicorns_access_and_error_logs_mask_the_secrets(tmp_path) -> None:
    """gunicorn configured as ``make venue`` configures it (its configuration module, read
    by gunicorn's own loader), an access log asked: the access line of a 409 (path and
    referrer) and the error log's line name the digest, never the secret."""
    app = WSGIApplication.__new__(WSGIApplication)
    app.cfg = GunicornConfig()
    app.load_config_from_module_name_or_filename("python:paddock.venue.watchdog")
    access, errors = tmp_path / "access.log", tmp_path / "error.log"
    app.cfg.set("accesslog", str(access))
    app.cfg.set("errorlog", str(errors))
    logger = app.cfg.logger_class(app.cfg)
    try:
        secret = "Inv1tAtion-s3cret_live"
        environ = {
            "REQUEST_METHOD": "POST",
            "RAW_URI": f"/invitations/{secret}/?x=1",
            "PATH_INFO": f"/invitations/{secret}/",
            "QUERY_STRING": "x=1",
            "SERVER_PROTOCOL": "HTTP/1.1",
            "REMOTE_ADDR": "127.0.0.1",
            "HTTP_REFERER": f"https://paddock.example.org/invitations/{secret}/",
            "HTTP_USER_AGENT": "phone",
        }
        response = SimpleNamespace(status="409 Conflict", sent=120, headers=[])
        logger.access(response, SimpleNamespace(headers=[]), environ, datetime.timedelta(0, 1))
        logger.error("Error handling request %s", environ["RAW_URI"])
        for handler in logger.access_log.handlers + logger.error_log.handlers:
            handler.flush()
    finally:
        logger.close_on_exec()
        for log in (logger.access_log, logger.error_log):
            for handler in list(log.handlers):
                log.removeHandler(handler)
                handler.close()
    masked = f"/invitations/#{link_digest(secret)[:12]}/"
    lines = access.read_text()
    assert f'"POST {masked}?x=1 HTTP/1.1" 409 120 "https://paddock.example.org{masked}"' in lines
    assert f"Error handling request {masked}?x=1" in errors.read_text()
    assert secret not in lines + errors.read_text()
