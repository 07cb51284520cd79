"""Sign-up's reads: seats taken and the waiting list (in confirmation order, with ranks),
whether an event is announced and its window open, the registration a link opens, the
psych sheet's entrants (ratings read from the players' ratings, floor 1)."""

from __future__ import annotations

import datetime
import functools
import re
from collections.abc import Callable
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connection
from django.db.models import Count, Exists, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce, Lower
from django.utils import formats, timezone
from django.utils.translation import gettext as _

from tournament.away.models import Checkout
from tournament.errors import Conflict, NotFound
from tournament.models import Event
from tournament.players.models import Player, PlayerRating
from tournament.players.names import name_key
from tournament.players.odds import family_of, ratings_of
from tournament.sealing import link_digest
from tournament.signup import rules
from tournament.signup.models import Announcement, Mail, Registration

Status = Registration.Status
#: An event's slug as the API's lookups take it (``tournament.apikit``): anything else is
#: unknown, never a query (a NUL byte would be PostgreSQL's error).
SLUG = re.compile(r"^[a-z0-9-]{1,50}$")


#: Where a rush's reads leave the announcement they read with the event (None: none).
READ = "_signup_announcement"


def announcement_of(event: Event) -> Announcement | None:
    """The event's announcement (None: never announced): the one read with the event by
    this request (``event_to_sign_up``, ``registration_to_confirm_locked``), else read now
    (never an older copy cached on ``event``)."""
    if hasattr(event, READ):
        return getattr(event, READ)
    return Announcement.objects.filter(event=event).first()


def _read_with(event: Event, announcement: Announcement | None) -> Event:
    setattr(event, READ, announcement)
    return event


def _count(event: Any, **where: Any) -> Coalesce:
    rows = Registration.objects.filter(event=event, **where).order_by().values("event")
    return Coalesce(Subquery(rows.annotate(n=Count("pk")).values("n")), 0)


def away_at(event: Any) -> Subquery:
    """An annotation of when ``event`` (an ``OuterRef``) left for the venue, null when it is
    home: as ``tournament.away.guard.away_since``, read with the sign-up's own row."""
    away = Checkout.objects.filter(
        event=event,
        side=Checkout.Side.HOSTED,
        cancelled_at__isnull=True,
        returned_at__isnull=True,
    )
    return Subquery(away.order_by().values("at")[:1])


class EventAway(Conflict):
    """The event is away (its day runs at the venue): a sign-up or a confirmation waits for
    its return, as every write of the event (the away guard's 409, with ``since``)."""

    def __init__(self, since: datetime.datetime) -> None:
        shown = formats.date_format(timezone.localtime(since), "DATETIME_FORMAT")
        super().__init__(
            _("The day runs at the venue since %(since)s: this event is written there.")
            % {"since": shown}
        )
        self.since = since


# --- a rush's reads, in SQL written once -------------------------------------------------
# A sign-up and a confirmation each read their rows in one statement. Through the ORM, the
# statement alone (compiled at each request: joins, annotations, every column) costs more
# of the server's CPU than everything else the request does; on PostgreSQL it is written
# once per process from the models' own columns, and the rows made with ``from_db``.

#: What a sign-up and a confirmation read of the event and of its announcement; the other
#: fields are deferred (read if ever asked).
EVENT_FIELDS = (
    "id", "championship_id", "slug", "name", "date", "published_qualifying_tables",
    "published_allocation", "published_qualifying", "published_results",
)  # fmt: skip
ANNOUNCEMENT_FIELDS = ("id", "event_id", "capacity", "opens_at", "closes_at", "approval")


def _columns(model: Any, alias: str, names: tuple[str, ...] | None = None) -> tuple[list, str]:
    fields = [f for f in model._meta.concrete_fields if names is None or f.attname in names]
    quote = connection.ops.quote_name
    return [f.attname for f in fields], ", ".join(f"{alias}.{quote(f.column)}" for f in fields)


#: Whether the event left for the venue (``tournament.away.guard.away_since``), in SQL.
_AWAY_SQL = """(SELECT c.at FROM {checkout} c WHERE c.event_id = e.id AND c.side = 'hosted'
    AND c.cancelled_at IS NULL AND c.returned_at IS NULL LIMIT 1)"""


@functools.cache
def _event_sql() -> tuple[list, list, str]:
    event, event_sql = _columns(Event, "e", EVENT_FIELDS)
    announcement, announcement_sql = _columns(Announcement, "a", ANNOUNCEMENT_FIELDS)
    sql = f"""SELECT {event_sql}, {announcement_sql}, {_AWAY_SQL} FROM {Event._meta.db_table} e
        LEFT JOIN {Announcement._meta.db_table} a ON a.event_id = e.id WHERE e.slug = %s"""
    return event, announcement, sql.format(checkout=Checkout._meta.db_table)


def _event_of_row(row: tuple, event_names: list, announcement_names: list) -> Event:
    """The event (deferred but ``EVENT_FIELDS``) and its announcement (cached on it, None
    when never announced) of a row of ``_event_sql``'s columns."""
    n = len(event_names)
    event = Event.from_db(DEFAULT_DB_ALIAS, event_names, row[:n])
    values = row[n : n + len(announcement_names)]
    announcement = (
        None
        if values[0] is None
        else Announcement.from_db(DEFAULT_DB_ALIAS, announcement_names, values)
    )
    Event.announcement.related.set_cached_value(event, announcement)
    return _read_with(event, announcement)


def event_to_sign_up(slug: str) -> Event:
    """The event of a sign-up, with its announcement and when it left for the venue
    (``away_since``, None when it is home: ``tournament.away.guard.away_since``), in one
    read. 404 as the API's other lookups."""
    if not SLUG.match(slug):
        raise NotFound(_("Unknown event “%(slug)s”.") % {"slug": slug})
    if connection.vendor != "postgresql":  # the same through the ORM elsewhere (SQLite)
        found = (
            Event.objects.select_related("championship", "announcement")
            .annotate(away_since=away_at(OuterRef("pk")))
            .filter(slug=slug)
            .first()
        )
        if found is not None:
            _read_with(found, getattr(found, "announcement", None))
    else:
        event_names, announcement_names, sql = _event_sql()
        with connection.cursor() as cursor:
            cursor.execute(sql, [slug])
            row = cursor.fetchone()
        found = None if row is None else _event_of_row(row, event_names, announcement_names)
        if found is not None:
            found.away_since = row[-1]  # type: ignore[attr-defined]
    if found is None:
        raise NotFound(_("Unknown event “%(slug)s”.") % {"slug": slug})
    return found


@functools.cache
def _to_confirm_sql() -> tuple[list, list, list, str]:
    registration, registration_sql = _columns(Registration, "r")
    event, announcement, _event = _event_sql()
    _names, event_sql = _columns(Event, "e", EVENT_FIELDS)
    _names, announcement_sql = _columns(Announcement, "a", ANNOUNCEMENT_FIELDS)
    table = Registration._meta.db_table
    sql = f"""SELECT {registration_sql}, {event_sql}, {announcement_sql},
        (SELECT count(*) FROM {table} x WHERE x.event_id = r.event_id AND x.status = 'accepted'),
        (SELECT count(*) FROM {table} x WHERE x.event_id = r.event_id AND x.status = 'waiting'),
        EXISTS (SELECT 1 FROM {Mail._meta.db_table} m
                WHERE m.registration_id = r.id AND m.kind <> 'confirm'),
        {_AWAY_SQL}
        FROM {table} r JOIN {Event._meta.db_table} e ON e.id = r.event_id
        LEFT JOIN {Announcement._meta.db_table} a ON a.event_id = r.event_id
        WHERE r.confirm_digest = %s FOR UPDATE OF r"""
    return registration, event, announcement, sql.format(checkout=Checkout._meta.db_table)


def registration_of_person_locked(event: Event, email: str, names: tuple[str, str]) -> Any:
    """In the caller's transaction, the registration of this person (an address, a first and
    a last name: their keys) at ``event``, locked, or None (a newcomer: on PostgreSQL one
    short statement, as a rush's sign-ups are)."""
    keys = {"email_key": rules.address_key(email), "name_key": name_key(*names)}
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT 1 FROM {Registration._meta.db_table} WHERE event_id = %s "
                "AND email_key = %s AND name_key = %s FOR UPDATE",
                [event.pk, keys["email_key"], keys["name_key"]],
            )
            if cursor.fetchone() is None:
                return None  # a newcomer: no queryset built (a rush's sign-up, 0.2 ms)
    return Registration.objects.select_for_update().filter(event=event, **keys).first()


def registration_to_confirm_locked(token: str) -> Registration | None:
    """In the caller's transaction, the registration a confirmation token opens, locked,
    with its event and announcement, in one statement that also reads what a confirmation's
    likely outcome needs: the seats taken (``accepted_now``) and the waiting list's length
    (``waiting_now``), whether the registrant was mailed anything but the confirmation
    (``told``) and when the event left for the venue (``away_since``). None: no such
    registration."""
    if len(token) > 100:
        return None
    digest = link_digest(token)
    if connection.vendor != "postgresql":  # the same through the ORM elsewhere (SQLite)
        found = (
            Registration.objects.select_for_update()
            .select_related("event__championship", "event__announcement")
            .annotate(
                accepted_now=_count(OuterRef("event_id"), status=Status.ACCEPTED),
                waiting_now=_count(OuterRef("event_id"), status=Status.WAITING),
                told=Exists(
                    Mail.objects.filter(registration=OuterRef("pk")).exclude(kind=Mail.Kind.CONFIRM)
                ),
                away_since=away_at(OuterRef("event_id")),
            )
            .filter(confirm_digest=digest)
            .first()
        )
        if found is not None:
            _read_with(found.event, getattr(found.event, "announcement", None))
        return found
    registration_names, event_names, announcement_names, sql = _to_confirm_sql()
    with connection.cursor() as cursor:
        cursor.execute(sql, [digest])
        row = cursor.fetchone()
    if row is None:
        return None
    n = len(registration_names)
    found = Registration.from_db(DEFAULT_DB_ALIAS, registration_names, row[:n])
    found.event = _event_of_row(row[n:-4], event_names, announcement_names)
    found.accepted_now, found.waiting_now, found.told, found.away_since = row[-4:]
    return found


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
    if hasattr(event, READ):
        announcement = announcement_of(event)
        opens = announcement.opens_at if announcement else None
    else:
        rows = Announcement.objects.filter(event=event)
        opens = rows.values_list("opens_at", flat=True).first()
    return opens is not None or event.is_public()


def window_refusal(event: Event, now: datetime.datetime) -> Conflict | None:
    """The 409 of a registration window that is not open (saying when), else None."""
    announcement = announcement_of(event)
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


def _waiting_ranks() -> Callable[[str, Any], int | None]:
    """The waiting-list rank of each registration read in confirmation order: 1, 2, … for
    the confirmed ones waiting, None for the others (the rule of ``ranked`` and of
    ``ranked_rows``)."""
    counted = 0

    def rank(status: str, confirmed_at: Any) -> int | None:
        nonlocal counted
        if status != Registration.Status.WAITING or not confirmed_at:
            return None
        counted += 1
        return counted

    return rank


def ranked(event: Event) -> list[tuple[Registration, int | None]]:
    """Every registration of ``event`` with its waiting-list rank, in confirmation order."""
    rows = Registration.objects.filter(event=event).select_related("driver")
    rank = _waiting_ranks()
    return [(r, rank(r.status, r.confirmed_at)) for r in rows.order_by("confirmed_at", "pk")]


#: Race control's list of registrations (API.md), as its answer holds them.
LISTED = (
    "pk", "first_name", "last_name", "email", "licence", "team", "status", "confirmed_at",
    "driver__number",
)  # fmt: skip


def ranked_rows(event: Event) -> list[dict[str, Any]]:
    """``ranked``'s registrations as race control's list answers them (``id``, the names,
    the address and licence, ``status``, ``rank``, ``confirmed_at``, ``driver``), read as
    rows: polled every second by the desk during a rush, 2,000 objects were most of it."""
    rank, out = _waiting_ranks(), []
    rows = Registration.objects.filter(event=event).order_by("confirmed_at", "pk")
    for pk, first, last, email, licence, team, status, confirmed_at, number in rows.values_list(
        *LISTED
    ):
        out.append(
            {
                "id": pk,
                "first_name": first,
                "last_name": last,
                "email": email,
                "licence": licence,
                "team": team,
                "status": status,
                "rank": rank(status, confirmed_at),
                "confirmed_at": confirmed_at,
                "driver": number,
            }
        )
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
