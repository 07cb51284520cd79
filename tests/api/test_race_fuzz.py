"""Never a 500 for anything a client sends: random JSON to a race table's writes."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from races.models import RaceTable, RaceWeather
from tests.api.test_race_tables import TABLES, allocate, build_race_event, put, table_api
from tournament.models import Event

pytestmark = pytest.mark.django_db

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.integers(min_value=-2, max_value=25)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
    | st.sampled_from(["5", "1", "7", "²", "0", "", "tyres", "sun"])
)
json_values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
PARTS = ["tyres", "brakes", "gearbox", "body", "engine", "road_holding", "stand_points"]
driver_keys = st.sampled_from(["5", "1", "7", "3", "2", "99", "abc", "٣", "-1", "05"]) | st.text(
    max_size=6
)
configuration = st.fixed_dictionaries(
    {}, optional={part: st.integers(-3, 25) | json_values for part in PARTS}
)
# Mostly objects with the endpoints' own keys, so that the values reach the validation.
bodies = (
    json_values
    | st.fixed_dictionaries({"stands": st.dictionaries(driver_keys, json_values, max_size=4)})
    | st.fixed_dictionaries(
        {"stands": st.dictionaries(driver_keys, st.integers(-1, 6) | st.none(), max_size=4)}
    )
    | st.fixed_dictionaries(
        {"configurations": st.dictionaries(driver_keys, configuration | json_values, max_size=3)}
    )
    | st.fixed_dictionaries({"roll": st.integers(-5, 30) | json_values})
    | st.dictionaries(st.sampled_from(["stands", "configurations", "roll"]), json_values)
)


@pytest.fixture
def allocated(championship, circuit, drivers, organiser):
    event = build_race_event(championship, circuit, drivers)
    Event.objects.filter(pk=event.pk).update(use_configurations=True)
    allocate(organiser)
    organiser.post("/events/gp-race/race-weather", {"roll": 6})  # variable: draws reach §3-2-6
    return event


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(body=bodies, as_referee=st.booleans())
def test_garbage_never_answers_500(organiser, allocated, body, as_referee):
    assert RaceWeather.objects.get().weather == "variable"
    api = table_api(allocated, 1) if as_referee else organiser
    raw = json.dumps(body)
    for response in (
        put(api, f"{TABLES}/1/stands", raw=raw),
        put(api, f"{TABLES}/1/configurations", raw=raw),
        api.post(f"{TABLES}/1/weather-draws", raw=raw),
    ):
        assert response.status_code < 500, (body, response.content)
        assert response.status_code == 200 or isinstance(response.json()["detail"], str)
    assert RaceTable.objects.filter(event=allocated).count() == 2
