"""On the day (DOMAIN.md "Before the day", "At the door" and "The entry"): an accepted
registration checks in as the championship's driver (the number this player already has in
the championship, or a new one) and the event's entry; once race control closes check-in,
waiting registrants present at the door take the absent ones' seats, in waiting-list order,
when race control confirms.

The driver is made by the registration's own service (``driver_create``): its player is the
one holding the licence, else a new one, and matches by e-mail or folded name are proposed
to race control (tournament/players/matching.py), never merged here. The CSV import is
untouched: drivers it made are found here by their licence or address.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext as _

from tournament.access import Actor
from tournament.errors import Conflict
from tournament.models import Driver, Entry, Event
from tournament.registration import services as registration
from tournament.signup import mails, services, tasks
from tournament.signup.models import Announcement, Mail, Registration

Status = Registration.Status


def _driver_of(reg: Registration, actor: Actor) -> Driver:
    """The championship's driver of this registrant: the one already linked, the one whose
    player holds the same licence, the one with the same address, else a new number."""
    championship = reg.event.championship
    if reg.driver_id is not None:
        return reg.driver
    drivers = Driver.objects.filter(championship=championship)
    found = None
    if reg.licence:
        found = drivers.filter(player__licence=reg.licence).first()
    if found is None and reg.email:
        found = drivers.filter(email__iexact=reg.email).first()
    if found is not None:
        return found
    number = (drivers.aggregate(top=Max("number"))["top"] or 0) + 1
    return registration.driver_create(
        actor=actor,
        championship=championship,
        number=number,
        first_name=reg.first_name,
        last_name=reg.last_name,
        team=reg.team or None,
        email=reg.email,
        licence=reg.licence or None,
    )


def registration_check_in(*, reg: Registration, actor: Actor, paid: bool = False) -> Entry:
    """An accepted registrant at the door: the driver and the entry, checked in."""
    services.require_organiser(actor, reg.event)
    if reg.status != Status.ACCEPTED:
        raise Conflict(_("Only an accepted registration checks in."))
    with transaction.atomic():
        driver = _driver_of(reg, actor)
        registration.entries_register(actor=actor, event=reg.event, numbers=[driver.number])
        [entry] = registration.entries_checkin(
            actor=actor, event=reg.event, numbers=[driver.number]
        )
        if paid and not entry.paid:
            entry.paid = True
            actor.stamp(entry).save(update_fields=["paid"])
        reg.driver = driver
        actor.stamp(reg)
        reg._change_reason = "checked in"  # type: ignore[attr-defined]
        reg.save()
    return entry


def check_in_close(*, event: Event, actor: Actor) -> int:
    """Close check-in: accepted registrants not checked in are absent. Answers how many."""
    services.require_organiser(actor, event)
    with transaction.atomic():
        announcement = services._locked_announcement(event)
        announcement.check_in_closed_at = timezone.now()
        actor.stamp(announcement).save()
        absent = 0
        for reg in Registration.objects.filter(event=event, status=Status.ACCEPTED):
            entry = Entry.objects.filter(event=event, driver_id=reg.driver_id).first()
            if reg.driver_id is None or entry is None or not entry.checked_in:
                absent += 1
                if entry is not None and not entry.absent:
                    entry.absent = True
                    actor.stamp(entry).save(update_fields=["absent"])
    return absent


def present_set(*, reg: Registration, actor: Actor, present: bool = True) -> Registration:
    """A waiting registrant came to the door (or not)."""
    services.require_organiser(actor, reg.event)
    reg.present = present
    actor.stamp(reg)
    reg.save(update_fields=["present"])
    return reg


def _checked_in(event: Event) -> int:
    return Registration.objects.filter(
        event=event,
        status=Status.ACCEPTED,
        driver__entries__event=event,
        driver__entries__checked_in=True,
    ).count()


def door_candidates(event: Event) -> list[Registration]:
    """Who would take the absent ones' seats: the present waiting, in order, as many as
    seats are free once check-in is closed (none before)."""
    announcement = Announcement.objects.filter(event=event).first()
    if announcement is None or announcement.check_in_closed_at is None:
        return []
    waiting = list(services.waiting_list(event).filter(present=True))
    if announcement.capacity is None:
        return waiting
    return waiting[: max(0, announcement.capacity - _checked_in(event))]


def door_admit(*, event: Event, actor: Actor) -> list[Entry]:
    """Race control confirms: the candidates are accepted and checked in, each told."""
    services.require_organiser(actor, event)
    entries = []
    with transaction.atomic():
        services._locked_announcement(event)
        sent = []
        for reg in door_candidates(event):
            reg.status = Status.ACCEPTED
            actor.stamp(reg)
            reg._change_reason = "took an absent one's seat at the door"  # type: ignore[attr-defined]
            reg.save()
            sent.append(mails.queue(reg, Mail.Kind.MOVED_IN, link=services.own_link(reg)).pk)
            entries.append(registration_check_in(reg=reg, actor=actor))
        tasks.send_soon(sent)
    return entries
