"""Pages of the sheets' photos: the referee sends the signed sheet from the result page (the
phone's camera opens), race control drops a pile of photos or scans on the desk (race and
qualifying sheets), assigns the unmatched ones by hand, and looks at a photo beside the
typed result.

Race control's pages are the desk's and the organisers' (sheets are the day's counter).
Images are served only to them and to the table's own link, ``private, no-store``:
never kept by the public cache, a proxy or the browser's disk.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from qualifying.models import QualifyingTable
from qualifying.referee.views import table_and_actor
from races.models import RaceTable, SheetPhoto
from races.photos import selectors, services, storage
from races.photos.limits import TooManyPhotos
from races.results.views import desk_rows
from races.views import _race_table
from tournament.access import Actor, actor_for, desk_event
from tournament.errors import ServiceError

#: One referee's request: front and back, and a spare.
TABLE_FILES_MAX = 4
#: One drop on the desk: a pile of sheets (the request's size is capped too, in settings).
DESK_FILES_MAX = 40


def image_response(photo: SheetPhoto, *, thumbnail: bool = False) -> HttpResponse:
    """The stored JPEG of ``photo``, for its reader alone (``private, no-store``)."""
    path = storage.path_of(photo.thumbnail if thumbnail else photo.image)
    if path is None:
        raise Http404(_("This photo's file is missing from the server."))
    response = FileResponse(path.open("rb"), content_type="image/jpeg")
    response["Cache-Control"] = "private, no-store"
    response["X-Content-Type-Options"] = "nosniff"
    response["Content-Disposition"] = f'inline; filename="sheet-photo-{photo.pk}.jpg"'
    return response


def _is_number(raw: str) -> bool:
    """A whole number a form may send (ASCII digits: "²" is a digit to ``str.isdigit``;
    at most 9 of them: no overflow in the database)."""
    return raw.isascii() and raw.isdigit() and len(raw) <= 9


def _chosen_files(request: HttpRequest, limit: int) -> list[Any]:
    files = request.FILES.getlist("photo")
    if not files:
        raise ValueError(_("Choose a photo first."))
    if len(files) > limit:
        raise ValueError(
            ngettext(
                "Send %(count)s photo at most at once.",
                "Send %(count)s photos at most at once.",
                limit,
            )
            % {"count": limit}
        )
    return files


@require_POST
def rtable_photo_add(request: HttpRequest, token: str) -> HttpResponse:
    """The referee's photo(s) of the signed sheet; ``replaces`` names the one it replaces."""
    table, actor = _race_table(request, token)
    return _table_photo_add(request, table, actor, reverse("result-entry", args=[token]))


@require_POST
def qtable_photo_add(request: HttpRequest, token: str) -> HttpResponse:
    """The photo(s) of a qualifying table's signed sheet, from its referee link's page."""
    table, actor = table_and_actor(request, token)
    return _table_photo_add(request, table, actor, reverse("qtable", args=[token]))


def _table_photo_add(
    request: HttpRequest, table: RaceTable | QualifyingTable, actor: Actor, back: str
) -> HttpResponse:
    replaces = None
    if _is_number(raw := request.POST.get("replaces", "")):
        replaces = next((p for p in selectors.photos_of(table) if p.pk == int(raw)), None)
    try:
        files = _chosen_files(request, TABLE_FILES_MAX)
    except ValueError as exc:
        return _refused(request, table, [str(exc)], back=back)
    refused = []
    sent = 0
    status = 400
    for upload in files:
        try:
            services.photo_add(
                actor=actor,
                table=table,
                data=services.read_upload(upload),
                name=upload.name or "",
                replaces=replaces if sent == 0 else None,
            )
            sent += 1
        except TooManyPhotos as exc:
            refused.append(exc.message)
            status = 429
            break  # the next ones would be refused for the same reason
        except ServiceError as exc:
            refused.append(f"{upload.name}: {exc.message}")
    if refused:
        return _refused(request, table, refused, sent=sent, status=status, back=back)
    messages.success(
        request,
        ngettext("Photo of the sheet kept.", "%(count)s photos of the sheet kept.", sent)
        % {"count": sent},
    )
    return redirect(back)


def _refused(
    request: HttpRequest,
    table: RaceTable | QualifyingTable,
    errors: list[str],
    *,
    back: str,
    sent: int = 0,
    status: int = 400,
) -> HttpResponse:
    return render(
        request,
        "photos/refused.html",
        {
            "table": table,
            "event": table.event,
            "errors": errors,
            "sent": sent,
            "back": back,
            "photos": selectors.photos_of(table),
            "qualifying_sheet": isinstance(table, QualifyingTable),
        },
        status=status,
    )


@require_GET
def rtable_photo(request: HttpRequest, token: str, photo_id: int, size: str) -> HttpResponse:
    """One of the table's photos, for its link's holder (and organisers, through the link)."""
    table, _actor = _race_table(request, token)
    photo = get_object_or_404(SheetPhoto, table=table, pk=photo_id)
    return image_response(photo, thumbnail=size == "thumb")


@require_GET
def qtable_photo(request: HttpRequest, token: str, photo_id: int, size: str) -> HttpResponse:
    """One of a qualifying table's photos, for its link's holder (and organisers)."""
    table, _actor = table_and_actor(request, token)
    photo = get_object_or_404(SheetPhoto, qualifying_table=table, pk=photo_id)
    return image_response(photo, thumbnail=size == "thumb")


# --- Race control ------------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
def photo_desk(request: HttpRequest, slug: str) -> HttpResponse:
    """The drop zone for a pile of photos or scans, what became of each, and the tray of
    photos no QR code matched, each with the table race control gives it."""
    event = desk_event(request, slug)
    outcomes: list[dict[str, Any]] = []
    status = 200
    if request.method == "POST":
        try:
            files = _chosen_files(request, DESK_FILES_MAX)
        except ValueError as exc:
            files, status = [], 400
            outcomes.append({"name": "", "error": str(exc)})
        actor = actor_for(request)
        for upload in files:
            try:
                photo = services.photo_match(
                    actor=actor,
                    event=event,
                    data=services.read_upload(upload),
                    name=upload.name or "",
                )
            except ServiceError as exc:
                outcomes.append({"name": upload.name, "error": exc.message})
                continue
            outcomes.append({"name": upload.name, "photo": photo})
        if outcomes and all("error" in outcome for outcome in outcomes):
            status = 400
    tray = selectors.unmatched(event)
    return render(
        request,
        "photos/desk.html",
        {
            "event": event,
            "outcomes": outcomes,
            "tray": tray,
            "reasons": {key: str(value) for key, value in services.UNMATCHED_REASONS.items()},
            "tables": RaceTable.objects.filter(event=event).order_by("number"),
            "qualifying_tables": QualifyingTable.objects.filter(event=event).order_by("number"),
            "qualifying": selectors.qualifying_photos(event),
        },
        status=status,
    )


@require_POST
def photo_assign(request: HttpRequest, slug: str, photo_id: int) -> HttpResponse:
    event = desk_event(request, slug)
    photo = get_object_or_404(SheetPhoto, event=event, pk=photo_id)
    number = request.POST.get("table", "")
    model: Any = QualifyingTable if number.startswith("q") else RaceTable
    number = number.removeprefix("q")
    table = (
        model.objects.filter(event=event, number=int(number)).first()
        if _is_number(number)
        else None
    )
    if table is None:
        messages.error(request, _("Choose the table this sheet belongs to."))
        return redirect("photo-desk", slug=slug)
    try:
        services.photo_assign(actor=actor_for(request), photo=photo, table=table)
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("Photo given to %(table)s.") % {"table": table})
    return redirect("photo-desk", slug=slug)


@require_GET
def desk_photo(request: HttpRequest, slug: str, photo_id: int) -> HttpResponse:
    """A photo large, beside its table's typed result: zoom (the image at full size), turn."""
    event = desk_event(request, slug)
    photo = get_object_or_404(
        SheetPhoto.objects.select_related("table", "qualifying_table"), event=event, pk=photo_id
    )
    row = next((r for r in desk_rows(event) if r.table.pk == photo.table_id), None)
    return render(
        request,
        "photos/photo.html",
        {
            "event": event,
            "photo": photo,
            "table": photo.sheet_table,
            "row": row,
            "others": selectors.photos_of(photo.table) if photo.table else [],
            "qualifying_sheet": photo.qualifying_table_id is not None,
        },
    )


@require_GET
def desk_photo_image(request: HttpRequest, slug: str, photo_id: int, size: str) -> HttpResponse:
    event = desk_event(request, slug)
    photo = get_object_or_404(SheetPhoto, event=event, pk=photo_id)
    return image_response(photo, thumbnail=size == "thumb")
