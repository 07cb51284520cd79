"""API v1, accounts on a server open to clubs (API.md "Many clubs on one server",
Accounts): a stranger asks for an account, then confirms it with the mail's token. Off
``CLUBS_OPEN``, both answer 404. The services (``selfservice.py``) decide; this translates
HTTP."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from django.http import HttpRequest
from ninja import Router, Schema
from ninja.responses import Status
from pydantic import Field

from tournament.apikit import ERRORS, ErrorOut
from tournament.errors import NotFound
from tournament.site import ratelimit
from tournament.site.accounts import selfservice

router = Router(tags=["Accounts"])


class AccountIn(Schema):
    username: Annotated[str, Field(min_length=1, max_length=150)]
    email: Annotated[str, Field(min_length=1, max_length=254)]
    password: Annotated[str, Field(min_length=1, max_length=4096)]
    language: Literal["fr", "en"] | None = Field(
        None, description="The mail's language; else the request's."
    )


class AccountAskedOut(Schema):
    status: Literal["confirm"]


@router.post("/accounts", response={202: AccountAskedOut, 429: ErrorOut, **ERRORS})
def account_create(request: HttpRequest, payload: AccountIn) -> Status[Any]:
    """Ask for an account (a server open to clubs; else 404): the mail carries
    ``<SITE_URL>/accounts/confirm/<token>/`` (single use, 48 h). The same answer for an
    address that has an account (its mail says so). A username taken: 409; a weak, common
    or published password: 400; the 6th request of an address or a client within an hour:
    429 with ``Retry-After``."""
    selfservice.account_request(
        client=ratelimit.client_key(request),
        username=payload.username,
        email=payload.email,
        password=payload.password,
        language=payload.language or getattr(request, "LANGUAGE_CODE", None),
    )
    return Status(202, {"status": "confirm"})


class AccountConfirmIn(Schema):
    token: Annotated[str, Field(min_length=1, max_length=200)]


class AccountOut(Schema):
    username: str


@router.post("/accounts/confirm", response={201: AccountOut, 429: ErrorOut, **ERRORS})
def account_confirm(request: HttpRequest, payload: AccountConfirmIn) -> Status[Any]:
    """Make the account with the token of the mail: used or expired 409, unknown 404
    (guessing is limited as for tables' links: 429)."""
    try:
        user = selfservice.account_confirm(token=payload.token)
    except NotFound:
        if selfservice.accounts_open():
            ratelimit.check(request)
            ratelimit.record_failure(request)
        raise
    return Status(201, {"username": user.get_username()})  # type: ignore[attr-defined]
