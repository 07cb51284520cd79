"""The fuzz tests share the security tests' event, built once per module and committed;
each test's writes are rolled back (``tests.security.conftest.world``)."""

from __future__ import annotations

import pytest
from django.core.signals import request_finished, request_started
from django.db import close_old_connections

from tests.security.conftest import world  # noqa: F401 - a fixture, shared on purpose


@pytest.fixture(autouse=True)
def _keep_the_test_connection():
    """schemathesis calls the WSGI app directly, which fires Django's request signals; their
    ``close_old_connections`` would close the connection holding the test's transaction
    (PostgreSQL). Django's own test client disconnects them the same way."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)
