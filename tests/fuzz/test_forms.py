"""Fuzz the main HTML forms with hypothesis: random data, never a 500, always a message.

Each form is posted as the person who uses it (the organiser at the desk, a referee's
phone holding the table link) on the security tests' event, with the form's own field
names and values that are mostly wrong: empty, huge, negative, text for numbers, NUL
characters, impossible dates and times. The answer is followed to the page a person sees,
which must say something (a flash message or an error next to a field).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests.security.conftest import World, english, logged_in

pytestmark = pytest.mark.django_db

EXAMPLES = 80
#: What a person sees when the page says something about what they sent.
MESSAGES = ('class="flash', 'class="error', "errorlist", 'role="alert"', 'role="status"')

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
        ]
    ),
    st.text(max_size=24),
)


@dataclass
class Target:
    url: Callable[[World], str]
    role: str  # "organiser" or "link"
    keys: Callable[[World], list[str]]
    #: False for the live preview, which shows nothing until the typing makes sense.
    says: bool = True


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


def _grid(world: World) -> list[int]:
    return list(
        world.rtables[0].slots.order_by("position").values_list("driver__number", flat=True)
    )


def _run_url(world: World, page: str) -> str:
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
    if says and response.status_code == 200 and html:
        assert _says_something(response), f"no message shown for {where}"


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
def test_random_form_data_gets_a_message_not_a_500(world: World, name: str, data: Any) -> None:
    target = TARGETS[name]
    keys = target.keys(world)
    sent = data.draw(st.dictionaries(st.sampled_from(keys), values, max_size=len(keys)))
    client = _client(world, target.role)
    response = client.post(target.url(world), sent, follow=True)
    _judge(name, sent, response, says=target.says)


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
