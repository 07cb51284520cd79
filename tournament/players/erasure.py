"""A person erased on request (DOMAIN.md "Corrections to 'Before the day'": erasure reaches
the person, not one registration; erased drivers read "Pilote anonyme" with their racing
number, and no other number).

The person is the registration asked about, every registration of the same address and
folded name, the driver each became, every driver of the same player (in every championship
and season, the players merged into it included) and the registrations of those drivers.
Their name, address, licence and team text leave every table: the registrations and their
history rows, the drivers, the players (their folded names too), a team only they drove for,
the outbox's mails (blanked; an unsent one is dropped), the answers kept for
``Idempotency-Key`` replays that name them or were sent through their own link, the admin's
log lines about them. Entries, results, points and ratings hang on the drivers and players,
which stay: nothing is counted again. The erasure itself is recorded (who, when, why).
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
from tournament.errors import InvalidInput, NotAllowed
from tournament.models import Driver, Player, PlayerChange, Team
from tournament.offline.models import IdempotencyKey
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


@dataclass
class Person:
    """Everything kept about one person, found from one registration."""

    registrations: dict[int, Registration] = field(default_factory=dict)
    drivers: dict[int, Driver] = field(default_factory=dict)
    players: dict[int, Player] = field(default_factory=dict)
    #: Teams no one else drove for: their names are this person's text.
    teams: dict[int, Team] = field(default_factory=dict)

    def seats(self) -> list[Driver]:
        """The drivers, by season, championship and number (what the desk lists)."""
        return sorted(
            self.drivers.values(),
            key=lambda d: (d.championship.season, d.championship.name, d.number),
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


def _same_address_and_name(registrations: list[Registration]) -> tuple[set[int], set[int]]:
    """The registrations, and the players, of the same address and folded name."""
    keys = {(r.email_key, r.name_key) for r in registrations if r.email_key and r.name_key}
    if not keys:
        return set(), set()
    alike = Q()
    for email, name in keys:
        alike |= Q(email_key=email, name_key=name)
    same = set(Registration.objects.filter(alike).values_list("pk", flat=True))
    players = {
        player.pk
        for player in Player.objects.filter(name_key__in={name for _e, name in keys})
        if player.email and (address_key(player.email), player.name_key) in keys
    }
    return same, players


def person_of(registration: Registration) -> Person:
    """The person ``registration`` is (see the module's docstring)."""
    person = Person()
    wanted_registrations, wanted_players = {registration.pk}, set()
    wanted_drivers: set[int] = set()
    for _round in range(ROUNDS):
        rows = list(Registration.objects.filter(pk__in=wanted_registrations))
        same, players = _same_address_and_name(rows)
        wanted_registrations |= same
        wanted_drivers |= {r.driver_id for r in rows if r.driver_id is not None}
        wanted_players |= players | set(
            Driver.objects.filter(pk__in=wanted_drivers, player__isnull=False).values_list(
                "player", flat=True
            )
        )
        wanted_players = _merged_with(wanted_players)
        wanted_drivers |= set(
            Driver.objects.filter(player__in=wanted_players).values_list("pk", flat=True)
        )
        linked = set(
            Registration.objects.filter(driver__in=wanted_drivers).values_list("pk", flat=True)
        )
        if linked <= wanted_registrations and same <= {r.pk for r in rows}:
            break
        wanted_registrations |= linked
    person.registrations = Registration.objects.select_related("event").in_bulk(
        wanted_registrations
    )
    person.registrations[registration.pk] = registration
    person.drivers = Driver.objects.select_related("championship", "team").in_bulk(wanted_drivers)
    person.players = Player.objects.in_bulk(wanted_players)
    teams = {d.team_id for d in person.drivers.values() if d.team_id is not None}
    shared = set(
        Driver.objects.filter(team__in=teams)
        .exclude(pk__in=person.drivers)
        .values_list("team", flat=True)
    )
    person.teams = Team.objects.in_bulk(teams - shared)
    return person


def _hide(text: str, words: list[str]) -> str:
    """``text`` with every word of the person's (whatever its case) replaced by ``HIDDEN``."""
    for word in words:
        text = re.sub(re.escape(word), HIDDEN, text, flags=re.IGNORECASE)
    return text


def _forget_replays(person: Person, words: list[str]) -> int:
    """Delete the answers kept for replays that concern the person: about one of their
    registrations (``…/registrations/<id>/…``), or whose answer (opened when sealed) names
    them, as sent or as JSON escapes it, or carries one of their own links (the own link's
    path is kept without its secret: only its answer tells whose it was). Answers how many."""
    about = Q(pk__in=[])
    for registration in person.registrations.values():
        about |= Q(path__contains=f"/registrations/{registration.pk}/")
        about |= Q(path__endswith=f"/registrations/{registration.pk}")
    ids = set(IdempotencyKey.objects.filter(about).values_list("pk", flat=True))
    needles = {
        form.casefold()
        for word in words
        for form in (word, json.dumps(word)[1:-1], json.dumps(word, ensure_ascii=False)[1:-1])
    }
    needles |= {
        secret.casefold()
        for registration in person.registrations.values()
        if (secret := unseal(registration.link_sealed))
    }
    rows = IdempotencyKey.objects.exclude(pk__in=ids).exclude(response=b"")
    for pk, kept in rows.values_list("pk", "response").iterator():
        answer = bytes(kept)
        answer = unseal_bytes(answer) or answer
        if any(needle in answer.decode("utf-8", "replace").casefold() for needle in needles):
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


def person_erase(*, registration: Registration, actor: Actor, reason: str) -> Person:
    """Erase the person ``registration`` is, on their request, everywhere they are kept
    (module docstring). Race control of the registration's championship says why."""
    if not actor.can_organise(registration.event.championship):
        raise NotAllowed(_("Only the organisers of this championship may do this."))
    if not reason.strip():
        raise InvalidInput(_("Say why."), {"reason": [_("This field is required.")]})
    with transaction.atomic():
        registration = Registration.objects.select_for_update().get(pk=registration.pk)
        person = person_of(registration)
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
