"""Who may do what: every URL pattern and every API operation, for every kind of caller.

The URL patterns come from the project's resolver and the API operations from its OpenAPI
document; a pattern or an operation missing from the matrices below fails the test, so a
new page cannot ship without saying who may open it.

Callers (STYLE.md: organiser, referee of this table, outsider, plus two more):

- ``organiser``: logged in, organiser role on the championship (not a superuser);
- ``link``: a referee's phone, nobody logged in, holding table 1's link (in the API, race
  table 1's link for race-day paths, qualifying table 1's otherwise);
- ``account``: the referee account assigned to table 1 (logged in, table 1's pages; the
  API with its own token);
- ``other``: the referee of table 2 (logged in as its account, its own link in the URL, the
  objects of table 1 in the rest of the URL; in the API, table 2's link);

A table's link reads its own table and nothing else (API.md, "table token"): event-wide
data that is not published answers it ``404``, exactly as to an anonymous caller, and a
referee account ``403`` like any other user who is not an organiser.
- ``outsider``: logged in, organiser of another championship (an unknown link in URLs);
- ``anonymous``: nobody (an unknown link in URLs, no token in the API).

Pages are sent GET and POST (no data: the point is who gets in, not what is saved); API
operations their declared method with a valid body, and GET where only writes exist.
Every request runs in a savepoint that is rolled back, so each caller sees the same event.
The matrix holds as well when every name of the championship is markup or a formula and
with query strings no page expects (issue 14): the same statuses, names escaped on the
pages and returned as they are in the API. The event is unpublished: what the public sees
once it is published is in ``test_referee_access.py`` and ``test_table_scope.py``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import parse_qsl

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from standings.leagues.models import League, Round
from tests.races.photos.images import oriented_jpeg
from tests.security.conftest import UNKNOWN_TOKEN, World, english, logged_in
from tests.security.hostile import HOSTILE_NAMES, ODD_QUERIES, give_hostile_names, unescaped
from tests.security.query_reads import ALL, parameters_read
from tournament.models import Club, Driver, Membership, Player
from tournament.signup.models import Registration

#: A small phone photo (EXIF, GPS) for the photo uploads.
PHOTO = oriented_jpeg()
ROLES = ("organiser", "link", "account", "other", "outsider", "anonymous")

# --- Pages ----------------------------------------------------------------------------------


def page_clients(world: World) -> dict[str, Client]:
    users = world.users
    return {
        "organiser": logged_in(users["organiser"]),
        "link": english(Client()),
        "account": logged_in(users["ref1"]),
        "other": logged_in(users["ref2"]),
        "outsider": logged_in(users["outsider"]),
        "anonymous": english(Client()),
    }


def qtoken(world: World, role: str) -> str:
    if role in ("organiser", "link", "account"):
        return world.qtables[0].token
    if role == "other":
        return world.qtables[1].token
    return UNKNOWN_TOKEN


def rtoken(world: World, role: str) -> str:
    if role in ("organiser", "link", "account"):
        return world.rtables[0].token
    if role == "other":
        return world.rtables[1].token
    return UNKNOWN_TOKEN


Kwargs = Callable[[World, str], dict[str, Any]]


def none(world: World, role: str) -> dict[str, Any]:
    return {}


def champ(world: World, role: str) -> dict[str, Any]:
    return {"slug": world.championship.slug}


def event(world: World, role: str) -> dict[str, Any]:
    return {"slug": world.event.slug}


def event_and(**extra: Callable[[World], Any]) -> Kwargs:
    return lambda world, role: {"slug": world.event.slug, **{k: f(world) for k, f in extra.items()}}


def player_of(world: World) -> int:
    """The player of driver 1 (created the first time: the world's drivers have none)."""
    driver = Driver.objects.get(championship=world.championship, number=1)
    if driver.player_id is None:
        driver.player = Player.objects.create(
            first_name=driver.first_name, last_name=driver.last_name
        )
        driver.save(update_fields=["player"])
    return driver.player_id


def entrants(world: World, role: str) -> dict[str, Any]:
    """The event, with one accepted entrant of a long name (the psych sheet's row)."""
    Registration.objects.get_or_create(
        event=world.event,
        email="entrant@example.org",
        defaults={
            "first_name": "Maximilien-Alexandre",
            "last_name": "Wolfeschlegelsteinhausenbergerdorff-Sainte-Colombe",
            "team": "Scuderia des Montagnes Noires",
            "status": "accepted",
        },
    )
    return {"slug": world.event.slug}


def player(world: World, role: str) -> dict[str, Any]:
    return {"pk": player_of(world)}


def qtable(world: World, role: str) -> dict[str, Any]:
    return {"token": qtoken(world, role)}


def qrun(world: World, role: str) -> dict[str, Any]:
    """Table 1's first driver, through the caller's link (the other referee's is table 2)."""
    return {"token": qtoken(world, role), "session": 1, "number": world.qdriver(0)}


def rtable(world: World, role: str) -> dict[str, Any]:
    return {"token": rtoken(world, role)}


def rdriver(world: World, role: str) -> dict[str, Any]:
    """Table 1's second driver (no stand yet), through the caller's link."""
    return {"token": rtoken(world, role), "number": world.rdriver(1)}


def club(world: World, role: str, **extra: Any) -> dict[str, Any]:
    """A club whose owner is the organiser (made the first time)."""
    found, _created = Club.objects.get_or_create(slug="matrix-club", defaults={"name": "Club"})
    Membership.objects.get_or_create(
        club=found, user=world.users["organiser"], defaults={"role": "owner"}
    )
    return {"club": found.slug, **extra}


def club_member(world: World, role: str) -> dict[str, Any]:
    return club(world, role, username=world.users["organiser"].get_username())


def running_club(world: World, role: str) -> dict[str, Any]:
    """The championship's club where it has one (tests/tournament/clubs/test_role_matrix.py),
    else the club whose owner is the organiser."""
    championship = type(world.championship).objects.get(pk=world.championship.pk)  # as saved
    if championship.club_id:
        return {"club": championship.club.slug}
    return club(world, role)


def club_circuit(world: World, role: str) -> dict[str, Any]:
    """The world's circuit, made by a club the organiser runs (its own when it has one)."""
    circuit = type(world.event.circuit).objects.get(pk=world.event.circuit_id)  # as saved
    if circuit.club_id is None:
        circuit.club = Club.objects.get(slug=running_club(world, role)["club"])
        circuit.save(update_fields=["club"])
    return {"slug": circuit.slug}


def league_slug(world: World) -> str:
    """A league of the club the organiser runs (made the first time), counting the world's
    event: counted where the event is of its club (tests/tournament/clubs), else proposed."""
    running = Club.objects.get(slug=running_club(world, "organiser")["club"])
    league, _created = League.objects.get_or_create(
        slug="matrix-league",
        defaults={"name": "Ligue", "season": "2026", "club": running, "points_scale": [10, 8]},
    )
    event = type(world.event).objects.select_related("championship").get(pk=world.event.pk)
    own = event.championship.club_id == league.club_id
    Round.objects.get_or_create(
        league=league, event=event, defaults={"status": "counted" if own else "proposed"}
    )
    return league.slug


def league(world: World, role: str) -> dict[str, Any]:
    return {"slug": league_slug(world)}


def league_round(world: World, role: str) -> dict[str, Any]:
    """The league's round of the world's event (made with the league)."""
    return {"slug": league_slug(world), "event": world.event.slug}


def codes(text: str) -> dict[str, int]:
    """ "200 403 403 403 403 403" → one status per caller, in ROLES order."""
    values = [int(code) for code in text.split()]
    assert len(values) == len(ROLES), text
    return dict(zip(ROLES, values, strict=True))


#         organiser link account other outsider anonymous
PUBLIC = "200 200 200 200 200 200"
ORGANISER_PAGE = "200 403 403 403 403 403"
ORGANISER_POST = "302 403 403 403 403 403"
POST_ONLY = "405 405 405 405 405 405"
GET_ONLY = "405 405 405 405 405 405"
#: A table page: its link (and the organiser, the referee account) open it; the other
#: referee's link opens their own table; an unknown link is a 404.
TABLE_PAGE = "200 200 200 200 404 404"
#: A page of one driver of table 1: through table 2's link that driver is not found.
TABLE_DRIVER_PAGE = "200 200 200 404 404 404"
#: An unpublished page: the organiser only, others are told nothing (404).
UNPUBLISHED = "200 404 404 404 404 404"
LOGIN_REQUIRED = "200 302 200 200 200 302"

#: name → (arguments, {method: expected statuses}).
PAGES: dict[str, tuple[Kwargs, dict[str, str]]] = {
    # Django's own pages.
    "set_language": (
        none,
        {"GET": "302 302 302 302 302 302", "POST": PUBLIC.replace("200", "302")},
    ),
    "login": (none, {"GET": PUBLIC, "POST": PUBLIC}),
    # The language menu's links, and the uptime monitors' health check.
    "language": (
        lambda world, role: {"code": "en"},
        {"GET": "302 302 302 302 302 302", "POST": GET_ONLY},
    ),
    "health": (none, {"GET": PUBLIC, "POST": GET_ONLY}),
    # The icon every phone asks for: a redirect to the static file.
    "favicon": (none, {"GET": "301 301 301 301 301 301", "POST": GET_ONLY}),
    # The tables' web app: its service worker and manifest, the same for everyone.
    "offline-sw": (none, {"GET": PUBLIC, "POST": GET_ONLY}),
    "offline-manifest": (none, {"GET": PUBLIC, "POST": GET_ONLY}),
    "logout": (none, {"GET": GET_ONLY, "POST": "302 302 302 302 302 302"}),
    "password_change": (
        none,
        {"GET": LOGIN_REQUIRED, "POST": LOGIN_REQUIRED},
    ),
    "password_change_done": (none, {"GET": LOGIN_REQUIRED, "POST": "405 302 405 405 405 302"}),
    "password_reset": (none, {"GET": PUBLIC, "POST": PUBLIC}),
    "password_reset_done": (none, {"GET": PUBLIC, "POST": GET_ONLY}),
    "password_reset_confirm": (
        lambda world, role: {"uidb64": "MQ", "token": "set-password"},
        {"GET": PUBLIC, "POST": PUBLIC},
    ),
    "password_reset_complete": (none, {"GET": PUBLIC, "POST": GET_ONLY}),
    # A stranger's account: only on a server open to clubs (CLUBS_OPEN, off here: 404).
    "account-signup": (none, {"GET": "404 404 404 404 404 404", "POST": "404 404 404 404 404 404"}),
    "account-sent": (none, {"GET": "404 404 404 404 404 404", "POST": GET_ONLY}),
    "account-confirm": (
        lambda world, role: {"token": UNKNOWN_TOKEN},
        {"GET": "404 404 404 404 404 404", "POST": "404 404 404 404 404 404"},
    ),
    "account-welcome": (none, {"GET": "404 302 404 404 404 302", "POST": GET_ONLY}),
    # Registration, event, desk.
    "home": (none, {"GET": PUBLIC, "POST": PUBLIC}),
    "championship": (champ, {"GET": PUBLIC, "POST": PUBLIC}),
    "drivers-import": (champ, {"GET": ORGANISER_PAGE, "POST": "200 403 403 403 403 403"}),
    # One driver at a time: an empty form comes back with its errors.
    "driver-new": (champ, {"GET": ORGANISER_PAGE, "POST": "200 403 403 403 403 403"}),
    "championship-scoring": (
        champ,
        {"GET": ORGANISER_PAGE, "POST": "200 403 403 403 403 403"},
    ),
    "event-new": (champ, {"GET": ORGANISER_PAGE, "POST": "200 403 403 403 403 403"}),
    # The next season: its organisers only (an empty form comes back with its errors).
    "championship-next-season": (
        champ,
        {"GET": ORGANISER_PAGE, "POST": "200 403 403 403 403 403"},
    ),
    "event": (event, {"GET": UNPUBLISHED, "POST": UNPUBLISHED}),
    "event-settings": (event, {"GET": ORGANISER_PAGE, "POST": "200 403 403 403 403 403"}),
    "event-desk": (event, {"GET": ORGANISER_PAGE, "POST": ORGANISER_PAGE}),
    "desk-register": (event, {"GET": POST_ONLY, "POST": ORGANISER_POST}),
    "desk-checkin": (event_and(number=lambda w: 1), {"GET": POST_ONLY, "POST": ORGANISER_POST}),
    "desk-publish": (event, {"GET": POST_ONLY, "POST": ORGANISER_POST}),
    # The event away: the desk's page, the check-out, its cancellation and the return.
    "away": (event, {"GET": ORGANISER_PAGE, "POST": GET_ONLY}),
    "away-checkout": (event, {"GET": POST_ONLY, "POST": ORGANISER_POST}),
    "away-cancel": (event, {"GET": POST_ONLY, "POST": ORGANISER_POST}),
    "away-return": (event, {"GET": POST_ONLY, "POST": ORGANISER_POST}),
    # The way back, on the laptop: its organisers only; this event was not loaded from a
    # bundle here, so the organiser is sent back to the trip's page, which says so (302).
    "away-back": (event, {"GET": ORGANISER_POST, "POST": GET_ONLY}),
    # A new link asks the organiser first (the confirmation page names what it undoes).
    "qualifying-referee-link": (
        event_and(number=lambda w: 1),
        {"GET": POST_ONLY, "POST": ORGANISER_PAGE},
    ),
    "my-tables": (none, {"GET": LOGIN_REQUIRED, "POST": GET_ONLY}),
    # Clubs and their people (issue 41): "my clubs" and one's own page for anyone signed in;
    # the people page, invitations, roles and removals for the club's owners only (an
    # empty form comes back with its errors; a removal asks first); an unknown invitation
    # is a 404 to everyone.
    "my-clubs": (none, {"GET": LOGIN_REQUIRED, "POST": GET_ONLY}),
    # A new club: the server's operator only while CLUBS_OPEN is off (API.md).
    "club-new": (none, {"GET": "403 302 403 403 403 302", "POST": "403 302 403 403 403 302"}),
    "after-login": (none, {"GET": "302 302 302 302 302 302", "POST": GET_ONLY}),
    "me": (none, {"GET": LOGIN_REQUIRED, "POST": GET_ONLY}),
    "me-token": (none, {"GET": POST_ONLY, "POST": LOGIN_REQUIRED}),
    "club-people": (club, {"GET": "200 302 403 403 403 302", "POST": GET_ONLY}),
    "club-invite": (club, {"GET": POST_ONLY, "POST": "400 302 403 403 403 302"}),
    # Leaving asks first (200); one who is no member of the club is told nothing (404).
    "club-leave": (club, {"GET": POST_ONLY, "POST": "200 302 404 404 404 302"}),
    "club-member-role": (club_member, {"GET": POST_ONLY, "POST": "302 302 403 403 403 302"}),
    "club-member-remove": (club_member, {"GET": POST_ONLY, "POST": "200 302 403 403 403 302"}),
    "club-invitation-withdraw": (
        lambda world, role: club(world, role, pk=999999),
        {"GET": POST_ONLY, "POST": "404 302 403 403 403 302"},
    ),
    "invitation": (
        lambda world, role: {"token": UNKNOWN_TOKEN},
        {"GET": "404 404 404 404 404 404", "POST": "404 404 404 404 404 404"},
    ),
    # A club's season pages (issue 41): its owners and organisers create championships and
    # circuits and change the circuits it made (an empty form comes back with its errors);
    # the circuit catalogue is everyone's.
    "club-championship-new": (
        running_club,
        {"GET": "200 302 403 403 403 302", "POST": "200 302 403 403 403 302"},
    ),
    "club-circuit-new": (
        running_club,
        {"GET": "200 302 403 403 403 302", "POST": "200 302 403 403 403 302"},
    ),
    "circuit-edit": (
        club_circuit,
        {"GET": "200 302 403 403 403 302", "POST": "200 302 403 403 403 302"},
    ),
    "circuit-catalogue": (none, {"GET": PUBLIC, "POST": GET_ONLY}),
    # A circuit's page (issue 49): everyone's, with the events that use it.
    "circuit": (club_circuit, {"GET": PUBLIC, "POST": GET_ONLY}),
    # The guide (issue 41, item 6): everyone's, read only.
    "guide": (none, {"GET": PUBLIC, "POST": GET_ONLY}),
    "guide-page": (lambda world, role: {"page": "referee"}, {"GET": PUBLIC, "POST": GET_ONLY}),
    # Players (issue 22): any championship's organisers (the outsider runs another one) see
    # what they may decide; nothing sent is a message back (302); no change 999999 (404).
    "player-matches": (none, {"GET": "200 403 403 403 200 403", "POST": GET_ONLY}),
    "player-merge": (none, {"GET": POST_ONLY, "POST": "302 403 403 403 302 403"}),
    "player-not-same": (none, {"GET": POST_ONLY, "POST": "302 403 403 403 302 403"}),
    "player-changes": (none, {"GET": "200 403 403 403 200 403", "POST": GET_ONLY}),
    "player-change-undo": (
        lambda world, role: {"pk": 999999},
        {"GET": POST_ONLY, "POST": "404 403 403 403 404 403"},
    ),
    "player-split": (
        lambda world, role: {"pk": 999999},
        {"GET": "404 403 403 403 404 403", "POST": "404 403 403 403 404 403"},
    ),
    # Qualifying.
    "desk-session-create": (event, {"GET": POST_ONLY, "POST": ORGANISER_POST}),
    "desk-tables-auto": (event, {"GET": POST_ONLY, "POST": ORGANISER_POST}),
    "desk-table-edit": (
        event_and(number=lambda w: 1),
        {"GET": ORGANISER_PAGE, "POST": ORGANISER_PAGE},
    ),
    "qualifying-general": (event, {"GET": UNPUBLISHED, "POST": UNPUBLISHED}),
    "qualifying-session": (
        event_and(number=lambda w: 1),
        {"GET": UNPUBLISHED, "POST": UNPUBLISHED},
    ),
    "desk-fast-drivers": (event, {"GET": POST_ONLY, "POST": ORGANISER_POST}),
    "qtable": (qtable, {"GET": TABLE_PAGE, "POST": TABLE_PAGE}),
    "qtable-count": (qtable, {"GET": TABLE_PAGE, "POST": TABLE_PAGE}),
    "qtable-name": (qtable, {"GET": POST_ONLY, "POST": "302 302 302 302 404 404"}),
    "qtable-cards": (qtable, {"GET": TABLE_PAGE, "POST": TABLE_PAGE}),
    "qtable-sheet": (qtable, {"GET": TABLE_PAGE, "POST": TABLE_PAGE}),
    "qtable-history": (qtable, {"GET": TABLE_PAGE, "POST": GET_ONLY}),
    "run-preview": (qrun, {"GET": POST_ONLY, "POST": TABLE_DRIVER_PAGE}),
    # The race tables exist: qualifying is closed to the link and the referee account (409).
    "run-save": (qrun, {"GET": POST_ONLY, "POST": "302 409 409 404 404 404"}),
    "run-cancel": (qrun, {"GET": TABLE_DRIVER_PAGE, "POST": "200 409 409 404 404 404"}),
    "run-history": (qrun, {"GET": TABLE_DRIVER_PAGE, "POST": TABLE_DRIVER_PAGE}),
    # Race day.
    "allocation": (event, {"GET": ORGANISER_PAGE, "POST": ORGANISER_PAGE}),
    "allocation-run": (event, {"GET": POST_ONLY, "POST": ORGANISER_POST}),
    # Undoing the tables asks the organiser first (the confirmation page names what it undoes).
    "allocation-undo": (event, {"GET": POST_ONLY, "POST": ORGANISER_PAGE}),
    "allocation-swap": (event, {"GET": POST_ONLY, "POST": ORGANISER_POST}),
    "race-weather": (event, {"GET": POST_ONLY, "POST": ORGANISER_POST}),
    "race-referee-link": (
        event_and(number=lambda w: 1),
        {"GET": POST_ONLY, "POST": ORGANISER_PAGE},
    ),
    "race-referee-account": (
        event_and(number=lambda w: 1),
        {"GET": POST_ONLY, "POST": ORGANISER_POST},
    ),
    "sheet-batch-request": (event, {"GET": POST_ONLY, "POST": ORGANISER_POST}),
    "sheet-batch": (
        event_and(kind=lambda w: "race"),
        {"GET": ORGANISER_PAGE, "POST": ORGANISER_PAGE},
    ),
    "sheet-batch-download": (
        event_and(kind=lambda w: "race"),
        {"GET": ORGANISER_PAGE, "POST": ORGANISER_PAGE},
    ),
    "where": (event, {"GET": UNPUBLISHED, "POST": UNPUBLISHED}),
    "rtable": (rtable, {"GET": TABLE_PAGE, "POST": TABLE_PAGE}),
    "rtable-sheet": (rtable, {"GET": TABLE_PAGE, "POST": TABLE_PAGE}),
    "rtable-stand": (rdriver, {"GET": POST_ONLY, "POST": "302 302 302 302 404 404"}),
    "rtable-configuration": (rdriver, {"GET": POST_ONLY, "POST": "302 302 302 302 404 404"}),
    "rtable-weather": (rtable, {"GET": POST_ONLY, "POST": "302 302 302 302 404 404"}),
    "rtable-history": (rtable, {"GET": TABLE_PAGE, "POST": GET_ONLY}),
    "rtable-start": (rtable, {"GET": POST_ONLY, "POST": "302 302 302 302 404 404"}),
    "rtable-name": (rtable, {"GET": POST_ONLY, "POST": "302 302 302 302 404 404"}),
    "race-weather-undo": (
        event_and(number=lambda w: 1),
        {"GET": POST_ONLY, "POST": ORGANISER_POST},
    ),
    "race-table-unlock": (
        event_and(number=lambda w: 1),
        {"GET": POST_ONLY, "POST": ORGANISER_POST},
    ),
    "sanctions": (event, {"GET": ORGANISER_PAGE, "POST": "400 403 403 403 403 403"}),
    "sanction-withdraw": (
        event_and(pk=lambda w: 999999),
        {"GET": POST_ONLY, "POST": "404 403 403 403 403 403"},
    ),
    "result-entry": (rtable, {"GET": TABLE_PAGE, "POST": "400 400 400 400 404 404"}),
    "result-summary": (rtable, {"GET": POST_ONLY, "POST": TABLE_PAGE}),
    "result-restore": (rtable, {"GET": POST_ONLY, "POST": "302 403 403 403 404 404"}),
    "results-desk": (event, {"GET": ORGANISER_PAGE, "POST": ORGANISER_PAGE}),
    "result-confirm": (
        event_and(number=lambda w: 1),
        {"GET": POST_ONLY, "POST": ORGANISER_POST},
    ),
    "result-reopen": (
        event_and(number=lambda w: 1),
        {"GET": POST_ONLY, "POST": ORGANISER_POST},
    ),
    # Photos of the signed sheets: nothing sent (400) where one may send; no photo 999999.
    "rtable-photo-add": (rtable, {"GET": POST_ONLY, "POST": "400 400 400 400 404 404"}),
    "rtable-photo": (
        lambda world, role: {**rtable(world, role), "photo_id": 999999, "size": "thumb"},
        {"GET": "404 404 404 404 404 404", "POST": GET_ONLY},
    ),
    # A qualifying table's photos (issue 32): as a race table's, through its own link.
    "qtable-photo-add": (qtable, {"GET": POST_ONLY, "POST": "400 400 400 400 404 404"}),
    "qtable-photo": (
        lambda world, role: {**qtable(world, role), "photo_id": 999999, "size": "thumb"},
        {"GET": "404 404 404 404 404 404", "POST": GET_ONLY},
    ),
    "photo-desk": (event, {"GET": ORGANISER_PAGE, "POST": "400 403 403 403 403 403"}),
    "desk-photo": (
        event_and(photo_id=lambda w: 999999),
        {"GET": "404 403 403 403 403 403", "POST": GET_ONLY},
    ),
    "desk-photo-image": (
        event_and(photo_id=lambda w: 999999, size=lambda w: "full"),
        {"GET": "404 403 403 403 403 403", "POST": GET_ONLY},
    ),
    "photo-assign": (
        event_and(photo_id=lambda w: 999999),
        {"GET": POST_ONLY, "POST": "404 403 403 403 403 403"},
    ),
    # Other games' pages: this event is a Formula Dé one, so a table has no game sheet (404)
    # and the rally pages say it is not a rally, to the organiser only.
    "game-table-entry": (
        rtable,
        {"GET": "404 404 404 404 404 404", "POST": "404 404 404 404 404 404"},
    ),
    "game-table-sheet": (
        rtable,
        {"GET": "404 404 404 404 404 404", "POST": "404 404 404 404 404 404"},
    ),
    "finishing-order-entry": (
        rtable,
        {"GET": "404 404 404 404 404 404", "POST": "404 404 404 404 404 404"},
    ),
    "finishing-order-sheet": (
        rtable,
        {"GET": "404 404 404 404 404 404", "POST": "404 404 404 404 404 404"},
    ),
    "rally-desk": (event, {"GET": "404 403 403 403 403 403", "POST": "404 403 403 403 403 403"}),
    "rally-stage-times": (
        event_and(number=lambda w: 1),
        {"GET": "404 403 403 403 403 403", "POST": "404 403 403 403 403 403"},
    ),
    "rally-classification": (
        event,
        {"GET": "404 404 404 404 404 404", "POST": "404 404 404 404 404 404"},
    ),
    "rally-sheet": (event, {"GET": "404 404 404 404 404 404", "POST": "404 404 404 404 404 404"}),
    # Results and standings.
    "event-results": (event, {"GET": UNPUBLISHED, "POST": UNPUBLISHED}),
    "standings": (champ, {"GET": PUBLIC, "POST": PUBLIC}),
    "standings-projector": (champ, {"GET": PUBLIC, "POST": PUBLIC}),
    "team-standings": (champ, {"GET": PUBLIC, "POST": PUBLIC}),
    "driver": (
        lambda world, role: {"slug": world.championship.slug, "number": 1},
        {"GET": PUBLIC, "POST": PUBLIC},
    ),
    # A player's career: public, unpublished events for the organisers only (its tests).
    "career": (player, {"GET": PUBLIC, "POST": PUBLIC}),
    # Ratings: a game's ranking is public (published results only); an unknown game is none.
    "ratings-home": (none, {"GET": PUBLIC, "POST": PUBLIC}),
    "ratings": (lambda world, role: {"game": "formula_de"}, {"GET": PUBLIC, "POST": PUBLIC}),
    # Sign-up (issue 29): the event has no announcement yet, so its sign-up page is race
    # control's only (registration closed: 409); unknown links are a 404 to everyone.
    "signup": (event, {"GET": UNPUBLISHED, "POST": "409 404 404 404 404 404"}),
    "events-ics": (none, {"GET": PUBLIC, "POST": GET_ONLY}),
    "event-ics": (event, {"GET": "404 404 404 404 404 404", "POST": GET_ONLY}),
    # A wrong confirmation link says so at once, before any button (issue 40), to everyone.
    "signup-confirm": (
        lambda world, role: {"token": UNKNOWN_TOKEN},
        {"GET": "404 404 404 404 404 404", "POST": "404 404 404 404 404 404"},
    ),
    "signup-own": (
        lambda world, role: {"token": UNKNOWN_TOKEN},
        {"GET": "404 404 404 404 404 404", "POST": "404 404 404 404 404 404"},
    ),
    # The psych sheet: as the sign-up page, race control's only until announced.
    "signup-entrants": (entrants, {"GET": UNPUBLISHED, "POST": GET_ONLY}),
    "signup-announcement": (event, {"GET": ORGANISER_PAGE, "POST": "200 403 403 403 403 403"}),
    "signup-desk": (event, {"GET": ORGANISER_PAGE, "POST": "404 403 403 403 403 403"}),
    # Leagues (issue 52): a league's page and projector are everyone's; its rounds and
    # matching pages its organisers' (the owners and organisers of its club), others told
    # nothing (404); a club's leagues and the rounds proposed to its events, its owners'
    # and organisers' (an empty form comes back with its errors; a decline, a withdrawal
    # ask first; no round 999999).
    "league": (league, {"GET": PUBLIC, "POST": PUBLIC}),
    "league-projector": (league, {"GET": PUBLIC, "POST": PUBLIC}),
    "league-matches": (
        league,
        {"GET": "200 302 404 404 404 302", "POST": "302 302 404 404 404 302"},
    ),
    "league-rounds": (
        league,
        {"GET": "200 302 404 404 404 302", "POST": "302 302 404 404 404 302"},
    ),
    "league-round-withdraw": (
        league_round,
        {"GET": POST_ONLY, "POST": "200 302 404 404 404 302"},
    ),
    "club-leagues": (club, {"GET": "200 302 403 403 403 302", "POST": "400 302 403 403 403 302"}),
    "club-league-rounds": (club, {"GET": "200 302 403 403 403 302", "POST": GET_ONLY}),
    "club-league-round-accept": (
        lambda world, role: club(world, role, pk=999999),
        {"GET": POST_ONLY, "POST": "404 302 403 403 403 302"},
    ),
    "club-league-round-decline": (
        lambda world, role: club(world, role, pk=999999),
        {"GET": POST_ONLY, "POST": "404 302 403 403 403 302"},
    ),
}


def project_patterns() -> list[tuple[str, str, str]]:
    """(namespace, route, name) of every URL pattern of the project."""
    found = []

    def walk(patterns: list[Any], prefix: str, namespace: str) -> None:
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                walk(
                    pattern.url_patterns,
                    prefix + str(pattern.pattern),
                    pattern.namespace or namespace,
                )
            elif isinstance(pattern, URLPattern):
                found.append((namespace, prefix + str(pattern.pattern), pattern.name or ""))

    walk(get_resolver().url_patterns, "", "")
    return found


def test_every_page_pattern_is_in_the_matrix() -> None:
    names = {name for namespace, _route, name in project_patterns() if not namespace}
    assert names - set(PAGES) == set(), "add these URL names to PAGES"
    assert set(PAGES) - names == set(), "these PAGES entries name no URL pattern"


def test_every_api_pattern_is_an_openapi_operation() -> None:
    """The API's URL patterns are all in its OpenAPI document (walked below)."""
    from paddock.api import api

    documented = {path.removeprefix("/api/v1") for path in api.get_openapi_schema()["paths"]}
    routes = {
        "/" + route.removeprefix("api/v1/").replace("<", "{").replace(">", "}")
        for namespace, route, _name in project_patterns()
        if namespace == "api"
    }
    assert routes - documented <= {"/openapi.json", "/docs", "/"}


def run_matrix(requests: dict[str, Callable[[], Any]]) -> dict[str, int]:
    statuses = {}
    for role, send in requests.items():
        sid = transaction.savepoint()
        try:
            statuses[role] = send().status_code
        finally:
            transaction.savepoint_rollback(sid)
    return statuses


def mismatches(expected: dict[str, int], actual: dict[str, int]) -> list[str]:
    return [
        f"{role}: expected {expected[role]}, got {actual[role]}"
        for role in ROLES
        if role in actual and expected[role] != actual[role]
    ]


@pytest.mark.django_db
@pytest.mark.parametrize("method", ["POST"])
@pytest.mark.parametrize("name", sorted(PAGES))
def test_page(world: World, name: str, method: str) -> None:
    """A POST to each page, as each caller. The matrix's GETs are sent, with hostile names,
    by ``test_page_holds_with_hostile_names_and_odd_queries``: the same requests, the same
    statuses expected, the pages' escaping checked besides."""
    arguments, expected_by_method = PAGES[name]
    clients = page_clients(world)
    requests = {}
    for role in ROLES:
        url = reverse(name, kwargs=arguments(world, role))
        send = clients[role].get if method == "GET" else clients[role].post
        requests[role] = lambda send=send, url=url: send(url)
    actual = run_matrix(requests)
    if os.environ.get("PRINT_MATRIX"):
        print(f"\nMATRIX {name} {method} {' '.join(str(actual[r]) for r in ROLES)}")
    expected = codes(expected_by_method[method])
    assert not mismatches(expected, actual), (name, method, mismatches(expected, actual))


# --- API --------------------------------------------------------------------------------------


#: Race-day paths: the ``link`` and ``other`` callers hold a race table's link there.
RACE_PATHS = ("/events/{event}/tables", "/events/{event}/allocation", "/events/{event}/results")


def api_token(world: World, role: str, path: str) -> str | None:
    race = path.startswith(RACE_PATHS) or path == "/events/{event}/race-weather"
    if role == "organiser":
        return world.api_tokens["organiser"]
    if role == "link":
        return (world.rtables[0] if race else world.qtables[0]).token
    if role == "account":
        return world.api_tokens["ref1"]
    if role == "other":
        return (world.rtables[1] if race else world.qtables[1]).token
    if role == "outsider":
        return world.api_tokens["outsider"]
    return None


def api_path(world: World, path: str) -> str:
    if "{league}" in path:
        path = path.replace("{league}", league_slug(world))
    if path.startswith("/players/{id}"):
        path = path.replace("{id}", str(player_of(world)), 1)
    return (
        path.replace("{slug}", world.championship.slug)
        .replace("{event}", world.event.slug)
        .replace("{n}", "1")
        .replace("{driver}", str(world.qdriver(0)))
        .replace("{t}", "1")
        .replace("{id}", "999999")
        .replace("{club}", "cf-club")  # no club here: tests/tournament/clubs has them
        .replace("{league}", "cf-league")  # nor league: tests/standings/leagues has them
        .replace("{username}", "orga")
    )


def result_body(world: World) -> dict[str, Any]:
    grid = [world.rdriver(i) for i in range(4)]
    return {
        "version": 1,
        "finish": grid[1:],
        "retired": [{"driver": grid[0], "cause": "engine", "lap": 1}],
        "dns": [],
        "submit": True,
    }


def table2_driver(world: World) -> int:
    return world.rtables[1].slots.order_by("position").first().driver.number


def photo_upload(world: World) -> dict[str, Any]:
    """A photo as a phone sends it (multipart), read again by each caller's request."""
    return {"photo": SimpleUploadedFile("sheet.jpg", PHOTO, content_type="image/jpeg")}


NO_RALLY = "404 404 404 404 404 404"
#: A league's write (or its organisers' read) where the league does not exist: 404; without
#: a token, the API asks for one first (401).
NO_RALLY_WRITE = "404 404 404 404 404 401"
#: Event-wide data of the unpublished event: organisers only; a table's link (its own or
#: another's) is told nothing, like an anonymous caller (404); users' tokens get 403.
EVENT_WIDE = "200 404 403 404 403 404"
#: Something of table 1 (or its driver): its link and account; table 2's link is told
#: nothing, like an anonymous caller (404).
TABLE_ONE = "200 200 200 404 403 404"
#: A list a referee reads for their own table only (the contents are tested elsewhere).
OWN_TABLE_LIST = "200 200 200 200 403 404"

#: (method, OpenAPI path) → (body, expected statuses). Bodies are valid, so a refusal says
#: who may not; for those who may, a 409 says the event's state refused (nothing changed).
API: dict[tuple[str, str], tuple[Any, str]] = {
    # Setup: a club's owner or organiser creates championships and circuits; nobody here
    # runs a club (a guest organiser does not).
    ("post", "/championships"): (
        {"slug": "nouvelle", "name": "Nouvelle", "season": "2027"},
        "403 403 403 403 403 401",
    ),
    ("get", "/championships"): (None, "200 200 200 200 200 200"),
    ("get", "/championships/{slug}"): (None, "200 200 200 200 200 200"),
    # Players: any championship's organisers get in; no player or change 999999 (404).
    ("post", "/players/merge"): (
        {"keep": 999999, "merge": 999998},
        "404 403 403 403 404 401",
    ),
    # A split of driver 1's player (api_path): its organisers are told the seat is not the
    # player's (400); another championship's organisers may not decide for it (403).
    ("post", "/players/{id}/split"): (
        {"driver": {"championship": "cf", "number": 1}},
        "400 403 403 403 403 401",
    ),
    ("post", "/players/changes/{id}/undo"): (None, "404 403 403 403 404 401"),
    # The next season: the championship's organisers (the organisers come along).
    ("post", "/championships/{slug}/next-season"): (
        {"slug": "cf-next", "name": "Suivante", "season": "2027"},
        "201 403 403 403 403 401",
    ),
    ("post", "/circuits"): (
        {
            "slug": "spa",
            "name": "Spa",
            "weather_scale": {"rain": [1, 4], "variable": [5, 8], "sun": [9, 20]},
        },
        "403 403 403 403 403 401",
    ),
    ("get", "/circuits"): (None, "200 200 200 200 200 200"),
    ("get", "/circuits/{slug}"): (None, "404 404 404 404 404 404"),
    # Clubs and their people (issue 41): nobody here belongs to a club, and the club asked
    # for does not exist (404); a table's link is no person (403). The role matrix with
    # clubs is tests/tournament/clubs/test_role_matrix.py.
    ("patch", "/circuits/{slug}"): ({"laps": 4}, "404 404 404 404 404 401"),
    ("post", "/clubs"): ({"slug": "nouveau", "name": "Nouveau"}, "403 403 403 403 403 401"),
    ("get", "/clubs"): (None, "200 403 200 403 200 401"),
    ("post", "/clubs/{club}/invitations"): (
        {"email": "a@example.org", "role": "desk"},
        "404 403 404 403 404 401",
    ),
    ("get", "/clubs/{club}/invitations"): (None, "404 403 404 403 404 401"),
    ("delete", "/clubs/{club}/invitations/{id}"): (None, "404 403 404 403 404 401"),
    ("post", "/invitations/accept"): ({"token": "unknown"}, "404 403 404 403 404 404"),
    # A stranger's account: only on a server open to clubs (CLUBS_OPEN, off here: 404).
    ("post", "/accounts"): (
        {"username": "nouveau", "email": "n@example.org", "password": "virage-rapide-2026"},
        "404 404 404 404 404 404",
    ),
    ("post", "/accounts/confirm"): ({"token": "unknown"}, "404 404 404 404 404 404"),
    ("get", "/clubs/{club}/members"): (None, "404 403 404 403 404 401"),
    ("patch", "/clubs/{club}/members/{username}"): ({"role": "desk"}, "404 403 404 403 404 401"),
    ("delete", "/clubs/{club}/members/{username}"): (None, "404 403 404 403 404 401"),
    # A championship of no club: its guest organisers are named by the operator alone.
    ("put", "/championships/{slug}/organisers"): (
        {"usernames": ["orga"]},
        "403 403 403 403 403 401",
    ),
    ("get", "/me"): (None, "200 403 200 403 200 401"),
    ("post", "/championships/{slug}/teams"): ({"name": "Rouge"}, "201 403 403 403 403 401"),
    ("post", "/championships/{slug}/drivers"): (
        {"number": 42, "first_name": "Léa", "last_name": "Morel"},
        "201 403 403 403 403 401",
    ),
    ("get", "/championships/{slug}/drivers"): (None, "200 200 200 200 200 200"),
    ("post", "/championships/{slug}/drivers/import"): (
        ("text/csv", "number,first_name,last_name\n43,Théo,Blanc\n"),
        "200 403 403 403 403 401",
    ),
    ("post", "/championships/{slug}/events"): (
        {"slug": "gp2", "name": "GP 2", "date": "2026-08-01", "circuit": "monza"},
        "201 403 403 403 403 401",
    ),
    ("get", "/championships/{slug}/events"): (None, "200 200 200 200 200 200"),
    ("get", "/events/{event}"): (None, EVENT_WIDE),
    ("patch", "/events/{event}"): ({"name": "Grand Prix"}, "200 403 403 403 403 401"),
    ("post", "/events/{event}/entries"): ({"numbers": [1]}, "200 403 403 403 403 401"),
    ("get", "/events/{event}/entries"): (None, EVENT_WIDE),
    ("post", "/events/{event}/checkin"): ({"numbers": [1]}, "200 403 403 403 403 401"),
    ("post", "/events/{event}/publish"): ({"allocation": True}, "200 403 403 403 403 401"),
    # The event away: its organisers only. The event has tables (409: made on the laptop),
    # is not away (nothing to cancel: 409), and {} is not a laptop's way back (400).
    ("post", "/events/{event}/checkout"): (None, "409 403 403 403 403 401"),
    ("delete", "/events/{event}/checkout"): ({"reason": "salle fermée"}, "409 403 403 403 403 401"),
    ("post", "/events/{event}/return"): ({}, "400 403 403 403 403 401"),
    ("get", "/championships/{slug}/standings"): (None, "200 200 200 200 200 200"),
    ("get", "/championships/{slug}/team-standings"): (None, "200 200 200 200 200 200"),
    # A player's career: public; what is unpublished is left out (tests/standings/careers).
    ("get", "/players/{id}"): (None, "200 200 200 200 200 200"),
    ("get", "/ratings"): (None, "200 200 200 200 200 200"),
    ("get", "/games"): (None, "200 200 200 200 200 200"),
    # Qualifying.
    ("post", "/events/{event}/sessions"): (
        {"number": 2, "weather_roll": 12},
        "201 403 403 403 403 401",
    ),
    # The sessions' weather holds at every table: a qualifying table's referee reads it.
    ("get", "/events/{event}/sessions"): (None, OWN_TABLE_LIST),
    ("get", "/events/{event}/qualifying-tables"): (None, OWN_TABLE_LIST),
    ("post", "/events/{event}/qualifying-tables"): (
        lambda world: {"number": 3, "drivers": [], "referee": "Zoé"},
        "200 403 403 403 403 401",
    ),
    ("get", "/events/{event}/sessions/{n}/runs"): (None, OWN_TABLE_LIST),
    # The race tables exist: qualifying is closed to the links and referee accounts (409);
    # race control writes with a reason (a second run is still a 409).
    ("post", "/events/{event}/sessions/{n}/runs"): (
        lambda world: {
            "driver": world.qdriver(0),
            "tyres": "hard",
            "throws": 9,
            "stopwatch": "0:40.00",
            "reason": "fiche retrouvée",
        },
        "409 409 409 403 403 401",
    ),
    ("get", "/events/{event}/sessions/{n}/runs/{driver}"): (None, TABLE_ONE),
    ("patch", "/events/{event}/sessions/{n}/runs/{driver}"): (
        {"version": 1, "throws": 11, "reason": "fiche mal recopiée"},
        "200 409 409 403 403 401",
    ),
    ("post", "/events/{event}/sessions/{n}/runs/{driver}/cancel"): (
        {"reason": "mauvais pilote"},
        # The event does not allow a run again: refused for those who may (409).
        "409 409 409 403 403 401",
    ),
    ("get", "/events/{event}/sessions/{n}/classification"): (None, EVENT_WIDE),
    ("get", "/events/{event}/qualifying"): (None, EVENT_WIDE),
    ("post", "/events/{event}/draw"): ({}, "409 403 403 403 403 401"),
    ("get", "/events/{event}/fast-drivers"): (None, "200 403 403 403 403 401"),
    ("post", "/events/{event}/fast-drivers"): ({"numbers": [1]}, "200 403 403 403 403 401"),
    # Race day.
    ("post", "/events/{event}/allocation"): ({}, "409 403 403 403 403 401"),
    # Tables may be undone while none has started: here results are in (409).
    ("delete", "/events/{event}/allocation"): (None, "409 403 403 403 403 401"),
    ("get", "/events/{event}/tables"): (None, OWN_TABLE_LIST),
    ("post", "/events/{event}/tables/swap"): (
        lambda world: {"a": world.rdriver(1), "b": table2_driver(world), "reason": "équipe"},
        "409 403 403 403 403 401",
    ),
    ("post", "/events/{event}/tables/{t}/referee-link"): (None, "200 403 403 403 403 401"),
    # The race weather is drawn (sun, before the first result, §2-0-1): a second draw
    # without a reason is refused (409), and so are the tables' draws (not variable).
    ("post", "/events/{event}/race-weather"): ({}, "409 403 403 403 403 401"),
    ("post", "/events/{event}/tables/{t}/weather-draws"): ({}, "409 409 409 403 403 401"),
    ("get", "/events/{event}/race-weather"): (None, "200 200 200 200 403 404"),
    ("delete", "/events/{event}/tables/{t}/weather-draws/last"): (
        {"reason": "erreur"},
        "409 403 403 403 403 401",
    ),
    ("post", "/events/{event}/tables/{t}/start"): (None, "200 200 200 403 403 401"),
    ("post", "/events/{event}/tables/{t}/unlock"): (
        {"reason": "stand mal noté"},
        "200 403 403 403 403 401",
    ),
    ("post", "/events/{event}/sanctions"): (
        lambda world: {"driver": world.rdriver(1), "kind": "warning", "reason": "Levier"},
        "201 403 403 403 403 401",
    ),
    ("get", "/events/{event}/sanctions"): (None, EVENT_WIDE),
    ("delete", "/events/{event}/sanctions/{id}"): ({"reason": "appel"}, "404 403 403 403 403 401"),
    # Table 1 has a result: its race has started, stands and configurations are in ink
    # (§5-0-2), so those who may write are refused by the table's state (409).
    ("put", "/events/{event}/tables/{t}/stands"): (
        lambda world: {"stands": {str(world.rdriver(1)): 2}},
        "409 409 409 403 403 401",
    ),
    ("put", "/events/{event}/tables/{t}/configurations"): (
        {"configurations": {}},
        "409 409 409 403 403 401",
    ),
    ("get", "/events/{event}/tables/{t}/sheet.pdf"): (None, TABLE_ONE),
    ("get", "/events/{event}/tables/{t}/result"): (None, TABLE_ONE),
    ("put", "/events/{event}/tables/{t}/result"): (result_body, "200 200 200 403 403 401"),
    ("post", "/events/{event}/tables/{t}/confirm"): ({}, "200 403 403 403 403 401"),
    ("post", "/events/{event}/tables/{t}/reopen"): (
        {"reason": "erreur"},
        "409 403 403 403 403 401",
    ),
    ("get", "/events/{event}/results"): (None, EVENT_WIDE),
    # Photos of the signed sheets (a real photo, multipart): table 1's own, race control's.
    ("post", "/events/{event}/tables/{t}/photos"): (photo_upload, "201 201 201 404 403 401"),
    ("get", "/events/{event}/tables/{t}/photos"): (None, TABLE_ONE),
    ("get", "/events/{event}/tables/{t}/photos/{id}"): (None, "404 404 404 404 403 404"),
    ("post", "/events/{event}/photos"): (photo_upload, "201 403 403 403 403 401"),
    # A qualifying table's photos (issue 32): as a race table's, through its own link.
    ("post", "/events/{event}/qualifying-tables/{t}/photos"): (
        photo_upload,
        "201 201 201 404 403 401",
    ),
    ("get", "/events/{event}/qualifying-tables/{t}/photos"): (None, TABLE_ONE),
    ("get", "/events/{event}/qualifying-tables/{t}/photos/{id}"): (
        None,
        "404 404 404 404 403 404",
    ),
    ("get", "/events/{event}/photos"): (None, EVENT_WIDE),
    ("get", "/events/{event}/photos/{id}"): (None, "404 404 403 404 403 404"),
    # Other games (Rallyman stages): this event is a Formula Dé one, so every caller is
    # told there is no such thing here (404); without a token, writes ask for one (401).
    ("post", "/events/{event}/stages"): ({"number": 1, "route": "C8 C3"}, NO_RALLY_WRITE),
    ("get", "/events/{event}/stages"): (None, NO_RALLY),
    ("put", "/events/{event}/stages/{n}/times"): ({"times": {}}, NO_RALLY_WRITE),
    ("get", "/events/{event}/stages/{n}/classification"): (None, NO_RALLY),
    ("get", "/events/{event}/stages/{n}/start-order"): (None, NO_RALLY),
    ("put", "/events/{event}/stages/{n}/start-order"): ({"draw": True}, NO_RALLY_WRITE),
    ("put", "/events/{event}/stages/{n}/snow"): ({}, NO_RALLY_WRITE),
    ("get", "/events/{event}/rally"): (None, NO_RALLY),
    # Sign-up (issue 29): the event announces nothing yet, so it is race control's only;
    # a registrant's own token ({token} left as it is) is unknown to everyone.
    ("post", "/events/{event}/registrations"): (
        {"first_name": "Léa", "last_name": "Morel", "email": "lea@example.org"},
        "409 404 403 404 403 404",
    ),
    ("get", "/events/{event}/registrations"): (None, "200 403 403 403 403 401"),
    # Every game's evening (issue 51): the day's checklist, race control's and the desk's.
    ("get", "/events/{event}/checklist"): (None, "200 403 403 403 403 401"),
    ("post", "/events/{event}/registrations/{id}/decision"): (
        {"status": "accepted", "reason": "ok"},
        "404 403 403 403 403 401",
    ),
    # The door and a person's data (issue 40): race control's only; no such registration.
    ("post", "/events/{event}/registrations/{id}/checkin"): ({}, "404 403 403 403 403 401"),
    ("post", "/events/{event}/registrations/{id}/present"): (
        {"present": True},
        "404 403 403 403 403 401",
    ),
    ("post", "/events/{event}/checkin/close"): ({}, "200 403 403 403 403 401"),
    ("get", "/events/{event}/registrations/{id}/export"): (None, "404 403 403 403 403 401"),
    ("post", "/events/{event}/registrations/{id}/erase"): (
        {"reason": "asked by mail"},
        "404 403 403 403 403 401",
    ),
    ("post", "/registrations/confirm"): ({"token": "unknown"}, "404 404 404 404 404 404"),
    ("get", "/registrations/{token}"): (None, "404 404 404 404 404 404"),
    ("patch", "/registrations/{token}"): ({"team": "Rouge"}, "404 404 404 404 404 404"),
    ("delete", "/registrations/{token}"): (None, "404 404 404 404 404 404"),
    ("post", "/events/{event}/messages"): (
        {"to": "all", "subject": "Parking", "body": "Rue de la Gare."},
        "200 403 403 403 403 401",
    ),
    ("get", "/events/{event}/messages"): (None, "200 403 403 403 403 401"),
    ("get", "/events/{event}/entrants"): (None, EVENT_WIDE),
    # A season across clubs (issue 52): a club's owners and organisers make its leagues (the
    # organiser runs one club here); the league's organisers propose rounds (the event is
    # already one: 409) and withdraw them; the event's club decides a round (the event is
    # of no club here: its operator only); standings and the clubs' cup are everyone's; the
    # matching is the league's organisers' (two drivers of one championship: 400).
    ("post", "/leagues"): (
        lambda world: {
            "slug": "nouvelle-ligue",
            "name": "Ligue",
            "season": "2027",
            "club": running_club(world, "organiser")["club"],
            "points_scale": [10, 8],
        },
        "201 403 403 403 403 401",
    ),
    ("get", "/leagues"): (None, "200 200 200 200 200 200"),
    ("get", "/leagues/{league}"): (None, "200 200 200 200 200 200"),
    ("post", "/leagues/{league}/rounds"): ({"event": "gp"}, "409 403 403 403 403 401"),
    ("post", "/leagues/{league}/rounds/{event}/accept"): (None, "403 403 403 403 403 401"),
    ("post", "/leagues/{league}/rounds/{event}/decline"): (None, "403 403 403 403 403 401"),
    ("delete", "/leagues/{league}/rounds/{event}"): (None, "204 403 403 403 403 401"),
    ("get", "/leagues/{league}/standings"): (None, "200 200 200 200 200 200"),
    ("get", "/leagues/{league}/clubs"): (None, "200 200 200 200 200 200"),
    ("get", "/leagues/{league}/matches"): (None, "200 403 403 403 403 401"),
    ("post", "/leagues/{league}/matches"): (
        {
            "drivers": [{"championship": "cf", "number": 1}, {"championship": "cf", "number": 2}],
            "reason": "même licence",
        },
        "400 403 403 403 403 401",
    ),
}


def api_operations() -> list[tuple[str, str]]:
    from paddock.api import api

    schema = api.get_openapi_schema()
    return [
        (method, path.removeprefix("/api/v1"))
        for path, operations in schema["paths"].items()
        for method in operations
    ]


def test_every_api_operation_is_in_the_matrix() -> None:
    operations = set(api_operations())
    assert operations - set(API) == set(), "add these operations to API"
    assert set(API) - operations == set(), "these API entries are not in the OpenAPI document"


def api_request(client: Client, method: str, url: str, body: Any) -> Any:
    if isinstance(body, tuple):
        content_type, raw = body
        return getattr(client, method)(url, raw, content_type=content_type)
    if body is None:
        return getattr(client, method)(url)
    if isinstance(body, dict) and any(isinstance(v, SimpleUploadedFile) for v in body.values()):
        for upload in body.values():
            upload.seek(0)  # each caller sends the same file again
        return getattr(client, method)(url, body)  # multipart
    return getattr(client, method)(url, json.dumps(body), content_type="application/json")


@pytest.mark.django_db
@pytest.mark.parametrize(
    "operation", sorted(op for op in API if op[0] != "get"), ids=lambda op: f"{op[0]} {op[1]}"
)
def test_api(world: World, operation: tuple[str, str]) -> None:
    """Each write operation, as each caller. The reads are sent, with hostile names, by
    ``test_api_read_holds_with_hostile_names_and_odd_queries``: the same requests, the
    same statuses expected, their JSON checked besides."""
    method, path = operation
    body, expected_text = API[operation]
    if callable(body):
        body = body(world)
    url = "/api/v1" + api_path(world, path)
    requests = {}
    for role in ROLES:
        token = api_token(world, role, path)
        headers = {"HTTP_ACCEPT_LANGUAGE": "en"}
        if token:
            headers["HTTP_AUTHORIZATION"] = f"Bearer {token}"
        client = Client(**headers)
        requests[role] = lambda client=client: api_request(client, method, url, body)
    actual = run_matrix(requests)
    if os.environ.get("PRINT_MATRIX"):
        print(f"\nMATRIX {method} {path} {' '.join(str(actual[r]) for r in ROLES)}")
    expected = codes(expected_text)
    assert not mismatches(expected, actual), (method, path, mismatches(expected, actual))


WRITE_METHODS = ("post", "put", "patch", "delete")


@pytest.mark.django_db
def test_api_methods_not_declared_are_405(world: World) -> None:
    """Every API path answers 405 to a method it does not declare, whoever asks."""
    declared: dict[str, set[str]] = {}
    for method, path in API:
        declared.setdefault(path, set()).add(method)
    wrong = []
    for path, methods in declared.items():
        url = "/api/v1" + api_path(world, path)
        for method in ("get", *WRITE_METHODS):
            if method in methods:
                continue
            for role in ("organiser", "anonymous"):
                token = api_token(world, role, path)
                headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}
                status = getattr(Client(**headers), method)(url).status_code
                if status != 405:
                    wrong.append(f"{method.upper()} {path} as {role}: {status}")
    assert wrong == []


# --- Hostile names and odd query strings (issue 14) -------------------------------------------


def still_holds(expected: int, actual: int, odd_query: bool) -> bool:
    """With hostile names a page answers as the matrix says. An odd query string opens no
    door either: a refusal stays that refusal, and an open page stays open or says that
    what was asked does not exist (``?page=0``: 404) or cannot be read (400)."""
    if not odd_query or expected != 200:
        return actual == expected
    return actual in (200, 400, 404)


#: The parameters the odd query strings name.
ODD_NAMES = {name for query in ODD_QUERIES for name, _value in parse_qsl(query)}


def answers(client: Client, path: str) -> Iterator[tuple[str, Any]]:
    """Each address sent and its answer: ``path`` itself, then ``path`` with each odd
    query string when the plain request read one of their parameters
    (tests/security/query_reads.py). A page that reads none of them answers them as it
    answers the plain address (tests/security/test_query_strings.py sends every page the
    queries that break a query string whatever it reads)."""
    with parameters_read() as read:
        plain = get_as(client, path)
    yield path, plain
    if ALL in read or read & ODD_NAMES:
        for query in ODD_QUERIES:
            yield f"{path}?{query}", get_as(client, f"{path}?{query}")


def get_as(client: Client, url: str) -> Any:
    sid = transaction.savepoint()
    try:
        return client.get(url)
    finally:
        transaction.savepoint_rollback(sid)


@pytest.mark.django_db
@pytest.mark.parametrize("name", sorted(PAGES))
def test_page_holds_with_hostile_names_and_odd_queries(world: World, name: str) -> None:
    give_hostile_names(world)
    arguments, expected_by_method = PAGES[name]
    expected = codes(expected_by_method["GET"])
    clients = page_clients(world)
    wrong, plain = [], {}
    for role in ROLES:
        path = reverse(name, kwargs=arguments(world, role))
        for url, response in answers(clients[role], path):
            if url == path:
                plain[role] = response.status_code
            if not still_holds(expected[role], response.status_code, url != path):
                wrong.append(f"{role} {url}: {response.status_code}, not {expected[role]}")
            html = "text/html" in response.get("Content-Type", "")
            if html and (raw := unescaped(response.content.decode())):
                wrong.append(f"{role} {url}: shows {raw} unescaped")
    if os.environ.get("PRINT_MATRIX"):
        print(f"\nMATRIX {name} GET {' '.join(str(plain[r]) for r in ROLES)}")
    assert wrong == []


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("championship", ["R&amp;D &lt;script&gt;", "=HYPERLINK(&quot;http://evil"]),
        ("event", ["&lt;/para&gt; &lt;img src=/etc/hostname&gt;"]),
        ("circuit", ["&lt;/para&gt; &lt;img src=/etc/hostname&gt;"]),
        ("event-desk", ["&lt;script&gt;alert(&#x27;paddock&#x27;)&lt;/script&gt;"]),
    ],
)
def test_hostile_names_are_shown_escaped(world: World, name: str, shown: list[str]) -> None:
    give_hostile_names(world)
    arguments, _expected = PAGES[name]
    html = page_clients(world)["organiser"].get(reverse(name, kwargs=arguments(world, "organiser")))
    text = html.content.decode()
    assert html.status_code == 200 and unescaped(text) == []
    assert [escaped for escaped in shown if escaped not in text] == []


@pytest.mark.django_db
@pytest.mark.parametrize(
    "operation", sorted(op for op in API if op[0] == "get"), ids=lambda op: f"{op[0]} {op[1]}"
)
def test_api_read_holds_with_hostile_names_and_odd_queries(
    world: World, operation: tuple[str, str]
) -> None:
    """Statuses as in the matrix (unknown parameters are ignored); JSON carries the names
    as they are, never HTML-escaped (escaping is the reader's business)."""
    give_hostile_names(world)
    method, path = operation
    expected = codes(API[operation][1])
    wrong, statuses = [], {}
    for role in ROLES:
        token = api_token(world, role, path)
        headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}
        client = Client(HTTP_ACCEPT_LANGUAGE="en", **headers)
        plain = "/api/v1" + api_path(world, path)
        for url, response in answers(client, plain):
            if url == plain:
                statuses[role] = response.status_code
            if response.status_code != expected[role]:
                wrong.append(f"{role} {url}: {response.status_code}, not {expected[role]}")
            if response.get("Content-Type", "").startswith("application/json"):
                body = response.content.decode()
                if "&lt;" in body or "&amp;" in body:
                    wrong.append(f"{role} {url}: HTML-escaped names in JSON")
    if os.environ.get("PRINT_MATRIX"):
        print(f"\nMATRIX {method} {path} {' '.join(str(statuses[r]) for r in ROLES)}")
    assert wrong == []


@pytest.mark.django_db
def test_the_api_returns_hostile_names_as_they_are(world: World) -> None:
    give_hostile_names(world)
    client = Client(HTTP_AUTHORIZATION=f"Bearer {world.api_tokens['organiser']}")
    drivers = client.get(f"/api/v1/championships/{world.championship.slug}/drivers").json()
    names = {d["first_name"] for d in drivers} | {d["last_name"] for d in drivers}
    assert names == set(HOSTILE_NAMES)
    assert {d["team"] for d in drivers} - {None} == {HOSTILE_NAMES[0]}
