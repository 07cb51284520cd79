"""The check-out (hosted): the event's bundle for the laptop, signed with the check-out's own
key, and its cancellation. Ground floor: it reads the championship's own rows only."""

from __future__ import annotations

import json
from typing import Any

from django.core import serializers
from django.core.serializers.json import DjangoJSONEncoder
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from tournament import sealing
from tournament.access import Actor
from tournament.away import bundle
from tournament.away.models import Checkout
from tournament.clubs import carried
from tournament.errors import Conflict, InvalidInput, NotAllowed
from tournament.models import Championship, Driver, Entry, Event
from tournament.registration.csv_import import MAX_NUMBER
from tournament.signup.models import Registration

#: How many numbers a check-out keeps for the drivers created at the door.
RESERVED = 30
#: The registrations the bundle carries: the accepted, and the waiting list with its order
#: and who is at the door, so that closing check-in on the laptop moves the waiting present
#: into the absent's seats (DOMAIN.md "Corrections to 'Before the day'"); those awaiting
#: race control's decision and those absent already, decided at the venue.
TRAVELS = (
    Registration.Status.ACCEPTED,
    Registration.Status.WAITING,
    Registration.Status.PENDING,
    Registration.Status.ABSENT,
)


def under_way(event: Event) -> Checkout | None:
    """The event's hosted check-out neither cancelled nor returned: the event is away."""
    return (
        Checkout.objects.filter(
            event=event,
            side=Checkout.Side.HOSTED,
            cancelled_at__isnull=True,
            returned_at__isnull=True,
        )
        .select_related("by")
        .first()
    )


def checkout_key(checkout: Checkout) -> str:
    """The check-out's signing key (sealed at rest); refused when this server cannot open it."""
    key = sealing.unseal(checkout.key)
    if key is None:
        raise Conflict(_("This check-out's key cannot be read on this server."))
    return key


def _plain(instance: Any, *leave_out: str) -> dict[str, Any]:
    """A row's own fields as JSON data (Django's serializer), without its id."""
    row = serializers.serialize("python", [instance])[0]["fields"]
    data: dict[str, Any] = {
        key: value for key, value in row.items() if key not in leave_out and key != "organisers"
    }
    return json.loads(json.dumps(data, cls=DjangoJSONEncoder))  # type: ignore[no-any-return]


def reserved_numbers(championship: Championship, count: int = RESERVED) -> list[int]:
    """The smallest numbers above the championship's drivers, none another trip under way
    of the championship holds already."""
    taken = set(Driver.objects.filter(championship=championship).values_list("number", flat=True))
    for held in Checkout.objects.filter(
        event__championship=championship,
        side=Checkout.Side.HOSTED,
        cancelled_at__isnull=True,
        returned_at__isnull=True,
    ).values_list("reserved_numbers", flat=True):
        taken |= set(held or [])
    start = max(taken, default=0) + 1
    numbers = [n for n in range(start, MAX_NUMBER + 1)][:count]
    if len(numbers) < count:  # the top is reached: the gaps below
        numbers += [n for n in range(1, start) if n not in taken][: count - len(numbers)]
    return sorted(numbers)


def _email(text: str, travels: bool) -> str:
    return text if travels else ""


def event_bundle(checkout: Checkout, key: str) -> dict[str, Any]:
    """The signed bundle of ``checkout`` (API.md "The event away")."""
    event = Event.objects.select_related("championship", "circuit").get(pk=checkout.event_id)
    championship = event.championship
    announcement = getattr(event, "announcement", None)
    travels = bool(announcement and announcement.emails_travel)
    drivers = Driver.objects.filter(championship=championship).select_related("team", "player")
    data = {
        "format": bundle.OUT,
        "event": {
            **_plain(event, "championship", "circuit"),
            "championship": championship.slug,
            # A game on its own tracks has no circuit (DOMAIN.md "Any racing game").
            "circuit": event.circuit.slug if event.circuit else None,
        },
        "championship": _plain(championship),
        "circuit": _plain(event.circuit) if event.circuit else None,
        # The championship's club (and the circuit's) by slug: DOMAIN.md "a bundle brings
        # its championship's club along"; its people stay on this server.
        "clubs": carried.listed(
            [championship.club_id, *([event.circuit.club_id] if event.circuit else [])]
        ),
        "teams": [{"name": t.name, "colour": t.colour} for t in championship.teams.order_by("pk")],
        "drivers": [
            {
                "number": d.number,
                "first_name": d.first_name,
                "last_name": d.last_name,
                "public_name_choice": d.public_name_choice,
                "team": d.team.name if d.team else None,
                "email": _email(d.email, travels),
                "player": None
                if d.player is None
                else {
                    "id": d.player.pk,
                    "first_name": d.player.first_name,
                    "last_name": d.player.last_name,
                    "licence": d.player.licence,
                    "email": _email(d.player.email, travels),
                },
            }
            for d in drivers.order_by("number")
        ],
        "registrations": [
            {
                "id": r.pk,
                "first_name": r.first_name,
                "last_name": r.last_name,
                "email": _email(r.email, travels),
                "licence": r.licence,
                "team": r.team,
                "public_name": r.public_name,
                "language": r.language,
                "status": r.status,
                # The waiting list's order (DOMAIN.md: the order of confirmation).
                "confirmed_at": r.confirmed_at.isoformat() if r.confirmed_at else None,
                "present": r.present,
                "driver": r.driver.number if r.driver else None,
            }
            for r in Registration.objects.filter(event=event, status__in=TRAVELS)
            .select_related("driver")
            .order_by("confirmed_at", "pk")
        ],
        "entries": [
            {
                "driver": e.driver.number,
                "checked_in": e.checked_in,
                "absent": e.absent,
                "fast": e.fast,
                "paid": e.paid,
            }
            for e in Entry.objects.filter(event=event).select_related("driver").order_by("pk")
        ],
        "reserved_numbers": list(checkout.reserved_numbers),
        "checkout": {
            "id": str(checkout.uid),
            "at": checkout.at.isoformat(),
            "by": checkout.by.get_username() if checkout.by else "",
            # The laptop signs the way back with it (module docstring of ``bundle``).
            "key": key,
        },
    }
    return bundle.signed(data, key)


def _refuse_tables(event: Event) -> None:
    """Refuse an event whose tables are made already. The bundle does not carry tables: the
    laptop's day is added whole on return and replaces nothing (DOMAIN.md "The event away"),
    so tables made here and changed there would come back twice. The message says how many
    and what to do."""
    counts = {}
    for related in Event._meta.related_objects:
        label = related.related_model._meta.label
        if label in ("qualifying.QualifyingTable", "races.RaceTable"):
            counts[label] = related.related_model._default_manager.filter(event=event).count()
    made = [
        text % {"count": counts[label]}
        for label, text in (
            (
                "qualifying.QualifyingTable",
                ngettext("%(count)s qualifying table", "%(count)s qualifying tables",
                         counts.get("qualifying.QualifyingTable", 0)),
            ),
            (
                "races.RaceTable",
                ngettext("%(count)s race table", "%(count)s race tables",
                         counts.get("races.RaceTable", 0)),
            ),
        )
        if counts.get(label)
    ]  # fmt: skip
    if made:
        raise Conflict(
            _(
                "This event already has %(tables)s: a check-out does not carry tables, the "
                "day's tables are made on the laptop. Check out before seating the "
                "qualifying; to check out now, undo the race tables on their page (%(undo)s; "
                "while none has started), or run the day on this server."
            )
            % {"tables": ", ".join(made), "undo": reverse("allocation", args=[event.slug])},
            current={
                "qualifying_tables": counts.get("qualifying.QualifyingTable", 0),
                "race_tables": counts.get("races.RaceTable", 0),
                "undo": reverse("allocation", args=[event.slug]),
            },
        )


@transaction.atomic
def check_out(*, actor: Actor, event: Event) -> dict[str, Any]:
    """Send ``event`` away: a hosted check-out, and its signed bundle."""
    if not actor.can_organise(event.championship):
        raise NotAllowed(_("Only the organisers of this championship may do this."))
    Event.objects.select_for_update().filter(pk=event.pk).first()
    away = under_way(event)
    if away is not None:
        raise Conflict(
            _("This event is already away since %(at)s.") % {"at": away.at.isoformat()},
            current={"away_since": away.at.isoformat()},
        )
    _refuse_tables(event)
    key = bundle.new_key()
    try:
        with transaction.atomic():
            checkout = Checkout.objects.create(
                event=event,
                side=Checkout.Side.HOSTED,
                by=actor.user if actor.is_authenticated else None,
                key=sealing.seal(key),
                reserved_numbers=reserved_numbers(event.championship),
            )
    except IntegrityError as exc:  # another check-out at the same instant
        raise Conflict(_("This event is already away.")) from exc
    return event_bundle(checkout, key)


@transaction.atomic
def cancel(*, actor: Actor, event: Event, reason: str) -> Checkout:
    """Cancel the trip under way: the bundle out there can no longer return."""
    if not actor.can_organise(event.championship):
        raise NotAllowed(_("Only the organisers of this championship may do this."))
    reason = (reason or "").strip()
    if not reason:
        raise InvalidInput(
            _("Say why the check-out is cancelled."), {"reason": [_("This field is required.")]}
        )
    checkout = under_way(event)
    if checkout is None:
        raise Conflict(_("This event is not away."))
    checkout.cancelled_at = timezone.now()
    checkout.cancel_reason = reason[:500]
    checkout.save(update_fields=["cancelled_at", "cancel_reason"])
    return checkout
