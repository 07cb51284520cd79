"""A person erased on request (DOMAIN.md "Corrections to 'Before the day'": erasure reaches
the person, not one registration; erased drivers read "Pilote anonyme" with their racing
number, and no other number; "Many clubs on one server": a club's erasure is the club's).

The person is the registration asked about, every registration of the same address and
folded name, the driver each became, every driver of the same player (in every championship
and season, the players merged into it included) and the registrations of those drivers,
all within the club that erases: its championships (those the actor runs, for a guest
organiser), never another club's. Two clubs' drivers are one player only when race control
joined them on purpose; such a player stays, with the other clubs' drivers, and the erased
drivers leave it for an anonymous player of their own. The server's operator may reach the
whole server instead (``server``), where address and name join the clubs as well.
Their name, address, licence and team text leave every table: the registrations and their
history rows, the drivers, the players (their folded names too), a team only they drove for,
the outbox's mails (blanked; an unsent one is dropped), the answers kept for
``Idempotency-Key`` replays that name them or were sent through their own link, the admin's
log lines about them. Entries, results, points and ratings hang on the drivers and players,
which stay: nothing is counted again, but for the ratings of a player the erased drivers
leave (as after a split). The erasure itself is recorded (who, when, why).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from django.contrib.admin.models import LogEntry
from django.contrib.contenttypes.models import ContentType
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from tournament.access import Actor
from tournament.clubs import rights
from tournament.errors import InvalidInput, NotAllowed
from tournament.models import Championship, Driver, Event, Player, PlayerChange, Team
from tournament.offline.models import IdempotencyKey
from tournament.players.changes import _rate_again
from tournament.sealing import unseal, unseal_bytes
from tournament.signup.models import Mail, Registration
from tournament.signup.rules import address_key

#: What an erased person's registrations, drivers and players read (with the driver's number
#: beside it, as every driver).
ERASED = "Pilote anonyme"
#: What stands in a recorded reason for a word of the person's.
HIDDEN = "…"
#: A person is found in a few rounds (registration → driver → player → its drivers → their
#: registrations); more would be a chain of merges no club makes.
ROUNDS = 6
#: The event or championship an API path is about (``/api/v1/events/<slug>/…``).
ABOUT = re.compile(r"/(events|championships)/([^/]+)")


@dataclass
class Person:
    """Everything kept about one person, found from one registration."""

    #: The championships the erasure reaches (ids); None: the whole server.
    reach: set[int] | None = None
    registrations: dict[int, Registration] = field(default_factory=dict)
    drivers: dict[int, Driver] = field(default_factory=dict)
    players: dict[int, Player] = field(default_factory=dict)
    #: Teams no one else drove for: their names are this person's text.
    teams: dict[int, Team] = field(default_factory=dict)
    #: The drivers whose player another club's drivers share (joined on purpose): they
    #: leave it, and the player stays as it is.
    detached: set[int] = field(default_factory=set)

    def seats(self) -> list[Driver]:
        """The drivers, by season, championship and number (what the desk lists)."""
        return sorted(
            self.drivers.values(),
            key=lambda d: (d.championship.season, d.championship.name, d.number),
        )

    def championships(self) -> list[str]:
        """The slugs of the championships whose rows the erasure changes."""
        return sorted(
            {d.championship.slug for d in self.drivers.values()}
            | {r.event.championship.slug for r in self.registrations.values()}
        )

    def words(self) -> list[str]:
        """The person's own text: names, addresses, licences and lone teams' names."""
        words: set[str] = set()
        for row in (*self.registrations.values(), *self.drivers.values(), *self.players.values()):
            first, last = row.first_name.strip(), row.last_name.strip()
            if row.first_name == ERASED:
                continue
            words |= {f"{first} {last}".strip(), last}
            words.add(getattr(row, "email", "") or "")
        for registration in self.registrations.values():
            words |= {registration.licence, registration.team if self._lone(registration) else ""}
        for player in self.players.values():
            words |= {player.licence or "", player.claimed_licence}
        words |= {team.name for team in self.teams.values()}
        return sorted({w.strip() for w in words if len(w.strip()) >= 3}, key=len, reverse=True)

    def _lone(self, registration: Registration) -> bool:
        """True when the registration's team text is no one else's team."""
        team = registration.team.strip().casefold()
        if not team:
            return False
        others = Team.objects.exclude(pk__in=self.teams).filter(name__iexact=team)
        return not others.filter(drivers__isnull=False).exists()


def _merged_with(players: set[int]) -> set[int]:
    """``players``, the players they were merged into and those merged into them."""
    found = set(players)
    while True:
        more = set(
            Player.objects.filter(Q(pk__in=found) | Q(merged_into__in=found)).values_list(
                "pk", "merged_into"
            )
        )
        grown = found | {pk for pair in more for pk in pair if pk is not None}
        if grown == found:
            return found
        found = grown


def reach_of(*, registration: Registration, actor: Actor, server: bool = False) -> set[int] | None:
    """The championships (ids) an erasure from ``registration`` reaches: its club's (those
    ``actor`` runs, for a guest organiser; the operator's championships made before clubs
    are one club), or None, the whole server, when ``server`` (a superuser's only)."""
    if server:
        if not actor.is_superuser():
            raise NotAllowed(_("Only the server's operator may erase across the whole server."))
        return None
    championship = registration.event.championship
    club = Championship.objects.filter(club_id=championship.club_id)
    if not actor.can_run_club(championship.club_id):
        club = club.filter(rights.organised_filter(actor.user))
    return set(club.values_list("pk", flat=True)) | {championship.pk}


def _same_address_and_name(
    registrations: list[Registration], reach: set[int] | None
) -> tuple[set[int], set[int]]:
    """The registrations, and the players, of the same address and folded name within
    ``reach`` (a player with a driver there)."""
    keys = {(r.email_key, r.name_key) for r in registrations if r.email_key and r.name_key}
    if not keys:
        return set(), set()
    alike = Q()
    for email, name in keys:
        alike |= Q(email_key=email, name_key=name)
    same = Registration.objects.filter(alike)
    players = Player.objects.filter(name_key__in={name for _e, name in keys})
    if reach is not None:
        same = same.filter(event__championship__in=reach)
        players = players.filter(drivers__championship__in=reach).distinct()
    found = {
        player.pk
        for player in players
        if player.email and (address_key(player.email), player.name_key) in keys
    }
    return set(same.values_list("pk", flat=True)), found


def _shared(players: set[int], reach: set[int] | None) -> set[int]:
    """Of ``players``, those joined (a merge included) with a driver outside ``reach``."""
    if reach is None:
        return set()
    shared: set[int] = set()
    for pk in sorted(players):
        if pk not in shared:
            joined = _merged_with({pk})
            if Driver.objects.filter(player__in=joined).exclude(championship__in=reach).exists():
                shared |= joined
    return shared


def person_of(registration: Registration, *, actor: Actor, server: bool = False) -> Person:
    """The person ``registration`` is, within what ``actor``'s erasure reaches (see the
    module's docstring)."""
    reach = reach_of(registration=registration, actor=actor, server=server)
    person = Person(reach=reach)
    wanted_registrations, wanted_players = {registration.pk}, set()
    wanted_drivers: set[int] = set()
    for _round in range(ROUNDS):
        rows = list(Registration.objects.filter(pk__in=wanted_registrations))
        same, players = _same_address_and_name(rows, reach)
        wanted_registrations |= same
        wanted_drivers |= {r.driver_id for r in rows if r.driver_id is not None}
        wanted_players |= players | set(
            Driver.objects.filter(pk__in=wanted_drivers, player__isnull=False).values_list(
                "player", flat=True
            )
        )
        wanted_players = _merged_with(wanted_players)
        theirs = Driver.objects.filter(player__in=wanted_players)
        if reach is not None:
            theirs = theirs.filter(championship__in=reach)
        wanted_drivers |= set(theirs.values_list("pk", flat=True))
        linked = set(
            Registration.objects.filter(driver__in=wanted_drivers).values_list("pk", flat=True)
        )
        if linked <= wanted_registrations and same <= {r.pk for r in rows}:
            break
        wanted_registrations |= linked
    person.registrations = Registration.objects.select_related("event__championship").in_bulk(
        wanted_registrations
    )
    person.registrations[registration.pk] = registration
    person.drivers = Driver.objects.select_related("championship", "team").in_bulk(wanted_drivers)
    shared = _shared(wanted_players, reach)
    person.players = Player.objects.in_bulk(wanted_players - shared)
    person.detached = {pk for pk, d in person.drivers.items() if d.player_id in shared}
    teams = {d.team_id for d in person.drivers.values() if d.team_id is not None}
    others = set(
        Driver.objects.filter(team__in=teams)
        .exclude(pk__in=person.drivers)
        .values_list("team", flat=True)
    )
    person.teams = Team.objects.in_bulk(teams - others)
    return person


def _hide(text: str, words: list[str]) -> str:
    """``text`` with every word of the person's (whatever its case) replaced by ``HIDDEN``."""
    for word in words:
        text = re.sub(re.escape(word), HIDDEN, text, flags=re.IGNORECASE)
    return text


def _slugs(reach: set[int]) -> dict[str, set[str]]:
    """The slugs of the events and championships within ``reach``, by the path's word."""
    return {
        "championships": set(
            Championship.objects.filter(pk__in=reach).values_list("slug", flat=True)
        ),
        "events": set(Event.objects.filter(championship__in=reach).values_list("slug", flat=True)),
    }


def _within(path: str, answer: str, slugs: dict[str, set[str]] | None) -> bool:
    """True when a kept answer is the club's: its path is about one of the club's events or
    championships, or, about none (a registrant's own link), it names one of them."""
    if slugs is None:
        return True
    about = ABOUT.search(path)
    if about is not None:
        return about.group(2) in slugs[about.group(1)]
    return any(f'"{slug}"' in answer for kind in slugs.values() for slug in kind)


def _forget_replays(person: Person, words: list[str]) -> int:
    """Delete the answers kept for replays that concern the person: about one of their
    registrations (``…/registrations/<id>/…``), or whose answer (opened when sealed) names
    them, as sent or as JSON escapes it, or carries one of their own links (the own link's
    path is kept without its secret: only its answer tells whose it was). A name counts
    within the erasure's reach only (``_within``): another club's answers stay. Answers how
    many."""
    about = Q(pk__in=[])
    for registration in person.registrations.values():
        about |= Q(path__contains=f"/registrations/{registration.pk}/")
        about |= Q(path__endswith=f"/registrations/{registration.pk}")
    ids = set(IdempotencyKey.objects.filter(about).values_list("pk", flat=True))
    names = {
        form.casefold()
        for word in words
        for form in (word, json.dumps(word)[1:-1], json.dumps(word, ensure_ascii=False)[1:-1])
    }
    links = {
        secret.casefold()
        for registration in person.registrations.values()
        if (secret := unseal(registration.link_sealed))
    }
    slugs = None if person.reach is None else _slugs(person.reach)
    rows = IdempotencyKey.objects.exclude(pk__in=ids).exclude(response=b"")
    for pk, path, kept in rows.values_list("pk", "path", "response").iterator():
        answer = bytes(kept)
        answer = unseal_bytes(answer) or answer
        text = answer.decode("utf-8", "replace")
        folded = text.casefold()
        if any(link in folded for link in links) or (
            any(name in folded for name in names) and _within(path, text, slugs)
        ):
            ids.add(pk)
    return IdempotencyKey.objects.filter(pk__in=ids).delete()[0]


def _blank_mails(person: Person) -> None:
    """The outbox keeps that a mail was sent (a message's counts), not what it said nor to
    whom; a mail not sent yet is dropped (never sent to no one)."""
    mails = Mail.objects.filter(registration__in=person.registrations)
    mails.filter(state=Mail.State.QUEUED).delete()
    mails.update(to="", subject="", body_text="", body_html="", link_sealed="", last_error="")


def _blank_registrations(
    person: Person, asked: int, actor: Actor, reason: str, words: list[str]
) -> None:
    now = timezone.now()
    blank = {
        "first_name": ERASED,
        "last_name": "",
        "email": "",
        "email_key": "",
        "name_key": "",
        "licence": "",
        "team": "",
        "reason": "",
        "link_sealed": "",
        "link_digest": None,
        "confirm_digest": None,
    }
    history = Registration.history.filter(id__in=person.registrations)
    history.update(**blank)
    for row in history.exclude(history_change_reason=None).exclude(history_change_reason=""):
        hidden = _hide(row.history_change_reason, words)
        if hidden != row.history_change_reason:
            type(row).objects.filter(pk=row.pk).update(history_change_reason=hidden)
    for pk, registration in person.registrations.items():
        for name, value in blank.items():
            setattr(registration, name, value)
        registration.erased_at = registration.erased_at or now
        actor.stamp(registration)
        why = _hide(reason.strip(), words) if pk == asked else "same person"
        registration._change_reason = f"erased on request: {why}"[:100]  # type: ignore[attr-defined]
        registration.save()


def _blank_drivers_and_players(person: Person, words: list[str]) -> None:
    for driver in person.drivers.values():
        lone_team = driver.team_id in person.teams
        Driver.objects.filter(pk=driver.pk).update(
            first_name=ERASED,
            last_name="",
            email="",
            public_name_choice="full",
            **({"team": None} if lone_team else {}),
        )
    Team.objects.filter(pk__in=person.teams).delete()
    if person.detached:
        # Their player is another club's too: they leave it for an anonymous one, and its
        # ratings are counted again without their results (as after a split).
        alone = Player.objects.create(first_name=ERASED)
        Driver.objects.filter(pk__in=person.detached).update(player=alone)
        _rate_again(person.detached)
    Player.objects.filter(pk__in=person.players).update(
        first_name=ERASED, last_name="", email="", licence=None, claimed_licence="", name_key=""
    )
    changes = PlayerChange.objects.filter(
        Q(player__in=person.players) | Q(other__in=person.players)
    )
    for change in changes:
        hidden = _hide(change.reason, words)
        if hidden != change.reason:
            PlayerChange.objects.filter(pk=change.pk).update(reason=hidden)


def _blank_admin_log(person: Person) -> None:
    """The admin's log names what it changed (``object_repr``)."""
    for model, ids in (
        (Registration, person.registrations),
        (Driver, person.drivers),
        (Player, person.players),
        (Team, person.teams),
    ):
        kind = ContentType.objects.get_for_model(model)
        LogEntry.objects.filter(content_type=kind, object_id__in=[str(pk) for pk in ids]).update(
            object_repr=ERASED, change_message=""
        )


def person_erase(
    *, registration: Registration, actor: Actor, reason: str, server: bool = False
) -> Person:
    """Erase the person ``registration`` is, on their request, everywhere the club keeps
    them (the whole server with ``server``, a superuser's only; module docstring). Race
    control of the registration's championship says why."""
    if not actor.can_organise(registration.event.championship):
        raise NotAllowed(_("Only the organisers of this championship may do this."))
    if not reason.strip():
        raise InvalidInput(_("Say why."), {"reason": [_("This field is required.")]})
    with transaction.atomic():
        registration = Registration.objects.select_for_update().get(pk=registration.pk)
        person = person_of(registration, actor=actor, server=server)
        words = person.words()
        _forget_replays(person, words)
        _blank_mails(person)
        _blank_registrations(person, registration.pk, actor, reason, words)
        _blank_drivers_and_players(person, words)
        _blank_admin_log(person)
    return person


def erased_name(registration: Registration) -> str:
    """An erased registration as race control reads it: ``Pilote anonyme · n° 3`` once it
    became a driver (its racing number), else ``Pilote anonyme``."""
    number = registration.driver.number if registration.driver_id else None
    return f"{ERASED} · n° {number}" if number is not None else ERASED
