"""On the laptop: a bundle loaded into the venue's database (``manage.py import_event``,
``make venue BUNDLE=…``), and the numbers of the drivers created at the door.

An empty database, or one holding the championship from an earlier check-out: the
championship and the circuit are found by slug, teams by name, drivers by number (their
players kept), players by their hosted id (``ArrivedPlayer``: the way back names a door
driver's player by it when the laptop joined them), the event by slug. All of it or
nothing, in one transaction. The venue's check-out (``Checkout``, side venue) keeps the key
that signs the way back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import DatabaseError, transaction
from django.db.models import Max
from django.utils import formats, timezone, translation
from django.utils.translation import gettext as _

from tournament import sealing
from tournament.away import bundle
from tournament.away.models import ArrivedPlayer, ArrivedRegistration, Checkout
from tournament.clubs import carried
from tournament.errors import Conflict, ServiceError
from tournament.models import Championship, Circuit, Driver, Entry, Event, Player, Team
from tournament.players.identity import player_for
from tournament.signup.models import Registration


class ArrivalError(Exception):
    """A bundle this laptop does not load, with a sentence saying why."""


@dataclass(frozen=True)
class Arrived:
    event: str
    drivers: int
    entries: int
    registrations: int


def _fields(model: Any, data: dict[str, Any], *leave_out: str) -> dict[str, Any]:
    names = {
        f.name
        for f in model._meta.concrete_fields
        if not f.primary_key and not f.is_relation and f.editable
    }
    return {k: v for k, v in data.items() if k in names and k not in leave_out}


def _checked(text: str | bytes) -> dict[str, Any]:
    try:
        data = bundle.parse(text, bundle.OUT)
    except bundle.BundleError as exc:
        why = _("This is not a Paddock event bundle (%(why)s).") % {"why": exc}
        raise ArrivalError(why) from exc
    key = data["checkout"].get("key")
    if not isinstance(key, str) or not bundle.verify(data, key):
        raise ArrivalError(_("The bundle's signature fails: the file was changed on its way."))
    return data


def import_event(text: str | bytes) -> Arrived:
    """Load the bundle ``text`` (module docstring)."""
    data = _checked(text)
    uid = data["checkout"]["id"]
    if Checkout.objects.filter(uid=uid, side=Checkout.Side.VENUE).exists():
        raise ArrivalError(_("This bundle is already loaded here."))
    try:
        with transaction.atomic():
            return _load(data)
    except ServiceError as exc:  # e.g. a licence number already another driver's here
        raise ArrivalError(
            _("The bundle could not be loaded, nothing was imported: %(error)s")
            % {"error": exc.message}
        ) from exc
    except (KeyError, TypeError, ValueError, DatabaseError) as exc:
        raise ArrivalError(
            _("The bundle could not be loaded, nothing was imported: %(error)s")
            % {"error": str(exc).splitlines()[0] if str(exc) else type(exc).__name__}
        ) from exc


def _load(data: dict[str, Any]) -> Arrived:
    clubs = carried.ids_here(data.get("clubs"))
    circuit_data = data["circuit"]
    circuit = Circuit.objects.filter(slug=circuit_data["slug"]).first() if circuit_data else None
    if circuit is None and circuit_data:  # none: a game on its own tracks
        circuit = Circuit.objects.create(
            **_fields(Circuit, circuit_data), club_id=clubs.get(circuit_data.get("club"))
        )
    ch_data = data["championship"]
    championship = Championship.objects.filter(slug=ch_data["slug"]).first()
    if championship is None:
        championship = Championship.objects.create(
            **_fields(Championship, ch_data, "created_at"), club_id=clubs.get(ch_data.get("club"))
        )
    teams = {t.name: t for t in Team.objects.filter(championship=championship)}
    for team in data["teams"]:
        if team["name"] not in teams:
            teams[team["name"]] = Team.objects.create(
                championship=championship, name=team["name"], colour=team.get("colour") or ""
            )
    drivers = {d.number: d for d in Driver.objects.filter(championship=championship)}
    for row in data["drivers"]:
        player = row.get("player") or {}
        if row["number"] in drivers:
            _remember(drivers[row["number"]].player, player.get("id"))
            continue
        driver = Driver(
            championship=championship,
            number=row["number"],
            first_name=row["first_name"],
            last_name=row["last_name"],
            # The name the public reads on the laptop's projector and pages, as chosen.
            public_name_choice="short" if row.get("public_name_choice") == "short" else "full",
            team=teams.get(row.get("team") or ""),
            email=row.get("email") or "",
        )
        # The same person as a driver of another championship loaded here before: one
        # player on this laptop too (by the hosted id, never by name).
        known = ArrivedPlayer.objects.filter(hosted_id=player.get("id") or 0).first()
        if (
            known is not None
            and not Driver.objects.filter(
                championship=championship, player_id=known.player_id
            ).exists()
        ):
            driver.player_id = known.player_id
        else:
            driver.player = player_for(
                championship=championship,
                first_name=player.get("first_name") or driver.first_name,
                last_name=player.get("last_name") or driver.last_name,
                email=player.get("email") or "",
                licence=player.get("licence"),
            )
        driver.save()
        _remember(driver.player, player.get("id"))
        drivers[driver.number] = driver
    ev_data = data["event"]
    fields = _fields(Event, ev_data, "slug")
    event = Event.objects.filter(slug=ev_data["slug"]).first()
    if event is not None and event.championship_id != championship.pk:
        raise ArrivalError(_("An event of another championship has this slug here."))
    if event is None:
        event = Event.objects.create(
            championship=championship, circuit=circuit, slug=ev_data["slug"], **fields
        )
    else:
        Event.objects.filter(pk=event.pk).update(circuit=circuit, **fields)
    for row in data["entries"]:
        Entry.objects.update_or_create(
            event=event,
            driver=drivers[row["driver"]],
            defaults={k: bool(row.get(k)) for k in ("checked_in", "absent", "fast", "paid")},
        )
    Registration.objects.filter(event=event).delete()
    for row in data["registrations"]:
        registration = Registration.objects.create(
            event=event,
            driver=drivers.get(row.get("driver")),
            **_fields(Registration, row, "confirm_digest", "link_digest"),
        )
        if isinstance(row.get("id"), int):
            ArrivedRegistration.objects.create(registration=registration, hosted_id=row["id"])
    Checkout.objects.create(
        event=event,
        side=Checkout.Side.VENUE,
        uid=data["checkout"]["id"],
        key=sealing.seal(data["checkout"]["key"]),
        reserved_numbers=[int(n) for n in data["reserved_numbers"]],
    )
    return Arrived(
        event=event.slug,
        drivers=len(data["drivers"]),
        entries=len(data["entries"]),
        registrations=len(data["registrations"]),
    )


def _remember(player: Player | None, hosted_id: Any) -> None:
    """Record that ``player`` is the hosted server's player ``hosted_id``."""
    if player is None or not isinstance(hosted_id, int) or hosted_id <= 0:
        return
    ArrivedPlayer.objects.update_or_create(player=player, defaults={"hosted_id": hosted_id})


# --- The numbers of the drivers created at the door ---------------------------------------


def reserved_for(championship: Championship) -> list[int] | None:
    """On the laptop: the numbers the check-outs loaded here reserved for ``championship``'s
    new drivers; None on a server that loaded none (numbers are then free)."""
    held = Checkout.objects.filter(
        side=Checkout.Side.VENUE, event__championship=championship
    ).values_list("reserved_numbers", flat=True)
    if not held:
        return None
    return sorted({int(n) for numbers in held for n in numbers or []})


def held_by_trips(championship: Championship) -> dict[int, Checkout]:
    """On the hosted server: the numbers the trips under way of ``championship`` reserved
    (number → its check-out). The day at the venue gives them to the drivers it creates at
    the door, so no driver made here takes one until the trip is back or cancelled
    (DOMAIN.md "The event away"; API.md "The door and a person's data")."""
    held: dict[int, Checkout] = {}
    for checkout in Checkout.objects.filter(
        side=Checkout.Side.HOSTED,
        event__championship=championship,
        cancelled_at__isnull=True,
        returned_at__isnull=True,
    ).select_related("event"):
        held.update({int(n): checkout for n in checkout.reserved_numbers or []})
    return held


def reserved_numbers_of(championship: Championship) -> set[int]:
    """The numbers no driver created on this server may take now: on the hosted server those
    the trips under way of ``championship`` reserved; none on the laptop (it gives them)."""
    if reserved_for(championship) is not None:
        return set()
    return set(held_by_trips(championship))


def _refuse_held(championship: Championship, number: int) -> None:
    checkout = held_by_trips(championship).get(number)
    if checkout is None:
        return
    message = _(
        "Number %(number)s is kept for the drivers created at the door of %(event)s "
        "(checked out on %(at)s): choose another one."
    ) % {
        "number": number,
        "event": checkout.event.name,
        "at": formats.date_format(timezone.localtime(checkout.at), "DATETIME_FORMAT"),
    }
    raise Conflict(message, {"number": [message]})


def door_number(championship: Championship, number: int | None) -> int | None:
    """The number a driver created now takes: ``number`` as typed where no bundle was loaded,
    unless a trip under way reserved it (Conflict naming the check-out); on the laptop, the
    smallest reserved number still free (``number`` must be one of them when given).
    Conflict when they are all used or ``number`` is not reserved."""
    reserved = reserved_for(championship)
    if reserved is None:
        if number is not None:
            _refuse_held(championship, number)
        return number
    used = set(
        Driver.objects.filter(championship=championship, number__in=reserved).values_list(
            "number", flat=True
        )
    )
    free = [n for n in reserved if n not in used]
    if number is not None and number not in reserved:
        raise Conflict(
            _("On this laptop a new driver takes a number the check-out reserved: %(numbers)s.")
            % {"numbers": ", ".join(str(n) for n in free) or "-"},
            {"number": [_("Not a reserved number.")]},
        )
    if number is not None:
        return number
    if not free:
        raise Conflict(
            _(
                "The %(count)s numbers the check-out reserved for new drivers are all used: "
                "register more drivers on the hosted server before the next trip."
            )
            % {"count": len(reserved)},
            {"number": [_("No reserved number left.")]},
        )
    return free[0]


def new_driver_number(championship: Championship) -> int:
    """The number a driver made without one takes (check-in of a registration): on the
    laptop, the smallest reserved number still free; elsewhere the one above the
    championship's highest, past the numbers a trip under way reserved."""
    if reserved_for(championship) is not None:
        return door_number(championship, None)  # type: ignore[return-value]
    held = set(held_by_trips(championship))
    top = Driver.objects.filter(championship=championship).aggregate(top=Max("number"))["top"]
    number = (top or 0) + 1
    while number in held:
        number += 1
    return number


def next_door_number(championship: Championship) -> int | None:
    """The number the next driver created at the door takes on the laptop (None elsewhere,
    or when none is left)."""
    try:
        return door_number(championship, None) if reserved_for(championship) else None
    except Conflict:
        return None


def load_bundle(path: str) -> str:
    """``make venue BUNDLE=…``: load the bundle at ``path`` once (a restart with the same
    bundle carries on); answers what was done, or ArrivalError. In English, as every line of
    the console (its refusals too)."""
    with translation.override(None):
        return _load_bundle(path)


def _load_bundle(path: str) -> str:
    try:
        with open(path, "rb") as handle:
            text = handle.read()
    except OSError as exc:
        raise ArrivalError(
            _("Cannot read %(file)s: %(error)s") % {"file": path, "error": exc.strerror}
        ) from exc
    try:
        uid = bundle.parse(text, bundle.OUT)["checkout"]["id"]
    except bundle.BundleError as exc:
        raise ArrivalError(
            _("This is not a Paddock event bundle (%(why)s).") % {"why": exc}
        ) from exc
    if Checkout.objects.filter(uid=uid, side=Checkout.Side.VENUE).exists():
        return f"The bundle {path} is loaded already."
    return loaded_line(import_event(text))


def loaded_line(arrived: Arrived) -> str:
    """The console's line for a bundle loaded (English, as the console)."""
    return (
        f"Event {arrived.event} loaded: {arrived.drivers} drivers, {arrived.entries} entries, "
        f"{arrived.registrations} registrations."
    )
