"""POST /events/{event}/draw: the quick rules' d20 grid draw (§2), lowest roll first."""

from __future__ import annotations

import pytest

from qualifying.models import DrawRoll
from tests.api.conftest import Api, make_event, player_of
from tournament.models import Driver, Entry

pytestmark = pytest.mark.django_db

DRAW = "/events/quick/draw"


@pytest.fixture
def quick(championship, circuit, drivers):
    event = make_event(championship, circuit, slug="quick", qualifying_mode="draw")
    for driver in drivers.values():
        Entry.objects.create(event=event, driver=driver)
    return event


def order(body: dict) -> list[int]:
    return [line["driver"]["number"] for line in body["order"]]


def test_physical_rolls_with_a_tie_then_the_re_roll(organiser, quick, drivers):
    rolls = {"1": 5, "2": [7], "3": 5, "4": 1, "5": 20, "6": 12}
    response = organiser.post(DRAW, {"rolls": rolls})
    assert response.status_code == 200, response.content
    body = response.json()
    assert order(body) == [4, 1, 3, 2, 6, 5]
    assert body["order"][0] == {
        "rank": 1,
        "driver": {
            "number": 4,
            "name": "David Leroy",
            "team": None,
            "player": player_of(4),
        },
        "rolls": [1],
        "source": "physical",
    }
    assert body["pending_ties"] == [
        [
            {
                "number": 1,
                "name": "Alice Martin",
                "team": "Ferrari",
                "player": player_of(1),
            },
            {"number": 3, "name": "Chloé Durand", "team": None, "player": player_of(3)},
        ]
    ]

    resolved = organiser.post(DRAW, {"rolls": {"1": [5, 9], "3": [5, 2]}}).json()
    assert order(resolved) == [4, 3, 1, 2, 6, 5]
    assert resolved["pending_ties"] == []
    assert resolved["order"][1]["rolls"] == [5, 2]
    general = organiser.get("/events/quick/qualifying").json()
    assert [line["driver"]["number"] for line in general] == [4, 3, 1, 2, 6, 5]


def test_system_rolls_everything_and_settles_its_own_ties(organiser, quick):
    response = organiser.post(DRAW, raw=b"")
    assert response.status_code == 200, response.content
    body = response.json()
    assert sorted(order(body)) == [1, 2, 3, 4, 5, 6]
    assert [line["rank"] for line in body["order"]] == [1, 2, 3, 4, 5, 6]
    assert body["pending_ties"] == []
    assert {line["source"] for line in body["order"]} == {"system"}
    sequences = [tuple(line["rolls"]) for line in body["order"]]
    assert sequences == sorted(sequences)
    assert all(1 <= r <= 20 for seq in sequences for r in seq)
    assert DrawRoll.objects.filter(event=quick).count() == 6


def test_empty_object_body_rolls_everything(organiser, quick):
    assert organiser.post(DRAW, {}).status_code == 200


@pytest.mark.parametrize(
    "rolls",
    [{"1": 21}, {"1": 0}, {"1": []}, {"1": "five"}, {"one": 5}, {"1": [3, 25]}, {"99": 4}],
)
def test_invalid_rolls_are_400(organiser, quick, rolls):
    response = organiser.post(DRAW, {"rolls": rolls})
    assert response.status_code == 400, response.content
    assert response.json()["detail"]
    assert not DrawRoll.objects.exists()


def test_invalid_roll_names_the_driver(organiser, quick):
    response = organiser.post(DRAW, {"rolls": {"3": "five", "4": [2, 21]}})
    assert response.status_code == 400
    assert set(response.json()["errors"]) == {"rolls.3.0", "rolls.4.1"}


def test_draw_on_a_qualifying_event_is_409(organiser, event):
    assert organiser.post("/events/monaco-2025/draw", {}).status_code == 409


def test_only_organisers_draw(referee, outsider, anon, quick):
    assert outsider.post(DRAW, {}).status_code == 403
    assert anon.post(DRAW, {}).status_code == 401
    assert referee.post(DRAW, {}).status_code == 403
    assert not DrawRoll.objects.exists()


# ---------------------------------------------------------------------------
# The draw and the allocation (DOMAIN.md "What the day enforces, continued", quick rules)
# ---------------------------------------------------------------------------


def test_allocation_with_no_d20_rolled_at_all_is_409(organiser, quick):
    """Point 2: the grid comes « selon le lancer d'un dé 20 », never in number order."""
    refused = organiser.post("/events/quick/allocation", {"table_size": 3})
    assert refused.status_code == 409
    assert refused.json() == {
        "detail": "No d20 is rolled yet: the quick rules' grid comes from the d20 draw (the "
        "lowest roll takes pole). Make the draw first.",
        "errors": {"draw": ["Make the d20 draw first."]},
    }
    assert not quick.race_tables.exists()


def test_a_roll_after_the_allocation_is_409_unless_race_control_gives_a_reason(organiser, quick):
    """The allocation closes the rolls: a table's link gets a 409, race control rewrites one
    with a reason (recorded), and is told the grids no longer follow the draw."""
    rolls = {"1": 5, "2": 7, "3": 9, "4": 1, "5": 20, "6": 12}
    assert organiser.post(DRAW, {"rolls": rolls}).json()["warning"] is None
    assert organiser.post("/events/quick/allocation", {"table_size": 3}).status_code == 200
    link = Api(quick.race_tables.get(number=1).token)

    by_link = link.post(DRAW, {"rolls": {"1": 2}, "reason": "die fell"})
    assert by_link.status_code == 409
    assert by_link.json()["errors"] == {"rolls": ["Closed by the allocation."]}
    no_reason = organiser.post(DRAW, {"rolls": {"1": 2}})
    assert no_reason.status_code == 409
    assert no_reason.json()["errors"] == {"reason": ["Required once the race tables exist."]}
    assert DrawRoll.objects.get(event=quick, driver__number=1).rolls == [5]

    accepted = organiser.post(DRAW, {"rolls": {"1": 2}, "reason": "die read upside down"})
    assert accepted.status_code == 200, accepted.content
    assert "the grids no longer follow the d20 draw" in accepted.json()["warning"]
    record = DrawRoll.history.filter(driver__number=1).first()
    assert (record.rolls, record.history_change_reason) == ([2], "die read upside down")


def test_a_late_drivers_system_roll_after_the_allocation_needs_a_reason_and_says_so(
    organiser, quick, championship
):
    """A late driver used to get a system roll after the tables were built, with no reason
    and no warning, and ended on no grid: any roll after the allocation needs a reason, and
    the answer says the driver is on no grid."""
    assert organiser.post(DRAW, {"rolls": {"1": 5, "2": 7, "3": 9, "4": 1, "5": 20, "6": 12}})
    assert organiser.post("/events/quick/allocation", {"table_size": 3}).status_code == 200
    late = Driver.objects.create(championship=championship, number=7, first_name="Gaël",
                                 last_name="Tardif")  # fmt: skip
    Entry.objects.create(event=quick, driver=late)

    refused = organiser.post(DRAW, {})
    assert refused.status_code == 409
    assert refused.json() == {
        "detail": "The race tables were built on this d20 draw: give a reason for any roll "
        "now (the grids will no longer follow the draw). Not rolled yet, so on no grid: "
        "7 Gaël Tardif.",
        "errors": {"reason": ["Required once the race tables exist."]},
    }
    assert not DrawRoll.objects.filter(driver=late).exists()

    accepted = organiser.post(DRAW, {"reason": "arrived after the allocation"})
    assert accepted.status_code == 200, accepted.content
    assert accepted.json()["warning"] == (
        "Rolled after the allocation, on no grid: 7 Gaël Tardif. Allocate again while no "
        "table has started, or swap drivers with a reason."
    )
    record = DrawRoll.history.filter(driver=late).first()
    assert (record.source, record.history_change_reason) == (
        "system",
        "arrived after the allocation",
    )
    assert organiser.post(DRAW, {}).json()["warning"] is None  # nothing rolled: a read


def test_a_rewritten_roll_after_the_allocation_names_the_driver(organiser, quick):
    assert organiser.post(DRAW, {"rolls": {"1": 5, "2": 7, "3": 9, "4": 1, "5": 20, "6": 12}})
    assert organiser.post("/events/quick/allocation", {"table_size": 3}).status_code == 200

    accepted = organiser.post(DRAW, {"rolls": {"4": 18}, "reason": "die read upside down"})

    assert accepted.json()["warning"] == (
        "Roll rewritten after the allocation (4 David Leroy): the grids no longer follow the "
        "d20 draw. Allocate again while no table has started, or swap drivers with a reason."
    )
