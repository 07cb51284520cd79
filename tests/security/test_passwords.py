"""Passwords (issue 14): Django's validators on every form that sets one, and the password
reset pages only where mail can be sent."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.urls import reverse

from tests.security.conftest import World, logged_in

#: Reads response.context (tests/conftest.py keeps it then).
pytestmark = pytest.mark.keeps_context

ROOT = Path(__file__).resolve().parent.parent.parent


def refusals(password: str, **user_fields: str) -> list[str]:
    user = get_user_model()(**user_fields) if user_fields else None
    try:
        validate_password(password, user=user)
    except ValidationError as error:
        return [e.code for e in error.error_list]
    return []


def test_a_numeric_common_password_is_refused() -> None:
    assert set(refusals("12345678")) >= {"password_entirely_numeric", "password_too_common"}


@pytest.mark.parametrize(
    ("password", "code"),
    [
        ("azerty123", "password_too_short"),  # and common
        ("motdepasse", "password_too_common"),
        ("2026071420", "password_entirely_numeric"),
    ],
)
def test_weak_passwords_are_refused(password: str, code: str) -> None:
    assert code in refusals(password)


def test_a_password_like_the_username_is_refused() -> None:
    codes = refusals("marc.petit.2026", username="marc.petit", email="marc.petit@example.org")
    assert codes == ["password_too_similar"]


def test_a_long_unusual_password_is_accepted() -> None:
    assert refusals("pneus-tendres-à-monaco", username="marc.petit") == []


@pytest.mark.django_db
def test_the_password_change_page_refuses_12345678(world: World) -> None:
    organiser = world.users["organiser"]
    client = logged_in(organiser)

    response = client.post(
        reverse("password_change"),
        {"old_password": "orga-pass-1", "new_password1": "12345678", "new_password2": "12345678"},
    )

    assert response.status_code == 200  # the form again, with its errors
    errors = response.context["form"].errors["new_password2"]
    assert any("entirely numeric" in error for error in errors)
    organiser.refresh_from_db()
    assert organiser.check_password("orga-pass-1")


# --- Password reset: only with a mail backend -----------------------------------------------------

SHOW_RESET = (
    "import django, os; os.environ['DJANGO_SETTINGS_MODULE'] = 'paddock.settings';"
    "django.setup(); from django.urls import NoReverseMatch, Resolver404, resolve, reverse\n"
    "try:\n    print(reverse('password_reset'))\nexcept NoReverseMatch:\n    print('no-reset')\n"
    "try:\n    resolve('/accounts/password_reset/'); print('resolves')\n"
    "except Resolver404:\n    print('404')\n"
    "print(reverse('login'), reverse('password_change'))"
)


def show_reset(**env: str) -> list[str]:
    result = subprocess.run(
        [sys.executable, "-c", SHOW_RESET],
        cwd=ROOT,
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "DEBUG": "true", **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.split()


def test_no_password_reset_pages_without_a_mail_backend() -> None:
    assert show_reset() == [
        "no-reset",
        "404",
        "/accounts/login/",
        "/accounts/password_change/",
    ]


@pytest.mark.parametrize(
    "mail",
    [
        {"EMAIL_HOST": "smtp.example.org"},
        {"EMAIL_BACKEND": "django.core.mail.backends.console.EmailBackend"},
    ],
    ids=["smtp", "backend"],
)
def test_password_reset_pages_with_a_mail_backend(mail: dict[str, str]) -> None:
    assert show_reset(**mail)[:2] == ["/accounts/password_reset/", "resolves"]


def test_a_dummy_mail_backend_is_no_mail_backend() -> None:
    dummy = "django.core.mail.backends.dummy.EmailBackend"
    assert show_reset(EMAIL_BACKEND=dummy)[0] == "no-reset"


@pytest.mark.django_db
def test_password_reset_mails_a_link_when_mail_is_configured(
    client, mailoutbox, django_capture_on_commit_callbacks
) -> None:
    """The test run configures a mail backend (pyproject.toml): the pages work end to end,
    the mail leaving through the outbox once the request is over."""
    get_user_model().objects.create_user(
        "julie", email="julie.colin@example.org", password="julie-pass-1"
    )

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("password_reset"), {"email": "julie.colin@example.org"})

    assert response.status_code == 302
    assert [message.to for message in mailoutbox] == [["julie.colin@example.org"]]
    assert "/accounts/reset/" in mailoutbox[0].body
