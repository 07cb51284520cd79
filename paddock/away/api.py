"""API v1, the event away (``API.md`` "The event away"): the check-out and its bundle, its
cancellation, the return of the day."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest
from django.utils.translation import gettext as _
from ninja import Router, Schema

from paddock.away import checkout as trip
from paddock.away.landing import land
from tournament.apikit import ERRORS, actor_of, get_event, require_token
from tournament.errors import InvalidInput, NotAllowed

router = Router(tags=["Event away"])


class CancelIn(Schema):
    reason: str


class CheckoutOut(Schema):
    id: str
    at: str
    cancelled_at: str | None
    cancel_reason: str


class LandedOut(Schema):
    runs: int
    tables: int
    results: int
    sanctions: int
    photos: int
    drivers: int


class ReturnOut(Schema):
    landed: LandedOut
    refused: list[Any]


@router.post("/events/{event}/checkout", response={200: dict[str, Any], **ERRORS})
def checkout_create(request: HttpRequest, event: str) -> dict[str, Any]:
    """Send the event to a laptop: the signed bundle; its writes then answer 409 until it
    returns (organisers)."""
    actor = actor_of(request)
    require_token(actor)
    return trip.check_out(actor=actor, event=get_event(event))


@router.delete("/events/{event}/checkout", response={200: CheckoutOut, **ERRORS})
def checkout_cancel(request: HttpRequest, event: str, payload: CancelIn) -> dict[str, Any]:
    """Cancel the trip under way, with a reason: its bundle can no longer return."""
    actor = actor_of(request)
    require_token(actor)
    checkout = trip.cancel(actor=actor, event=get_event(event), reason=payload.reason)
    return {
        "id": str(checkout.uid),
        "at": checkout.at.isoformat(),
        "cancelled_at": checkout.cancelled_at.isoformat() if checkout.cancelled_at else None,
        "cancel_reason": checkout.cancel_reason,
    }


@router.post("/events/{event}/return", response={200: ReturnOut, **ERRORS})
def event_return(request: HttpRequest, event: str) -> dict[str, Any]:
    """The laptop's way back (``manage.py export_event``) lands, whole or not at all."""
    actor = actor_of(request)
    require_token(actor)
    found = get_event(event)
    if not actor.can_organise(found.championship):
        raise NotAllowed(_("Only the organisers of this championship may do this."))
    # Read from the stream: the body may hold photos, past DATA_UPLOAD_MAX_MEMORY_SIZE
    # (the body size guard lets this path carry PHOTO_REQUEST_MAX_BYTES).
    body = request.read(settings.PHOTO_REQUEST_MAX_BYTES + 1)
    if not body:
        raise InvalidInput(_("The body must be the laptop's export of the event."))
    return land(body, event=found, actor=actor)
