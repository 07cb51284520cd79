"""``event_return``: a national day comes home from the laptop (issue 30).

A day of 300 drivers (one qualifying session: 300 runs; about 40 race tables, each result
confirmed, with its history: saved, submitted, confirmed) and 40 photos of 2 MB (real JPEG
pictures with their thumbnails, as the laptop stores them: the return checks them) is exported
as the laptop's ``export_event`` writes it, its rows removed, and the file lands through
``paddock.away.landing.land`` as ``POST /api/v1/events/{event}/return`` does: every
row checked by the models' validators and added in one transaction, the photos' files
written, then the ratings' recompute the landing asks for (tasks run inline in the bench,
so the figure holds it). The same database plays both sides: the hosted check-out and the
laptop's are two rows of it.
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from django.test import override_settings
from PIL import Image, ImageDraw

from bench.builder import Size, build_championship
from paddock.away.export import export_event
from paddock.away.landing import land
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
from races.photos import images, storage
from tournament import sealing
from tournament.away import bundle
from tournament.away.models import Checkout
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
        picture, thumbnail, width, height = photo(n, photo_bytes)
        SheetPhoto.objects.create(
            event=event, table=tables[n % len(tables)], source="table",
            image=storage.store(picture), thumbnail=storage.store(thumbnail),
            width=width, height=height, size=len(picture),
        )  # fmt: skip
    return event


#: Bytes a pixel of ``photo``'s grain takes in a JPEG at the stored quality (measured).
BYTES_PER_PIXEL = 0.5
#: The grain's spread around mid-grey: a photo of a sheet in a hall's light, as noisy as a
#: phone's picture of about 2 MB at the stored size.
GRAIN = 32


def photo(n: int, photo_bytes: int) -> tuple[bytes, bytes, int, int]:
    """The ``n``-th photo of the day as the laptop stores it (``races.photos.images``): a JPEG
    of about ``photo_bytes`` (4:3, its long side within the stored one), its thumbnail, and
    the picture's width and height. Each one's own grain and number: no two files alike."""
    pixels = photo_bytes / BYTES_PER_PIXEL
    width = min(images.LONGEST_SIDE, max(64, round((pixels * 4 / 3) ** 0.5)))
    height = width * 3 // 4
    grain = Image.effect_noise((width, height), GRAIN)
    picture = Image.merge("RGB", (grain, grain, grain))
    ImageDraw.Draw(picture).text((8, 8), f"photo {n}", fill=(255, 255, 255))
    small = picture.copy()
    small.thumbnail((images.THUMBNAIL_SIDE, images.THUMBNAIL_SIDE))
    return _jpeg(picture), _jpeg(small), width, height


def _jpeg(picture: Image.Image) -> bytes:
    out = io.BytesIO()
    picture.save(out, format="JPEG", quality=images.QUALITY)
    return out.getvalue()


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


# --- On the hosted server: the return through the API, race control's desk meanwhile -------

DESK_EVERY = 0.5  # seconds between two desk requests of another event's race control


def _desk_event() -> Any:
    """Another championship's day under way: the desk race control keeps open meanwhile."""
    built = build_championship(
        slug="bench-away-desk",
        size=Size(drivers=80, teams=16, events=1, table_size=8, sessions=1),
    )
    return built.events[0]


async def _return_and_desk(
    base_url: str,
    *,
    path: str,
    body: bytes,
    token: str,
    desk_path: str,
    session: str,
    transport: Any = None,
) -> tuple[dict[str, Any], list[tuple[float, int | None]]]:
    """The return POSTed while race control polls its desk; ``transport``: an ASGI one (the
    tests, in process) instead of the network."""
    import asyncio

    import httpx

    desk: list[tuple[float, int | None]] = []
    finished = asyncio.Event()
    async with httpx.AsyncClient(base_url=base_url, timeout=300, transport=transport) as client:

        async def race_control() -> None:
            cookie = {"Cookie": f"sessionid={session}"}
            while not finished.is_set():
                started = time.perf_counter()
                try:
                    answer = await client.get(desk_path, headers=cookie)
                    status: int | None = answer.status_code
                except httpx.HTTPError:
                    status = None
                desk.append(((time.perf_counter() - started) * 1000, status))
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(finished.wait(), DESK_EVERY)

        polling = asyncio.create_task(race_control())
        await asyncio.sleep(DESK_EVERY)  # race control is at its desk as the day comes back
        started = time.perf_counter()
        try:
            answer = await client.post(
                path,
                content=body,
                headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
            )
            returned = {"status": answer.status_code, "text": answer.text[:300]}
            if answer.status_code == 200:
                returned["json"] = answer.json()
        except httpx.HTTPError as exc:
            returned = {"status": None, "text": repr(exc)}
        returned["seconds"] = time.perf_counter() - started
        finished.set()
        await polling
    return returned, desk


def measure_event_return_served(
    env: dict[str, str],
    *,
    drivers: int = 300,
    table_size: int = 8,
    photos: int = 40,
    photo_bytes: int = 2_000_000,
) -> dict[str, Any]:
    """``event_return`` on the hosted server: gunicorn (2 workers × 4 threads) on the bench's
    PostgreSQL, tasks inline (the ratings' recompute the landing asks for is in the
    answer's time); the laptop's export POSTed to ``/api/v1/events/{event}/return`` by an
    organiser's token, while race control of another event opens its desk twice a second."""
    import asyncio

    from django.urls import reverse

    from bench.load import Gunicorn
    from bench.spike import _percentile, desk_session, load_average, race_control_token

    media = tempfile.mkdtemp(prefix="paddock-bench-media-")
    try:
        with override_settings(MEDIA_ROOT=media):  # the photos' files: this run's own
            event = _day(drivers, table_size, photos, photo_bytes)
            text = _away_and_back(event)
        other = _desk_event()
        session = desk_session(other)
        token = race_control_token()
        desk_path = reverse("event-desk", args=[other.slug])
        with Gunicorn({**env, "MEDIA_ROOT": media}) as server:
            # Each worker's first desk (templates, catalogues), as a server since the morning.
            import httpx

            with httpx.Client(base_url=server.url, timeout=60) as client:
                for _ in range(8):
                    client.get(
                        desk_path,
                        headers={"Cookie": f"sessionid={session}", "Connection": "close"},
                    )
            returned, desk = asyncio.run(
                _return_and_desk(
                    server.url,
                    path=f"/api/v1/events/{event.slug}/return",
                    body=text.encode(),
                    token=token,
                    desk_path=desk_path,
                    session=session,
                )
            )
            workers, threads = server.workers, server.threads
        photos_on_disk = sum(1 for path in Path(media).rglob("*") if path.is_file())
    finally:
        shutil.rmtree(media, ignore_errors=True)
    times = [ms for ms, _status in desk]
    answer = returned.get("json") or {}
    return {
        "server": f"gunicorn {workers} workers × {threads} threads (gthread), 127.0.0.1",
        "status": returned["status"],
        "error": "" if returned["status"] == 200 else returned["text"],
        "seconds": round(returned["seconds"], 2),
        "bytes": len(text),
        "landed": answer.get("landed"),
        "refused": answer.get("refused"),
        "results": RaceResult.objects.filter(table__event=event).count(),
        "history": RaceResult.history.filter(table__event=event).count(),
        "photos": SheetPhoto.objects.filter(event=event).count(),
        "media_files": photos_on_disk,
        "rated_players": PlayerRating.objects.filter(
            player__drivers__championship=event.championship
        ).count(),
        "desk_requests": len(desk),
        "desk_errors": sum(1 for _ms, status in desk if status != 200),
        "desk_p50_ms": _percentile(times, 0.5),
        "desk_p95_ms": _percentile(times, 0.95),
        "desk_max_ms": round(max(times), 1) if times else None,
        "load_average": load_average(),
    }
