"""``manage.py issue_token``: a working organiser token, printed once."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from tests.api.conftest import Api, make_user
from tournament.models import ApiToken

pytestmark = pytest.mark.django_db


def test_prints_a_token_that_authenticates(championship):
    user = make_user("dora")
    championship.organisers.add(user)
    out = StringIO()
    call_command("issue_token", "dora", stdout=out)
    token = out.getvalue().strip()
    assert token.startswith("pdk_")
    assert ApiToken.user_for(token) == user
    response = Api(token).post("/championships/cfd-2025/teams", {"name": "Brabham"})
    assert response.status_code == 201


def test_unknown_user_is_a_clear_error(db):
    with pytest.raises(CommandError, match="nobody"):
        call_command("issue_token", "nobody")
    assert not ApiToken.objects.exists()


def test_inactive_user_is_refused(db):
    make_user("gone", is_active=False)
    with pytest.raises(CommandError, match="gone"):
        call_command("issue_token", "gone")
