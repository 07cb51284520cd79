"""Writes of the sheets' photos: a referee's photo of their table's sheet, race control's
pile matched by QR code (race and qualifying sheets), a photo assigned by hand, a photo
replaced.

Every file goes through ``races.photos.images`` first: nothing is stored unless it is a
sane photo, and what is stored is the re-encoded copy, without metadata. Every change is a
history row (who, when), and a replaced photo stays, marked with the one that replaced it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.template.defaultfilters import filesizeformat
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from qualifying.models import QualifyingTable
from races.models import RaceTable, ReplacedLink, SheetPhoto
from races.photos import limits, storage
from races.photos.images import BadImage, Normalised, normalise
from races.photos.matching import SheetLink, sheet_links
from tournament.access import Actor
from tournament.errors import Conflict, InvalidInput, NotAllowed
from tournament.models import Event
from tournament.sealing import link_digest

#: Why a photo sent to the desk found no table, as the desk's tray says it.
UNMATCHED_REASONS = {
    "no_code": gettext_lazy("no sheet's QR code could be read in it"),
    "replaced": gettext_lazy("its QR code is a replaced link: the sheet is an old print"),
    "other_event": gettext_lazy("its QR code is a table of another event"),
    "unknown": gettext_lazy("its QR code opens no table here"),
}


def read_upload(upload: UploadedFile) -> bytes:
    """The bytes of an uploaded file; one past the size limit is refused before it is read."""
    if upload.size is not None and upload.size > settings.PHOTO_MAX_BYTES:
        message = _("The file is too large (%(size)s): send a photo of %(limit)s at most.") % {
            "size": filesizeformat(upload.size),
            "limit": filesizeformat(settings.PHOTO_MAX_BYTES),
        }
        raise InvalidInput(message, {"photo": [message]})
    return upload.read()


def _checked(data: bytes) -> Normalised:
    try:
        return normalise(data, max_bytes=settings.PHOTO_MAX_BYTES)
    except BadImage as exc:
        raise InvalidInput(str(exc), {"photo": [str(exc)]}) from exc


def _create(
    *,
    actor: Actor,
    event: Event,
    table: RaceTable | None,
    source: str,
    name: str,
    image: Normalised,
    reason: str = "",
    qualifying_table: QualifyingTable | None = None,
    code_read: bool | None = None,
) -> SheetPhoto:
    photo = SheetPhoto(
        event=event,
        table=table,
        qualifying_table=qualifying_table,
        source=source,
        image=storage.store(image.jpeg),
        thumbnail=storage.store(image.thumbnail),
        width=image.width,
        height=image.height,
        size=len(image.jpeg),
        original_name="".join(ch for ch in name if ch.isprintable())[:120],
        sent_by=actor.label[:120],
        unmatched_reason=reason,
        code_read=code_read,
    )
    photo.full_clean()
    actor.stamp(photo)
    photo.save()
    return photo


def photo_add(
    *,
    actor: Actor,
    table: RaceTable | QualifyingTable,
    data: bytes,
    name: str = "",
    replaces: SheetPhoto | None = None,
) -> SheetPhoto:
    """A photo of ``table``'s signed sheet (a race or a qualifying table), from its referee
    (link or account) or an organiser; ``replaces`` one of the table's photos, which stays
    listed as replaced.

    The sheet's QR code is read as the desk's drop zone reads it: another table's sheet is
    refused, naming whose it is (issue 32: a Table 1 sheet was filed under Table 3); a photo
    whose code cannot be read is kept, marked ``code_read=False`` ("code not read" on the
    desk). A table full of photos, or a link sending too fast, is a 429 (``limits``).
    """
    if not actor.can_referee(table):
        raise NotAllowed(_("Only this table's referee or race control may send its photos."))
    race = isinstance(table, RaceTable)
    if replaces is not None and replaces.sheet_table != table:
        raise InvalidInput(_("This photo is not one of this table's."))
    limits.check(actor=actor, table=table)
    image = _checked(data)
    owners = [
        owner
        for link in sheet_links(image.picture, first_look=image.stored)
        if (owner := _table_of_link(link)) is not None
    ]
    for owner in owners:
        if not _same_table(owner, table):
            message = _another_sheet(table, owner)
            raise InvalidInput(message, {"photo": [message]})
    with transaction.atomic():
        photo = _create(
            actor=actor,
            event=table.event,
            table=table if race else None,
            qualifying_table=None if race else table,
            source="table",
            name=name,
            image=image,
            code_read=bool(owners),
        )
        if replaces is not None:
            _replace(actor=actor, old=replaces, new=photo)
    return photo


def _table_of_link(link: SheetLink) -> RaceTable | QualifyingTable | None:
    """The table whose sheet printed ``link``, its link replaced since or not (an old print
    is still that table's sheet); None for a code that opens no table."""
    model: Any = QualifyingTable if link.kind == "qualifying" else RaceTable
    digest = link_digest(link.secret)
    table = model.objects.filter(token_digest=digest).first()
    if table is None:
        replaced = ReplacedLink.objects.filter(digest=digest, kind=link.kind).first()
        if replaced is not None:
            table = model.objects.filter(pk=replaced.table_id).first()
    return table


def _same_table(a: RaceTable | QualifyingTable, b: RaceTable | QualifyingTable) -> bool:
    return type(a) is type(b) and a.pk == b.pk


def _another_sheet(table: RaceTable | QualifyingTable, owner: RaceTable | QualifyingTable) -> str:
    """Why the photo of ``owner``'s sheet is refused at ``table``, as the referee reads it."""
    if owner.event_id != table.event_id:
        return _(
            "This sheet is another event's: photograph the sheet of %(table)s, this page's."
        ) % {"table": table}
    return _(
        "This is %(owner)s's sheet, not %(table)s's: photograph this table's own sheet, or "
        "send that one from %(owner)s's page."
    ) % {"owner": owner, "table": table}


def _replace(*, actor: Actor, old: SheetPhoto, new: SheetPhoto) -> None:
    old = SheetPhoto.objects.select_for_update().get(pk=old.pk)
    if old.replaced_by_id is not None:
        raise Conflict(_("This photo was already replaced."))
    old.replaced_by = new
    old.replaced_at = timezone.now()
    actor.stamp(old)
    old.save(update_fields=["replaced_by", "replaced_at"])


@dataclass(frozen=True)
class Match:
    table: RaceTable | None
    reason: str  # "" when matched, else a key of UNMATCHED_REASONS
    qualifying_table: QualifyingTable | None = None


def table_for_links(event: Event, links: list[SheetLink]) -> Match:
    """The table of ``event`` (race or qualifying) whose sheet printed one of ``links``, or
    why there is none.

    A replaced link or another event's table never matches: the photo then waits in the
    desk's tray, where race control assigns it by hand.
    """
    if not links:
        return Match(None, "no_code")
    reason = "unknown"
    for link in links:
        digest = link_digest(link.secret)
        model = QualifyingTable if link.kind == "qualifying" else RaceTable
        table = model.objects.filter(token_digest=digest).first()
        if table is not None and table.event_id == event.pk:
            if isinstance(table, QualifyingTable):
                return Match(None, "", qualifying_table=table)
            return Match(table, "")
        if table is not None:
            reason = "other_event"
        elif _was_replaced(digest):
            reason = "replaced"
    return Match(None, reason)


def _was_replaced(digest: str) -> bool:
    return ReplacedLink.objects.filter(digest=digest).exists()


def photo_match(*, actor: Actor, event: Event, data: bytes, name: str = "") -> SheetPhoto:
    """A photo or scan sent to race control: matched to its table by the QR code of its
    sheet, else kept unmatched (its reason in ``unmatched_reason``). Race control: the desk
    and the organisers (sheets are the day's counter)."""
    if not actor.can_desk(event.championship):
        raise NotAllowed(_("Only race control may send a pile of sheets."))
    image = _checked(data)
    links = sheet_links(image.picture, first_look=image.stored)
    match = table_for_links(event, links)
    with transaction.atomic():
        photo = _create(
            actor=actor,
            event=event,
            table=match.table,
            qualifying_table=match.qualifying_table,
            source="unmatched" if match.reason else "qr",
            name=name,
            image=image,
            reason=match.reason,
            code_read=bool(links),
        )
    return photo


def photo_assign(
    *, actor: Actor, photo: SheetPhoto, table: RaceTable | QualifyingTable
) -> SheetPhoto:
    """Race control gives a photo its table by hand (one of the tray, or a wrong match): a
    race table or a qualifying table of the photo's event (the desk, or an organiser)."""
    if not actor.can_desk(photo.event.championship):
        raise NotAllowed(_("Only race control may assign a photo to a table."))
    if table.event_id != photo.event_id:
        raise InvalidInput(_("This table is not one of this event's."))
    with transaction.atomic():
        photo = SheetPhoto.objects.select_for_update().get(pk=photo.pk)
        race = isinstance(table, RaceTable)
        photo.table = table if race else None
        photo.qualifying_table = None if race else table
        photo.source = "hand"
        photo.unmatched_reason = ""
        actor.stamp(photo)
        photo.save(update_fields=["table", "qualifying_table", "source", "unmatched_reason"])
    return photo
