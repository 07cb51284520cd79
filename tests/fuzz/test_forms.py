"""Fuzz the main HTML forms with hypothesis: random data, never a 500, always a message.

Each form is posted as the person who uses it (the organiser at the desk, a referee's
phone holding the table link) on the security tests' event, with the form's own field
names and values that are mostly wrong: empty, huge, negative, text for numbers, NUL
characters, impossible dates and times. The answer is followed to the page a person sees,
which must say something (a flash message or an error next to a field), whether it is
a page of the site (200) or a refusal of what was sent (4xx). Each example starts from the
same event: what it wrote is rolled back.

The other games' forms (Rallyman stage times, the Cannes–Monaco and Racetrack table
sheets) are posted on events of those games (``tests/fuzz/conftest.py``, ``fuzz_world``).

Names that are markup or a formula (issue 14) are among the values drawn, and are typed in
every form that takes a name; the pages then show them escaped, whatever the query string.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction
from django.test import Client
from django.urls import reverse
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from qualifying.models import QualifyingTable
from races.models import RaceResult, RaceTable, ResultStatus
from races.results.services import result_confirm
from races.weather.services import race_weather_draw
from tests.fuzz.conftest import FuzzWorld
from tests.security.conftest import World, english, logged_in
from tests.security.hostile import HOSTILE_NAMES, ODD_QUERIES, unescaped
from tournament.access import Actor
from tournament.models import Event

pytestmark = pytest.mark.django_db

#: Examples a form (derandomized: the same ones each run).
EXAMPLES = 15
#: What a person sees when the page says something about what they sent: a flash message
#: (``base.html``, the refusals' ``<article class="flash error" role="alert">``), an error
#: next to a field, or a form's error list. Not ``role="status"``: the result sheets show
#: their state with it on every page, whatever was sent. A confirmation step (what a
#: destructive action will undo, ``templates/confirm.html``) says what is about to happen.
MESSAGES = ('class="flash', 'class="error', "errorlist", 'role="alert"', 'class="confirm-step"')

values = st.one_of(
    st.integers(min_value=-(10**12), max_value=10**12).map(str),
    st.sampled_from(
        [
            "",
            " ",
            "0",
            "1",
            "2",
            "3",
            "22",
            "-1",
            "99999999999999999999",
            "1:45.20",
            "9:99.99",
            "1'45\"20",
            "61:00",
            "2026-07-14",
            "2026-02-30",
            "2026-07-14T25:61",
            "on",
            "true",
            "sun",
            "rain",
            "hard",
            "soft",
            "retired",
            "dns",
            "engine",
            "other",
            "draft",
            "submit",
            "1e9",
            "NaN",
            "\x00",
            "É" * 300,
            "1 2 3",
            "1,2,,x",
            *HOSTILE_NAMES,
        ]
    ),
    st.text(max_size=24),
)


@dataclass
class Target:
    url: Callable[[FuzzWorld], str]
    role: str  # "organiser" or "link"
    keys: Callable[[FuzzWorld], list[str]]
    #: False for the live preview, which shows nothing until the typing makes sense.
    says: bool = True
    #: Values that make sense for this form (real usernames, versions, ids), drawn as often
    #: as the wrong ones so that the fuzz gets past the first check.
    hints: Callable[[FuzzWorld], list[str]] = lambda w: []
    #: What happens before each example (rolled back with it), e.g. a result confirmed.
    prepare: Callable[[FuzzWorld], Any] | None = None
    #: A form filled in right: half of the examples start from it, one or two drawn values
    #: replacing its fields, so that the fuzz reaches the services' own checks.
    valid: Callable[[FuzzWorld], dict[str, str]] | None = None


RUN_FIELDS = [
    "tyres",
    "throws",
    "placement_errors",
    "exit_squares",
    "stopwatch",
    "eliminated",
    "performed_at",
]
RESULT_PARTS = ["outcome", "cause", "lap", "note", "order"]
CONFIG_PARTS = ["tyres", "brakes", "gearbox", "body", "engine", "road_holding", "stand_points"]
EVENT_FIELDS = [
    "name",
    "slug",
    "date",
    "circuit",
    "laps",
    "table_size",
    "qualifying_mode",
    "minute_penalty",
    "allow_redo",
    "separate_teams",
    "language",
    "use_configurations",
    "game",
    "crash_limit",
    "collisions",
    "stand_numbers",
    *(f"standard_{part}" for part in CONFIG_PARTS),
]


#: The world's accounts, a name nobody has, and one with spaces around it.
USERNAMES = ["arbitre1", "arbitre2", "curieux", "orga", "root", "personne", " arbitre1 "]
STAGE_FIELDS = ["chrono", "held", "retired", "splits"]
CANNES_FIELDS = ["square", "crossed"]
RACETRACK_FIELDS = ["turns", "margin", "crashes", "finished", "eliminated"]


def _grid(world: FuzzWorld) -> list[int]:
    return list(
        world.rtables[0].slots.order_by("position").values_list("driver__number", flat=True)
    )


def _result_history(world: FuzzWorld) -> list[int]:
    """The recorded versions of race table 1's result (those race control may restore)."""
    rows = RaceResult.history.filter(table_id=world.rtables[0].pk).order_by("history_id")
    return list(rows.values_list("history_id", flat=True))


def _moves(world: FuzzWorld) -> list[str]:
    return [f"{n}:{way}" for n in _grid(world) for way in ("up", "down")]


def _result_sheet(world: FuzzWorld) -> dict[str, str]:
    """Race table 1's sheet, whole: three finishers and a retirement."""
    grid = _grid(world)
    return {
        "version": "1",
        "action": "submit",
        **{f"d{n}-outcome": str(place) for place, n in enumerate(grid[:3], start=1)},
        f"d{grid[3]}-outcome": "retired",
        f"d{grid[3]}-cause": "engine",
        f"d{grid[3]}-lap": "2",
    }


def _variable_race(world: FuzzWorld) -> None:
    """The race weather drawn variable (d20 of 5 to 8 at Monza) before the first result came
    in, as on race day (instead of the world's sun, with a reason): the tables then draw
    their own weather."""
    tables = RaceTable.objects.filter(event=world.event)
    states = {pk: (status, started) for pk, status, started in
              tables.values_list("pk", "result_status", "started_at")}  # fmt: skip
    tables.update(result_status=ResultStatus.EMPTY, started_at=None)
    race_weather_draw(actor=Actor(user=world.users["organiser"]), event=world.event, roll=6,
                      reason="die off the table")  # fmt: skip
    for pk, (status, started) in states.items():
        RaceTable.objects.filter(pk=pk).update(result_status=status, started_at=started)


def _run_url(world: FuzzWorld, page: str) -> str:
    return reverse(page, args=[world.qtables[0].token, 1, world.qdriver(0)])


TARGETS: dict[str, Target] = {
    "run entry": Target(
        lambda w: _run_url(w, "run-save"),
        "link",
        lambda w: ["version", *(f"d{w.qdriver(0)}-{f}" for f in RUN_FIELDS)],
    ),
    "run preview": Target(
        lambda w: _run_url(w, "run-preview"),
        "link",
        lambda w: [f"d{w.qdriver(0)}-{f}" for f in RUN_FIELDS],
        says=False,
    ),
    "result entry": Target(
        lambda w: reverse("result-entry", args=[w.rtables[0].token]),
        "link",
        lambda w: (
            ["version", "action", "move"]
            + [f"d{n}-{part}" for n in _grid(w) for part in RESULT_PARTS]
        ),
        hints=_moves,
        valid=_result_sheet,
    ),
    # The ▲/▼ buttons of the sheet without JavaScript: the sheet as typed, one move.
    "result order": Target(
        lambda w: reverse("result-entry", args=[w.rtables[0].token]),
        "link",
        lambda w: ["move"],
        hints=_moves,
        valid=_result_sheet,
    ),
    "event settings": Target(
        lambda w: reverse("event-settings", args=[w.event.slug]),
        "organiser",
        lambda w: EVENT_FIELDS,
    ),
    "new event": Target(
        lambda w: reverse("event-new", args=[w.championship.slug]),
        "organiser",
        lambda w: EVENT_FIELDS,
    ),
    "new driver": Target(
        lambda w: reverse("driver-new", args=[w.championship.slug]),
        "organiser",
        lambda w: ["number", "first_name", "last_name", "team", "email", "licence"],
    ),
    "swap": Target(
        lambda w: reverse("allocation-swap", args=[w.event.slug]),
        "organiser",
        lambda w: ["a", "b", "reason"],
    ),
    "stand": Target(
        lambda w: reverse("rtable-stand", args=[w.rtables[0].token, w.rdriver(1)]),
        "link",
        lambda w: ["stand"],
    ),
    "configuration": Target(
        lambda w: reverse("rtable-configuration", args=[w.rtables[0].token, w.rdriver(0)]),
        "link",
        lambda w: [f"c{w.rdriver(0)}-{part}" for part in CONFIG_PARTS],
    ),
    "session": Target(
        lambda w: reverse("desk-session-create", args=[w.event.slug]),
        "organiser",
        lambda w: ["number", "weather_roll"],
    ),
    "registration": Target(
        lambda w: reverse("desk-register", args=[w.event.slug]), "organiser", lambda w: ["numbers"]
    ),
    "race weather": Target(
        lambda w: reverse("race-weather", args=[w.event.slug]), "organiser", lambda w: ["roll"]
    ),
    "qualifying table": Target(
        lambda w: reverse("desk-table-edit", args=[w.event.slug, 1]),
        "organiser",
        lambda w: ["number", "referee_name", "drivers", "referee_account"],
        hints=lambda w: [*USERNAMES, "1 2 3 4", "5,6", "1 1", "9"],
        valid=lambda w: {
            "number": "1",
            "referee_name": "Anne",
            "drivers": " ".join(str(w.qdriver(i)) for i in range(4)),
            "referee_account": "arbitre1",
        },
    ),
    "check-in": Target(
        lambda w: reverse("desk-checkin", args=[w.event.slug, 1]),
        "organiser",
        lambda w: ["state", "checked_in"],
        valid=lambda w: {"state": "present"},
    ),
    "publish": Target(
        lambda w: reverse("desk-publish", args=[w.event.slug]),
        "organiser",
        lambda w: ["qualifying", "allocation", "results"],
        valid=lambda w: {"qualifying": "1", "allocation": "1", "results": "1"},
    ),
    "run cancel": Target(
        lambda w: _run_url(w, "run-cancel"),
        "link",
        lambda w: ["reason"],
        valid=lambda w: {"reason": "Carte mal posée"},
        prepare=lambda w: Event.objects.filter(pk=w.event.pk).update(allow_redo=True),
    ),
    "result confirm": Target(
        lambda w: reverse("result-confirm", args=[w.event.slug, 1]),
        "organiser",
        lambda w: ["version"],
        valid=lambda w: {"version": "1"},
    ),
    "result reopen": Target(
        lambda w: reverse("result-reopen", args=[w.event.slug, 1]),
        "organiser",
        lambda w: ["version", "reason"],
        hints=lambda w: ["Mauvais ordre"],
        valid=lambda w: {"version": "2", "reason": "Mauvais ordre"},
        prepare=lambda w: result_confirm(
            actor=Actor(user=w.users["organiser"]), table=w.rtables[0], version=1
        ),
    ),
    "result restore": Target(
        lambda w: reverse("result-restore", args=[w.rtables[0].token]),
        "organiser",
        lambda w: ["history_id", "version"],
        hints=lambda w: [str(pk) for pk in _result_history(w)],
        valid=lambda w: {"history_id": str(_result_history(w)[0]), "version": "1"},
    ),
    "table weather": Target(
        lambda w: reverse("rtable-weather", args=[w.rtables[0].token]),
        "link",
        lambda w: ["roll"],
        valid=lambda w: {"roll": "12"},
        prepare=_variable_race,
    ),
    "race referee account": Target(
        lambda w: reverse("race-referee-account", args=[w.event.slug, 1]),
        "organiser",
        lambda w: ["username"],
        hints=lambda w: USERNAMES,
        valid=lambda w: {"username": "arbitre2"},
    ),
    "scoring": Target(
        lambda w: reverse("championship-scoring", args=[w.championship.slug]),
        "organiser",
        lambda w: ["preset", "custom_scale", "points_mode", "best_results"],
        hints=lambda w: ["f1", "classic", "custom", "per_table", "overall", "10-8-6", "25 18"],
        valid=lambda w: {
            "preset": "custom",
            "custom_scale": "10 8 6 4",
            "points_mode": "per_table",
            "best_results": "",
        },
    ),
    "rally stage times": Target(
        lambda w: reverse("rally-stage-times", args=[w.games.rally.slug, 1]),
        "organiser",
        lambda w: [f"{f}-{n}" for n in w.games.starters() for f in STAGE_FIELDS],
        hints=lambda w: ["07:40", "75:10", "5:99", "00:00", "02:10 04:05", "04:05 02:10"],
        valid=lambda w: {
            **{f"chrono-{n}": f"0{n}:40" for n in w.games.starters()},
            **{f"splits-{n}": f"0{n}:10" for n in w.games.starters()},
        },
    ),
    "rally desk": Target(
        lambda w: reverse("rally-desk", args=[w.games.rally.slug]),
        "organiser",
        lambda w: ["action", "number", "route", "service_after", "order"],
        hints=lambda w: ["stage", "order", "draw", "J1 J4", "C8 X9", "4 3 2 1", "4 4 2 1"],
        valid=lambda w: {"action": "stage", "number": "2", "route": "J1 J4", "order": "1 2 3 4"},
    ),
    "cannes-monaco sheet": Target(
        lambda w: reverse("game-table-entry", args=[w.games.cannes_monaco.token]),
        "link",
        lambda w: [
            "version",
            "action",
            *(f"{f}-{n}" for n in w.games.grid(w.games.cannes_monaco) for f in CANNES_FIELDS),
        ],
        hints=lambda w: ["draft", "submit", "30", "36", "37"],
        valid=lambda w: {
            "version": "0",
            "action": "submit",
            **{f"square-{n}": str(20 + n) for n in w.games.grid(w.games.cannes_monaco)},
        },
    ),
    "racetrack sheet": Target(
        lambda w: reverse("game-table-entry", args=[w.games.racetrack.token]),
        "link",
        lambda w: [
            "version",
            "action",
            *(f"{f}-{n}" for n in w.games.grid(w.games.racetrack) for f in RACETRACK_FIELDS),
        ],
        hints=lambda w: ["draft", "submit", "12", "5"],
        valid=lambda w: {
            "version": "0",
            "action": "submit",
            **{
                f"{f}-{n}": v
                for n in w.games.grid(w.games.racetrack)
                for f, v in (("turns", str(10 + n)), ("margin", "2"), ("finished", "1"))
            },
        },
    ),
}


def _client(world: World, role: str) -> Client:
    if role == "organiser":
        return logged_in(world.users["organiser"])
    return english(Client())


def _says_something(response: Any) -> bool:
    html = response.content.decode(errors="replace")
    return any(marker in html for marker in MESSAGES)


def _judge(name: str, data: Any, response: Any, *, says: bool = True) -> None:
    where = f"{name}: {data!r:.400}"
    assert response.status_code < 500, f"{response.status_code} for {where}"
    html = "text/html" in response.get("Content-Type", "")
    # A page of the site, or a refusal of what was sent (400, 409…): both say why. The
    # site's own 403/404 pages carry no message of the kind: the form's own user on the
    # form's own address is never turned away, whatever was typed.
    if says and html:
        assert _says_something(response), f"no message shown ({response.status_code}) for {where}"


FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=list(HealthCheck),
)


@pytest.mark.parametrize("name", list(TARGETS))
@FUZZ
@given(data=st.data())
def test_random_form_data_gets_a_message_not_a_500(
    fuzz_world: FuzzWorld, name: str, data: Any
) -> None:
    target, world = TARGETS[name], fuzz_world
    keys, hints = target.keys(world), target.hints(world)
    field_values = st.one_of(values, st.sampled_from(hints)) if hints else values
    if target.valid is not None and data.draw(st.booleans(), label="from a valid form"):
        wrong = st.dictionaries(st.sampled_from(keys), field_values, max_size=2)
        sent = {**target.valid(world), **data.draw(wrong, label="wrong fields")}
    else:
        sent = data.draw(st.dictionaries(st.sampled_from(keys), field_values, max_size=len(keys)))
    client = _client(world, target.role)
    with transaction.atomic():  # every example starts from the same event
        try:
            if target.prepare is not None:
                target.prepare(world)
            response = client.post(target.url(world), sent, follow=True)
            _judge(name, sent, response, says=target.says)
        finally:
            transaction.set_rollback(True)


csv_cells = st.one_of(values, st.sampled_from(["Écurie", "x;y", '"', "\n", "7", "a@b.c"]))
csv_rows = st.lists(st.lists(csv_cells, min_size=0, max_size=7), max_size=6)
HEADER = "number,first_name,last_name,team,email"


@FUZZ
@given(
    rows=csv_rows,
    separator=st.sampled_from([",", ";", "\t"]),
    header=st.sampled_from([HEADER, HEADER.replace(",", ";"), "", "nom,prénom", HEADER + ",x"]),
    encoding=st.sampled_from(["utf-8", "latin-1", "utf-16"]),
)
def test_random_driver_files_get_a_message_not_a_500(
    world: World, rows: list[list[str]], separator: str, header: str, encoding: str
) -> None:
    text = "\n".join([header, *(separator.join(row) for row in rows)])
    content = text.encode(encoding, errors="replace")
    upload = SimpleUploadedFile("drivers.csv", content, content_type="text/csv")
    client = _client(world, "organiser")
    response = client.post(
        reverse("drivers-import", args=[world.championship.slug]), {"file": upload}, follow=True
    )
    _judge("drivers import", text, response)


def _csv_line(*cells: str) -> str:
    out = io.StringIO()
    csv.writer(out, delimiter=";", lineterminator="\n").writerow(cells)
    return out.getvalue()


@pytest.mark.parametrize("hostile", HOSTILE_NAMES)
def test_hostile_names_typed_in_the_forms_are_shown_escaped(
    fuzz_world: FuzzWorld, hostile: str
) -> None:
    world = fuzz_world
    organiser, link = _client(world, "organiser"), _client(world, "link")
    qtable, slug = world.qtables[0], world.championship.slug
    csv_text = "number;first_name;last_name;team\n" + _csv_line("77", hostile, hostile, hostile)
    with transaction.atomic():
        try:
            posts = {
                reverse("desk-table-edit", args=[world.event.slug, 1]): {
                    "number": "1",
                    "referee_name": hostile,
                    "drivers": " ".join(str(world.qdriver(i)) for i in range(4)),
                },
                reverse("event-new", args=[slug]): {
                    "name": hostile,
                    "slug": "hostile",
                    "date": "2026-10-04",
                    "circuit": world.event.circuit_id,
                    "table_size": "8",
                    "qualifying_mode": "sum",
                    "language": "fr",
                },
                reverse("drivers-import", args=[slug]): {
                    "file": SimpleUploadedFile("d.csv", csv_text.encode(), "text/csv")
                },
            }
            for url, data in posts.items():
                response = organiser.post(url, data, follow=True)
                assert response.status_code == 200, (url, response.status_code)
            assert Event.objects.filter(slug="hostile", name=hostile).exists()
            assert QualifyingTable.objects.get(pk=qtable.pk).referee_name == hostile
            assert world.championship.drivers.filter(number=77, first_name=hostile).exists()
            pages = [
                (organiser, reverse("championship", args=[slug])),
                (organiser, reverse("event", args=["hostile"])),
                (organiser, reverse("event-desk", args=[world.event.slug])),
                (organiser, reverse("qtable-sheet", args=[qtable.token])),
                (link, reverse("qtable", args=[qtable.token])),
            ]
            for client, url in pages:
                for query in ("", *ODD_QUERIES):
                    response = client.get(f"{url}?{query}")
                    assert response.status_code in (200, 400, 404), (url, query)
                    if "text/html" in response["Content-Type"]:
                        assert unescaped(response.content.decode()) == [], (url, query)
        finally:
            transaction.set_rollback(True)
