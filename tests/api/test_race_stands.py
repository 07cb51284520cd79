"""Stands (§4-0-1) and car configurations (§5) of a race table."""

from __future__ import annotations

import pytest

from races.models import CarConfiguration, GridSlot
from tests.api.conftest import player_of
from tests.api.test_race_tables import (
    TABLES,
    allocate,
    build_race_event,
    put,
    set_result_status,
    table_api,
)
from tournament.models import Event, Team

pytestmark = pytest.mark.django_db

STANDS = f"{TABLES}/1/stands"
CONFIGURATIONS = f"{TABLES}/1/configurations"
# Table 1 of gp-race is 5, 1, 7, 3 (grid order); table 2 is 2, 8, 4, 6. Stands 1..4.
GOOD = {
    "tyres": 5,
    "brakes": 4,
    "gearbox": 4,
    "body": 3,
    "engine": 3,
    "road_holding": 3,
    "stand_points": 0,
}


@pytest.fixture
def allocated(championship, circuit, drivers, organiser) -> Event:
    event = build_race_event(championship, circuit, drivers)
    Event.objects.filter(pk=event.pk).update(use_configurations=True)
    allocate(organiser)
    return event


@pytest.fixture
def referee1(allocated):
    return table_api(allocated, 1)


def stands_of(table: dict) -> list[tuple[int, int | None]]:
    return [(line["driver"]["number"], line["stand"]) for line in table["grid"]]


def stored_stands() -> dict[int, int | None]:
    return {s.driver.number: s.stand for s in GridSlot.objects.select_related("driver")}


# ---------------------------------------------------------------------------
# Stands
# ---------------------------------------------------------------------------


def test_referee_records_stands_and_gets_the_table(referee1):
    response = put(referee1, STANDS, {"stands": {"5": 3, "1": 1}})
    assert response.status_code == 200, response.content
    table = response.json()
    assert table["number"] == 1
    assert (table["referee_link"], table["referee_token"]) == (None, None)
    assert stands_of(table) == [(5, 3), (1, 1), (7, None), (3, None)]
    assert table["warnings"] == []
    assert table["next_to_choose"] == {
        "number": 7,
        "name": "Gaëlle Roux",
        "team": None,
        "player": player_of(7),
    }
    # Drivers left out keep theirs; exchanging two stands works; null frees the last one.
    table = put(referee1, STANDS, {"stands": {"7": 2}}).json()
    assert stands_of(table) == [(5, 3), (1, 1), (7, 2), (3, None)]
    table = put(referee1, STANDS, {"stands": {"5": 1, "1": 3, "7": None}}).json()
    assert stands_of(table) == [(5, 1), (1, 3), (7, None), (3, None)]


def test_a_stands_answer_warns_of_its_own_tables_team_mates_only(
    championship, circuit, drivers, organiser
):
    """The answer reads the table written (not the event's twelve grids): its warning when
    team-mates sit there together, none for the other table's."""
    event = build_race_event(championship, circuit, drivers)
    # A third Ferrari at table 2: no swap can part 1 and 2, left together at table 1.
    drivers[3].team = Team.objects.get(name="Ferrari")
    drivers[3].save()
    allocate(organiser)
    first = put(table_api(event, 1), STANDS, {"stands": {"5": 1}})
    assert first.status_code == 200, first.content
    assert first.json()["warnings"] == [
        "Team-mates at the same table: 1 Alice Martin, 2 Bruno Petit."
    ]
    second = put(table_api(event, 2), f"{TABLES}/2/stands", {"stands": {"3": 1}})
    assert second.status_code == 200, second.content
    assert second.json()["number"] == 2 and second.json()["warnings"] == []


def test_organiser_records_stands_with_the_secrets(organiser, allocated):
    response = put(organiser, f"{TABLES}/2/stands", {"stands": {"2": 4}})
    assert response.status_code == 200, response.content
    table = response.json()
    assert table["referee_token"] and stands_of(table)[0] == (2, 4)


def test_the_events_own_stand_numbers(referee1, allocated):
    Event.objects.filter(pk=allocated.pk).update(stand_numbers=[2, 5, 7])
    assert put(referee1, STANDS, {"stands": {"5": 7}}).status_code == 200
    response = put(referee1, STANDS, {"stands": {"1": 1}})
    assert response.status_code == 400
    assert response.json() == {
        "detail": "Stand 1 does not exist here (stands: 2, 5, 7).",
        "errors": {"stands.1": ["Stand 1 does not exist here (stands: 2, 5, 7)."]},
    }


@pytest.mark.parametrize("stand", [5, 0, -1, 2**31 - 1])
def test_stand_not_in_the_events_stands_is_400(referee1, stand):
    response = put(referee1, STANDS, {"stands": {"5": stand}})
    assert response.status_code == 400
    body = response.json()
    assert list(body["errors"]) == ["stands.5"]
    assert body["detail"] == f"Stand {stand} does not exist here (stands: 1, 2, 3, 4)."
    assert set(stored_stands().values()) == {None}


def test_stand_taken_twice_is_400(referee1):
    response = put(referee1, STANDS, {"stands": {"5": 2, "1": 2}})
    assert response.status_code == 400
    message = "Stand 2 is already taken by 5 Emma Moreau at this table."
    assert response.json() == {"detail": message, "errors": {"stands.1": [message]}}
    assert set(stored_stands().values()) == {None}
    assert put(referee1, STANDS, {"stands": {"5": 2}}).status_code == 200
    again = put(referee1, STANDS, {"stands": {"1": 2}})
    assert again.status_code == 400
    assert again.json()["detail"] == message


def test_the_pole_correcting_to_a_taken_stand_names_the_holder_not_the_pole(referee1):
    """The bug of the first review: the pole picking P2's stand was told the pole held it."""
    assert put(referee1, STANDS, {"stands": {"5": 1, "1": 2}}).status_code == 200
    response = put(referee1, STANDS, {"stands": {"5": 2}})
    assert response.status_code == 400
    assert response.json() == {
        "detail": "Stand 2 is already taken by 1 Alice Martin at this table.",
        "errors": {"stands.5": ["Stand 2 is already taken by 1 Alice Martin at this table."]},
    }
    assert stored_stands()[5] == 1


def test_stands_are_chosen_in_grid_order_naming_who_chooses_first(referee1):
    """§4-0-1: the pole chooses first, then P2… Table 1's grid is 5, 1, 7, 3."""
    response = put(referee1, STANDS, {"stands": {"7": 3}})
    assert response.status_code == 400
    body = response.json()
    assert body["detail"] == (
        "Stands are chosen in grid order, pole first (§4-0-1): 5 Emma Moreau (P1) chooses "
        "before 7 Gaëlle Roux."
    )
    assert list(body["errors"]) == ["stands.7"]
    assert set(stored_stands().values()) == {None}
    assert put(referee1, STANDS, {"stands": {"5": 3}}).status_code == 200
    skip = put(referee1, STANDS, {"stands": {"3": 1}})
    assert skip.status_code == 400
    assert "1 Alice Martin (P2) chooses before 3 Chloé Durand" in skip.json()["detail"]
    # Freeing the pole's stand while P2 keeps one would break the order too.
    assert put(referee1, STANDS, {"stands": {"1": 4}}).status_code == 200
    freed = put(referee1, STANDS, {"stands": {"5": None}})
    assert freed.status_code == 400
    # A correction before the start is fine, and so is the last chooser choosing again.
    assert put(referee1, STANDS, {"stands": {"5": 2}}).status_code == 200
    assert put(referee1, STANDS, {"stands": {"1": None}}).status_code == 200
    assert stored_stands() == {5: 2, 1: None, 7: None, 3: None, 2: None, 8: None, 4: None, 6: None}


def test_the_same_stand_at_two_tables_is_fine(referee1, allocated):
    assert put(referee1, STANDS, {"stands": {"5": 1}}).status_code == 200
    assert (
        put(table_api(allocated, 2), f"{TABLES}/2/stands", {"stands": {"2": 1}}).status_code == 200
    )


@pytest.mark.parametrize("key", ["abc", "-5", "0", "5.0", " 5", "²", "٣", "", "99999999999"])
def test_non_integer_key_is_400_naming_it(referee1, key):
    response = put(referee1, STANDS, {"stands": {key: 1, "1": 2}})
    assert response.status_code == 400, response.content
    body = response.json()
    assert f"“{key}”" in body["detail"]
    assert body["errors"] == {"stands": [f"“{key}” is not a driver number."]}
    assert set(stored_stands().values()) == {None}


def test_driver_of_another_table_is_400(referee1):
    response = put(referee1, STANDS, {"stands": {"2": 1, "99": 2}})
    assert response.status_code == 400
    body = response.json()
    assert body["detail"] == "Not on the grid of Table 1: 2, 99."
    assert set(body["errors"]) == {"stands.2", "stands.99"}


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"stands": {"5": "3"}}, "stands.5"),
        ({"stands": {"5": 2.5}}, "stands.5"),
        ({"stands": {"5": True}}, "stands.5"),
        ({"stands": [3, 1]}, "stands"),
        ({"stands": None}, "stands"),
        ({}, "stands"),
    ],
)
def test_bad_stands_body_is_400(referee1, body, field):
    response = put(referee1, STANDS, body)
    assert response.status_code == 400, response.content
    assert list(response.json()["errors"]) == [field]


def test_stands_permissions(anon, outsider, referee, organiser, allocated):
    body = {"stands": {"5": 1}}
    assert put(anon, STANDS, body).status_code == 401
    assert put(outsider, STANDS, body).status_code == 403
    assert put(referee, STANDS, body).status_code == 403  # a qualifying table's link
    other = put(table_api(allocated, 2), STANDS, body)
    assert other.status_code == 403
    assert other.json()["detail"] == (
        "Only this table's referee or an organiser may record its stands."
    )
    assert put(organiser, f"{TABLES}/3/stands", body).status_code == 404
    assert put(organiser, "/events/nope/tables/1/stands", body).status_code == 404
    assert set(stored_stands().values()) == {None}


def test_stands_of_a_confirmed_table_is_409(referee1, allocated):
    set_result_status(allocated, 1, "confirmed")
    assert put(referee1, STANDS, {"stands": {"5": 1}}).status_code == 409


# ---------------------------------------------------------------------------
# Configurations
# ---------------------------------------------------------------------------


def test_referee_records_configurations(referee1, organiser):
    with_stand = {**GOOD, "tyres": 3, "stand_points": 2}
    response = put(referee1, CONFIGURATIONS, {"configurations": {"7": GOOD, "5": with_stand}})
    assert response.status_code == 200, response.content
    assert response.json() == [
        {
            "driver": {"number": 5, "name": "Emma Moreau", "team": None, "player": player_of(5)},
            **with_stand,
        },
        {
            "driver": {"number": 7, "name": "Gaëlle Roux", "team": None, "player": player_of(7)},
            **GOOD,
        },
    ]
    # Correcting one driver answers every configuration stored at the table.
    changed = {**GOOD, "tyres": 4, "brakes": 5}
    lines = put(referee1, CONFIGURATIONS, {"configurations": {"7": changed}}).json()
    assert [line["driver"]["number"] for line in lines] == [5, 7]
    assert lines[1]["brakes"] == 5
    grid = organiser.get(TABLES).json()[0]["grid"]
    assert [line["configuration"] for line in grid] == [with_stand, None, changed, None]


@pytest.mark.parametrize(
    ("values", "errors"),
    [
        (
            {**GOOD, "tyres": 4},
            {
                "configurations.5.total": [
                    "The parts and stand points add up to 21, not 22 (§5-0-2)."
                ]
            },
        ),
        (
            {**GOOD, "brakes": 0, "tyres": 9},
            {"configurations.5.brakes": ["brakes: at least 1 point per part (§5-0-2)."]},
        ),
        (
            {**GOOD, "stand_points": 3, "tyres": 2},
            {"configurations.5.stand_points": ["stand points: 0 to 2 points at the stand (§5-3)."]},
        ),
        (
            {key: value for key, value in GOOD.items() if key != "engine"},
            {"configurations.5.engine": ["engine: missing (§5-0-2)."]},
        ),
        (
            {**GOOD, "body": "3"},
            {"configurations.5.body": ["body: a whole number is needed (§5-0-2)."]},
        ),
        (
            {**GOOD, "road_holding": True},
            {"configurations.5.road_holding": ["road holding: a whole number is needed (§5-0-2)."]},
        ),
    ],
)
def test_refused_configuration_names_the_part_and_the_rule(referee1, values, errors):
    response = put(referee1, CONFIGURATIONS, {"configurations": {"1": GOOD, "5": values}})
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["errors"] == errors
    (message,) = next(iter(errors.values()))
    assert body["detail"] == f"Driver 5: {message}"
    assert not CarConfiguration.objects.exists()  # all or nothing


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"configurations": {"5": [5, 4, 4, 3, 3, 3, 0]}}, "configurations.5"),
        ({"configurations": {"5": 22}}, "configurations.5"),
        ({"configurations": {"5": None}}, "configurations.5"),
        ({"configurations": {"five": GOOD}}, "configurations"),
        ({"configurations": "GOOD"}, "configurations"),
        ({}, "configurations"),
    ],
)
def test_bad_configurations_body_is_400(referee1, body, field):
    response = put(referee1, CONFIGURATIONS, body)
    assert response.status_code == 400, response.content
    assert list(response.json()["errors"]) == [field]
    assert not CarConfiguration.objects.exists()


def test_configuration_of_a_driver_of_another_table_is_400(referee1):
    response = put(referee1, CONFIGURATIONS, {"configurations": {"2": GOOD}})
    assert response.status_code == 400
    assert response.json()["errors"] == {"configurations.2": ["Not at this table."]}


def test_configurations_permissions(anon, outsider, organiser, allocated):
    body = {"configurations": {"5": GOOD}}
    assert put(anon, CONFIGURATIONS, body).status_code == 401
    assert put(outsider, CONFIGURATIONS, body).status_code == 403
    assert put(table_api(allocated, 2), CONFIGURATIONS, body).status_code == 403
    assert put(organiser, f"{TABLES}/9/configurations", body).status_code == 404
    assert not CarConfiguration.objects.exists()
    assert put(organiser, CONFIGURATIONS, body).status_code == 200


def test_a_new_allocation_clears_stands_and_configurations(referee1, organiser):
    put(referee1, STANDS, {"stands": {"5": 1}})
    put(referee1, CONFIGURATIONS, {"configurations": {"5": GOOD}})
    allocate(organiser)
    assert set(stored_stands().values()) == {None}
    assert not CarConfiguration.objects.exists()


def test_configurations_refused_when_the_event_does_not_record_them(referee1, allocated):
    Event.objects.filter(pk=allocated.pk).update(use_configurations=False)
    response = put(referee1, CONFIGURATIONS, {"configurations": {"7": GOOD}})
    assert response.status_code == 409
    assert response.json()["detail"]
