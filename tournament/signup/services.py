"""Sign-up's writes (DOMAIN.md "Before the day"): sign up, confirm, change, cancel, race
control's decisions, the waiting list moving in.

Every change of who holds a seat runs under a row lock on the event's announcement
(``select_for_update``), taken before the seats are counted: two confirmations of the last
seat, in two processes, are served one after the other, and never more are accepted than
the capacity. Each change writes its mail in the same transaction (``mails.queue``) and
sends it after the commit (``tasks.send_soon``); its history row says who and why. The lock
is held until the commit, and whoever changes seats next waits for it: a confirmation (a
rush makes hundreds a minute) takes it last and holds it for one statement
(``registration_confirm``).
"""

from __future__ import annotations

import datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, connection, transaction
from django.db.models import Count, Q
from django.utils import timezone
from django.utils.translation import gettext as _

from tournament.access import Actor
from tournament.errors import Conflict, InvalidInput, NotAllowed, NotFound
from tournament.models import Event
from tournament.sealing import link_digest, new_link_secret, seal, unseal
from tournament.signup import mails, rules, tasks
from tournament.signup.models import Announcement, Mail, Registration
from tournament.signup.selectors import (
    EventAway,
    announcement_of,
    registration_of_person_locked,
    registration_to_confirm_locked,
)

# The reads every write here needs, named here too for the callers that knew them here.
from tournament.signup.selectors import accepted_count as accepted_count
from tournament.signup.selectors import announced as announced
from tournament.signup.selectors import rank_of as rank_of
from tournament.signup.selectors import registration_for_link as registration_for_link
from tournament.signup.selectors import waiting_list as waiting_list
from tournament.signup.selectors import window_refusal as window_refusal

Status = Registration.Status
#: Statuses that hold a place (a seat, a rank, or race control's attention).
LIVE = (Status.ACCEPTED, Status.WAITING, Status.PENDING)
REGISTRANT = "registrant (own link)"


# --- helpers ---------------------------------------------------------------------------


def stamp(registration: Registration, actor: Actor | None, reason: str) -> None:
    if actor is not None:
        actor.stamp(registration)
    else:
        registration._history_actor = REGISTRANT  # type: ignore[attr-defined]
    registration._change_reason = reason[:100]  # type: ignore[attr-defined]


def _locked_announcement(event: Event) -> Announcement:
    """The event's announcement, locked until the end of the transaction: whoever changes
    seats holds it, so counting and taking a seat are one step. Hold it short: whoever
    confirms next waits for it."""
    Announcement.objects.get_or_create(event=event)
    return Announcement.objects.select_for_update().get(event=event)


def _new_confirm(registration: Registration) -> str:
    secret = new_link_secret()
    registration.confirm_digest = link_digest(secret)
    return secret


def _new_link(registration: Registration) -> str:
    secret = new_link_secret()
    registration.link_digest = link_digest(secret)
    registration.link_sealed = seal(secret)
    return secret


def own_link(registration: Registration) -> str:
    """The registrant's own link (its URL), or "" when no key of this server opens it."""
    secret = unseal(registration.link_sealed)
    return mails.own_url(secret) if secret else ""


def own_link_renew(*, registration: Registration, actor: Actor) -> str:
    """A new own link (the old one stops working): race control hands it over."""
    require_organiser(actor, registration.event)
    secret = _new_link(registration)
    stamp(registration, actor, "link renewed")
    registration.save()
    return mails.own_url(secret)


def require_organiser(actor: Actor, event: Event) -> None:
    if not actor.can_organise(event.championship):
        raise NotAllowed(_("Only the organisers of this championship may do this."))


# --- sign up, confirm ------------------------------------------------------------------

FIELDS = ("first_name", "last_name", "licence", "team", "public_name", "language")


def _clean_fields(data: dict[str, Any]) -> dict[str, Any]:
    errors: dict[str, list[str]] = {}
    raw = {k: str(data.get(k) or "") for k in (*FIELDS, "email")}
    cleaned = {k: value.strip() for k, value in raw.items()}
    for name, limit in (("first_name", 100), ("last_name", 100), ("licence", 30), ("team", 100)):
        if len(cleaned[name]) > limit:
            errors[name] = [_("At most %(count)s characters.") % {"count": limit}]
    for name in ("first_name", "last_name", "licence", "team"):
        if not rules.one_line(raw[name]):  # a name is one line (API.md): never a 500
            errors[name] = [_("One line only: no line break.")]
    for name in ("first_name", "last_name"):
        if not cleaned[name]:
            errors[name] = [_("This field is required.")]
    try:
        validate_email(cleaned["email"])
        if len(cleaned["email"]) > 254:
            raise ValidationError("long")
    except ValidationError:
        errors["email"] = [_("Enter a valid email address.")]
    if cleaned["public_name"] not in Registration.PublicName.values:
        cleaned["public_name"] = Registration.PublicName.FULL
    if cleaned["language"] not in ("fr", "en"):
        cleaned["language"] = "fr"
    if errors:
        raise InvalidInput(
            _("Some fields are invalid: %(fields)s.") % {"fields": ", ".join(errors)}, errors
        )
    return cleaned


def registrations_clean(*, now: datetime.datetime | None = None) -> int:
    """Delete unconfirmed registrations older than 7 days; answers how many."""
    now = now or timezone.now()
    old = Registration.objects.filter(
        status=Status.UNCONFIRMED, created_at__lte=now - rules.DELETE_AFTER
    )
    if not old.exists():  # each sign-up asks: one query, not a transaction, when none
        return 0
    return old.delete()[1].get("tournament.Registration", 0)


#: How often a process deletes the old unconfirmed registrations on a sign-up (the daily
#: task does too; ``make venue`` has no beat): not one query per sign-up of a rush.
CLEAN_EVERY = datetime.timedelta(minutes=10)
_cleaned_at: list[datetime.datetime] = []


def _clean_now_and_then(now: datetime.datetime) -> None:
    if _cleaned_at and abs(now - _cleaned_at[0]) < CLEAN_EVERY:
        return
    _cleaned_at[:] = [now]
    registrations_clean(now=now)


def registration_sign_up(
    *, event: Event, now: datetime.datetime | None = None, **data: Any
) -> None:
    """A sign-up. Answers nothing a stranger could read. One registration per person: an
    address and a folded name (DOMAIN.md "Corrections": a parent may sign up two children,
    each confirmed by its own mail, and no sign-up replaces another). A new person gets a
    confirmation mail; the same person again their own link (or a new confirmation while
    unconfirmed or cancelled); never a second seat."""
    now = now or timezone.now()
    refusal = window_refusal(event, now)
    if refusal is not None:
        raise refusal
    fields = _clean_fields(data)
    email = fields.pop("email")
    _clean_now_and_then(now)
    try:
        with transaction.atomic():
            mail = _sign_up(event, email, fields, now)
    except IntegrityError:
        # The same address twice in the same instant: the second finds the first.
        with transaction.atomic():
            mail = _sign_up(event, email, fields, now)
    tasks.send_soon([mail.pk])


def _sign_up(event: Event, email: str, fields: dict[str, Any], now: datetime.datetime) -> Mail:
    existing = registration_of_person_locked(
        event, email, (fields["first_name"], fields["last_name"])
    )
    if existing is not None:
        existing.event = event
    if existing is not None and existing.status not in (Status.UNCONFIRMED, Status.CANCELLED):
        # Already registered: the mail says so and carries the link; nothing changes.
        return mails.queue(existing, Mail.Kind.LINK, link=own_link(existing), key="link")
    registration = existing or Registration(event=event, email=email)
    for name, value in fields.items():
        setattr(registration, name, value)
    registration.status = Status.UNCONFIRMED
    registration.confirmed_at = None
    registration.reason = ""
    secret = _new_confirm(registration)
    stamp(registration, None, "signed up")
    registration.save()
    if existing is not None:  # a new 24 hours for the new link
        Registration.objects.filter(pk=registration.pk).update(created_at=now)
        registration.created_at = now
    return mails.queue(
        registration,
        Mail.Kind.CONFIRM,
        link=mails.confirm_url(secret),
        first=existing is None,  # a new registration has no mail yet: no query for its key
    )


def _confirmable(registration: Registration, now: datetime.datetime) -> None:
    if registration.status != Status.UNCONFIRMED:
        raise Conflict(
            _(
                "This address is already confirmed: open your registration with the "
                "link of the mail."
            )
        )
    if not rules.confirmable(now, registration.created_at):
        raise Conflict(_("This link expired after 24 hours: sign up again for a new one."))


def _confirm_mail(registration: Registration, status: str, link: str, *, first: bool) -> Mail:
    """The mail a confirmation sends, not saved (a waiting rank as ``mails.RANK``);
    ``first``: the registrant was told nothing but the confirmation's mail yet."""
    if status == Status.ACCEPTED:
        return mails.render(registration, Mail.Kind.ACCEPTED, link=link, first=first)
    if status == Status.WAITING:
        return mails.render(
            registration, Mail.Kind.WAITING, link=link, rank=mails.RANK, first=first
        )
    return mails.render(
        registration, Mail.Kind.LINK, link=link, key="pending", pending=True, first=first
    )


def registration_to_confirm(token: str, now: datetime.datetime | None = None) -> Registration:
    """The registration a confirmation link opens, while it may be confirmed: 404 when
    unknown or replaced, 409 when confirmed already or expired (said before the button)."""
    found = (
        Registration.objects.select_related("event__championship")
        .filter(confirm_digest=link_digest(token))
        .first()
        if len(token) <= 100
        else None
    )
    if found is None:
        raise NotFound(
            _(
                "This confirmation link is unknown or was replaced by a newer one: "
                "use the last mail."
            )
        )
    _confirmable(found, now or timezone.now())
    return found


def _to_confirm_locked(token: str, now: datetime.datetime) -> Registration:
    """``registration_to_confirm_locked``: 404 and 409 as ``registration_to_confirm``, and
    the away guard's 409 (``EventAway``) while the event is away."""
    found = registration_to_confirm_locked(token)
    if found is None:
        raise NotFound(
            _(
                "This confirmation link is unknown or was replaced by a newer one: "
                "use the last mail."
            )
        )
    if found.away_since is not None:
        raise EventAway(found.away_since)
    _confirmable(found, now)
    return found


def registration_confirm(
    *, token: str, now: datetime.datetime | None = None
) -> tuple[Registration, str]:
    """Confirm an address (the confirmation mail's token): the registration takes a seat,
    waits, or awaits race control. Answers it (its waiting rank as ``rank``, None unless
    waiting) and the registrant's own link.

    A rush confirms hundreds a minute, each after the other under the seats' lock, so the
    lock is taken last and held for one statement: everything else is written before it,
    in the same transaction, for the likely outcome (from an unlocked count, read with the
    registration): the registration, its history, its mail (its bodies rendered when it
    leaves, a waiting rank as ``mails.RANK``). Under the lock, one statement counts the
    seats and the waiting ahead and sets the time of confirmation (the waiting list's order:
    the order the lock served) and the rank; only when the count changed the outcome (at
    the last seat) is more done under it."""
    now = now or timezone.now()
    secret = new_link_secret()
    link = mails.own_url(secret)
    with transaction.atomic():
        registration = _to_confirm_locked(token, now)
        event = registration.event
        announcement = announcement_of(event)
        if announcement is None:  # an event never announced (a registration made in the shell)
            announcement, _created = Announcement.objects.get_or_create(event=event)
        likely = rules.on_confirm(
            announcement.approval,
            announcement.capacity,
            registration.accepted_now,
            registration.waiting_now,
        )
        first = not registration.told
        registration.status = likely
        registration.confirmed_at = timezone.now()  # set again under the lock
        registration.link_digest, registration.link_sealed = link_digest(secret), seal(secret)
        stamp(registration, None, f"address confirmed: {likely}")
        registration.save(update_fields=["status", "confirmed_at", "link_digest", "link_sealed"])
        mail = mails.save(_confirm_mail(registration, likely, link, first=first))
        status, rank, registration.confirmed_at = _seat(registration, announcement, mail)
        if status != likely:  # the last seat went meanwhile (or came free): said as it is
            registration.status = status
            Registration.objects.filter(pk=registration.pk).update(status=status)
            Registration.history.filter(history_id=_last_history(registration.pk)).update(
                status=status, history_change_reason=f"address confirmed: {status}"
            )
            Mail.objects.filter(pk=mail.pk).delete()
            mail = mails.save(_confirm_mail(registration, status, link, first=first), rank=rank)
        registration.rank = rank if status == Status.WAITING else None
        tasks.send_soon([mail.pk])
    return registration, link


#: The confirmation under the seats' lock, in one statement (PostgreSQL): the lock is taken
#: by the statement before it, whose snapshot predates it; this one's snapshot follows it,
#: so it counts every seat taken by whoever held the lock before.
_SEAT_SQL = """
WITH t AS (SELECT clock_timestamp() AS at),
counted AS (
    SELECT count(*) FILTER (WHERE status = 'accepted') AS accepted,
           count(*) FILTER (WHERE status = 'waiting' AND confirmed_at <= (SELECT at FROM t))
               AS ahead
    FROM tournament_registration WHERE event_id = %(event)s AND id <> %(registration)s
),
decided AS (
    SELECT CASE WHEN a.approval = 'organiser' THEN 'pending'
                WHEN c.ahead = 0 AND (a.capacity IS NULL OR c.accepted < a.capacity)
                    THEN 'accepted'
                ELSE 'waiting' END AS status,
           c.ahead + 1 AS rank, t.at
    FROM tournament_announcement a, counted c, t WHERE a.id = %(announcement)s
),
registration AS (
    UPDATE tournament_registration SET confirmed_at = decided.at FROM decided
    WHERE id = %(registration)s RETURNING 1
),
history AS (
    UPDATE tournament_historicalregistration SET confirmed_at = decided.at FROM decided
    WHERE history_id = (SELECT max(history_id) FROM tournament_historicalregistration
                        WHERE id = %(registration)s) RETURNING 1
),
mail AS (
    UPDATE tournament_mail SET subject = replace(subject, %(mark)s, decided.rank::text),
        body_text = replace(body_text, %(mark)s, decided.rank::text),
        body_html = replace(body_html, %(mark)s, decided.rank::text)
    FROM decided WHERE tournament_mail.id = %(mail)s RETURNING 1
)
SELECT status, rank, at FROM decided
"""


def _last_history(pk: int) -> int | None:
    """The history row the last save of registration ``pk`` wrote."""
    rows = Registration.history.filter(id=pk).order_by("-history_id")
    return rows.values_list("history_id", flat=True).first()


def _seat(
    registration: Registration, announcement: Announcement, mail: Mail
) -> tuple[str, int, datetime.datetime]:
    """Under the seats' lock (held until the caller's commit): what the confirmation of
    ``registration`` (saved for the likely outcome) becomes, its rank were it waiting, and
    its time of confirmation, written with the rank into its history and ``mail``."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT 1 FROM tournament_announcement WHERE id = %s FOR UPDATE", [announcement.pk]
            )
            cursor.execute(
                _SEAT_SQL,
                {
                    "event": registration.event_id,
                    "registration": registration.pk,
                    "announcement": announcement.pk,
                    "mail": mail.pk,
                    "mark": mails.RANK,
                },
            )
            status, rank, at = cursor.fetchone()
        return status, rank, at
    # Elsewhere (SQLite: one writer at a time), the same with the ORM.
    announcement = Announcement.objects.select_for_update().get(pk=announcement.pk)
    at = timezone.now()
    others = Registration.objects.filter(event_id=registration.event_id).exclude(pk=registration.pk)
    counts = others.aggregate(
        accepted=Count("pk", filter=Q(status=Status.ACCEPTED)),
        ahead=Count("pk", filter=Q(status=Status.WAITING, confirmed_at__lte=at)),
    )
    status = rules.on_confirm(
        announcement.approval, announcement.capacity, counts["accepted"], counts["ahead"]
    )
    rank = counts["ahead"] + 1
    Registration.objects.filter(pk=registration.pk).update(confirmed_at=at)
    Registration.history.filter(history_id=_last_history(registration.pk)).update(confirmed_at=at)
    for name in ("subject", "body_text", "body_html"):
        setattr(mail, name, getattr(mail, name).replace(mails.RANK, str(rank)))
    mail.save(update_fields=["subject", "body_text", "body_html"])
    return status, rank, at


# --- changes -----------------------------------------------------------------------------


def registration_edit(
    *, registration: Registration, now: datetime.datetime | None = None, **data: Any
) -> Registration:
    """The registrant changes their name, team or name in public, until the deadline."""
    now = now or timezone.now()
    announcement = Announcement.objects.filter(event=registration.event).first()
    if not rules.may_edit(now, announcement.edit_until if announcement else None):
        raise Conflict(_("Changes are no longer possible: the deadline has passed."))
    if registration.status in (Status.CANCELLED, Status.REFUSED):
        raise Conflict(_("This registration is closed: nothing may change."))
    fields = _clean_fields(
        {
            **{k: getattr(registration, k) for k in FIELDS},
            "email": registration.email or "x@example.org",
            **data,
        }
    )
    for name in ("first_name", "last_name", "team", "public_name"):
        setattr(registration, name, fields[name])
    stamp(registration, None, "changed by the registrant")
    try:  # one registration per address and name: a child renamed as their sibling is refused
        with transaction.atomic():
            registration.save()
    except IntegrityError:
        message = _("Someone of this name is already registered with this address.")
        raise InvalidInput(message, {"first_name": [message]}) from None
    return registration


def _fill(
    event: Event, announcement: Announcement, why: str, keep_out: int | None = None
) -> list[int]:
    """The first of the waiting list move into free seats, in order, each told; but
    ``keep_out``, whom race control just moved out of a seat. The caller holds the
    announcement's lock. Not once check-in is closed: at the door, race control gives the
    seats (DOMAIN.md)."""
    if announcement.check_in_closed_at is not None:
        return []
    waiting = list(waiting_list(event).exclude(pk=keep_out).select_for_update())
    n = rules.moving_in(announcement.capacity, accepted_count(event), len(waiting))
    sent = []
    for registration in waiting[:n]:
        registration.status = Status.ACCEPTED
        stamp(registration, None, why)
        registration._history_actor = "waiting list"  # type: ignore[attr-defined]
        registration.save()
        sent.append(mails.queue(registration, Mail.Kind.MOVED_IN, link=own_link(registration)).pk)
    return sent


def seats_fill(*, event: Event, why: str) -> int:
    """Move the waiting list into free seats (after a raised capacity); how many moved."""
    with transaction.atomic():
        announcement = _locked_announcement(event)
        sent = _fill(event, announcement, why)
        tasks.send_soon(sent)
    return len(sent)


def registration_cancel(
    *,
    registration: Registration,
    actor: Actor | None = None,
    reason: str = "",
    now: datetime.datetime | None = None,
) -> Registration:
    """Cancel: by the registrant (no actor) until the edit deadline, or by race control
    with a reason. A seat freed goes to the first waiting."""
    now = now or timezone.now()
    event = registration.event
    if actor is not None:
        require_organiser(actor, event)
        if not reason.strip():
            raise InvalidInput(_("Say why."), {"reason": [_("This field is required.")]})
    with transaction.atomic():
        announcement = _locked_announcement(event)
        registration = Registration.objects.select_for_update().get(pk=registration.pk)
        if actor is None and not rules.may_edit(now, announcement.edit_until):
            raise Conflict(_("Cancelling here is no longer possible: write to race control."))
        if registration.status in (Status.CANCELLED, Status.REFUSED):
            raise Conflict(_("This registration is already closed."))
        had_seat = registration.status == Status.ACCEPTED
        registration.status = Status.CANCELLED
        registration.reason = reason.strip()
        stamp(registration, actor, reason.strip() or "cancelled by the registrant")
        registration.save()
        sent = [
            mails.queue(
                registration, Mail.Kind.CANCELLED, link=own_link(registration), reason=reason
            ).pk
        ]
        if had_seat:
            sent += _fill(event, announcement, "a seat freed up")
        tasks.send_soon(sent)
    registration.event = event
    return registration


DECISIONS = (Status.ACCEPTED, Status.REFUSED, Status.WAITING)


def registration_decide(
    *,
    registration: Registration,
    actor: Actor,
    status: str,
    reason: str,
    now: datetime.datetime | None = None,
) -> Registration:
    """Race control accepts, refuses or moves to the waiting list, with a reason; never
    above capacity (409). Moved to the waiting list, a registrant takes its end (a new time
    of confirmation); a seat freed by a refusal or a move goes to the first waiting, who is
    told (DOMAIN.md "Corrections")."""
    now = now or timezone.now()
    event = registration.event
    require_organiser(actor, event)
    if status not in DECISIONS:
        raise InvalidInput(
            _("Use one of: %(choices)s.") % {"choices": ", ".join(DECISIONS)},
            {"status": [_("Use one of: %(choices)s.") % {"choices": ", ".join(DECISIONS)}]},
        )
    if not reason.strip():
        raise InvalidInput(_("Say why."), {"reason": [_("This field is required.")]})
    with transaction.atomic():
        announcement = _locked_announcement(event)
        registration = Registration.objects.select_for_update().get(pk=registration.pk)
        registration.event = event
        before = registration.status
        if before in (Status.UNCONFIRMED, Status.CANCELLED):
            raise Conflict(_("Only a confirmed registration may be decided on."))
        if status == before:
            return registration
        if status == Status.ACCEPTED and not rules.may_accept(
            announcement.capacity, accepted_count(event)
        ):
            raise Conflict(
                _("All %(capacity)s seats are taken: raise the capacity or free a seat first.")
                % {"capacity": announcement.capacity}
            )
        registration.status = status
        registration.reason = reason.strip() if status == Status.REFUSED else ""
        if status == Status.WAITING or registration.confirmed_at is None:
            registration.confirmed_at = now
        stamp(registration, actor, reason.strip())
        registration.save()
        sent = []
        if before == Status.ACCEPTED:
            sent = _fill(event, announcement, "a seat freed up", keep_out=registration.pk)
        link = own_link(registration)
        if status == Status.ACCEPTED:
            kind = Mail.Kind.MOVED_IN if before == Status.WAITING else Mail.Kind.ACCEPTED
            mail = mails.queue(registration, kind, link=link)
        elif status == Status.REFUSED:
            mail = mails.queue(registration, Mail.Kind.REFUSED, link=link, reason=reason.strip())
        else:  # its rank once the seat it freed is taken
            mail = mails.queue(
                registration, Mail.Kind.WAITING, link=link, rank=rank_of(registration)
            )
        tasks.send_soon([mail.pk, *sent])
    return registration
