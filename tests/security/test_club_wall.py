"""The wall between clubs (issue 49): club a's owner, organiser and desk member, each signed
in or with an API token, send a plausible request at club b's objects, and are refused
(``403`` or ``404``; never a ``2xx``, never a ``5xx``), and club b's rows stay byte for byte
the same (tests/security/wall.py reads them).

Exhaustive by construction: every write operation of the OpenAPI document and every page
pattern with an argument is walked, unless ``NOT_APPLICABLE_API`` or
``NOT_APPLICABLE_PAGES`` says why it cannot reach
another club (a registrant's own link, the guide's pages). Bodies are those of the security
matrix (tests/security/test_permission_matrix.py: valid ones), aimed at club b (its club's
slug in a body that names a club); a page's fields are those of its form, read from the
pages as club b's owner sees them, each of a page's forms sent. A page that answers every
caller of the security matrix alike (a public page, a page without POST) answers club a so.
Each request runs in a savepoint rolled back afterwards;
club b's rows are read again only when the request wrote to one of their tables.

Leagues (issue 52, "Walls"): club a's people send every league write at b's league and at
each of its rounds (b's own ``gp``, counted; c's ``c-gp``, proposed), and b's leagues' rows
are b's rows. A league gives no right over a round's event: club c's owner and organiser,
who run a league counting b's ``gp``, send every write of a championship or an event at
b's (the same requests as club a's), refused, b's rows the same.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction
from django.test import Client, override_settings
from django.urls import Resolver404, resolve, reverse
from django.utils import translation

from tests.security import test_permission_matrix as security
from tests.security.conftest import english
from tests.security.wall import (
    CSV,
    LEAGUE_ROLES,
    ROLES,
    Forms,
    Wall,
    build_wall,
    changed,
    rows_of,
    tables_written,
)
from tests.template_db import empty_database

REFUSED = {403, 404}
CLUB_B = "club-b"

# --- The API ------------------------------------------------------------------------------------

#: Writes that take nothing of a club, or only a secret that is its holder's whoever holds it.
NOT_APPLICABLE_API: dict[tuple[str, str], str] = {
    ("post", "/clubs"): "makes a new club; names no existing one",
    ("post", "/invitations/accept"): "an invitation's secret is its holder's (single use)",
    ("post", "/registrations/confirm"): "a registrant's confirmation secret, not a role",
    ("patch", "/registrations/{token}"): "a registrant's own link, not a role",
    ("delete", "/registrations/{token}"): "a registrant's own link, not a role",
    ("post", "/players/changes/{id}/undo"): "undoes a merge or split of players, which are "
    "no club's; the merge and the split of b's player are walked",
}

#: Bodies aimed at club b where the security matrix's name no club or a harmless target.
API_BODIES: dict[tuple[str, str], Any] = {
    ("post", "/championships"): {"slug": "mur", "name": "Mur", "season": "2027", "club": CLUB_B},
    ("post", "/circuits"): {
        "slug": "mur",
        "name": "Mur",
        "weather_scale": {"rain": [1, 4], "variable": [5, 8], "sun": [9, 20]},
        "club": CLUB_B,
    },
    ("put", "/championships/{slug}/organisers"): {"usernames": ["a-owner", "a-organiser"]},
    ("patch", "/clubs/{club}/members/{username}"): {"role": "owner"},
    ("post", "/clubs/{club}/invitations"): {"email": "spy@example.org", "role": "owner"},
    ("post", "/players/merge"): lambda wall: {
        "keep": wall.ids["a-player"],
        "merge": wall.ids["player"],
        "reason": "the same person",
    },
    ("post", "/players/{id}/split"): {
        "driver": {"championship": "cf", "number": 1},
        "reason": "not the same",
    },
    ("post", "/events/{event}/registrations/{id}/decision"): {"status": "refused", "reason": "x"},
    # A league of b made by another club; a's own event counted in b's league; b's driver
    # joined with a's.
    ("post", "/leagues"): {
        "slug": "mur-ligue",
        "name": "Mur",
        "season": "2027",
        "club": CLUB_B,
        "points_scale": [10, 8],
    },  # fmt: skip
    ("post", "/leagues/{league}/rounds"): {"event": "a-gp"},
    ("post", "/leagues/{league}/matches"): {
        "drivers": [{"championship": "cf", "number": 1}, {"championship": "a-cup", "number": 1}],
        "reason": "the same person",
    },
}
#: b's league, and the events of its rounds an ``{event}`` of a league's path names: b's own
#: (counted) and c's (proposed).
LEAGUE_B = "b-league"
ROUND_EVENTS = ("gp", "c-gp")

#: Which of b's objects an ``{id}`` names, by the path's words before it.
API_IDS = {
    "/registrations/{id}/decision": "pending",
    "/registrations/{id}": "registration",
    "/sanctions/{id}": "sanction",
    "/invitations/{id}": "invitation",
    "/players/{id}": "player",
}


@cache
def write_operations() -> list[tuple[str, str]]:
    from paddock.api import api

    schema = api.get_openapi_schema(path_prefix="/api/v1")
    return sorted(
        (method, path.removeprefix("/api/v1"))
        for path, operations in schema["paths"].items()
        for method in operations
        if method in security.WRITE_METHODS
    )


def api_urls(wall: Wall, path: str) -> list[str]:
    """The addresses of an operation at b's objects: one, or one per round of b's league."""
    if not path.startswith("/leagues/{league}/rounds/{event}"):
        return [api_url(wall, path)]
    return [api_url(wall, path.replace("{event}", event)) for event in ROUND_EVENTS]


def api_url(wall: Wall, path: str) -> str:
    path = path.replace("{league}", LEAGUE_B)
    for words, key in API_IDS.items():
        if words in path:
            path = path.replace("{id}", str(wall.ids[key]), 1)
    if path.startswith("/circuits/{slug}"):
        path = path.replace("{slug}", "monza")
    path = path.replace("{club}", CLUB_B).replace("{username}", "b-desk")
    return "/api/v1" + security.api_path(wall.world, path)


def api_body(wall: Wall, operation: tuple[str, str]) -> Any:
    if operation in API_BODIES:
        body = API_BODIES[operation]
        return body(wall) if callable(body) else body
    body = security.API[operation][0]
    return body(wall.world) if callable(body) else body


API_WALKED = [op for op in write_operations() if op not in NOT_APPLICABLE_API]

# --- The pages ----------------------------------------------------------------------------------

#: Arguments of pages whose security-matrix arguments are not club b's objects.
PAGE_ARGUMENTS: dict[str, Callable[[Wall], dict[str, Any]]] = {
    **{
        name: lambda wall: {"club": CLUB_B}
        for name in (
            "club-people",
            "club-invite",
            "club-leave",
            "club-championship-new",
            "club-circuit-new",
        )
    },
    **{
        name: lambda wall: {"club": CLUB_B, "username": "b-desk"}
        for name in ("club-member-role", "club-member-remove")
    },
    "club-invitation-withdraw": lambda wall: {"club": CLUB_B, "pk": wall.ids["invitation"]},
    "circuit-edit": lambda wall: {"slug": "monza"},
    "sanction-withdraw": lambda wall: {"slug": "gp", "pk": wall.ids["sanction"]},
    "player-split": lambda wall: {"pk": wall.ids["player"]},
    "signup-entrants": lambda wall: {"slug": "gp"},
    **{
        name: lambda wall: {"slug": LEAGUE_B}
        for name in ("league", "league-projector", "league-matches")
    },
    # Race control's restore, through a table's link: the link alone may not (403).
    "result-restore": lambda wall: {"token": wall.world.rtables[0].token},
}
#: Pages whose address takes no club's object, or a secret that is its holder's.
NOT_APPLICABLE_PAGES: dict[str, str] = {
    "guide-page": "the guide's pages: everyone's, read only",
    "language": "the language menu's link",
    "ratings": "a game's public ranking, of no club",
    "career": "a player's public career, read only",
    "player-change-undo": "undoes a merge or split of players, which are no club's",
}
#: A page whose address holds a secret link is that link's, whoever holds it (API.md "table
#: token"; a registrant's own link; an invitation): not a club's role.
SECRET_ARGUMENT = "token"


def page_patterns() -> list[tuple[str, str]]:
    """(name, route) of the pages (not the API) whose address takes an argument."""
    return sorted(
        (name, route)
        for namespace, route, name in security.project_patterns()
        if not namespace and ("<" in route or "(?P<" in route)
    )


def secret(route: str) -> bool:
    return re.search(rf"[:<]{SECRET_ARGUMENT}>", route) is not None


def walked(name: str, route: str) -> bool:
    if name in PAGE_ARGUMENTS:
        return True
    return name not in NOT_APPLICABLE_PAGES and not secret(route)


PAGES_WALKED = [name for name, route in page_patterns() if walked(name, route)]


def page_arguments(wall: Wall, name: str) -> dict[str, Any]:
    if name in PAGE_ARGUMENTS:
        return PAGE_ARGUMENTS[name](wall)
    return security.PAGES[name][0](wall.world, "organiser")


def page_expected(name: str) -> set[int]:
    """A page that answers every caller of the security matrix alike (public, or no such
    method) answers club a so; any other is refused."""
    codes = set(security.codes(security.PAGES[name][1]["POST"]).values())
    return codes if len(codes) == 1 else REFUSED


def form_fields(wall: Wall, name: str) -> list[dict[str, Any]]:
    """What each form of the page sends (nothing when no page shows one in this world)."""
    variants = []
    for form in wall.forms.get(name) or [{}]:
        fields = dict(form)
        for key, value in fields.items():
            if value == CSV:
                fields[key] = SimpleUploadedFile("drivers.csv", value, content_type="text/csv")
            elif isinstance(value, bytes):
                fields[key] = SimpleUploadedFile("sheet.jpg", value, content_type="image/jpeg")
        variants.append(fields)
    return variants


# --- The world ----------------------------------------------------------------------------------


def read_forms(wall: Wall) -> None:
    """The POST forms of every walked page, as club b's owner sees them, by the URL name of
    their action (each different set of fields: a page's actions, like the sign-up desk's
    decision, erasure, export and message, are each sent)."""
    client = Client()
    client.force_login(wall.users["b-owner"])
    english(client)
    with transaction.atomic():
        for name in PAGES_WALKED:
            url = reverse(name, kwargs=page_arguments(wall, name))
            page = client.get(url)
            if page.status_code != 200 or "text/html" not in page.get("Content-Type", ""):
                continue
            parser = Forms()
            parser.feed(page.content.decode())
            for action, fields in parser.forms:
                try:
                    target = resolve(urlsplit(action).path or url)
                except Resolver404:
                    continue
                if target.namespace:
                    continue
                variants = wall.forms.setdefault(target.url_name, [])
                if fields not in variants:
                    variants.append(fields)
        transaction.set_rollback(True)


@pytest.fixture(scope="module")
def wall(django_db_setup: None, django_db_blocker: Any) -> Any:
    """Both clubs, committed once for the module; each request's writes are rolled back."""
    fast = override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"])
    with django_db_blocker.unblock(), fast, translation.override("en"):
        built = build_wall()
        built.baseline = rows_of(built.club_b)
        read_forms(built)
        for role in (*ROLES, *LEAGUE_ROLES):
            client = Client()
            client.force_login(built.users[role])
            built.tokens[f"session-{role}"] = client.cookies[settings.SESSION_COOKIE_NAME].value
        try:
            yield built
        finally:
            empty_database()


def sent(wall: Wall, send: Callable[[], Any]) -> tuple[int, list[str]]:
    """The status of ``send()`` and the models of club b it changed, then undone."""
    sid = transaction.savepoint()
    try:
        with tables_written() as written:
            status = send().status_code
        return status, changed(wall, written)
    finally:
        transaction.savepoint_rollback(sid)


def verdicts(answers: dict[str, tuple[int, list[str]]], allowed: set[int]) -> list[str]:
    return [
        f"{role}: {status}{f', changed {diff}' if diff else ''}"
        for role, (status, diff) in answers.items()
        if status not in allowed or diff
    ]


# --- The tests ----------------------------------------------------------------------------------


def api_wrongs(wall: Wall, operation: tuple[str, str], roles: tuple[str, ...]) -> list[str]:
    """What ``roles`` were answered, at each address of ``operation``, that the wall forbids."""
    method, path = operation
    body = api_body(wall, operation)
    wrong = []
    for url in api_urls(wall, path):
        assert "{" not in url, url
        answers = {}
        for role in roles:
            token = wall.tokens[role]
            client = Client(HTTP_AUTHORIZATION=f"Bearer {token}", HTTP_ACCEPT_LANGUAGE="en")
            answers[role] = sent(
                wall, lambda c=client, u=url: security.api_request(c, method, u, body)
            )
        wrong += [f"{url} {verdict}" for verdict in verdicts(answers, REFUSED)]
    return wrong


def page_wrongs(wall: Wall, name: str, roles: tuple[str, ...]) -> list[str]:
    """What ``roles`` were answered, for each form of the page ``name``, that the wall forbids."""
    url = reverse(name, kwargs=page_arguments(wall, name))
    allowed = page_expected(name)
    wrong = []
    for fields in form_fields(wall, name):
        answers = {}
        for role in roles:
            client = english(Client())
            client.cookies[settings.SESSION_COOKIE_NAME] = wall.tokens[f"session-{role}"]
            answers[role] = sent(wall, lambda c=client, f=fields: c.post(url, f))
        wrong += [f"{verdict} ({fields})" for verdict in verdicts(answers, allowed)]
    return wrong


@pytest.mark.django_db
@pytest.mark.parametrize("operation", API_WALKED, ids=lambda op: f"{op[0]} {op[1]}")
def test_the_api_holds_the_wall(wall: Wall, operation: tuple[str, str]) -> None:
    assert api_wrongs(wall, operation, ROLES) == [], operation


@pytest.mark.django_db
@pytest.mark.parametrize("name", PAGES_WALKED)
def test_the_pages_hold_the_wall(wall: Wall, name: str) -> None:
    assert page_wrongs(wall, name, ROLES) == [], name


#: The writes of a championship or an event (its settings, entries, tables, results,
#: registrations, sanctions, photos...), and the pages of one.
ROUND_OPERATIONS = [op for op in API_WALKED if op[1].startswith(("/events/", "/championships/{"))]
ROUND_PAGES = [
    name
    for name, route in page_patterns()
    if name in PAGES_WALKED and route.startswith(("e/<", "^e/(?P<slug>", "c/<"))
]


@pytest.mark.django_db
@pytest.mark.parametrize("operation", ROUND_OPERATIONS, ids=lambda op: f"{op[0]} {op[1]}")
def test_a_league_gives_no_right_over_its_rounds_event_api(
    wall: Wall, operation: tuple[str, str]
) -> None:
    """The organisers of c's league, which counts b's ``gp``, change nothing of it."""
    assert api_wrongs(wall, operation, LEAGUE_ROLES) == [], operation


@pytest.mark.django_db
@pytest.mark.parametrize("name", ROUND_PAGES)
def test_a_league_gives_no_right_over_its_rounds_event_pages(wall: Wall, name: str) -> None:
    assert page_wrongs(wall, name, LEAGUE_ROLES) == [], name


#: The arguments ``api_url`` fills with club b's objects.
API_ARGUMENTS = {"slug", "event", "n", "driver", "t", "id", "club", "username", "league"}


def test_every_write_and_page_is_walked_or_said_not_to_apply() -> None:
    """Each write operation and page with an argument is walked, or named above with why
    not; what is named exists; each walked path's arguments are ones filled with b's."""
    operations = set(write_operations())
    assert set(NOT_APPLICABLE_API) | set(API_BODIES) <= operations
    assert set(API_WALKED) | set(NOT_APPLICABLE_API) == operations
    unknown = {
        (op, argument)
        for op in API_WALKED
        for argument in re.findall(r"{(\w+)}", op[1])
        if argument not in API_ARGUMENTS
    }
    assert unknown == set(), "fill these arguments with club b's objects in api_url"
    patterns = page_patterns()
    assert set(NOT_APPLICABLE_PAGES) | set(PAGE_ARGUMENTS) <= {name for name, _ in patterns}
    left = {name for name, route in patterns if not walked(name, route)}
    assert left - set(NOT_APPLICABLE_PAGES) == {
        name for name, route in patterns if secret(route) and name not in PAGE_ARGUMENTS
    }
    assert len(PAGES_WALKED) + len(left) == len(patterns)


@pytest.mark.django_db
def test_the_walk_sees_club_b_change_its_own_rows(wall: Wall) -> None:
    """The same requests from club b's own owner change b's rows, and the walk says so: a
    refusal above is the wall's, and a change would not go unseen."""
    owner = Client(HTTP_AUTHORIZATION=f"Bearer {wall.tokens['b-owner']}")
    url = api_url(wall, "/events/{event}")
    body = api_body(wall, ("patch", "/events/{event}"))
    status, diff = sent(wall, lambda: security.api_request(owner, "patch", url, body))
    assert (status, "tournament.Event" in diff) == (200, True), diff
    page = english(Client())
    page.force_login(wall.users["b-owner"])
    url = reverse("circuit-edit", kwargs=page_arguments(wall, "circuit-edit"))
    fields = {**form_fields(wall, "circuit-edit")[0], "name": "Monza 2"}
    status, diff = sent(wall, lambda: page.post(url, fields))
    assert (status, "tournament.Circuit" in diff) == (302, True), diff
    # b's leagues are b's rows: its owner withdrawing a round of its league is seen.
    url = api_url(wall, "/leagues/{league}/rounds/c-gp")
    status, diff = sent(wall, lambda: owner.delete(url))
    assert (status, "leagues.Round" in diff) == (204, True), diff
    # c's people do run a league counting b's gp: they may withdraw it (b's event's round).
    league = Client(HTTP_AUTHORIZATION=f"Bearer {wall.tokens['c-organiser']}")
    url = "/api/v1/leagues/c-league/rounds/gp"
    status, diff = sent(wall, lambda: league.delete(url))
    assert (status, "leagues.Round" in diff) == (204, True), diff
