"""On the laptop: the way back (``manage.py export_event``), signed with the check-out's key.

It carries what the day made of the event: sessions, qualifying tables, seats, runs and
draws, race tables, grids, stands, configurations, weather, results and their lines,
sanctions, photos (their rows, and their files in base64 under their SHA-256 names), the
history rows of all of these (who, when, before and after), the entries as they ended, and
the drivers created at the door with their players (by their hosted id when the laptop
joined one to a player a bundle brought). Rows keep this laptop's ids; the
hosted server gives them its own on landing (``landing``). People are named by username.
"""

from __future__ import annotations

import base64
import datetime
import json
from typing import Any

from django.apps import apps
from django.core import serializers
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models
from django.db.models import Case, Q, When
from django.utils.translation import gettext as _

from paddock.venue.championship_backup import LABELS as BACKUP_LABELS
from races.photos import storage
from tournament import sealing
from tournament.away import bundle
from tournament.away.models import ArrivedPlayer, ArrivedRegistration, Checkout
from tournament.models import Driver, Entry, Event


class ExportError(Exception):
    """An event this laptop cannot send back, with a sentence saying why."""


class _Encoder(DjangoJSONEncoder):
    # Times kept whole (DjangoJSONEncoder rounds them to milliseconds).
    def default(self, o: object) -> Any:
        if isinstance(o, datetime.datetime | datetime.time):
            return o.isoformat()
        return super().default(o)


#: The day's models, in loading order (their history rows right after them): those of a
#: championship's backup from the qualifying sessions on, then the sheets' photos and the
#: entries' history (check-in at the door).
LABELS = [
    *BACKUP_LABELS[BACKUP_LABELS.index("qualifying.QualifyingSession") :],
    "races.SheetPhoto",
    "races.HistoricalSheetPhoto",
    "tournament.HistoricalEntry",
]


def _ids(label: str, where: Q) -> set[int]:
    """Ids of ``label``'s rows and of those its history still names (deleted ones)."""
    model = apps.get_model(label)
    ids = set(model._default_manager.filter(where).values_list("pk", flat=True))
    history = getattr(model, "history", None)
    if history is not None:
        ids |= set(history.model._default_manager.filter(where).values_list("id", flat=True))
    return ids


def _rows(event: Event, since: datetime.datetime) -> list[tuple[str, models.QuerySet]]:
    def rows(label: str, where: Q) -> tuple[str, models.QuerySet]:
        return label, apps.get_model(label)._default_manager.filter(where)

    on = Q(event=event)
    sessions = Q(session__in=_ids("qualifying.QualifyingSession", on))
    tables = Q(table__in=_ids("races.RaceTable", on))
    slots = Q(slot__in=_ids("races.GridSlot", on))
    stages = Q(stage__in=_ids("races.Stage", on))
    replaced = Q(kind="race", table_id__in=_ids("races.RaceTable", on)) | Q(
        kind="qualifying", table_id__in=_ids("qualifying.QualifyingTable", on)
    )
    where = {
        "qualifying.Run": sessions,
        "races.CarConfiguration": slots,
        "races.WeatherDraw": tables,
        "races.ReplacedLink": replaced,
        "races.RaceResult": tables,
        "races.StageTime": stages,
    }
    chosen = []
    for label in LABELS:
        base = label.replace(".Historical", ".")
        condition = where.get(base, on)
        if label == "tournament.HistoricalEntry":  # the day's only, not the arrival's
            condition = on & Q(history_date__gt=since)
        chosen.append(rows(label, condition))
    return chosen


def hosted_player_id(player_id: int | None) -> int | None:
    """The hosted id of a player a bundle brought (or of one merged into it here), else
    None: a player of the door, proposed for matching on return."""
    if player_id is None:
        return None
    arrived = (
        ArrivedPlayer.objects.filter(Q(player_id=player_id) | Q(player__merged_into=player_id))
        .order_by(Case(When(player_id=player_id, then=0), default=1), "pk")
        .first()
    )
    return arrived.hosted_id if arrived else None


def _door_drivers(event: Event, reserved: list[int]) -> list[dict[str, Any]]:
    drivers = Driver.objects.filter(
        championship=event.championship, number__in=reserved
    ).select_related("team", "player")
    return [
        {
            "number": d.number,
            "first_name": d.first_name,
            "last_name": d.last_name,
            "team": d.team.name if d.team else None,
            "email": d.email,
            "player": {
                "id": hosted_player_id(d.player_id),
                "first_name": d.player.first_name if d.player else d.first_name,
                "last_name": d.player.last_name if d.player else d.last_name,
                "licence": d.player.licence if d.player else None,
                "email": d.player.email if d.player else "",
            },
        }
        for d in drivers.order_by("number")
    ]


def export_event(slug: str) -> dict[str, Any]:
    """The signed way back of event ``slug`` (module docstring)."""
    event = Event.objects.select_related("championship").filter(slug=slug).first()
    if event is None:
        raise ExportError(_("No event “%(slug)s” here.") % {"slug": slug})
    checkout = Checkout.objects.filter(event=event, side=Checkout.Side.VENUE).first()
    if checkout is None:
        raise ExportError(_("This event was not loaded from a bundle: nothing to send back."))
    key = sealing.unseal(checkout.key)
    if key is None:
        raise ExportError(_("This laptop cannot read the check-out's key any more."))
    objects: list[dict[str, Any]] = []
    for _label, rows in _rows(event, checkout.at):
        objects.extend(
            serializers.serialize("python", rows.order_by("pk"), use_natural_foreign_keys=True)  # type: ignore[arg-type]
        )
    files = {}
    for photo in apps.get_model("races.SheetPhoto").objects.filter(event=event):
        for name in (photo.image, photo.thumbnail):
            path = storage.path_of(name)
            if path is not None:
                files[name] = base64.b64encode(path.read_bytes()).decode("ascii")
    event_row = serializers.serialize("python", [event])[0]
    data = {
        "format": bundle.BACK,
        "checkout": {"id": str(checkout.uid)},
        "event": {**event_row["fields"], "id": event.pk, "slug": event.slug},
        "championship": event.championship.slug,
        "numbers": {
            str(pk): number
            for pk, number in Driver.objects.filter(championship=event.championship).values_list(
                "pk", "number"
            )
        },
        "entries": [
            {
                "id": e.pk,
                "driver": e.driver.number,
                "checked_in": e.checked_in,
                "absent": e.absent,
                "fast": e.fast,
                "paid": e.paid,
            }
            for e in Entry.objects.filter(event=event).select_related("driver").order_by("pk")
        ],
        "drivers": _door_drivers(event, list(checkout.reserved_numbers)),
        # The registrations the bundle brought, by their hosted id, as the day left them:
        # who came, as whom, who was absent, who moved in from the waiting list.
        "registrations": [
            {
                "id": arrived.hosted_id,
                "status": arrived.registration.status,
                "confirmed_at": arrived.registration.confirmed_at,
                "present": arrived.registration.present,
                "driver": arrived.registration.driver.number
                if arrived.registration.driver
                else None,
            }
            for arrived in ArrivedRegistration.objects.filter(
                registration__event=event
            ).select_related("registration__driver")
        ],
        "objects": objects,
        "files": files,
    }
    plain = json.loads(json.dumps(data, cls=_Encoder))
    return bundle.signed(plain, key)
