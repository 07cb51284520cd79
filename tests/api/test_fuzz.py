"""Never a 500 for anything a client sends: random JSON to the run and event endpoints."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.api.test_runs import open_session
from tests.security.hostile import HOSTILE_NAMES

pytestmark = pytest.mark.django_db

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
    | st.sampled_from(["hard", "soft", "1:45.20", "0:59.99", "2025-05-24", "monaco", ""])
    | st.sampled_from(HOSTILE_NAMES)  # markup and formulas as names (issue 14)
)
json_values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=12,
)
RUN_KEYS = [
    "driver",
    "tyres",
    "throws",
    "placement_errors",
    "exit_squares",
    "stopwatch",
    "eliminated",
    "performed_at",
    "version",
]
EVENT_KEYS = [
    "slug",
    "name",
    "date",
    "circuit",
    "game",
    "laps",
    "table_size",
    "qualifying_mode",
    "minute_penalty",
    "allow_redo",
    "separate_teams",
]
# Mostly objects with the endpoint's own keys, so that the values reach the validation.
bodies = (
    json_values
    | st.dictionaries(st.sampled_from(RUN_KEYS + EVENT_KEYS), json_values, max_size=8)
    | st.fixed_dictionaries(
        {"driver": st.integers(1, 7) | json_values, "tyres": st.sampled_from(["hard", "rain"])},
        optional={key: json_values for key in RUN_KEYS[2:]},
    )
)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(body=bodies)
def test_garbage_never_answers_500(organiser, event, body):
    if not event.sessions.exists():
        open_session(event, 1)
    targets = [
        "/events/monaco-2025/sessions/1/runs",
        "/championships/cfd-2025/events",
    ]
    for path in targets:
        response = organiser.post(path, raw=json.dumps(body))
        assert response.status_code < 500, (path, body, response.content)
        assert isinstance(response.json()["detail"], str) or response.status_code in (200, 201)
    patched = organiser.patch("/events/monaco-2025/sessions/1/runs/1", raw=json.dumps(body))
    assert patched.status_code < 500, (body, patched.content)
    assert patched.status_code == 200 or isinstance(patched.json()["detail"], str)
