"""CI's skip rule (tests/conftest.py): with PostgreSQL and Redis every skip fails the run; in
the fresh machine's pass (CI, neither service) only the skips naming a missing one pass."""

from __future__ import annotations

import pytest

from tests import conftest

SERVICE_SKIPS = [
    "Concurrency needs PostgreSQL: set DATABASE_URL.",
    "the PostgreSQL restore needs DATABASE_URL (CI sets it)",
    "REDIS_URL is not set",
    "several servers share Redis",
]
OTHER_SKIPS = ["Chromium is not installed (apt-get install chromium).", "make is not installed",
               "this machine has no network address"]  # fmt: skip


@pytest.mark.parametrize("reason", SERVICE_SKIPS + OTHER_SKIPS)
def test_with_the_services_no_skip_is_allowed(monkeypatch, reason: str) -> None:
    monkeypatch.setattr(conftest, "WITHOUT_SERVICES", False)
    assert not conftest.allowed_skip(reason)


@pytest.mark.parametrize("reason", SERVICE_SKIPS)
def test_without_them_a_skip_naming_a_service_is_allowed(monkeypatch, reason: str) -> None:
    monkeypatch.setattr(conftest, "WITHOUT_SERVICES", True)
    assert conftest.allowed_skip(reason)


@pytest.mark.parametrize("reason", OTHER_SKIPS)
def test_without_them_any_other_skip_fails_the_run(monkeypatch, reason: str) -> None:
    monkeypatch.setattr(conftest, "WITHOUT_SERVICES", True)
    assert not conftest.allowed_skip(reason)


def test_the_reason_is_read_from_a_skip_report() -> None:
    class Report:
        longrepr = ("tests/x.py", 3, "Skipped: REDIS_URL is not set")

    assert conftest.skip_reason(Report()) == "Skipped: REDIS_URL is not set"
