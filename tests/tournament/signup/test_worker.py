"""A real Celery worker sends the outbox: killed in the middle of a mail, it loses none and
sends none twice.

The worker's process is caught in the middle of the SMTP conversation by the server itself,
not by timing: the test's SMTP server (aiosmtpd on loopback) holds the first recipient
command until told; once the worker's process is there, holding the mail's row lock, it is
killed (SIGKILL). Its message goes back to the queue (acks late), its transaction is rolled
back (the row stays queued), and the worker's next process sends the mail, once. The same
task sent again afterwards finds the row sent and sends nothing: the next mail, queued
behind it on the one-process worker, arrives, and the first was still delivered once.
"""

from __future__ import annotations

import asyncio
import email
import email.policy
import os
import signal
import sys
import threading
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller

from tests.faults.conftest import postgresql_environment, suite_database_url
from tests.faults.processes import children, free_port, start, stop, wait_until
from tests.integrity.conftest import needs_postgresql
from tournament.signup import services
from tournament.signup.models import Mail
from tournament.signup.tasks import send_mail

pytestmark = [
    needs_postgresql,
    pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="a real queue: set REDIS_URL"),
    pytest.mark.django_db(transaction=True),
    pytest.mark.celery_worker,
]


class Holding:
    """Keeps every message; holds each RCPT while ``hold`` is not set."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.rcpts = 0
        self.messages: list[email.message.EmailMessage] = []

    async def handle_RCPT(self, server, session, envelope, address, options):  # noqa: N802
        self.rcpts += 1
        while not self.release.is_set():
            await asyncio.sleep(0.01)
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):  # noqa: N802
        self.messages.append(
            email.message_from_bytes(envelope.content, policy=email.policy.default)
        )
        return "250 OK"


def test_a_worker_killed_mid_send_loses_no_mail_and_sends_none_twice(
    open_event, tmp_path: Path, settings
) -> None:
    from paddock.celery import app

    app.control.purge()
    handler = Holding()
    smtp = Controller(handler, hostname="127.0.0.1", port=free_port())
    smtp.start()
    env = postgresql_environment(
        tmp_path,
        suite_database_url(),
        REDIS_URL=os.environ["REDIS_URL"],
        EMAIL_HOST="127.0.0.1",
        EMAIL_PORT=str(smtp.port),
        EMAIL_USE_TLS="false",
        DEFAULT_FROM_EMAIL="paddock@example.org",
    )
    # The links are sealed here and unsealed by the worker: both hold the same key.
    settings.SECRET_KEY = env["SECRET_KEY"]
    worker = start(
        [sys.executable, "-m", "celery", "-A", "paddock", "worker", "--pool", "prefork",
         "--concurrency", "1", "--loglevel", "info", "--without-heartbeat", "--without-gossip",
         "--without-mingle"],
        env=env, log=tmp_path / "celery.log",
    )  # fmt: skip
    try:
        event = open_event()
        services.registration_sign_up(
            event=event, first_name="A", last_name="B", email="a@example.org", language="en"
        )
        mail = Mail.objects.get()
        wait_until(lambda: handler.rcpts or None, timeout=60, what="the worker mid-send")
        (process,) = children(worker.pid)
        os.kill(process, signal.SIGKILL)
        handler.release.set()
        wait_until(
            lambda: Mail.objects.filter(pk=mail.pk, state="sent").first(),
            timeout=60,
            what="the mail sent by the worker's next process",
        )
        # The same task again (a retry, a message given twice), then the next mail.
        send_mail.delay(mail.pk)
        services.registration_sign_up(
            event=event, first_name="C", last_name="D", email="c@example.org", language="en"
        )
        wait_until(
            lambda: Mail.objects.filter(to="c@example.org", state="sent").first(),
            timeout=60,
            what="the next mail sent",
        )
    finally:
        stop(worker)
        smtp.stop()
    to_a = [m for m in handler.messages if m["To"] == "a@example.org"]
    assert len(to_a) == 1
    assert to_a[0]["Message-ID"] == mail.message_id_header
    assert Mail.objects.get(pk=mail.pk).attempts == 1  # the killed try was rolled back
    assert handler.rcpts >= 2  # the killed process had reached the server
