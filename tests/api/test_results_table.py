"""A table's race result: GET/PUT ``result``, ``confirm`` and ``reopen`` (API.md, Race).

Also the helpers of the other ``test_results_*`` modules: ``race_day`` builds an event from
grids without qualifying (the grid is the registration order) and enters its results
through the API.

gp-race (``tests/api/test_race_tables.py``): table 1 is 5 Emma Moreau, 1 Alice Martin,
7 Gaëlle Roux, 3 Chloé Durand; table 2 is 2, 8, 4, 6; 3 laps; scale 10, 6, 4.
"""

from __future__ import annotations

import datetime
import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from qualifying.models import QualifyingTable
from races.models import RaceResult, RaceTable, ResultLine
from tests.api.conftest import Api, make_event, make_user
from tests.api.test_race_tables import (
    TABLE_1,
    TABLE_2,
    TABLES,
    allocate,
    build_race_event,
    grid_numbers,
    put,
    table_api,
)
from tournament.models import ApiToken, Championship, Circuit, Driver, Entry, Event

pytestmark = pytest.mark.django_db

RESULT_1 = f"{TABLES}/1/result"
RESULT_2 = f"{TABLES}/2/result"
CONFIRM_1 = f"{TABLES}/1/confirm"
REOPEN_1 = f"{TABLES}/1/reopen"
RESULTS = "/events/gp-race/results"
EMPTY = {"version": 0, "status": "empty", "finish": [], "retired": [], "dns": [], "notes": {}}
#: A complete sheet for table 1: 5 and 1 finish; 3 broke its engine on lap 2, then 7 was
#: disqualified on lap 3.
SHEET_1 = {
    "finish": [5, 1],
    "retired": [
        {"driver": 3, "cause": "engine", "lap": 2},
        {"driver": 7, "cause": "other", "lap": 3, "note": "Disqualified"},
    ],
    "dns": [],
}
SHEET_1_OUT = {
    "finish": [5, 1],
    "retired": [
        {"driver": 3, "cause": "engine", "lap": 2, "note": ""},
        {"driver": 7, "cause": "other", "lap": 3, "note": "Disqualified"},
    ],
    "dns": [],
    "notes": {},
}
#: Table 2: 8, 2 and 4 finish, 6 does not start.
SHEET_2 = {"finish": [8, 2, 4], "retired": [], "dns": [6]}


# ---------------------------------------------------------------------------
# Helpers (also used by the other test_results_* modules)
# ---------------------------------------------------------------------------


def save(api: Api, path: str, version: int, sheet: dict[str, Any], *, submit: bool) -> Any:
    return put(api, path, {"version": version, **sheet, "submit": submit})


def enter(organiser: Api, event: str, table: int, sheet: dict[str, Any]) -> dict[str, Any]:
    """Submit ``sheet`` for ``table`` and confirm it; answers the confirmed result."""
    path = f"/events/{event}/tables/{table}"
    version = organiser.get(f"{path}/result").json()["version"]
    response = save(organiser, f"{path}/result", version, sheet, submit=True)
    assert response.status_code == 200, response.content
    response = organiser.post(f"{path}/confirm", {})
    assert response.status_code == 200, response.content
    assert response.json()["status"] == "confirmed"
    return response.json()


def make_drivers(
    championship: Championship, numbers: list[int], teams: dict[int, Any] | None = None
) -> dict[int, Driver]:
    """Drivers ``Driver <n>`` (first name "Driver", last name ``n``)."""
    teams = teams or {}
    return {
        n: Driver.objects.create(
            championship=championship,
            number=n,
            first_name="Driver",
            last_name=str(n),
            team=teams.get(n),
        )
        for n in numbers
    }


def race_day(
    organiser: Api,
    championship: Championship,
    circuit: Circuit,
    drivers: dict[int, Driver],
    *,
    slug: str,
    grids: list[list[int]],
    date: datetime.date = datetime.date(2025, 5, 24),
) -> Event:
    """An event with no qualifying whose tables are ``grids`` (registration order), its
    race weather drawn (sun) before any result (§2-0-1)."""
    event = make_event(
        championship,
        circuit,
        slug=slug,
        name=slug,
        date=date,
        table_size=max(len(g) for g in grids),
        separate_teams=False,
    )
    for grid in grids:
        for number in grid:
            Entry.objects.create(event=event, driver=drivers[number])
    assert grid_numbers(allocate_event(organiser, slug)) == grids
    assert organiser.post(f"/events/{slug}/race-weather", {"roll": 15}).status_code == 200
    return event


def allocate_event(organiser: Api, slug: str) -> list[dict]:
    response = organiser.post(f"/events/{slug}/allocation", {})
    assert response.status_code == 200, response.content
    return response.json()


def allocated_gp_race(championship, circuit, drivers, organiser) -> Event:
    """gp-race with its two tables of 4 (:data:`TABLE_1`, :data:`TABLE_2`), and its race
    weather (sun), drawn before any result (§2-0-1)."""
    event = build_race_event(championship, circuit, drivers)
    assert grid_numbers(allocate(organiser)) == [TABLE_1, TABLE_2]
    assert organiser.post("/events/gp-race/race-weather", {"roll": 15}).status_code == 200
    return event


def points_of(api: Api, path: str = RESULTS) -> list[tuple[int, int]]:
    """``(driver number, points)`` of the day classification at ``path``."""
    return [(line["driver"]["number"], line["points"]) for line in api.get(path).json()]


@pytest.fixture
def allocated(championship, circuit, drivers, organiser) -> Event:
    return allocated_gp_race(championship, circuit, drivers, organiser)


@pytest.fixture
def referee1(allocated) -> Api:
    return table_api(allocated, 1)


# ---------------------------------------------------------------------------
# The whole workflow
# ---------------------------------------------------------------------------


def test_draft_submit_confirm_reopen_confirm(organiser, referee1, allocated):
    assert referee1.get(RESULT_1).json() == EMPTY
    assert organiser.get(RESULT_2).json() == EMPTY

    # A draft may be incomplete and leave a lap blank.
    draft = {"finish": [5], "retired": [{"driver": 3, "cause": "engine"}], "dns": []}
    response = save(referee1, RESULT_1, 0, draft, submit=False)
    assert response.status_code == 200, response.content
    assert response.json() == {
        "version": 1,
        "status": "draft",
        "finish": [5],
        "retired": [{"driver": 3, "cause": "engine", "lap": None, "note": ""}],
        "dns": [],
        "notes": {},
    }
    assert referee1.get(RESULT_1).json() == response.json()
    assert RaceTable.objects.get(event=allocated, number=1).result_status == "draft"

    response = save(referee1, RESULT_1, 1, SHEET_1, submit=True)
    assert response.status_code == 200, response.content
    assert response.json() == {"version": 2, "status": "submitted", **SHEET_1_OUT}
    assert organiser.get(RESULTS).json() == []  # nothing counts before race control confirms

    response = organiser.post(CONFIRM_1, {"version": 2})
    assert response.status_code == 200, response.content
    assert response.json() == {"version": 3, "status": "confirmed", **SHEET_1_OUT}
    assert points_of(organiser) == [
        (5, 10),
        (1, 6),
        (7, 0),
        (3, 0),
    ]

    response = organiser.post(REOPEN_1, {"reason": "  Wrong finishing order  ", "version": 3})
    assert response.status_code == 200, response.content
    assert response.json() == {"version": 4, "status": "submitted", **SHEET_1_OUT}
    stored = RaceResult.objects.get(table__event=allocated, table__number=1)
    assert (stored.reopen_reason, stored.confirmed_at, stored.confirmed_by) == (
        "Wrong finishing order",
        None,
        None,
    )
    assert organiser.get(RESULTS).json() == []  # its places no longer count
    assert not ResultLine.objects.exists()

    corrected = {**SHEET_1, "finish": [1, 5]}
    response = save(referee1, RESULT_1, 4, corrected, submit=True)
    assert response.status_code == 200, response.content
    assert response.json()["version"] == 5
    response = organiser.post(CONFIRM_1)  # no body: no version check
    assert response.status_code == 200, response.content
    assert response.json() == {
        "version": 6,
        "status": "confirmed",
        **SHEET_1_OUT,
        "finish": [1, 5],
    }
    assert points_of(organiser) == [
        (1, 10),
        (5, 6),
        (7, 0),
        (3, 0),
    ]


def test_submitted_result_goes_back_to_draft(referee1):
    assert save(referee1, RESULT_1, 0, SHEET_1, submit=True).json()["status"] == "submitted"
    response = save(referee1, RESULT_1, 1, {"finish": [5]}, submit=False)
    assert response.status_code == 200, response.content
    assert response.json() == {
        "version": 2,
        "status": "draft",
        "finish": [5],
        "retired": [],
        "dns": [],
        "notes": {},
    }
    assert RaceResult.objects.get().submitted_at is None


def test_history_records_who_wrote_and_who_confirmed(organiser, referee1, allocated):
    save(referee1, RESULT_1, 0, SHEET_1, submit=True)
    organiser.post(CONFIRM_1, {})
    organiser.post(REOPEN_1, {"reason": "Protest"})
    rows = list(RaceResult.objects.get().history.order_by("history_date", "history_id"))
    assert [(r.version, r.history_actor) for r in rows] == [
        (1, "referee link of Table 1"),
        (2, "alice (API)"),
        (3, "alice (API)"),
    ]
    alice = get_user_model().objects.get(username="alice")
    assert [r.history_user for r in rows] == [None, alice, alice]
    assert rows[-1].reopen_reason == "Protest"
    table = RaceTable.objects.get(event=allocated, number=1)
    assert table.history.first().result_status == "submitted"


def test_referee_account_and_superuser_may_write(admin, allocated):
    user = make_user("rita")
    RaceTable.objects.filter(event=allocated, number=2).update(referee=user)
    rita = Api(ApiToken.issue(user))
    response = save(rita, RESULT_2, 0, SHEET_2, submit=True)
    assert response.status_code == 200, response.content
    assert rita.get(RESULT_2).json()["status"] == "submitted"
    # Rita referees table 2 only.
    assert save(rita, RESULT_1, 0, SHEET_1, submit=False).status_code == 403
    assert rita.post(f"{TABLES}/2/confirm", {}).status_code == 403
    assert admin.post(f"{TABLES}/2/confirm", {}).json()["status"] == "confirmed"


# ---------------------------------------------------------------------------
# Invalid sheets: 400 naming the driver, nothing stored
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sheet", "submit", "errors"),
    [
        (
            {"finish": [5, 1, 7]},
            True,
            {"3": ["3 Chloé Durand is missing: every driver of the grid appears exactly once."]},
        ),
        (
            {"finish": [5, 1], "dns": [5]},
            False,
            {"5": ["5 Emma Moreau is written more than once."]},
        ),
        (
            {"finish": [5, 99]},
            False,
            {"99": ["99 is not on this table's grid."]},
        ),
        (
            {"finish": [5, 2]},  # 2 sits at table 2
            False,
            {"2": ["2 is not on this table's grid."]},
        ),
        (
            {"retired": [{"driver": 7, "cause": "puncture", "lap": 1}]},
            False,
            {"7": ["7 Gaëlle Roux: unknown retirement cause."]},
        ),
        (
            {"retired": [{"driver": 7, "cause": "other", "lap": 1, "note": "  "}]},
            False,
            {"7": ["7 Gaëlle Roux: “other” needs a note (disqualification, withdrawal…)."]},
        ),
        (
            {"retired": [{"driver": 1, "cause": "body", "lap": 4}]},
            False,
            {"1": ["1 Alice Martin: the retirement lap must be between 1 and the race's laps."]},
        ),
        (
            {"retired": [{"driver": 1, "cause": "body", "lap": 0}]},
            False,
            {"1": ["1 Alice Martin: the retirement lap must be between 1 and the race's laps."]},
        ),
        (
            {"retired": [{"driver": 1, "cause": "body", "lap": "2"}]},
            False,
            {"1": ["1 Alice Martin: the retirement lap must be between 1 and the race's laps."]},
        ),
        (
            # A submitted result gives every retirement's lap.
            {"finish": [5, 7, 3], "retired": [{"driver": 1, "cause": "body"}]},
            True,
            {"1": ["1 Alice Martin: the retirement lap must be between 1 and the race's laps."]},
        ),
    ],
)
def test_invalid_sheet_is_400_naming_the_driver(referee1, sheet, submit, errors):
    response = save(referee1, RESULT_1, 0, sheet, submit=submit)
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["errors"] == errors
    assert body["detail"] == next(iter(errors.values()))[0]
    assert referee1.get(RESULT_1).json() == EMPTY
    assert not RaceResult.objects.exists()


def test_every_problem_at_once(referee1):
    sheet = {
        "finish": [5, 5, 42],
        "retired": [{"driver": 1, "cause": "nope", "lap": 9}],
        "dns": [],
    }
    response = save(referee1, RESULT_1, 0, sheet, submit=True)
    assert response.status_code == 400
    assert response.json()["errors"] == {
        "5": ["5 Emma Moreau is written more than once."],
        "42": ["42 is not on this table's grid."],
        "1": [
            "1 Alice Martin: unknown retirement cause.",
            "1 Alice Martin: the retirement lap must be between 1 and the race's laps.",
        ],
        "7": ["7 Gaëlle Roux is missing: every driver of the grid appears exactly once."],
        "3": ["3 Chloé Durand is missing: every driver of the grid appears exactly once."],
    }


def test_event_laps_bound_the_retirement_lap(referee1, allocated):
    Event.objects.filter(pk=allocated.pk).update(laps=5)
    sheet = {"finish": [5, 1, 7], "retired": [{"driver": 3, "cause": "blocked", "lap": 5}]}
    assert save(referee1, RESULT_1, 0, sheet, submit=True).status_code == 200


@pytest.mark.parametrize(
    ("body", "fields"),
    [
        ({"finish": [5]}, ["version"]),
        ({"version": "0"}, ["version"]),
        ({"version": -1}, ["version"]),
        ({"version": 0, "finish": ["5"]}, ["finish.0"]),
        ({"version": 0, "finish": 5}, ["finish"]),
        ({"version": 0, "dns": [0]}, ["dns.0"]),
        ({"version": 0, "submit": "yes"}, ["submit"]),
        ({"version": 0, "retired": [7]}, ["retired.0"]),
        ({"version": 0, "retired": [{"cause": "body", "lap": 1}]}, ["retired.0.driver"]),
        ({"version": 0, "retired": [{"driver": 7, "lap": 1}]}, ["retired.0.cause"]),
        (
            {"version": 0, "retired": [{"driver": 7, "cause": "other", "note": "x" * 201}]},
            ["retired.0.note"],
        ),
    ],
)
def test_malformed_body_is_400_naming_the_field(referee1, body, fields):
    response = put(referee1, RESULT_1, body)
    assert response.status_code == 400, response.content
    assert list(response.json()["errors"]) == fields
    assert response.json()["detail"]
    assert not RaceResult.objects.exists()


def test_messages_name_the_driver_in_french_too(allocated):
    referee = Api(RaceTable.objects.get(event=allocated, number=1).token, language="fr")
    response = save(referee, RESULT_1, 0, {"finish": [5, 5]}, submit=False)
    assert response.status_code == 400
    assert response["Content-Language"] == "fr"
    # The French catalogue has no entry for the result's messages yet: only the driver's
    # name is certain here.
    assert "5 Emma Moreau" in response.json()["errors"]["5"][0]


# ---------------------------------------------------------------------------
# Conflicts: 409 with the stored result as ``current``
# ---------------------------------------------------------------------------


def test_stale_version_is_409_with_current(referee1, organiser):
    save(referee1, RESULT_1, 0, {"finish": [5]}, submit=False)
    response = save(organiser, RESULT_1, 0, SHEET_1, submit=True)
    assert response.status_code == 409
    body = response.json()
    # Who saved it and when, in words: never internal version numbers.
    assert re.fullmatch(
        r".+ saved this result meanwhile, at \d\d:\d\d: check it and save again\.",
        body.pop("detail"),
    )
    assert body == {
        "errors": {},
        "current": {
            "version": 1,
            "status": "draft",
            "finish": [5],
            "retired": [],
            "dns": [],
            "notes": {},
        },
    }
    assert referee1.get(RESULT_1).json()["version"] == 1


def test_stale_version_on_an_empty_table_carries_the_empty_result(referee1):
    response = save(referee1, RESULT_1, 3, SHEET_1, submit=True)
    assert response.status_code == 409
    assert response.json()["current"] == EMPTY


def test_write_after_confirm_is_409(referee1, organiser):
    save(referee1, RESULT_1, 0, SHEET_1, submit=True)
    organiser.post(CONFIRM_1, {})
    for api in (referee1, organiser):
        response = save(api, RESULT_1, 2, {"finish": [1, 5]}, submit=False)
        assert response.status_code == 409
        body = response.json()
        assert body["detail"] == "This result is confirmed: only race control can reopen it."
        assert body["current"] == {"version": 2, "status": "confirmed", **SHEET_1_OUT}
    assert organiser.get(RESULT_1).json()["finish"] == [5, 1]


def test_confirm_of_a_draft_or_an_empty_table_is_409(referee1, organiser):
    response = organiser.post(CONFIRM_1, {})
    assert response.status_code == 409
    assert response.json()["detail"] == "Only a submitted result can be confirmed."
    assert response.json()["current"] == EMPTY
    save(referee1, RESULT_1, 0, {"finish": [5]}, submit=False)
    response = organiser.post(CONFIRM_1, {})
    assert response.status_code == 409
    assert response.json()["current"]["status"] == "draft"
    assert not ResultLine.objects.exists()


def test_confirm_twice_is_409(referee1, organiser):
    save(referee1, RESULT_1, 0, SHEET_1, submit=True)
    assert organiser.post(CONFIRM_1, {}).status_code == 200
    response = organiser.post(CONFIRM_1, {})
    assert response.status_code == 409
    assert response.json()["current"]["status"] == "confirmed"


def test_confirm_with_a_stale_version_is_409(referee1, organiser):
    save(referee1, RESULT_1, 0, SHEET_1, submit=True)
    response = organiser.post(CONFIRM_1, {"version": 7})
    assert response.status_code == 409
    assert re.fullmatch(
        r".+ changed this result meanwhile, at \d\d:\d\d: check it first\.",
        response.json()["detail"],
    )
    assert response.json()["current"] == {"version": 1, "status": "submitted", **SHEET_1_OUT}
    assert organiser.get(RESULT_1).json()["status"] == "submitted"


def test_reopen_of_a_result_not_confirmed_is_409(referee1, organiser):
    response = organiser.post(REOPEN_1, {"reason": "Protest"})
    assert response.status_code == 409
    assert response.json()["current"] == EMPTY
    save(referee1, RESULT_1, 0, SHEET_1, submit=True)
    response = organiser.post(REOPEN_1, {"reason": "Protest"})
    assert response.status_code == 409
    assert response.json()["detail"] == "Only a confirmed result can be reopened."
    assert response.json()["current"]["status"] == "submitted"


def test_reopen_with_a_stale_version_is_409(referee1, organiser):
    save(referee1, RESULT_1, 0, SHEET_1, submit=True)
    organiser.post(CONFIRM_1, {})
    response = organiser.post(REOPEN_1, {"reason": "Protest", "version": 1})
    assert response.status_code == 409
    assert response.json()["current"]["status"] == "confirmed"
    assert ResultLine.objects.count() == 4


@pytest.mark.parametrize(
    ("body", "field"),
    [({}, "reason"), ({"reason": "   "}, "reason"), ({"reason": "x" * 201}, "reason")],
)
def test_reopen_needs_a_reason(referee1, organiser, body, field):
    save(referee1, RESULT_1, 0, SHEET_1, submit=True)
    organiser.post(CONFIRM_1, {})
    response = organiser.post(REOPEN_1, body)
    assert response.status_code == 400, response.content
    assert list(response.json()["errors"]) == [field]
    assert organiser.get(RESULT_1).json()["status"] == "confirmed"


# ---------------------------------------------------------------------------
# Who may write
# ---------------------------------------------------------------------------


def test_bad_or_missing_token_is_401(allocated, anon):
    for api in (Api("not-a-token"), anon):
        response = save(api, RESULT_1, 0, SHEET_1, submit=True)
        assert response.status_code == 401
        assert response.json()["detail"]
        assert response["WWW-Authenticate"].startswith("Bearer")
        assert api.post(CONFIRM_1, {}).status_code == 401
        assert api.post(REOPEN_1, {"reason": "x"}).status_code == 401
    assert Api("not-a-token").get(RESULT_1).json() == {
        "detail": "Unknown or revoked token.",
        "errors": {},
    }
    assert not RaceResult.objects.exists()


def test_replaced_link_is_401(organiser, referee1):
    organiser.post(f"{TABLES}/1/referee-link")
    response = save(referee1, RESULT_1, 0, SHEET_1, submit=True)
    assert response.status_code == 401
    assert response.json()["detail"] == "This link was replaced: ask race control for the new one."


def test_other_tokens_are_403(allocated, outsider, event):
    table2 = table_api(allocated, 2)
    response = save(table2, RESULT_1, 0, SHEET_1, submit=True)
    assert response.status_code == 403
    assert response.json() == {
        "detail": "Only this table's referee or an organiser may enter its result.",
        "errors": {},
    }
    response = save(outsider, RESULT_1, 0, SHEET_1, submit=True)
    assert response.status_code == 403
    qualifying = Api(QualifyingTable.objects.get(event=event, number=1).token)
    assert save(qualifying, RESULT_1, 0, SHEET_1, submit=True).status_code == 403
    assert not RaceResult.objects.exists()


def test_confirm_and_reopen_are_for_organisers_only(referee1, outsider, organiser):
    save(referee1, RESULT_1, 0, SHEET_1, submit=True)
    for api in (referee1, outsider):
        response = api.post(CONFIRM_1, {})
        assert response.status_code == 403
        assert response.json()["detail"] == "Only the organisers of this championship may do this."
    organiser.post(CONFIRM_1, {})
    for api in (referee1, outsider):
        assert api.post(REOPEN_1, {"reason": "Protest"}).status_code == 403
    assert organiser.get(RESULT_1).json()["status"] == "confirmed"


def test_unknown_table_or_event_is_404(organiser, referee1):
    for path in (f"{TABLES}/3/result", f"{TABLES}/0/result", f"{TABLES}/99999/result"):
        for response in (
            organiser.get(path),
            save(organiser, path, 0, SHEET_1, submit=True),
            organiser.post(path.replace("result", "confirm"), {}),
            organiser.post(path.replace("result", "reopen"), {"reason": "x"}),
        ):
            assert response.status_code == 404, response.content
            assert response.json()["detail"]
    response = organiser.get("/events/nope/tables/1/result")
    assert response.status_code == 404
    assert response.json()["detail"] == "Unknown event “nope”."


# ---------------------------------------------------------------------------
# Who may read
# ---------------------------------------------------------------------------


def test_reading_before_publication(organiser, referee1, outsider, anon, allocated):
    save(referee1, RESULT_1, 0, SHEET_1, submit=True)
    organiser.post(CONFIRM_1, {})
    assert organiser.get(RESULT_1).status_code == 200
    assert referee1.get(RESULT_1).status_code == 200
    response = anon.get(RESULT_1)
    assert response.status_code == 404
    assert response.json()["detail"] == "Unknown event “gp-race”."
    assert outsider.get(RESULT_1).status_code == 403
    # Another table's link is told nothing, like an anonymous reader.
    response = table_api(allocated, 2).get(RESULT_1)
    assert response.status_code == 404
    assert response.json()["detail"] == "Table 1 has no published result yet."


def test_reading_once_published_needs_a_confirmed_table(organiser, referee1, anon, allocated):
    save(referee1, RESULT_1, 0, SHEET_1, submit=True)
    organiser.post(CONFIRM_1, {})
    save(table_api(allocated, 2), RESULT_2, 0, SHEET_2, submit=True)
    assert organiser.post("/events/gp-race/publish", {"results": True}).status_code == 200
    confirmed = {"version": 2, "status": "confirmed", **SHEET_1_OUT}
    assert anon.get(RESULT_1).json() == confirmed
    assert table_api(allocated, 2).get(RESULT_1).json() == confirmed
    # Table 2 is only submitted: its referee and organisers see it, nobody else.
    for api in (anon, referee1):
        response = api.get(RESULT_2)
        assert response.status_code == 404
        assert response.json()["detail"] == "Table 2 has no published result yet."
    assert organiser.get(RESULT_2).json()["status"] == "submitted"
    assert table_api(allocated, 2).get(RESULT_2).json()["status"] == "submitted"


def test_a_finisher_whose_engine_broke_on_the_last_lap_is_noted(referee1, organiser):
    """§16-0-6 vs §20-4-1: the referee keeps 1 as a finisher and says why; the note is in
    the result, the day's results and the history. A note on a retired driver is a 400
    naming the driver (its note goes with the retirement)."""
    note = "Engine broken after the second-to-last corner (§16-0-6)"
    wrong = save(referee1, RESULT_1, 0, {**SHEET_1, "notes": {"3": note}}, submit=True)
    assert wrong.status_code == 400
    assert "a note on its own is for a finisher" in wrong.json()["errors"]["3"][0]
    saved = save(referee1, RESULT_1, 0, {**SHEET_1, "notes": {"1": note}}, submit=True)
    assert saved.status_code == 200, saved.content
    assert saved.json()["notes"] == {"1": note}
    assert referee1.get(RESULT_1).json()["notes"] == {"1": note}
    assert organiser.post(CONFIRM_1, {}).status_code == 200
    lines = {line["driver"]["number"]: line for line in organiser.get(RESULTS).json()}
    assert (lines[1]["status"], lines[1]["note"]) == ("finished", note)
    assert lines[3]["note"] == ""
    assert RaceResult.history.filter(table__number=1).first().game_data == {"notes": {"1": note}}
