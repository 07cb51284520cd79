"""On the day (DOMAIN.md "Before the day", "At the door" and "The entry", and its
"Corrections to 'Before the day'"): an accepted registration checks in as the championship's
driver and the event's entry. Closing check-in makes the accepted registrants not checked in
absent (a status of its own: no longer counted, gone from the psych sheet) and gives their
seats to the waiting registrants present at the door, in waiting-list order; an absent one
arriving late checks in only into a free seat, else joins the door's waiting line.

A licence typed by a registrant is a hint, never a key: the drivers of the championship who
may be the registrant (the same licence, address or folded name) are proposed side by side
(``proposals_for``), and the registration joins one only when race control confirms it
(``join``); otherwise it is a new driver, whose player holds the licence typed only when no
one else does (else it claims it: a match proposed to that player's organisers,
tournament/players/matching.py).

Everything here is the day's counter: the club's desk does it as the organisers do (DOMAIN.md
"Clubs and who may do what").
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.utils import formats, timezone
from django.utils.translation import gettext as _

from tournament.access import Actor
from tournament.away.arrival import new_driver_number
from tournament.errors import Conflict, InvalidInput
from tournament.models import Driver, Entry, Event, Player
from tournament.players.identity import checked_licence
from tournament.players.matching import DriverMatch, drivers_like
from tournament.registration import services as registration
from tournament.signup import mails, rules, services, tasks
from tournament.signup.models import Announcement, Mail, Registration

Status = Registration.Status


@dataclass
class Closing:
    """What closing check-in does (or did): who is absent, who takes a seat at the door."""

    absent: list[Registration]
    moved_in: list[Registration]


# --- who the registrant is ------------------------------------------------------------------


def proposals_for(reg: Registration) -> list[DriverMatch]:
    """The championship's drivers who may be this registrant, for race control to confirm;
    none once the registration has its driver. Drivers already another registration's at this
    event are not proposed."""
    if reg.driver_id is not None:
        return []
    taken = set(
        Registration.objects.filter(event_id=reg.event_id, driver__isnull=False)
        .exclude(pk=reg.pk)
        .values_list("driver", flat=True)
    )
    return drivers_like(
        championship=reg.event.championship,
        first_name=reg.first_name,
        last_name=reg.last_name,
        email=reg.email,
        licence=reg.licence,
        exclude=taken,
    )


def _new_driver(reg: Registration, actor: Actor) -> Driver:
    """A new driver of a new player: the licence typed is the player's only when no one
    holds it, else only claimed (a proposed match, never a join)."""
    championship = reg.event.championship
    driver = registration.driver_create(
        actor=actor,
        championship=championship,
        number=new_driver_number(championship),
        first_name=reg.first_name,
        last_name=reg.last_name,
        team=reg.team or None,
        email=reg.email,
    )
    licence = checked_licence(reg.licence)
    player = driver.player
    if licence is not None and player is not None:
        if Player.objects.filter(licence=licence).exists():
            player.claimed_licence = licence
            player.save(update_fields=["claimed_licence"])
        else:
            player.licence = licence
            player.save(update_fields=["licence"])
    return driver


def _driver_of(reg: Registration, actor: Actor, join: int | None) -> Driver:
    """The registration's driver: the one it already has; the driver n° ``join`` of the
    championship race control confirmed it is; else a new one."""
    championship = reg.event.championship
    if reg.driver_id is not None:
        driver: Driver = reg.driver  # type: ignore[assignment]
        if join is not None and join != driver.number:
            raise Conflict(
                _("This registrant already checked in as n° %(number)s.")
                % {"number": driver.number}
            )
        return driver
    if join is None:
        return _new_driver(reg, actor)
    driver = Driver.objects.filter(championship=championship, number=join).first()
    if driver is None:
        message = _("No driver n° %(number)s in this championship.") % {"number": join}
        raise InvalidInput(message, {"join": [message]})
    other = Registration.objects.filter(event_id=reg.event_id, driver=driver).exclude(pk=reg.pk)
    if other.exists():
        raise Conflict(
            _("N° %(number)s already checked in for another registrant of this event.")
            % {"number": join}
        )
    return driver


# --- the door ---------------------------------------------------------------------------------


def _present_waiting(event: Event) -> list[Registration]:
    return list(services.waiting_list(event).filter(present=True))


def _seat_free(event: Event, announcement: Announcement) -> bool:
    """A seat no one is owed: beyond the accepted and the waiting present at the door."""
    taken = services.accepted_count(event) + len(_present_waiting(event))
    return rules.may_accept(announcement.capacity, taken)


def _late(reg: Registration, actor: Actor, announcement: Announcement) -> bool:
    """An absent registrant arriving late: into a free seat (True), else at the end of the
    door's waiting line, present (False)."""
    if _seat_free(reg.event, announcement):
        reg.status = Status.ACCEPTED
        services.stamp(reg, actor, "arrived late: took a free seat")
        return True
    reg.status = Status.WAITING
    reg.present = True
    reg.confirmed_at = timezone.now()  # the end of the line, never its head
    services.stamp(reg, actor, "arrived late: no free seat, waits at the door")
    reg.save()
    return False


def registration_check_in(
    *, reg: Registration, actor: Actor, paid: bool = False, join: int | None = None
) -> Entry | None:
    """A registrant at the door checks in: the driver (``join``: the number of the driver race
    control confirmed they are, else their own or a new one) and the entry, checked in, with
    the public name they chose. None when an absent one arrived late and found no free seat
    (they wait at the door)."""
    event = reg.event
    registration.require_desk(actor, event.championship)
    with transaction.atomic():
        announcement = services._locked_announcement(event)
        reg = Registration.objects.select_for_update().get(pk=reg.pk)
        reg.event = event
        if reg.erased_at is not None:
            raise Conflict(_("This registration was erased: nothing more is done with it."))
        if reg.status == Status.ABSENT:
            if not _late(reg, actor, announcement):
                return None
        elif reg.status == Status.WAITING:
            raise Conflict(
                _(
                    "A waiting registrant takes a seat at the door: mark them present; once "
                    "check-in is closed they take the free seats in waiting-list order."
                )
            )
        elif reg.status != Status.ACCEPTED:
            raise Conflict(_("Only an accepted registration checks in."))
        else:
            services.stamp(reg, actor, "checked in")
        driver = _driver_of(reg, actor, join)
        if driver.public_name_choice != reg.public_name:
            driver.public_name_choice = reg.public_name
            driver.save(update_fields=["public_name_choice"])
        registration.entries_register(actor=actor, event=event, numbers=[driver.number])
        [entry] = registration.entries_checkin(actor=actor, event=event, numbers=[driver.number])
        if paid and not entry.paid:
            entry.paid = True
            actor.stamp(entry).save(update_fields=["paid"])
        reg.driver = driver
        reg.save()
    return entry


def _closed(announcement: Announcement | None) -> Conflict | None:
    if announcement is None or announcement.check_in_closed_at is None:
        return None
    when = formats.date_format(
        timezone.localtime(announcement.check_in_closed_at), "SHORT_DATETIME_FORMAT"
    )
    return Conflict(_("Check-in was closed on %(when)s.") % {"when": when})


def _closing(event: Event, announcement: Announcement | None) -> Closing:
    accepted = list(
        Registration.objects.filter(event=event, status=Status.ACCEPTED).order_by(
            "confirmed_at", "pk"
        )
    )
    here = set(
        Entry.objects.filter(event=event, checked_in=True, driver__isnull=False).values_list(
            "driver", flat=True
        )
    )
    absent = [r for r in accepted if r.driver_id is None or r.driver_id not in here]
    waiting = _present_waiting(event)
    capacity = announcement.capacity if announcement is not None else None
    seats = len(waiting) if capacity is None else capacity - (len(accepted) - len(absent))
    return Closing(absent=absent, moved_in=waiting[: max(0, seats)])


def check_in_preview(*, event: Event, actor: Actor) -> Closing:
    """What closing check-in would do, changing nothing (race control reads it first)."""
    registration.require_desk(actor, event.championship)
    announcement = Announcement.objects.filter(event=event).first()
    refusal = _closed(announcement)
    if refusal is not None:
        raise refusal
    return _closing(event, announcement)


def _move_in(reg: Registration, actor: Actor) -> int:
    """A present waiting registrant takes a seat (then checks in as any accepted one): told
    by mail. Answers the mail's id."""
    reg.status = Status.ACCEPTED
    services.stamp(reg, actor, "took an absent one's seat at the door")
    reg.save()
    return mails.queue(reg, Mail.Kind.MOVED_IN, link=services.own_link(reg)).pk


def check_in_close(*, event: Event, actor: Actor) -> Closing:
    """Close check-in: the accepted registrants not checked in are absent, and the waiting
    registrants present take their seats in waiting-list order, each told."""
    registration.require_desk(actor, event.championship)
    with transaction.atomic():
        announcement = services._locked_announcement(event)
        refusal = _closed(announcement)
        if refusal is not None:
            raise refusal
        closing = _closing(event, announcement)
        announcement.check_in_closed_at = timezone.now()
        actor.stamp(announcement).save()
        for reg in closing.absent:
            reg.status = Status.ABSENT
            services.stamp(reg, actor, "absent when check-in closed")
            reg.save()
            entry = Entry.objects.filter(event=event, driver_id=reg.driver_id).first()
            if reg.driver_id is not None and entry is not None and not entry.absent:
                entry.absent = True
                actor.stamp(entry).save(update_fields=["absent"])
        tasks.send_soon([_move_in(reg, actor) for reg in closing.moved_in])
    return closing


def present_set(*, reg: Registration, actor: Actor, present: bool = True) -> Registration:
    """A waiting registrant came to the door (or not): only the present take a seat."""
    registration.require_desk(actor, reg.event.championship)
    if reg.status != Status.WAITING:
        raise Conflict(_("Only a waiting registrant is marked at the door."))
    reg.present = present
    services.stamp(reg, actor, "at the door" if present else "not at the door")
    reg.save(update_fields=["present"])
    return reg


def door_candidates(event: Event) -> list[Registration]:
    """Who would take the free seats: the present waiting, in order, as many as seats are
    free once check-in is closed (none before)."""
    announcement = Announcement.objects.filter(event=event).first()
    if announcement is None or announcement.check_in_closed_at is None:
        return []
    waiting = _present_waiting(event)
    if announcement.capacity is None:
        return waiting
    return waiting[: max(0, announcement.capacity - services.accepted_count(event))]


def door_admit(*, event: Event, actor: Actor) -> list[Registration]:
    """Race control confirms: the candidates take the free seats (then check in), each told."""
    registration.require_desk(actor, event.championship)
    with transaction.atomic():
        services._locked_announcement(event)
        admitted = door_candidates(event)
        tasks.send_soon([_move_in(reg, actor) for reg in admitted])
    return admitted
