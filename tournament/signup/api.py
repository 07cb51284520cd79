"""Sign-up's JSON API (API.md, "Sign-up before the day"): anyone signs up and confirms;
the registrant's own token reads, changes and cancels; organisers list, decide and write
to the registrants; the psych sheet is public. The door and a person's data (API.md, "The
door and a person's data, through the API"): check-in, a waiting registrant present, the
closing of check-in (previewed, then confirmed), a person's export and erasure."""

from __future__ import annotations

import datetime
import json
from typing import Annotated, Any, Literal

from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django.utils.translation import gettext as _
from ninja import Router, Schema
from ninja.responses import NinjaJSONEncoder, Status
from pydantic import Field, StrictBool

from tournament.apikit import (
    ERRORS,
    DriverNumber,
    ErrorOut,
    actor_of,
    get_event,
    require_read,
    require_token,
)
from tournament.away.guard import refused
from tournament.errors import NotFound
from tournament.models import Event
from tournament.players import erasure
from tournament.registration.services import require_desk
from tournament.signup import broadcast, checkin, rules, selectors, services
from tournament.signup.models import Registration
from tournament.site import ratelimit

router = Router(tags=["sign-up"])
Name = Annotated[str, Field(min_length=1, max_length=100)]
WITH_429 = {**ERRORS, 429: ErrorOut}


class SignUpIn(Schema):
    first_name: Name
    last_name: Name
    email: Annotated[str, Field(max_length=254)]
    licence: Annotated[str, Field(max_length=30)] | None = None
    team: Annotated[str, Field(max_length=100)] | None = None
    public_name: Literal["full", "short"] = "full"
    language: Literal["fr", "en"] | None = None


class SignUpOut(Schema):
    status: Literal["unconfirmed"]


@router.post("/events/{event}/registrations", response={202: SignUpOut, **WITH_429})
def registration_create(request: HttpRequest, event: str, payload: SignUpIn) -> Any:
    """Sign up (anyone, while registration is open). The answer is the same whether the
    address is new or already registered: the mail says which."""
    # With its announcement and whether it is away, in one read: the away guard's
    # (``tournament.away.guard``), else (a call without the guard) read here.
    found = getattr(request, "signup_event", None)
    if found is None or found.slug != event:
        found = selectors.event_to_sign_up(event)
    if found.away_since is not None:
        return refused(request, found.away_since)
    if not services.announced(found):
        require_read(actor_of(request), found, published=False)
    refusal = services.window_refusal(found, timezone.now())
    if refusal is not None:
        raise refusal
    ratelimit.signup_check(request, payload.email)
    data = payload.model_dump()
    data["language"] = data.get("language") or getattr(request, "LANGUAGE_CODE", "fr")
    services.registration_sign_up(event=found, **data)
    return Status(202, {"status": "unconfirmed"})


class ConfirmIn(Schema):
    token: Annotated[str, Field(min_length=1, max_length=200)]


class ConfirmOut(Schema):
    status: Literal["accepted", "waiting", "pending"]
    rank: int | None = None
    link: str


@router.post("/registrations/confirm", response={200: ConfirmOut, **ERRORS})
def registration_confirm(request: HttpRequest, payload: ConfirmIn) -> Any:
    """Confirm the address with the token of the confirmation mail."""
    try:
        registration, link = services.registration_confirm(token=payload.token)
    except selectors.EventAway as away:  # the away guard's answer, read with the registration
        return refused(request, away.since)
    return {"status": registration.status, "rank": registration.rank, "link": link}


class OwnOut(Schema):
    event: str
    status: str
    rank: int | None = None
    first_name: str
    last_name: str
    team: str
    public_name: str
    table: int | None = Field(None, description="Once the allocation is published.")


def own_out(registration: Registration) -> dict[str, Any]:
    return {
        "event": registration.event.slug,
        "status": registration.status,
        "rank": services.rank_of(registration),
        "first_name": registration.first_name,
        "last_name": registration.last_name,
        "team": registration.team,
        "public_name": registration.public_name,
        "table": selectors.table_of(registration),
    }


@router.get("/registrations/{token}", response={200: OwnOut, **ERRORS})
def registration_own(request: HttpRequest, token: str) -> dict[str, Any]:
    """The registration of this own link (the token is the secret of the link)."""
    return own_out(services.registration_for_link(token))


class OwnPatchIn(Schema):
    first_name: Name | None = None
    last_name: Name | None = None
    team: Annotated[str, Field(max_length=100)] | None = None
    public_name: Literal["full", "short"] | None = None


@router.patch("/registrations/{token}", response={200: OwnOut, **ERRORS})
def registration_edit(request: HttpRequest, token: str, payload: OwnPatchIn) -> dict[str, Any]:
    """Change the name, team or name in public until the edit deadline (409 after)."""
    registration = services.registration_for_link(token)
    changes = {k: v for k, v in payload.model_dump(exclude_unset=True).items() if v is not None}
    return own_out(services.registration_edit(registration=registration, **changes))


@router.delete("/registrations/{token}", response={200: OwnOut, **ERRORS})
def registration_cancel(request: HttpRequest, token: str) -> dict[str, Any]:
    """Cancel (until the edit deadline); the first on the waiting list then moves in."""
    registration = services.registration_for_link(token)
    return own_out(services.registration_cancel(registration=registration))


class RegistrationOut(Schema):
    id: int
    first_name: str
    last_name: str
    email: str
    licence: str
    team: str
    status: str
    rank: int | None
    confirmed_at: datetime.datetime | None
    driver: int | None


def _organised(request: HttpRequest, slug: str) -> Event:
    actor = actor_of(request)
    require_token(actor)
    event = get_event(slug)
    services.require_organiser(actor, event)
    return event


def _at_the_door(request: HttpRequest, slug: str) -> Event:
    """The door's operations (the list, check-in, present, closing check-in): the day's
    counter, the club's desk as its organisers (DOMAIN.md "Clubs and who may do what")."""
    actor = actor_of(request)
    require_token(actor)
    event = get_event(slug)
    require_desk(actor, event.championship)
    return event


def registration_out(registration: Registration, rank: int | None) -> dict[str, Any]:
    return {
        "id": registration.pk,
        "first_name": registration.first_name,
        "last_name": registration.last_name,
        "email": registration.email,
        "licence": registration.licence,
        "team": registration.team,
        "status": registration.status,
        "rank": rank,
        "confirmed_at": registration.confirmed_at,
        "driver": registration.driver.number if registration.driver_id else None,
    }


@router.get("/events/{event}/registrations", response={200: list[RegistrationOut], **ERRORS})
def registration_list(request: HttpRequest, event: str) -> HttpResponse:
    """Every registration (race control: its organisers and its desk at the door; it carries
    the addresses)."""
    # Written as django-ninja writes a ``RegistrationOut`` list, without validating each row
    # again: the rows are read in that shape (``selectors.ranked_rows``), and a desk polls
    # this list every second while 2,000 people sign up.
    rows = selectors.ranked_rows(_at_the_door(request, event))
    return HttpResponse(
        json.dumps(rows, cls=NinjaJSONEncoder), content_type="application/json; charset=utf-8"
    )


class DecisionIn(Schema):
    status: Literal["accepted", "refused", "waiting"]
    reason: Annotated[str, Field(max_length=500)]


@router.post(
    "/events/{event}/registrations/{id}/decision",
    response={200: RegistrationOut, **ERRORS},
)
def registration_decision(
    request: HttpRequest, event: str, id: int, payload: DecisionIn
) -> dict[str, Any]:
    """Race control accepts, refuses or moves to the waiting list, with a reason."""
    found = _organised(request, event)
    registration = Registration.objects.filter(event=found, pk=id).first()
    if registration is None:
        raise NotFound("Unknown registration.")
    decided = services.registration_decide(
        registration=registration,
        actor=actor_of(request),
        status=payload.status,
        reason=payload.reason,
    )
    return registration_out(decided, services.rank_of(decided))


class MessageIn(Schema):
    to: Literal["accepted", "waiting", "all"]
    subject: Annotated[str, Field(min_length=1, max_length=200)]
    body: Annotated[str, Field(min_length=1, max_length=20_000)]


class QueuedOut(Schema):
    queued: int


class MessageOut(Schema):
    id: int
    to: str
    subject: str
    body: str
    at: datetime.datetime
    by: str | None
    queued: int
    delivered: int
    failed: int


@router.post("/events/{event}/messages", response={200: QueuedOut, **ERRORS})
def message_create(request: HttpRequest, event: str, payload: MessageIn) -> dict[str, Any]:
    """A message to all accepted, all waiting or everyone (each mailed once)."""
    found = _organised(request, event)
    message = broadcast.message_send(event=found, actor=actor_of(request), **payload.model_dump())
    return {"queued": message.queued}


@router.get("/events/{event}/messages", response={200: list[MessageOut], **ERRORS})
def message_list(request: HttpRequest, event: str) -> list[dict[str, Any]]:
    """What was sent, to how many, how many delivered and failed."""
    return broadcast.messages_of(_organised(request, event))


class EntrantOut(Schema):
    name: str
    team: str
    rating: float | None
    races: int


@router.get("/events/{event}/entrants", response={200: list[EntrantOut], **ERRORS})
def entrant_list(request: HttpRequest, event: str) -> list[dict[str, Any]]:
    """The psych sheet: accepted entrants, public (names as each chose, no address)."""
    found = get_event(event)
    require_read(actor_of(request), found, published=services.announced(found))
    return selectors.entrants(found)


# --- the door and a person's data ---------------------------------------------------------


def _registration(event: Event, id: int) -> Registration:
    """The registration ``id`` of ``event`` (404 otherwise, a huge id included)."""
    found = (
        Registration.objects.select_related("driver__team").filter(event=event, pk=id).first()
        if 0 < id <= 2**63 - 1
        else None
    )
    if found is None:
        raise NotFound(_("Unknown registration."))
    found.event = event
    return found


class CheckInIn(Schema):
    paid: StrictBool = False
    join: DriverNumber | None = Field(
        None,
        description="The number of the championship's driver race control confirms this "
        "registrant is (the desk shows the proposal side by side: licence, e-mail, folded "
        "name). Without it the registrant keeps their driver, or becomes a new one: a "
        "licence typed at sign-up is a hint, never a key.",
    )


class DoorDriverOut(Schema):
    number: int
    name: str = Field(description="The public name the registrant chose.")
    team: str | None


class CheckInOut(Schema):
    id: int
    status: str = Field(
        description="``accepted``; ``waiting`` when an absent registrant arrived late and "
        "found no free seat (they wait at the door, present, and ``driver`` is null)."
    )
    driver: DoorDriverOut | None


def _check_in_out(registration: Registration) -> dict[str, Any]:
    driver = registration.driver if registration.driver_id else None
    return {
        "id": registration.pk,
        "status": registration.status,
        "driver": {
            "number": driver.number,
            "name": rules.public_name(
                registration.first_name, registration.last_name, registration.public_name
            ),
            "team": driver.team.name if driver.team_id else None,
        }
        if driver is not None
        else None,
    }


@router.post("/events/{event}/registrations/{id}/checkin", response={200: CheckInOut, **ERRORS})
def registration_checkin(
    request: HttpRequest, event: str, id: int, payload: CheckInIn
) -> dict[str, Any]:
    """An accepted registrant at the door: the championship's driver (the one race control
    confirms with ``join``, the registrant's own, else a new number) and the event's entry,
    checked in."""
    registration = _registration(_at_the_door(request, event), id)
    checkin.registration_check_in(
        reg=registration, actor=actor_of(request), paid=payload.paid, join=payload.join
    )
    return _check_in_out(_registration(registration.event, id))


class PresentIn(Schema):
    present: StrictBool


class PresentOut(Schema):
    id: int
    status: str
    present: bool
    rank: int | None


@router.post("/events/{event}/registrations/{id}/present", response={200: PresentOut, **ERRORS})
def registration_present(
    request: HttpRequest, event: str, id: int, payload: PresentIn
) -> dict[str, Any]:
    """A waiting registrant is at the door (or not): only the present take a seat."""
    registration = _registration(_at_the_door(request, event), id)
    checkin.present_set(reg=registration, actor=actor_of(request), present=payload.present)
    return {
        "id": registration.pk,
        "status": registration.status,
        "present": registration.present,
        "rank": services.rank_of(registration),
    }


class CloseIn(Schema):
    confirm: StrictBool = False


class CloseOut(Schema):
    absent: list[int] = Field(description="The accepted registrants not checked in.")
    moved_in: list[int] = Field(
        description="The waiting registrants present who take their seats, in order."
    )


@router.post("/events/{event}/checkin/close", response={200: CloseOut, **ERRORS})
def checkin_close(request: HttpRequest, event: str, payload: CloseIn) -> dict[str, Any]:
    """Without ``confirm``, what closing check-in would do; with ``confirm: true``, done:
    the accepted registrants not checked in are absent, the waiting ones present take
    their seats in waiting-list order (each told by mail). Once only (409 after)."""
    found = _at_the_door(request, event)
    actor = actor_of(request)
    if payload.confirm:
        closing = checkin.check_in_close(event=found, actor=actor)
    else:
        closing = checkin.check_in_preview(event=found, actor=actor)
    return {
        "absent": [r.pk for r in closing.absent],
        "moved_in": [r.pk for r in closing.moved_in],
    }


@router.get("/events/{event}/registrations/{id}/export", response={200: dict[str, Any], **ERRORS})
def registration_export(request: HttpRequest, event: str, id: int) -> dict[str, Any]:
    """Everything kept about this registrant (their request for their data): the
    registration, its recorded changes (who, when, why) and the mails sent."""
    return selectors.registration_export(_registration(_organised(request, event), id))


class EraseIn(Schema):
    reason: Annotated[str, Field(min_length=1, max_length=500)]
    scope: Literal["club", "server"] = Field(
        "club",
        description="`club`: the championships of the event's club only; `server`: every "
        "club's (a superuser's only, else 403).",
    )


class EraseOut(Schema):
    driver: int | None = Field(
        description="The racing number the registrant had: the driver now reads "
        "“Pilote anonyme” with it. Null when they never checked in."
    )
    championships: list[str] = Field(
        description="The slugs of the championships whose rows the erasure changed."
    )


@router.post("/events/{event}/registrations/{id}/erase", response={200: EraseOut, **ERRORS})
def registration_erase(
    request: HttpRequest, event: str, id: int, payload: EraseIn
) -> dict[str, Any]:
    """Erase the person on their request: name, address, licence and team text leave every
    table of the club's championships (histories, mails, replayed answers included), every
    driver of the same player there reads "Pilote anonyme" with its number; another club's
    rows stay as they are; results, points and others' ratings stay."""
    registration = _registration(_organised(request, event), id)
    person = erasure.person_erase(
        registration=registration,
        actor=actor_of(request),
        reason=payload.reason,
        server=payload.scope == "server",
    )
    return {
        "driver": registration.driver.number if registration.driver_id else None,
        "championships": person.championships(),
    }
