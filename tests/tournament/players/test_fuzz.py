"""Never a 500 for anything a client sends to the players' and next season's endpoints."""

from __future__ import annotations

import json

import pytest
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.api.conftest import Api
from tests.api.test_fuzz import json_values
from tests.tournament.players.conftest import Clubs
from tournament.models import ApiToken

pytestmark = pytest.mark.django_db

KEYS = ["slug", "name", "season", "keep", "merge", "reason", "drivers"]
bodies = (
    json_values
    | st.dictionaries(st.sampled_from(KEYS), json_values, max_size=5)
    | st.fixed_dictionaries(
        {
            "slug": st.text(max_size=60) | json_values,
            "name": st.text(max_size=210),
            "season": st.text(max_size=25),
        }
    )
    | st.fixed_dictionaries(
        {"keep": st.integers(-5, 2**40), "merge": st.integers(-5, 2**40)},
        optional={"reason": json_values},
    )
    | st.fixed_dictionaries(
        {
            "drivers": st.lists(
                st.fixed_dictionaries(
                    {
                        "championship": st.sampled_from(["cf", "cf-2025", "x"]) | json_values,
                        "number": st.integers(-5, 2**40) | json_values,
                    }
                ),  # fmt: skip
                max_size=3,
            )
        }
    )
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(body=bodies)
def test_garbage_never_answers_500(clubs: Clubs, body):
    if not hasattr(clubs, "drivers"):
        clubs.drivers = [  # type: ignore[attr-defined]
            clubs.register(clubs.season_2025, 1, "Jean", "Dupont"),
            clubs.register(clubs.season_2026, 1, "Jean", "Dupont"),
        ]
    api = Api(ApiToken.issue(clubs.pc.user))
    player = clubs.drivers[0].player_id  # type: ignore[attr-defined]
    for path in (
        "/championships/cf-2025/next-season",
        "/players/merge",
        f"/players/{player}/split",
        "/players/changes/1/undo",
    ):
        sid = transaction.savepoint()
        response = api.post(path, raw=json.dumps(body))
        transaction.savepoint_rollback(sid)
        assert response.status_code < 500, (path, body, response.content)
        assert response.status_code in (200, 201) or isinstance(response.json()["detail"], str)
