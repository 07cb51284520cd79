"""Never a 500 for anything a client sends: random JSON to a table's result, confirm, reopen."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from races.models import RaceResult
from tests.api.test_race_tables import TABLES, put, table_api
from tests.api.test_results_table import allocated_gp_race

pytestmark = pytest.mark.django_db

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.integers(min_value=-2, max_value=10)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
    | st.sampled_from(["5", "1", "7", "²", "0", "", "other", "engine"])
)
json_values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
# Table 1 of gp-race: 5, 1, 7, 3; 2 sits at table 2; 99 nowhere.
driver_values = st.sampled_from([5, 1, 7, 3, 2, 99]) | st.integers(-3, 2**40) | json_values
retirement = st.fixed_dictionaries(
    {},
    optional={
        "driver": driver_values,
        "cause": st.sampled_from(["off_track", "blocked", "body", "engine", "road_holding"])
        | st.sampled_from(["other", "puncture", ""])
        | json_values,
        "lap": st.integers(-1, 5) | json_values,
        "note": st.text(max_size=8) | st.text(min_size=199, max_size=202) | json_values,
    },
)
seated = st.sampled_from([5, 1, 7, 3])
# Plausible sheets, so that some are stored, confirmed and reopened.
sheets = st.fixed_dictionaries(
    {
        "version": st.just("stored") | st.integers(0, 4),  # "stored": the stored version
        "finish": st.lists(seated, max_size=4, unique=True),
        "retired": st.lists(
            st.fixed_dictionaries(
                {
                    "driver": seated,
                    "cause": st.sampled_from(["engine", "other", "body"]),
                    "lap": st.integers(0, 4) | st.none(),
                },
                optional={"note": st.text(max_size=8)},
            ),
            max_size=2,
        ),
        "dns": st.lists(seated, max_size=1),
        "submit": st.booleans(),
        "reason": st.text(max_size=10),
    }
)
# Mostly objects with the endpoint's own keys, so that the values reach the validation.
bodies = (
    json_values
    | sheets
    | st.fixed_dictionaries(
        {},
        optional={
            "version": st.integers(-1, 3) | json_values,
            "finish": st.lists(driver_values, max_size=6) | json_values,
            "retired": st.lists(retirement | json_values, max_size=4) | json_values,
            "dns": st.lists(driver_values, max_size=3) | json_values,
            "submit": st.booleans() | json_values,
            "reason": st.text(max_size=10) | json_values,
        },
    )
)


@pytest.fixture
def allocated(championship, circuit, drivers, organiser):
    return allocated_gp_race(championship, circuit, drivers, organiser)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(body=bodies, as_referee=st.booleans())
def test_garbage_never_answers_500(organiser, allocated, body, as_referee):
    api = table_api(allocated, 1) if as_referee else organiser

    def raw() -> str:
        """The body, with the sentinel "stored" replaced by the version stored now."""
        if isinstance(body, dict) and body.get("version") == "stored":
            stored = organiser.get(f"{TABLES}/1/result").json()["version"]
            return json.dumps({**body, "version": stored})
        return json.dumps(body)

    for send in (
        lambda: put(api, f"{TABLES}/1/result", raw=raw()),
        lambda: organiser.post(f"{TABLES}/1/confirm", raw=raw()),
        lambda: organiser.post(f"{TABLES}/1/reopen", raw=raw()),
    ):
        response = send()
        assert response.status_code < 500, (body, response.content)
        assert response.status_code == 200 or isinstance(response.json()["detail"], str)
    # Whatever was stored reads back in the contract's shape.
    stored = organiser.get(f"{TABLES}/1/result")
    assert stored.status_code == 200
    assert set(stored.json()) == {"version", "status", "finish", "retired", "dns", "notes"}
    assert RaceResult.objects.filter(table__event=allocated).count() <= 1
