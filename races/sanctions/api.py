"""JSON API v1, Sanctions (``API.md``; §1-2-3: the organisers decide the consequences): an
organiser records a warning, throws added to a qualifying run, points removed for the
event or a disqualification, each with a reason; lists them; withdraws one with a reason.

The service (``races.sanctions.services``) decides who may write and what is allowed and
scores the event again; this module translates HTTP into its calls and back.
"""

from __future__ import annotations

import datetime
from typing import Annotated, Any, Literal

from django.http import HttpRequest
from django.utils.translation import gettext as _
from ninja import Router, Schema
from ninja.responses import Status
from pydantic import Field, SkipValidation

from races.sanctions import services as sanction_services
from tournament.apikit import (
    ERRORS,
    DriverNumber,
    DriverOut,
    actor_of,
    driver_out,
    get_event,
    require_read,
    require_token,
)
from tournament.errors import NotFound
from tournament.models import Event, Sanction
from tournament.registration.services import require_organiser

router = Router(tags=["Sanctions"])

KindName = Literal["warning", "throws", "points", "disqualified"]


class SanctionIn(Schema):
    driver: DriverNumber
    # The service judges kind, value and session so that its refusal says what is missing.
    kind: SkipValidation[KindName] = Field(
        description="warning, throws (added to a qualifying run), points (removed for the "
        "event) or disqualified (classed last of the event, 0 points)."
    )
    value: SkipValidation[int | None] = Field(
        None, description="Throws added or points removed, 1 to 999; none otherwise."
    )
    session: SkipValidation[int | None] = Field(
        None, description="throws: the qualifying session whose run gets them."
    )
    reason: Annotated[str, Field(max_length=200)]


class SanctionOut(Schema):
    id: int
    driver: DriverOut
    kind: KindName
    value: int | None
    session: int | None
    reason: str
    who: str
    when: datetime.datetime
    withdrawn: bool
    withdrawn_by: str | None = None
    withdrawn_at: datetime.datetime | None = None
    withdraw_reason: str | None = None


def sanction_out(sanction: Sanction) -> dict[str, Any]:
    return {
        "id": sanction.pk,
        "driver": driver_out(sanction.driver),
        "kind": sanction.kind,
        "value": sanction.value,
        "session": sanction.session,
        "reason": sanction.reason,
        "who": sanction.actor,
        "when": sanction.created_at,
        "withdrawn": not sanction.in_force,
        "withdrawn_by": sanction.withdrawn_by or None,
        "withdrawn_at": sanction.withdrawn_at,
        "withdraw_reason": sanction.withdraw_reason or None,
    }


def _sanctions(event: Event) -> list[Sanction]:
    return list(
        Sanction.objects.filter(event=event).select_related(
            "driver", "driver__team", "driver__player"
        )
    )


@router.post("/events/{event}/sanctions", response={201: SanctionOut, **ERRORS})
def sanction_create(request: HttpRequest, event: str, payload: SanctionIn) -> Status[Any]:
    """Record a sanction (§1-2-3) with its reason; who and when are recorded. Confirmed
    places, ranks and points of the event are computed again at once. Organisers only."""
    actor = actor_of(request)
    require_token(actor)
    sanction = sanction_services.sanction_record(
        actor=actor,
        event=get_event(event),
        driver=payload.driver,
        kind=payload.kind,
        value=payload.value,
        session=payload.session,
        reason=payload.reason,
    )
    return Status(201, sanction_out(sanction))


@router.get("/events/{event}/sanctions", response={200: list[SanctionOut], **ERRORS})
def sanction_list(request: HttpRequest, event: str) -> list[dict[str, Any]]:
    """The event's sanctions, withdrawn ones included: organisers, everyone once the
    results are published."""
    found = get_event(event)
    require_read(actor_of(request), found, published=found.published_results)
    return [sanction_out(s) for s in _sanctions(found)]


class WithdrawIn(Schema):
    reason: Annotated[str, Field(max_length=200)]


@router.delete("/events/{event}/sanctions/{id}", response={200: SanctionOut, **ERRORS})
def sanction_withdraw(
    request: HttpRequest,
    event: str,
    payload: WithdrawIn,
    id: int,  # noqa: A002 - the contract's path parameter
) -> dict[str, Any]:
    """Withdraw a sanction, saying why: it stays listed (withdrawn) and no longer applies;
    the event is scored again. 409 when already withdrawn. Organisers only."""
    actor = actor_of(request)
    require_token(actor)
    found = get_event(event)
    require_organiser(actor, found.championship)
    sanction = (
        Sanction.objects.filter(event=found, pk=id).select_related("event").first()
        if 1 <= id <= 2**31 - 1
        else None
    )
    if sanction is None:
        raise NotFound(_("Sanction %(id)s does not exist for this event.") % {"id": id})
    sanction_services.sanction_withdraw(actor=actor, sanction=sanction, reason=payload.reason)
    sanction.refresh_from_db()
    return sanction_out(sanction)
