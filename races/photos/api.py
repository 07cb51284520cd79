"""API v1, photos of the signed sheets: a table's photos (its referee's token or an
organiser), a pile matched by QR code (race control: the desk and the organisers), and the
images themselves.

- ``POST /events/{event}/tables/{t}/photos`` multipart ``photo`` (``file`` too, its older
  name; and ``replaces``: the id of one of the table's photos) → the photo; another table's
  sheet is refused, a sheet whose QR code cannot be read kept with ``code_read: false``;
- ``GET /events/{event}/tables/{t}/photos`` → the table's photos, replaced ones included;
- ``GET /events/{event}/tables/{t}/photos/{id}`` → the image (JPEG; ``?size=thumbnail``);
- the same three under ``/events/{event}/qualifying-tables/{t}/photos``, for a qualifying
  table (its token or an organiser);
- ``POST /events/{event}/photos`` multipart ``photo`` → the photo, its ``table`` the number
  its QR code matched (``kind``: a race or a qualifying table's sheet), or ``"unmatched"``
  with the ``reason``;
- ``GET /events/{event}/photos`` → every photo of the event (the desk, the organisers);
- ``GET /events/{event}/photos/{id}`` → the image of any of them (the desk, the organisers).

A refused file is a 400 whose detail says why (empty, too large, not a photo, damaged, too
many pixels); nothing is stored then. A table full of photos or a link sending too fast is a
429 that says which (``races.photos.limits``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext as _
from ninja import File, Form, Router, Schema, Status
from ninja.files import UploadedFile
from pydantic import Field

from qualifying.models import QualifyingTable
from races.grid.api import get_table
from races.models import RaceTable, SheetPhoto
from races.photos import selectors, services
from races.photos.views import image_response
from tournament.access import Actor
from tournament.apikit import (
    ERRORS,
    INT32_MAX,
    ErrorOut,
    actor_of,
    get_event,
    is_anonymous,
    reads_as_anonymous,
    refuse_read,
    require_token,
)
from tournament.errors import InvalidInput, NotAllowed, NotFound
from tournament.models import Event

router = Router(tags=["Sheet photos"])

ImageSize = Literal["full", "thumbnail"]
#: A write of photos may also be refused for their number or rate (``limits``).
WRITE_ERRORS = {**ERRORS, 429: ErrorOut}
#: The image answers: a JPEG, described (OpenAPI 3.1 requires a response's description).
IMAGE_RESPONSE = {
    "responses": {
        200: {
            "description": "The stored photo (JPEG, metadata stripped), or its thumbnail.",
            "content": {"image/jpeg": {"schema": {"type": "string", "format": "binary"}}},
        }
    }
}


class PhotoOut(Schema):
    id: int
    table: int | Literal["unmatched"] = Field(
        description="The table's number, or “unmatched” while race control has not assigned it."
    )
    kind: Literal["race", "qualifying"] | None = Field(
        None, description="Whose sheet it is: a race table's or a qualifying table's."
    )
    source: Literal["table", "qr", "hand", "unmatched"] = Field(
        description="table: sent for its table; qr: matched by its sheet's QR code; hand: "
        "assigned by race control."
    )
    reason: str | None = Field(None, description="Why an unmatched photo found no table.")
    width: int
    height: int
    size: int = Field(description="Bytes of the stored (re-encoded) image.")
    sent_by: str
    sent_at: datetime
    replaced_by: int | None = Field(None, description="The photo that replaced this one.")
    replaced_at: datetime | None = None
    code_read: bool | None = Field(
        None,
        description="Whether a sheet's QR code was read in it (false: “code not read”, race "
        "control checks whose sheet it is); null for photos sent before codes were read.",
    )


def photo_out(photo: SheetPhoto) -> dict[str, Any]:
    reason = services.UNMATCHED_REASONS.get(photo.unmatched_reason)
    table = photo.sheet_table
    return {
        "id": photo.pk,
        "table": table.number if table is not None else "unmatched",
        "kind": None if table is None else "race" if photo.table_id else "qualifying",
        "source": photo.source,
        "reason": str(reason) if reason is not None else None,
        "width": photo.width,
        "height": photo.height,
        "size": photo.size,
        "sent_by": photo.sent_by,
        "sent_at": photo.sent_at,
        "replaced_by": photo.replaced_by_id,
        "replaced_at": photo.replaced_at,
        "code_read": photo.code_read,
    }


def _qualifying_table(event: Event, number: int) -> QualifyingTable:
    table = (
        QualifyingTable.objects.filter(event=event, number=number).first()
        if 1 <= number <= 32767
        else None
    )
    if table is None:
        raise NotFound(
            _("Qualifying table %(number)s does not exist for this event.") % {"number": number}
        )
    table.event = event  # already loaded with its championship and circuit
    return table


def _own_table(
    actor: Actor, event: Event, number: int, *, write: bool = False, qualifying: bool = False
) -> RaceTable | QualifyingTable:
    """A table whose photos ``actor`` may send and see: its link, its referee, organisers
    (a race table, or a qualifying table with ``qualifying``).

    A read refused to an anonymous caller or another table's link is a 404, as every read of
    something unpublished (``tournament.apikit.refuse_read``); a write without a token, 401.
    """
    if write:
        require_token(actor)
    elif is_anonymous(actor):
        raise refuse_read(actor, event)
    table = _qualifying_table(event, number) if qualifying else get_table(event, number)
    if not actor.can_referee(table):
        if reads_as_anonymous(actor):
            raise NotFound(_("Table %(number)s is not your table.") % {"number": number})
        raise NotAllowed(_("Only this table's referee or race control may see its photos."))
    return table


def _race_control(actor: Actor, event: Event, *, write: bool = False) -> Event:
    """Race control only (the desk and the organisers: sheets are the day's counter); a
    read refused to a table's link or anonymous caller is a 404."""
    if write:
        require_token(actor)
    if not actor.can_desk(event.championship):
        if write:
            raise NotAllowed(_("Only race control may do this."))
        raise refuse_read(actor, event)
    return event


def _required(photo: UploadedFile | None, file: UploadedFile | None) -> UploadedFile:
    """The upload (field ``photo``, or ``file``: its older name), once the caller is known:
    a missing file is a 400 only for those who may send one (the others learn nothing but
    their refusal)."""
    upload = photo if photo is not None else file
    if upload is None:
        message = _("Send the photo as the multipart field “photo”.")
        raise InvalidInput(message, {"photo": [message]})
    return upload


#: The multipart fields of a photo: ``photo`` (API.md), ``file`` kept as an alias.
PhotoField = File[UploadedFile | None]


def _photo(event: Event, photo_id: int, **where: Any) -> SheetPhoto:
    photo = (
        SheetPhoto.objects.select_related("table").filter(event=event, pk=photo_id, **where).first()
        if 1 <= photo_id <= INT32_MAX
        else None
    )
    if photo is None:
        raise NotFound(_("There is no photo %(id)s here.") % {"id": photo_id})
    return photo


def _add(
    request: HttpRequest,
    event: str,
    t: int,
    upload: tuple[UploadedFile | None, UploadedFile | None],
    replaces: int | None,
    *,
    qualifying: bool,
) -> Status:
    actor = actor_of(request)
    table = _own_table(actor, get_event(event), t, write=True, qualifying=qualifying)
    where = {"qualifying_table" if qualifying else "table": table}
    old = _photo(table.event, replaces, **where) if replaces is not None else None
    sent = _required(*upload)
    photo = services.photo_add(
        actor=actor,
        table=table,
        data=services.read_upload(sent),
        name=sent.name or "",
        replaces=old,
    )
    return Status(201, photo_out(photo))


@router.post("/events/{event}/tables/{t}/photos", response={201: PhotoOut, **WRITE_ERRORS})
def table_photo_add(
    request: HttpRequest,
    event: str,
    t: int,
    photo: PhotoField = None,
    file: PhotoField = None,
    replaces: Form[int | None] = None,
) -> Status:
    """A photo of the table's signed sheet (JPEG, PNG, WebP or HEIC; multipart field
    ``photo``; ``file``, its older name, is still read).

    Stored upright, re-encoded and without its metadata (no GPS position); several per table
    (front, back). Its QR code is read: another table's sheet is a 400 naming that table; a
    photo whose code cannot be read is kept with ``code_read: false``. ``replaces``: the id
    of one of the table's photos, which stays listed as replaced. The table's token or an
    organiser; a table full of photos or a link sending too fast is a 429.
    """
    return _add(request, event, t, (photo, file), replaces, qualifying=False)


@router.post(
    "/events/{event}/qualifying-tables/{t}/photos", response={201: PhotoOut, **WRITE_ERRORS}
)
def qualifying_table_photo_add(
    request: HttpRequest,
    event: str,
    t: int,
    photo: PhotoField = None,
    file: PhotoField = None,
    replaces: Form[int | None] = None,
) -> Status:
    """A photo of a qualifying table's signed sheet, as for a race table (multipart field
    ``photo``, or ``file``). The qualifying table's token or an organiser."""
    return _add(request, event, t, (photo, file), replaces, qualifying=True)


@router.get("/events/{event}/tables/{t}/photos", response={200: list[PhotoOut], **ERRORS})
def table_photos(request: HttpRequest, event: str, t: int) -> list[dict[str, Any]]:
    """The table's photos, oldest first, replaced ones included. The table's token or an
    organiser."""
    table = _own_table(actor_of(request), get_event(event), t)
    return [photo_out(photo) for photo in selectors.photos_of(table)]


@router.get(
    "/events/{event}/qualifying-tables/{t}/photos", response={200: list[PhotoOut], **ERRORS}
)
def qualifying_table_photos(request: HttpRequest, event: str, t: int) -> list[dict[str, Any]]:
    """The qualifying table's photos, oldest first, replaced ones included. The table's token
    or an organiser."""
    table = _own_table(actor_of(request), get_event(event), t, qualifying=True)
    return [photo_out(photo) for photo in selectors.photos_of(table)]


@router.get(
    "/events/{event}/tables/{t}/photos/{id}",
    response={200: None, **ERRORS},
    openapi_extra=IMAGE_RESPONSE,
)
def table_photo_image(
    request: HttpRequest, event: str, t: int, id: int, size: ImageSize = "full"
) -> HttpResponse:
    """The photo as a JPEG (``size=thumbnail``: the small one), never cached by anyone but
    the reader. The table's token or an organiser."""
    table = _own_table(actor_of(request), get_event(event), t)
    return image_response(_photo(table.event, id, table=table), thumbnail=size == "thumbnail")


@router.get(
    "/events/{event}/qualifying-tables/{t}/photos/{id}",
    response={200: None, **ERRORS},
    openapi_extra=IMAGE_RESPONSE,
)
def qualifying_table_photo_image(
    request: HttpRequest, event: str, t: int, id: int, size: ImageSize = "full"
) -> HttpResponse:
    """A qualifying table's photo as a JPEG (``size=thumbnail``: the small one). The table's
    token or an organiser."""
    table = _own_table(actor_of(request), get_event(event), t, qualifying=True)
    photo = _photo(table.event, id, qualifying_table=table)
    return image_response(photo, thumbnail=size == "thumbnail")


@router.post("/events/{event}/photos", response={201: PhotoOut, **ERRORS})
def event_photo_match(
    request: HttpRequest, event: str, photo: PhotoField = None, file: PhotoField = None
) -> Status:
    """A photo or scan of any sheet of the event (race or qualifying), matched to its table
    by the sheet's QR code: ``table`` is its number (``kind`` says which), or
    ``"unmatched"`` (no readable code, a replaced link, another event's sheet) with the
    ``reason``; race control then assigns it by hand. Race control only (organisers and desk)."""
    actor = actor_of(request)
    found = _race_control(actor, get_event(event), write=True)
    upload = _required(photo, file)
    stored = services.photo_match(
        actor=actor, event=found, data=services.read_upload(upload), name=upload.name or ""
    )
    return Status(201, photo_out(stored))


@router.get("/events/{event}/photos", response={200: list[PhotoOut], **ERRORS})
def event_photos(request: HttpRequest, event: str) -> list[dict[str, Any]]:
    """Every photo of the event, matched or not, replaced or not. Race control only
    (organisers and desk)."""
    found = _race_control(actor_of(request), get_event(event))
    return [photo_out(photo) for photo in selectors.event_photos(found)]


@router.get(
    "/events/{event}/photos/{id}",
    response={200: None, **ERRORS},
    openapi_extra=IMAGE_RESPONSE,
)
def event_photo_image(
    request: HttpRequest, event: str, id: int, size: ImageSize = "full"
) -> HttpResponse:
    """Any photo of the event as a JPEG (``size=thumbnail``: the small one). Organisers."""
    found = _race_control(actor_of(request), get_event(event))
    return image_response(_photo(found, id), thumbnail=size == "thumbnail")
