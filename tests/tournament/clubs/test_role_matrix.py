"""The role matrix (issue 41): every organiser page and API operation, for each role of a
club (DOMAIN.md "Clubs and who may do what"), as tests/security/test_permission_matrix.py
walks them for its callers. Run it on PostgreSQL (``DATABASE_URL``), as CI does.

The world is the security matrix's (its event ``gp`` of championship ``cf``, unpublished),
with clubs: ``cf-club`` owns ``cf`` and its circuit; its ``owner``, ``organiser`` and
``desk``; ``guest`` is ``cf``'s own guest organiser; ``rival`` owns the club of the other
championship; ``anonymous`` is nobody.

What each expects is read from the security matrix, so that one table says who may open a
page: the owner, the club's organiser and the guest get the organiser's answer there; the
rival club's owner the outsider's (an organiser of another championship); ``anonymous`` the
anonymous caller's. The desk gets the organiser's answer on the day's counter (``DESK``:
entries, check-in, runs, results entered and confirmed, sheets, and reading the day) and a
refusal everywhere else; where its answer differs for another reason, ``DIFFERS`` says
why. The clubs' own operations are written out in ``CLUBS``, their people pages in
``CLUB_PAGES``.
"""

from __future__ import annotations

import html
import os
import re
from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client, override_settings
from django.urls import reverse
from django.utils import timezone, translation

from standings.leagues.models import League, Round
from tests.security import test_permission_matrix as security
from tests.security.conftest import World, build_world, english
from tests.template_db import empty_database
from tournament.models import ApiToken, Circuit, Club, Membership
from tournament.signup.models import Announcement

ROLES = ("owner", "organiser", "desk", "guest", "rival", "anonymous")
#: Whose column of the security matrix each role reads, and whose URL arguments it uses.
AS = {
    "owner": "organiser",
    "organiser": "organiser",
    "desk": "organiser",
    "guest": "organiser",
    "rival": "outsider",
    "anonymous": "anonymous",
}
CLUB = "cf-club"  # the name tests/security/test_permission_matrix.py gives {club}
LEAGUE = "cf-league"  # and {league}: here a league of cf-club, counting its event gp

# --- Pages ------------------------------------------------------------------------------------

#: The day's counter: the desk gets what the organisers get.
DESK_PAGES = {
    "driver-new",  # a driver arriving at the counter
    "event",
    "event-desk",
    "desk-register",
    "desk-checkin",
    "qualifying-general",
    "qualifying-session",
    "qtable",
    "qtable-count",
    "qtable-name",
    "qtable-cards",
    "qtable-sheet",
    "qtable-history",
    "qtable-photo-add",
    "run-preview",
    "run-history",
    "sheet-batch-request",
    "sheet-batch",
    "sheet-batch-download",
    "where",
    "rtable",
    "rtable-sheet",
    "rtable-stand",
    "rtable-configuration",
    "rtable-weather",
    "rtable-history",
    "rtable-start",
    "rtable-name",
    "rtable-photo-add",
    "result-entry",
    "result-summary",
    "result-confirm",
    "event-results",
    "game-table-entry",
    "game-table-sheet",
    "rally-desk",
    "rally-stage-times",
    "results-desk",  # results entered and confirmed (reopening stays race control's)
    # The sheets' photos: the drop zone, the tray assigned by hand, a photo beside its result.
    "photo-desk",
    "photo-assign",
    "desk-photo",
    "desk-photo-image",
    # Sign-up at the door: the list and check-in (its decisions stay the organisers', below);
    # before the event is announced the desk reads its sign-up page and psych sheet as the
    # organisers do, as it reads the event.
    "signup-desk",
    "signup",
    "signup-entrants",
    # Anyone logged in: a desk member has an account like anyone.
    "my-tables",
    "password_change",
    "password_change_done",
    "my-clubs",
    "me",
    "me-token",
}
#: A club's season pages (tournament/clubs/season_pages.py).
SEASON_PAGES = ("club-championship-new", "club-circuit-new", "circuit-edit")
#: (page, method) → {role: status} where a role's answer differs from the rule above.
PAGES_DIFFER: dict[tuple[str, str], dict[str, int]] = {
    # Qualifying is closed (the race tables exist): corrections are race control's, so the
    # desk is told so as a table's referee is (409), not refused.
    ("run-save", "POST"): {"desk": 409},
    ("run-cancel", "GET"): {"desk": 200},
    ("run-cancel", "POST"): {"desk": 409},
    # A post without an action is a decision on a registration: the organisers' (403).
    ("signup-desk", "POST"): {"desk": 403},
    # A club's season pages: a championship's guest organiser runs that championship, not
    # its club (no championship nor circuit of the club).
    **{(name, method): {"guest": 403} for name in SEASON_PAGES for method in ("GET", "POST")},
    # A club's next season is started by its owners and organisers, never by a guest.
    ("championship-next-season", "GET"): {"guest": 403},
    ("championship-next-season", "POST"): {"guest": 403},
    # A server not open to clubs has no welcome page for new accounts: 404 to everyone.
    ("account-welcome", "GET"): {"desk": 404},
    # A league is run by its club's owners and organisers: the desk and a championship's
    # guest organiser are told nothing of its matching page, as any stranger (404).
    ("league-matches", "GET"): {"desk": 404, "guest": 404},
    ("league-matches", "POST"): {"desk": 404, "guest": 404},
}

#: The club's people pages, for ``cf-club`` itself (the security matrix's club is another):
#: (page, method) → (URL arguments, statuses in ROLES order). Its owners only; anyone else
#: signed in is refused (403), nobody is sent to log in (302).
CLUB_PAGES: dict[tuple[str, str], tuple[dict[str, Any], str]] = {
    ("club-people", "GET"): ({"club": CLUB}, "200 403 403 403 403 302"),
    # An empty form comes back with its errors (400); a role changed without one is told so.
    ("club-invite", "POST"): ({"club": CLUB}, "400 403 403 403 403 302"),
    ("club-member-role", "POST"): (
        {"club": CLUB, "username": "guichet"},
        "302 403 403 403 403 302",
    ),
    # A removal asks first (200).
    ("club-member-remove", "POST"): (
        {"club": CLUB, "username": "guichet"},
        "200 403 403 403 403 302",
    ),
    ("club-invitation-withdraw", "POST"): ({"club": CLUB, "pk": 999999}, "404 403 403 403 403 302"),
    # Every member may leave, after a confirmation (200); who is no member is told nothing.
    ("club-leave", "POST"): ({"club": CLUB}, "200 200 200 404 404 302"),
    # Leagues (issue 52): the club's leagues and the rounds proposed to its events are its
    # owners' and organisers' (an empty form comes back with its errors: 400; no round
    # 999999); its league's rounds and matching pages too, anyone else told nothing (404);
    # a withdrawal asks first (200); an empty proposal or join is told so (302).
    ("club-leagues", "GET"): ({"club": CLUB}, "200 200 403 403 403 302"),
    ("club-leagues", "POST"): ({"club": CLUB}, "400 400 403 403 403 302"),
    ("club-league-rounds", "GET"): ({"club": CLUB}, "200 200 403 403 403 302"),
    ("club-league-round-accept", "POST"): ({"club": CLUB, "pk": 999999}, "404 404 403 403 403 302"),
    ("club-league-round-decline", "POST"): (
        {"club": CLUB, "pk": 999999},
        "404 404 403 403 403 302",
    ),
    ("league-rounds", "GET"): ({"slug": LEAGUE}, "200 200 404 404 404 302"),
    ("league-rounds", "POST"): ({"slug": LEAGUE}, "302 302 404 404 404 302"),
    ("league-round-withdraw", "POST"): ({"slug": LEAGUE, "event": "gp"}, "200 200 404 404 404 302"),
    ("league-matches", "GET"): ({"slug": LEAGUE}, "200 200 404 404 404 302"),
    ("league-matches", "POST"): ({"slug": LEAGUE}, "302 302 404 404 404 302"),
}

# --- API --------------------------------------------------------------------------------------

DESK_API = {
    ("post", "/championships/{slug}/drivers"),
    ("get", "/events/{event}"),
    # The day's checklist (API.md "Every game's evening"): race control's and the desk's.
    ("get", "/events/{event}/checklist"),
    ("post", "/events/{event}/entries"),
    ("get", "/events/{event}/entries"),
    ("post", "/events/{event}/checkin"),
    ("get", "/events/{event}/sessions"),
    ("get", "/events/{event}/qualifying-tables"),
    ("get", "/events/{event}/sessions/{n}/runs"),
    ("post", "/events/{event}/sessions/{n}/runs"),
    ("get", "/events/{event}/sessions/{n}/runs/{driver}"),
    ("post", "/events/{event}/sessions/{n}/runs/{driver}/cancel"),
    ("get", "/events/{event}/sessions/{n}/classification"),
    ("get", "/events/{event}/qualifying"),
    ("post", "/events/{event}/draw"),
    ("get", "/events/{event}/tables"),
    ("get", "/events/{event}/race-weather"),
    ("post", "/events/{event}/tables/{t}/weather-draws"),
    ("post", "/events/{event}/tables/{t}/start"),
    ("get", "/events/{event}/sanctions"),
    ("put", "/events/{event}/tables/{t}/stands"),
    ("put", "/events/{event}/tables/{t}/configurations"),
    ("get", "/events/{event}/tables/{t}/sheet.pdf"),
    ("get", "/events/{event}/tables/{t}/result"),
    ("put", "/events/{event}/tables/{t}/result"),
    ("post", "/events/{event}/tables/{t}/confirm"),
    ("get", "/events/{event}/results"),
    ("post", "/events/{event}/tables/{t}/photos"),
    ("get", "/events/{event}/tables/{t}/photos"),
    ("post", "/events/{event}/qualifying-tables/{t}/photos"),
    ("get", "/events/{event}/qualifying-tables/{t}/photos"),
    ("post", "/events/{event}/stages"),
    ("get", "/events/{event}/stages"),
    ("put", "/events/{event}/stages/{n}/times"),
    ("get", "/events/{event}/stages/{n}/classification"),
    ("get", "/events/{event}/stages/{n}/start-order"),
    ("put", "/events/{event}/stages/{n}/start-order"),
    ("put", "/events/{event}/stages/{n}/snow"),
    ("get", "/events/{event}/rally"),
    ("get", "/events/{event}/entrants"),  # the psych sheet: reading the day
    # The door: the list, a registration's check-in, a waiting one present, closing
    # check-in (decisions, messages, a person's export and erasure stay the organisers').
    ("get", "/events/{event}/registrations"),
    ("post", "/events/{event}/registrations/{id}/checkin"),
    ("post", "/events/{event}/registrations/{id}/present"),
    ("post", "/events/{event}/checkin/close"),
    # The sheets' photos: a pile matched by QR code, every photo of the event, one of them.
    ("post", "/events/{event}/photos"),
    ("get", "/events/{event}/photos"),
    ("get", "/events/{event}/photos/{id}"),
    # Anyone signs up once the event is announced; the desk reads the event, and is told,
    # as its organisers are, that sign-up is closed (409).
    ("post", "/events/{event}/registrations"),
    # A photo of table 1 (999999: none): the desk reaches the table, and finds no photo.
    ("get", "/events/{event}/tables/{t}/photos/{id}"),
    ("get", "/events/{event}/qualifying-tables/{t}/photos/{id}"),
}
API_DIFFER: dict[tuple[str, str], dict[str, int]] = {
    # Qualifying is closed: the desk's correction is race control's (409), as a referee's.
    ("patch", "/events/{event}/sessions/{n}/runs/{driver}"): {"desk": 409},
    # A club's next season is started by its owners and organisers, never by a guest.
    ("post", "/championships/{slug}/next-season"): {"guest": 403},
    # A league is its club's (its owners and organisers): a championship's guest organiser
    # makes none, runs none. The round of the club's own event is the club's to decide
    # (here the event is of the league's club; the security matrix's is of no club).
    **{
        ("post", "/leagues" + path): {"guest": 403}
        for path in ("", "/{league}/rounds", "/{league}/matches")
    },
    ("get", "/leagues/{league}/matches"): {"guest": 403},
    ("delete", "/leagues/{league}/rounds/{event}"): {"guest": 403},
    **{
        ("post", f"/leagues/{{league}}/rounds/{{event}}/{verb}"): {"owner": 200, "organiser": 200}
        for verb in ("accept", "decline")
    },
}
#: The clubs' own operations: (method, path sent, body) → statuses in ROLES order.
CLUBS: dict[tuple[str, str], tuple[str, Any, str]] = {
    ("post", "/championships"): (
        "/championships",
        {"slug": "nouvelle", "name": "Nouvelle", "season": 2027, "club": CLUB},
        "201 201 403 403 403 401",
    ),
    ("post", "/circuits"): (
        "/circuits",
        {
            "slug": "spa",
            "name": "Spa",
            "weather_scale": {"rain": [1, 4], "variable": [5, 8], "sun": [9, 20]},
            "club": CLUB,
        },
        "201 201 403 403 403 401",
    ),
    ("patch", "/circuits/{slug}"): ("/circuits/monza", {"laps": 4}, "200 200 403 403 403 401"),
    ("post", "/clubs"): ("/clubs", {"slug": "neuf", "name": "Neuf"}, "403 403 403 403 403 401"),
    ("get", "/clubs"): ("/clubs", None, "200 200 200 200 200 401"),
    ("get", "/me"): ("/me", None, "200 200 200 200 200 401"),
    ("post", "/clubs/{club}/invitations"): (
        f"/clubs/{CLUB}/invitations",
        {"email": "a@example.org", "role": "desk"},
        "202 403 403 403 403 401",
    ),
    ("get", "/clubs/{club}/invitations"): (
        f"/clubs/{CLUB}/invitations",
        None,
        "200 403 403 403 403 401",
    ),
    ("delete", "/clubs/{club}/invitations/{id}"): (
        f"/clubs/{CLUB}/invitations/999999",
        None,
        "404 403 403 403 403 401",
    ),
    ("post", "/invitations/accept"): (
        "/invitations/accept",
        {"token": "unknown"},
        "404 404 404 404 404 404",
    ),
    ("get", "/clubs/{club}/members"): (f"/clubs/{CLUB}/members", None, "200 200 200 403 403 401"),
    ("patch", "/clubs/{club}/members/{username}"): (
        f"/clubs/{CLUB}/members/guichet",
        {"role": "organiser"},
        "200 403 403 403 403 401",
    ),
    ("delete", "/clubs/{club}/members/{username}"): (
        f"/clubs/{CLUB}/members/guichet",
        None,
        "204 403 204 403 403 401",  # the desk is guichet: it leaves the club
    ),
    ("put", "/championships/{slug}/organisers"): (
        "/championships/cf/organisers",
        {"usernames": ["orga"]},
        "200 403 403 403 403 401",  # the club's owners name guest organisers
    ),
    # Leagues (issue 52): cf-club's owners and organisers run its league and decide the
    # rounds of its events (gp counts already: proposed again, 409; one driver is no join,
    # 400); nobody else.
    ("post", "/leagues"): (
        "/leagues",
        {"slug": "nord", "name": "Nord", "season": "2026", "club": CLUB},
        "201 201 403 403 403 401",
    ),
    ("post", "/leagues/{league}/rounds"): (
        f"/leagues/{LEAGUE}/rounds",
        {"event": "gp"},
        "409 409 403 403 403 401",
    ),
    ("post", "/leagues/{league}/rounds/{event}/accept"): (
        f"/leagues/{LEAGUE}/rounds/gp/accept",
        None,
        "200 200 403 403 403 401",
    ),
    ("post", "/leagues/{league}/rounds/{event}/decline"): (
        f"/leagues/{LEAGUE}/rounds/gp/decline",
        None,
        "200 200 403 403 403 401",
    ),
    ("delete", "/leagues/{league}/rounds/{event}"): (
        f"/leagues/{LEAGUE}/rounds/gp",
        None,
        "204 204 403 403 403 401",
    ),
    ("get", "/leagues/{league}/matches"): (
        f"/leagues/{LEAGUE}/matches",
        None,
        "200 200 403 403 403 401",
    ),
    ("post", "/leagues/{league}/matches"): (
        f"/leagues/{LEAGUE}/matches",
        {"drivers": [{"championship": "cf", "number": 1}], "reason": "même licence"},
        "400 400 403 403 403 401",
    ),
}


def expected(base_text: str, *, desk_may: bool, differs: dict[str, int]) -> dict[str, int]:
    """Each role's status from the security matrix's row ``base_text``."""
    base = security.codes(base_text)
    statuses = {role: base[AS[role]] for role in ROLES}
    if not desk_may:
        statuses["desk"] = 403
    return {**statuses, **differs}


def varies(text: str) -> bool:
    """An organiser's page or operation: not the same answer for every caller."""
    return len(set(text.split())) > 1


# --- The world ----------------------------------------------------------------------------------


class ClubWorld:
    def __init__(self, world: World, users: dict[str, Any]) -> None:
        self.world = world
        self.users = users
        self.tokens = {role: ApiToken.issue(user) for role, user in users.items()}
        self.sessions: dict[str, str] = {}


def build(django_user_model: Any) -> ClubWorld:
    world = build_world(django_user_model)
    make = django_user_model.objects.create_user
    users = {
        "owner": make("patronne", password="pw-1"),
        "organiser": make("orgaclub", password="pw-1"),
        "desk": make("guichet", password="pw-1"),
        "guest": world.users["organiser"],  # cf's own guest organiser
        "rival": make("rival", password="pw-1"),
    }
    club = Club.objects.create(slug=CLUB, name="Club de la Coupe")
    for role in ("owner", "organiser", "desk"):
        Membership.objects.create(club=club, user=users[role], role=role)
    world.championship.club = club
    world.championship.save(update_fields=["club"])
    Circuit.objects.filter(slug="monza").update(club=club)
    league = League.objects.create(
        slug=LEAGUE, name="Ligue", season="2026", club=club, points_scale=[10, 6]
    )
    Round.objects.create(league=league, event=world.event, status="counted")
    rival = Club.objects.create(slug="club-autre", name="Autre club")
    Membership.objects.create(club=rival, user=users["rival"], role="owner")
    world.other_championship.club = rival
    world.other_championship.save(update_fields=["club"])
    built = ClubWorld(world, users)
    for role, user in users.items():
        client = Client()
        client.force_login(user)
        built.sessions[role] = client.cookies[settings.SESSION_COOKIE_NAME].value
    return built


@pytest.fixture(scope="module")
def clubs(django_db_setup: None, django_db_blocker: Any) -> Any:
    """Committed once for the module; each request's writes are rolled back."""
    fast = override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"])
    with django_db_blocker.unblock(), fast, translation.override("en"):
        built = build(get_user_model())
        try:
            yield built
        finally:
            empty_database()


def page_client(clubs: ClubWorld, role: str) -> Client:
    client = Client()
    if role in clubs.sessions:
        client.cookies[settings.SESSION_COOKIE_NAME] = clubs.sessions[role]
    return english(client)


def api_client(clubs: ClubWorld, role: str) -> Client:
    token = clubs.tokens.get(role)
    headers = {"HTTP_ACCEPT_LANGUAGE": "en"}
    if token:
        headers["HTTP_AUTHORIZATION"] = f"Bearer {token}"
    return Client(**headers)


def _report(kind: str, key: Any, actual: dict[str, int]) -> None:
    if os.environ.get("PRINT_MATRIX"):
        print(f"\nROLES {kind} {key} {' '.join(str(actual[r]) for r in ROLES)}")


def _wrong(want: dict[str, int], actual: dict[str, int]) -> list[str]:
    return [
        f"{role}: {actual[role]}, not {want[role]}" for role in ROLES if actual[role] != want[role]
    ]


# --- The walks ----------------------------------------------------------------------------------

ORGANISER_PAGES = sorted(
    (name, method)
    for name, (_arguments, by_method) in security.PAGES.items()
    for method, text in by_method.items()
    if varies(text)
)


@pytest.mark.django_db
@pytest.mark.parametrize(("name", "method"), ORGANISER_PAGES)
def test_page(clubs: ClubWorld, name: str, method: str) -> None:
    arguments, by_method = security.PAGES[name]
    club_page = CLUB_PAGES.get((name, method))
    if club_page is not None:
        want = dict(zip(ROLES, (int(code) for code in club_page[1].split()), strict=True))
    else:
        want = expected(
            by_method[method],
            desk_may=name in DESK_PAGES,
            differs=PAGES_DIFFER.get((name, method), {}),
        )
    requests = {}
    for role in ROLES:
        kwargs = club_page[0] if club_page is not None else arguments(clubs.world, AS[role])
        url = reverse(name, kwargs=kwargs)
        client = page_client(clubs, role)
        send = client.get if method == "GET" else client.post
        requests[role] = lambda send=send, url=url: send(url)
    actual = security.run_matrix(requests)
    _report("page", (name, method), actual)
    assert _wrong(want, actual) == [], (name, method)


ORGANISER_OPERATIONS = sorted(op for op, (_body, text) in security.API.items() if varies(text))


@pytest.mark.django_db
@pytest.mark.parametrize("operation", ORGANISER_OPERATIONS, ids=lambda op: f"{op[0]} {op[1]}")
def test_api(clubs: ClubWorld, operation: tuple[str, str]) -> None:
    method, path = operation
    if operation in CLUBS:
        url_path, body, text = CLUBS[operation]
        want = dict(zip(ROLES, (int(code) for code in text.split()), strict=True))
    else:
        body, base_text = security.API[operation]
        url_path = security.api_path(clubs.world, path)
        want = expected(
            base_text,
            desk_may=operation in DESK_API,
            differs=API_DIFFER.get(operation, {}),
        )
    if callable(body):
        body = body(clubs.world)
    url = "/api/v1" + url_path
    requests = {}
    for role in ROLES:
        client = api_client(clubs, role)
        requests[role] = lambda client=client: security.api_request(client, method, url, body)
    actual = security.run_matrix(requests)
    _report("api", operation, actual)
    assert _wrong(want, actual) == [], (method, path)


def test_every_club_operation_is_walked() -> None:
    """The clubs' operations of the OpenAPI document are all written out above."""
    clubs_ops = {
        op for op in security.api_operations() if op[1].startswith("/clubs") or op[1] == "/me"
    }
    assert clubs_ops <= set(CLUBS)


# --- What the desk is shown ---------------------------------------------------------------------

#: The sheets, PDFs: no link in them.
PDF_PAGES = {"qtable-cards", "qtable-sheet", "rtable-sheet", "sheet-batch-download"}
#: The day's pages the desk opens (200) in the world above.
DESK_READS = sorted(
    name
    for name in DESK_PAGES - PDF_PAGES
    if security.codes(security.PAGES[name][1]["GET"])["organiser"] == 200
)
#: Every link of a page, but the static files and a fragment of the page itself.
HREF = re.compile(r'href="(/[^"#]*)')


@pytest.mark.django_db
@pytest.mark.parametrize("name", DESK_READS)
def test_the_desk_is_shown_no_link_it_may_not_open(clubs: ClubWorld, name: str) -> None:
    """Each link of a page the desk opens is one it may follow: the organisers' pages (the
    race tables, the announcement, the event's settings) are shown to the organisers only
    (DOMAIN.md "Clubs and who may do what": the desk keeps the day's counter, nothing else).
    The event is announced and open for sign-up here, so that the pages show sign-up's links
    too (the desk's checklist starts with sign-up's steps)."""
    Announcement.objects.create(
        event=clubs.world.event, capacity=10, opens_at=timezone.now() - timedelta(days=1)
    )
    arguments, _by_method = security.PAGES[name]
    client = page_client(clubs, "desk")
    page = security.get_as(client, reverse(name, kwargs=arguments(clubs.world, "organiser")))
    assert page.status_code == 200, name
    assert page["Content-Type"].startswith("text/html"), name
    links = {html.unescape(link) for link in HREF.findall(page.content.decode())}
    followed = {
        link: security.get_as(client, link).status_code
        for link in sorted(links)
        if not link.startswith(settings.STATIC_URL)
    }
    assert {link: status for link, status in followed.items() if status == 403} == {}, name
