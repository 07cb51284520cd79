"""An event's announcement (place, time, schedule, fee, seats, registration window): the
fields ``PATCH /api/v1/events/{event}`` takes beside the event's own, the service that
stores them, and how the event's answer shows them; the one-line names the Setup API
takes (``OneLine``)."""

from __future__ import annotations

import datetime
import re
from typing import Annotated, Any, Literal

from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from ninja import Schema
from pydantic import AfterValidator, Field, ValidationInfo

from tournament.access import Actor
from tournament.errors import Conflict, InvalidInput
from tournament.models import Event
from tournament.signup import rules, services
from tournament.signup.models import Announcement

_TIME = re.compile(r"^([01][0-9]|2[0-3]):[0-5][0-9]$")
Seats = Annotated[int, Field(strict=True, ge=0, le=100_000)]


def _one_line(value: str, info: ValidationInfo) -> str:
    """Names (event, championship, circuit, team, person) are one line (API.md): a line
    break is a 400 naming the field, never a mail that cannot leave."""
    if not rules.one_line(value):
        message = _("One line only: no line break.")
        raise InvalidInput(message, {info.field_name or "__all__": [message]})
    return value


#: A name the API takes: text of one line (the OpenAPI document reads it as a string).
OneLine = Annotated[str, AfterValidator(_one_line)]


class StepIn(Schema):
    time: str = Field(description="HH:MM, the event's local time.")
    label: Annotated[OneLine, Field(min_length=1, max_length=200)]


class RegistrationWindowIn(Schema):
    opens_at: datetime.datetime | None = None
    closes_at: datetime.datetime | None = None
    edit_until: datetime.datetime | None = None
    approval: Literal["first_come", "organiser"] | None = None


class AnnouncementPatch(Schema):
    """The announcement's fields of ``PATCH /events/{event}`` (API.md, sign-up)."""

    place: Annotated[str, Field(max_length=2000)] | None = None
    starts_at: str | None = Field(None, description="HH:MM, the event's local time.")
    schedule: list[StepIn] | None = Field(None, max_length=100)
    fee: Annotated[str, Field(max_length=200)] | None = None
    capacity: Seats | None = Field(None, description="Seats; null: no limit.")
    registration: RegistrationWindowIn | None = Field(
        None, description="Closed while opens_at is null (ISO 8601 date-times)."
    )


#: The names above, taken out of the event's own changes.
FIELDS = ("place", "starts_at", "schedule", "fee", "capacity", "registration")
#: Sent as null, these clear the value; the others ignore a null.
NULLABLE = ("capacity", "starts_at")


def _time(value: str, field: str) -> datetime.time:
    if not _TIME.match(value or ""):
        message = _("Write the time as HH:MM, e.g. 09:30.")
        raise InvalidInput(message, {field: [message]})
    return datetime.time.fromisoformat(value)


def take(changes: dict[str, Any]) -> dict[str, Any]:
    """Take the announcement's fields out of a PATCH's ``changes`` (the rest is the
    event's), keeping nulls where they mean "clear"."""
    return {k: changes.pop(k) for k in FIELDS if k in changes}


def announcement_update(*, actor: Actor, event: Event, **sent: Any) -> Announcement | None:
    """Store what was sent. The capacity never goes below the number accepted (409 saying
    how many); a changed capacity moves the waiting list into the seats free, in order
    (DOMAIN.md "Corrections": a freed seat always goes to the waiting list)."""
    if not sent:
        return None
    services.require_organiser(actor, event)
    window = sent.pop("registration", None) or {}
    fields: dict[str, Any] = {}
    for name in ("place", "fee"):
        if sent.get(name) is not None:
            fields[name] = sent[name]
    if "capacity" in sent:
        fields["capacity"] = sent["capacity"]
    if "starts_at" in sent:
        fields["starts_at"] = (
            None if sent["starts_at"] is None else _time(sent["starts_at"], "starts_at")
        )
    if sent.get("schedule") is not None:
        steps = []
        for i, step in enumerate(sent["schedule"]):
            _time(step["time"], f"schedule.{i}.time")
            steps.append({"time": step["time"], "label": step["label"].strip()})
        fields["schedule"] = steps
    for name in ("opens_at", "closes_at", "edit_until"):
        if name in window:
            fields[name] = window[name]
    if sent.get("mail_tables") is not None:  # the settings page's tick (not in the API)
        fields["mail_tables"] = bool(sent["mail_tables"])
    if window.get("approval") is not None:
        fields["approval"] = window["approval"]
    with transaction.atomic():
        services._locked_announcement(event)
        announcement = Announcement.objects.get(event=event)
        accepted = services.accepted_count(event)
        if "capacity" in fields and not rules.capacity_floor(fields["capacity"], accepted):
            message = ngettext(
                "%(count)s registrant is accepted: the capacity cannot go below it. Refuse "
                "them or move them to the waiting list first.",
                "%(count)s registrants are accepted: the capacity cannot go below that. "
                "Refuse some or move them to the waiting list first.",
                accepted,
            ) % {"count": accepted}
            raise Conflict(message, {"capacity": [message]})
        for name, value in fields.items():
            setattr(announcement, name, value)
        if (
            announcement.opens_at
            and announcement.closes_at
            and announcement.closes_at <= announcement.opens_at
        ):
            message = _("Registration must close after it opens.")
            raise InvalidInput(message, {"registration.closes_at": [message]})
        actor.stamp(announcement)
        announcement.save()
        if "capacity" in fields:  # under the same lock: no confirmation comes between
            services.seats_fill(event=event, why="capacity raised")
    return announcement


def announcement_out(event: Event) -> dict[str, Any]:
    """The announcement in the event's answer (all null/empty when there is none)."""
    a = Announcement.objects.filter(event=event).first()
    if a is None:
        a = Announcement(event=event)
    return {
        "place": a.place,
        "starts_at": a.starts_at.strftime("%H:%M") if a.starts_at else None,
        "schedule": list(a.schedule or []),
        "fee": a.fee,
        "capacity": a.capacity,
        "registration": {
            "opens_at": a.opens_at,
            "closes_at": a.closes_at,
            "edit_until": a.edit_until,
            "approval": a.approval,
        },
    }


class StepOut(Schema):
    time: str
    label: str


class RegistrationWindowOut(Schema):
    opens_at: datetime.datetime | None
    closes_at: datetime.datetime | None
    edit_until: datetime.datetime | None
    approval: str


class AnnouncementOut(Schema):
    """The announcement's fields in the event's answer."""

    place: str = ""
    starts_at: str | None = None
    schedule: list[StepOut] = Field(default_factory=list)
    fee: str = ""
    capacity: int | None = None
    registration: RegistrationWindowOut | None = None
