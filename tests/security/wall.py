"""Two clubs on one server, for the wall test (tests/security/test_club_wall.py).

Club ``b`` runs the security tests' whole event (``gp`` of championship ``cf``, circuit
``monza``: tables, runs, a result, sheets; tests/security/conftest.py) with a registration,
a sanction, a pending invitation, its owner and a desk member. Club ``a`` runs its own
championship, circuit and event; its owner, organiser and desk member each have an API
token and a session. ``b`` runs the league ``b-league``, which counts ``gp`` and is proposed
the event ``c-gp`` of a third club ``c``; ``c`` runs its own league ``c-league``, in which
``b`` accepted ``gp`` as a counted round, and its owner and organiser (that league's
organisers) each have an API token and a session. Everything ``b`` holds is read by
``rows_of``: every model that reaches the club through its foreign keys (its leagues and
the rounds of its leagues or of its events included), the club itself, its members'
accounts and its drivers' players, each row with every field, in the order of its primary
key.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any

from django.apps import apps
from django.contrib.auth import get_user_model
from django.db import connection, models
from django.db.models import Q
from django.utils import timezone

from standings.leagues.models import League, Round
from tests.security import test_permission_matrix as security
from tests.security.conftest import World, build_world
from tournament.models import (
    ApiToken,
    Championship,
    Circuit,
    Club,
    Driver,
    Entry,
    Event,
    Invitation,
    Membership,
    Player,
    Sanction,
)
from tournament.signup.models import Registration

#: Club a's people: the three roles of a club (DOMAIN.md "Clubs and who may do what").
ROLES = ("owner", "organiser", "desk")
#: Club c's people who run its league ``c-league``, one of whose counted rounds is b's event.
LEAGUE_ROLES = ("c-owner", "c-organiser")


@dataclass
class Wall:
    world: World  # club b's event, as the security tests build it
    club_a: Club
    club_b: Club
    users: dict[str, Any]  # club a's people by role, and b's "b-owner", "b-desk"
    ids: dict[str, int]  # b's registration, pending registration, sanction, invitation, player
    tokens: dict[str, str] = field(default_factory=dict)
    baseline: dict[str, list[tuple[Any, ...]]] = field(default_factory=dict)
    forms: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # by URL name


def build_wall() -> Wall:
    user_model = get_user_model()
    world = build_world(user_model)
    make = user_model.objects.create_user
    club_b = Club.objects.create(slug="club-b", name="Club B")
    users = {"b-owner": make("b-owner", password="pw-1"), "b-desk": make("b-desk", password="pw-1")}
    Membership.objects.create(club=club_b, user=users["b-owner"], role="owner")
    Membership.objects.create(club=club_b, user=users["b-desk"], role="desk")
    Championship.objects.filter(pk=world.championship.pk).update(club=club_b)
    world.championship.refresh_from_db()
    Circuit.objects.filter(slug="monza").update(club=club_b)
    club_a = Club.objects.create(slug="club-a", name="Club A")
    for role in ROLES:
        users[role] = make(f"a-{role}", password="pw-1")
        Membership.objects.create(club=club_a, user=users[role], role=role)
    cup = Championship.objects.create(
        slug="a-cup", name="Coupe A", season="2026", points_scale=[10, 8, 6], club=club_a
    )
    ring = Circuit.objects.create(
        slug="a-ring", name="Anneau A", rain_from=1, rain_to=4, variable_from=5,
        variable_to=8, sun_from=9, sun_to=20, club=club_a,
    )  # fmt: skip
    a_event = Event.objects.create(
        championship=cup, slug="a-gp", name="GP A", date=datetime.date(2026, 6, 1), circuit=ring
    )
    a_driver = Driver.objects.create(
        championship=cup, number=1, first_name="Anne", last_name="Aubert",
        player=Player.objects.create(first_name="Anne", last_name="Aubert"),
    )  # fmt: skip
    Entry.objects.create(event=a_event, driver=a_driver)
    event = world.event
    accepted = Registration.objects.create(
        event=event, first_name="Marie", last_name="Curie", email="marie@example.org",
        status=Registration.Status.ACCEPTED, confirmed_at=timezone.now(),
    )  # fmt: skip
    pending = Registration.objects.create(
        event=event, first_name="Paul", last_name="Langevin", email="paul@example.org",
        status=Registration.Status.PENDING, confirmed_at=timezone.now(),
    )  # fmt: skip
    sanction = Sanction.objects.create(
        event=event, driver=Driver.objects.get(championship=world.championship, number=2),
        kind=Sanction.Kind.WARNING, reason="Levier",
    )  # fmt: skip
    invitation = Invitation.objects.create(
        club=club_b, email="new@example.org", role="organiser", digest="b" * 64,
        invited_by=users["b-owner"], expires_at=timezone.now() + datetime.timedelta(days=7),
    )  # fmt: skip
    ids = {
        "registration": accepted.pk,
        "pending": pending.pk,
        "sanction": sanction.pk,
        "invitation": invitation.pk,
        "player": security.player_of(world),
        "a-player": a_driver.player_id,
    }
    build_leagues(users, club_b=club_b, event=event)
    wall = Wall(world=world, club_a=club_a, club_b=club_b, users=users, ids=ids)
    names = (*ROLES, *LEAGUE_ROLES, "b-owner")
    wall.tokens = {name: ApiToken.issue(users[name]) for name in names}
    return wall


def build_leagues(users: dict[str, Any], *, club_b: Club, event: Event) -> None:
    """b's league (``gp`` counted, c's ``c-gp`` proposed) and c's (``gp`` accepted by b)."""
    club_c = Club.objects.create(slug="club-c", name="Club C")
    for role in ("owner", "organiser"):
        users[f"c-{role}"] = get_user_model().objects.create_user(f"c-{role}", password="pw-1")
        Membership.objects.create(club=club_c, user=users[f"c-{role}"], role=role)
    cup = Championship.objects.create(slug="c-cup", name="Coupe C", season="2026", club=club_c)
    c_event = Event.objects.create(
        championship=cup, slug="c-gp", name="GP C", date=datetime.date(2026, 8, 1)
    )
    now = timezone.now()
    for club, slug, rounds in (
        (club_b, "b-league", ((event, "counted"), (c_event, "proposed"))),
        (club_c, "c-league", ((event, "counted"),)),
    ):
        league = League.objects.create(
            slug=slug, name=f"Ligue {club.name}", season="2026", club=club, points_scale=[10, 8]
        )
        for round_event, status in rounds:
            decided = status == "counted"
            Round.objects.create(
                league=league, event=round_event, status=status,
                decided_by=users["b-owner"] if decided else None,
                decided_at=now if decided else None,
            )  # fmt: skip


# --- Club b's rows --------------------------------------------------------------------------------


def _paths_to_club(model: type[models.Model], depth: int = 4) -> list[str]:
    """Every chain of foreign keys from ``model`` to ``Club`` (``event__championship__club``)."""
    found: list[str] = []

    def walk(current: type[models.Model], prefix: str, left: int) -> None:
        for field_ in current._meta.concrete_fields:
            target = field_.related_model if field_.is_relation else None
            if target is None or target is get_user_model():
                continue
            if target is Club:
                found.append(prefix + field_.name)
            elif left > 1:
                walk(target, f"{prefix}{field_.name}__", left - 1)

    walk(model, "", depth)
    return found


def club_filters(club: Club) -> dict[type[models.Model], Q]:
    """For each model holding something of ``club``: the filter of its rows."""
    filters: dict[type[models.Model], Q] = {
        Club: Q(pk=club.pk),
        apps.get_model("tournament", "HistoricalClub"): Q(id=club.pk),
        get_user_model(): Q(pk__in=Membership.objects.filter(club=club).values("user_id")),
        Player: Q(pk__in=Driver.objects.filter(championship__club=club).values("player_id")),
    }
    for model in apps.get_models(include_auto_created=True):
        paths = _paths_to_club(model)
        if paths and model not in filters:
            query = Q()
            for path in paths:
                query |= Q(**{path: club})
            filters[model] = query
    return filters


def _plain(value: Any) -> Any:
    return bytes(value) if isinstance(value, memoryview) else value


def rows_of(
    club: Club, only: set[type[models.Model]] | None = None
) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of ``club`` (of the models ``only``, else all), every field, by primary key."""
    dump = {}
    for model, query in club_filters(club).items():
        if only is not None and model not in only:
            continue
        names = [f.attname for f in model._meta.concrete_fields]
        rows = model._base_manager.filter(query).distinct().order_by("pk").values_list(*names)
        dump[model._meta.label] = [tuple(_plain(v) for v in row) for row in rows]
    return dump


def models_of_tables(tables: set[str], club: Club) -> set[type[models.Model]] | None:
    """The club's models stored in ``tables``; None when a table is not known (read all)."""
    by_table = {model._meta.db_table: model for model in club_filters(club)}
    if any(table is None for table in tables):
        return None
    return {by_table[table] for table in tables if table in by_table}


# --- What a request writes --------------------------------------------------------------------

READS = ("SELECT", "SAVEPOINT", "RELEASE", "ROLLBACK", "SET", "SHOW", "PRAGMA")
WRITTEN = re.compile(r'^\s*(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+"?([\w.]+)"?', re.IGNORECASE)


@contextmanager
def tables_written() -> Iterator[set[str | None]]:
    """The tables the statements sent inside the block write (None: a statement whose table
    is not read here, to be compared whole)."""
    written: set[str | None] = set()

    def watch(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        words = sql.lstrip().split(None, 1)
        if words and words[0].upper() not in READS:
            match = WRITTEN.match(sql)
            written.add(match.group(1) if match else None)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(watch):
        yield written


def changed(wall: Wall, written: set[str | None]) -> list[str]:
    """The models of club b whose rows differ from the baseline after a request that wrote
    ``written``."""
    if not written:
        return []
    only = models_of_tables(written, wall.club_b)
    if only == set():
        return []
    now = rows_of(wall.club_b, only)
    return sorted(label for label, rows in now.items() if rows != wall.baseline[label])


# --- The pages' forms -------------------------------------------------------------------------


#: What a person types in an empty field, by the field's type.
FILLED = {
    "text": "7",
    "number": "7",
    "email": "spy@example.org",
    "date": "2026-09-01",
    "time": "10:00",
    "datetime-local": "2026-09-01T10:00",
    "url": "https://example.org/",
}
#: A file of drivers, for a form that takes a file that is not a photo.
CSV = "number,first_name,last_name\n43,Théo,Blanc\n".encode()


class Forms(HTMLParser):
    """Each POST form of a page: its action and the fields a person would send as they are
    (text and hidden inputs with their values, checked boxes, each select's chosen or first
    option, text areas, the first submit button's name)."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[tuple[str, dict[str, Any]]] = []
        self._form: dict[str, Any] | None = None
        self._select: str | None = None
        self._textarea: str | None = None
        self._pressed = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form" and a.get("method", "").lower() == "post":
            self._form, self._pressed = {}, False
            self.forms.append((a.get("action", ""), self._form))
            return
        form = self._form
        if form is None:
            return
        name = a.get("name", "")
        kind = a.get("type", "text").lower()
        if tag == "input" and name and name != "csrfmiddlewaretoken":
            if kind in ("checkbox", "radio"):
                if "checked" in a or (kind == "radio" and name not in form):
                    form[name] = a.get("value", "on")
            elif kind == "file":
                photo = "image" in a.get("accept", "") or name == "photo"
                form[name] = security.PHOTO if photo else CSV
            elif not a.get("value") and kind in FILLED:
                form[name] = FILLED[kind]
            elif kind == "submit":
                if not self._pressed:
                    form[name], self._pressed = a.get("value", ""), True
            else:
                form[name] = a.get("value", "")
        elif tag == "button" and name and kind == "submit" and not self._pressed:
            form[name], self._pressed = a.get("value", ""), True
        elif tag == "select" and name:
            self._select = name
        elif tag == "option" and self._select:
            if self._select not in form or "selected" in a:
                form[self._select] = a.get("value", "")
        elif tag == "textarea" and name:
            self._textarea = name
            form[name] = ""

    def handle_data(self, data: str) -> None:
        if self._form is not None and self._textarea:
            self._form[self._textarea] += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._form = None
        elif tag == "select":
            self._select = None
        elif tag == "textarea" and self._form is not None and self._textarea:
            if not self._form[self._textarea].strip():
                self._form[self._textarea] = "7"
            self._textarea = None
