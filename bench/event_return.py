"""``event_return``: a national day comes home from the laptop (issue 30).

A day of 300 drivers (one qualifying session: 300 runs; about 40 race tables, each result
confirmed, with its history: saved, submitted, confirmed) and 40 photos of 2 MB is exported
as the laptop's ``export_event`` writes it, its rows removed, and the file lands through
``tournament.away.trip.landing.land`` as ``POST /api/v1/events/{event}/return`` does: every
row checked by the models' validators and added in one transaction, the photos' files
written, then the ratings' recompute the landing asks for (tasks run inline in the bench,
so the figure holds it). The same database plays both sides: the hosted check-out and the
laptop's are two rows of it.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from typing import Any

from django.test import override_settings

from bench.builder import Size, build_championship
from qualifying.models import QualifyingSession, QualifyingTable
from races.models import (
    AllocationRecord,
    RaceResult,
    RaceTable,
    RaceWeather,
    RaceWeatherDraw,
    ResultLine,
    SheetPhoto,
)
from races.photos import storage
from tournament import sealing
from tournament.away import bundle
from tournament.away.models import Checkout
from tournament.away.trip.export import export_event
from tournament.away.trip.landing import land
from tournament.models import Driver, Player, PlayerRating, Sanction


def _day(drivers: int, table_size: int, photos: int, photo_bytes: int) -> Any:
    built = build_championship(
        slug="bench-away",
        size=Size(drivers=drivers, teams=max(1, drivers // 5), events=1,
                  table_size=table_size, sessions=1),
    )  # fmt: skip
    event = built.events[0]
    players = Player.objects.bulk_create(
        Player(first_name=f"Joueur{n}", last_name="Retour") for n in range(drivers)
    )
    found = list(Driver.objects.filter(championship=built.championship).order_by("number"))
    for driver, player in zip(found, players, strict=True):
        driver.player = player
    Driver.objects.bulk_update(found, ["player"])
    # Each result's history as the day writes it: saved, submitted, confirmed.
    for result in RaceResult.objects.filter(table__event=event):
        for _step in range(3):
            result.save()
    tables = list(RaceTable.objects.filter(event=event).order_by("number"))
    for n in range(photos):
        data = os.urandom(photo_bytes)
        name = storage.store(data)
        SheetPhoto.objects.create(
            event=event, table=tables[n % len(tables)], source="table", image=name,
            thumbnail=name, width=4000, height=3000, size=len(data),
        )  # fmt: skip
    return event


def _away_and_back(event: Any) -> str:
    """The laptop's way back of ``event``, its day's rows then removed (hosted again)."""
    key = bundle.new_key()
    checkout = Checkout.objects.create(
        event=event, side="venue", key=sealing.seal(key), reserved_numbers=[]
    )
    data = export_event(event.slug)
    checkout.delete()
    for model in (SheetPhoto, RaceTable, QualifyingTable, QualifyingSession, ResultLine,
                  RaceWeather, RaceWeatherDraw, AllocationRecord, Sanction):  # fmt: skip
        model.objects.filter(event=event).delete()
    Checkout.objects.create(
        event=event, side="hosted", uid=checkout.uid, key=sealing.seal(key), reserved_numbers=[]
    )
    return json.dumps(data)


def measure_event_return(
    *, drivers: int = 300, table_size: int = 8, photos: int = 40, photo_bytes: int = 2_000_000
) -> dict[str, Any]:
    media = tempfile.mkdtemp(prefix="paddock-bench-media-")
    try:
        with override_settings(MEDIA_ROOT=media):  # the photos' files: this run's own
            event = _day(drivers, table_size, photos, photo_bytes)
            text = _away_and_back(event)
            started = time.perf_counter()
            answer = land(text, event=event)
            seconds = time.perf_counter() - started
    finally:
        shutil.rmtree(media, ignore_errors=True)
    return {
        "seconds": round(seconds, 2),
        "bytes": len(text),
        "landed": answer["landed"],
        "results": RaceResult.objects.filter(table__event=event).count(),
        "history": RaceResult.history.filter(table__event=event).count(),
        "rated_players": PlayerRating.objects.filter(
            player__drivers__championship=event.championship
        ).count(),
    }
