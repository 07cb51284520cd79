"""No live referee link in the server's log (issue 32, item 16): a 4xx of a link's page
logged its path, the link's secret included. The log names the secret's digest instead (the
start of the table's ``token_digest``), through the handlers the settings configure."""

from __future__ import annotations

import io
import logging

import pytest
from django.test import Client
from django.urls import reverse

from tests.security.conftest import build_world
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
