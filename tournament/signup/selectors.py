"""Sign-up's reads: seats taken and the waiting list (in confirmation order, with ranks),
whether an event is announced and its window open, the registration a link opens, the
psych sheet's entrants (ratings read from the players' ratings, floor 1)."""

from __future__ import annotations

import datetime
from typing import Any

from django.db.models import Count, Q
from django.db.models.functions import Lower
from django.utils import formats, timezone
from django.utils.translation import gettext as _

from tournament.errors import Conflict, NotFound
from tournament.models import Event
from tournament.players.models import Player, PlayerRating
from tournament.players.odds import family_of, ratings_of
from tournament.sealing import link_digest
from tournament.signup import rules
from tournament.signup.models import Announcement, Registration

Status = Registration.Status


def accepted_count(event: Event) -> int:
    return Registration.objects.filter(event=event, status=Status.ACCEPTED).count()


def waiting_list(event: Event) -> Any:
    return Registration.objects.filter(event=event, status=Status.WAITING).order_by(
        "confirmed_at", "pk"
    )


def rank_of(registration: Registration) -> int | None:
    """Place on the waiting list (1 = next in), None when not waiting."""
    if registration.status != Status.WAITING or registration.confirmed_at is None:
        return None
    ahead = Q(confirmed_at__lt=registration.confirmed_at) | Q(
        confirmed_at=registration.confirmed_at, pk__lt=registration.pk
    )
    return waiting_list(registration.event).filter(ahead).count() + 1


def announced(event: Event) -> bool:
    """Public: an event whose registration has an opening date, or that published
    anything. Before, its sign-up page and entrants are race control's only (404)."""
    opens = Announcement.objects.filter(event=event).values_list("opens_at", flat=True).first()
    return opens is not None or event.is_public()


def window_refusal(event: Event, now: datetime.datetime) -> Conflict | None:
    """The 409 of a registration window that is not open (saying when), else None."""
    announcement = Announcement.objects.filter(event=event).first()
    opens = announcement.opens_at if announcement else None
    closes = announcement.closes_at if announcement else None
    state = rules.window(now, opens, closes)
    if state == "open":
        return None
    if state == "not_open":
        when = formats.date_format(timezone.localtime(opens), "DATETIME_FORMAT")
        return Conflict(_("Registration opens on %(when)s.") % {"when": when})
    if state == "over":
        when = formats.date_format(timezone.localtime(closes), "DATETIME_FORMAT")
        return Conflict(_("Registration closed on %(when)s.") % {"when": when})
    return Conflict(_("Registration for this event is not open."))


def registration_for_link(token: str) -> Registration:
    """The registration an own link opens (404 when unknown or replaced)."""
    found = (
        Registration.objects.select_related("event__championship", "event__circuit")
        .filter(link_digest=link_digest(token))
        .first()
        if len(token) <= 100
        else None
    )
    if found is None:
        raise NotFound(
            _(
                "This link is unknown or was replaced by a newer one: use the last mail "
                "you received."
            )
        )
    return found


def ranked(event: Event) -> list[tuple[Registration, int | None]]:
    """Every registration of ``event`` with its waiting-list rank, in confirmation order."""
    rows = Registration.objects.filter(event=event).select_related("driver")
    rows = rows.order_by("confirmed_at", "pk")
    out, rank = [], 0
    for registration in rows:
        if registration.status == Registration.Status.WAITING and registration.confirmed_at:
            rank += 1
            out.append((registration, rank))
        else:
            out.append((registration, None))
    return out


def entrants(event: Event) -> list[dict[str, Any]]:
    """The accepted entrants in psych-sheet order (API.md): best rating first, unrated
    after in registration order; names as each chose."""
    accepted = list(
        Registration.objects.filter(event=event, status=Registration.Status.ACCEPTED)
        .select_related("driver")
        .order_by("confirmed_at", "pk")
    )
    players = {r.pk: r.driver.player_id for r in accepted if r.driver_id}
    players.update(_known_by_address([r for r in accepted if not r.driver_id]))
    ratings = ratings_of(players.values(), family_of(event))
    from_player = dict(
        PlayerRating.objects.filter(
            player_id__in=set(players.values()), family=family_of(event)
        ).values_list("player_id", "races")
    )
    rows = {r.pk: r for r in accepted}
    ordered = rules.psych_order(
        [
            rules.Entrant(key=r.pk, rating=ratings.get(players.get(r.pk)), order=i)
            for i, r in enumerate(accepted)
        ]
    )
    return [
        {
            "name": rules.public_name(
                rows[e.key].first_name, rows[e.key].last_name, rows[e.key].public_name
            ),
            "team": rows[e.key].team,
            "rating": e.rating,
            "races": from_player.get(players.get(e.key), 0),
        }
        for e in ordered
    ]


def _known_by_address(registrations: list[Registration]) -> dict[int, int]:
    """Before check-in, the player each registrant already is, found by the address they
    confirmed (double opt-in: theirs), when exactly one player has it: their rating sorts
    the psych sheet before the day. Never by licence, which anyone may type (a stranger
    would borrow its holder's rank); nothing is merged or written here. An address shared
    (by two players, or by two registrants: a parent and a child) tells no one's rating.
    Addresses compare as the mail server delivers them (``rules.address_key``)."""
    wanted: dict[str, list[int]] = {}
    for r in registrations:
        if r.email:
            wanted.setdefault(r.email_key or rules.address_key(r.email), []).append(r.pk)
    if not wanted:
        return {}
    found: dict[str, list[int]] = {}
    rows = Player.objects.filter(merged_into=None).annotate(address=Lower("email"))
    near = {*wanted, *(r.email.lower() for r in registrations if r.email)}
    for address, player in rows.filter(address__in=near).values_list("email", "pk"):
        found.setdefault(rules.address_key(address), []).append(player)
    return {
        wanted[key][0]: ids[0]
        for key, ids in found.items()
        if key in wanted and len(ids) == 1 and len(wanted[key]) == 1
    }


def registration_export(registration: Registration) -> dict[str, Any]:
    """Everything kept about one registrant (their request for their data): the
    registration, its recorded changes (who, when, why) and the mails sent."""
    fields = ("first_name", "last_name", "email", "licence", "team", "public_name", "language")
    return {
        "event": registration.event.slug,
        "registration": {
            **{name: getattr(registration, name) for name in fields},
            "status": registration.status,
            "signed_up_at": registration.created_at.isoformat(),
            "confirmed_at": registration.confirmed_at.isoformat()
            if registration.confirmed_at
            else None,
            "reason": registration.reason,
            "driver": registration.driver.number if registration.driver_id else None,
        },
        "changes": [
            {
                "at": row.history_date.isoformat(),
                "status": row.status,
                "by": row.history_actor,
                "why": row.history_change_reason or "",
            }
            for row in registration.history.order_by("history_date", "history_id")
        ],
        "mails": [
            {
                "kind": mail.kind,
                "subject": mail.subject,
                "state": mail.state,
                "sent_at": mail.sent_at.isoformat() if mail.sent_at else None,
            }
            for mail in registration.mails.order_by("pk")
        ],
    }


def upcoming() -> list[dict[str, Any]]:
    """The home page's upcoming events whose registration is announced, each with where its
    registration stands: ``not_open`` (opens on ``opens_at``), ``open``, ``full`` (the
    waiting list), ``closed``."""
    now = timezone.now()
    announcements = (
        Announcement.objects.filter(event__date__gte=timezone.localdate(), opens_at__isnull=False)
        .select_related("event__championship")
        .annotate(
            accepted=Count(
                "event__registrations", filter=Q(event__registrations__status="accepted")
            )
        )
        .order_by("event__date", "event__pk")
    )
    shown = []
    for a in announcements:
        state = rules.window(now, a.opens_at, a.closes_at)
        if state == "open" and not rules.may_accept(a.capacity, a.accepted):
            state = "full"
        shown.append(
            {
                "event": a.event,
                "state": "closed" if state == "over" else state,
                "opens_at": a.opens_at,
            }
        )
    return shown


# --- what lives above: "your table" ------------------------------------------------------

#: ``(event, driver) -> table number | None``, registered at start-up by the race floor
#: (races/links.py), which the ground may not import.
TABLE_LOOKUPS: list[Any] = []


def register_table_lookup(lookup: Any) -> None:
    if lookup not in TABLE_LOOKUPS:
        TABLE_LOOKUPS.append(lookup)


def table_of(registration: Registration) -> int | None:
    """The registrant's race table, once the allocation is published and they are its
    driver; None otherwise."""
    event = registration.event
    if registration.driver_id is None or not event.published_allocation:
        return None
    for lookup in TABLE_LOOKUPS:
        number = lookup(event, registration.driver)
        if number is not None:
            return int(number)
    return None
