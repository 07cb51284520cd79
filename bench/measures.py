"""What ``make bench`` times, each beside its floor where the issue asks for one.

Every measure runs once to warm up (imports, template loading, font registration), then
``runs`` times; it reports the median, min and max in milliseconds.
"""

from __future__ import annotations

import io
import os
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.db import connection
from django.http import HttpRequest, HttpResponse
from django.template import engines
from django.test import Client, override_settings
from django.test.utils import CaptureQueriesContext
from django.urls import path, reverse
from django.utils import translation

from tournament.models import Championship, Event


@dataclass
class Timings:
    """Milliseconds of each run: wall clock (what a user waits) and CPU, this process's and
    its database server process's (``database_cpu``: PostgreSQL on this machine; 0 when it
    cannot be read). On a machine shared with other work the wall clock also counts the
    others' work; CPU time counts the measure's own, queries included."""

    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    database: list[float] = field(default_factory=list)

    def run(self, fn: Callable[[], object]) -> None:
        wall, cpu, database = time.perf_counter(), time.process_time(), database_cpu()
        fn()
        self.wall.append((time.perf_counter() - wall) * 1000)
        spent = database_cpu() - database
        self.database.append(spent)
        self.cpu.append((time.process_time() - cpu) * 1000 + spent)


def database_cpu() -> float:
    """The CPU time (ms) of this connection's PostgreSQL server process so far, read from
    ``/proc`` (the server on this machine, counted in clock ticks of 10 ms: a measure's
    runs add up). 0 for SQLite (in this process already) or a server elsewhere."""
    if connection.vendor != "postgresql":
        return 0.0
    connection.ensure_connection()
    pid = connection.connection.info.backend_pid
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    ticks = int(fields[11]) + int(fields[12])  # utime, stime
    return ticks * 1000 / os.sysconf("SC_CLK_TCK")


def timed(fn: Callable[[], object], *, runs: int, warmup: int = 1) -> Timings:
    """``runs`` calls of ``fn`` timed, after ``warmup`` untimed ones."""
    for _ in range(warmup):
        fn()
    timings = Timings()
    for _ in range(runs):
        timings.run(fn)
    return timings


def timed_pair(
    first: Callable[[], object], second: Callable[[], object], *, runs: int, warmup: int = 1
) -> tuple[Timings, Timings]:
    """``timed`` for a measure and its floor, run in turns so that both see the same machine
    (others' work on a shared machine slows both alike, not one of them)."""
    for _ in range(warmup):
        first()
        second()
    a, b = Timings(), Timings()
    for _ in range(runs):
        a.run(first)
        b.run(second)
    return a, b


def cpu_ratio(measure: Timings, floor: Timings) -> float:
    """The median over runs of a measure's CPU time over its floor's in the same turn
    (``timed_pair``): each pair taken within a second, what the machine's other work
    does to one does it to the other; the median leaves out a turn a pause fell in."""
    return round(statistics.median(m / f for m, f in zip(measure.cpu, floor.cpu, strict=True)), 3)


def summary(timings: Timings, **extra: Any) -> dict[str, Any]:
    """Median, min and max of the wall-clock times; the median CPU time beside them (on a
    shared machine the wall clock also counts the others' work), the database server's
    share of it apart."""
    return {
        "median": round(statistics.median(timings.wall), 3),
        "min": round(min(timings.wall), 3),
        "max": round(max(timings.wall), 3),
        "unit": "ms",
        "runs": len(timings.wall),
        "cpu_median": round(statistics.median(timings.cpu), 3),
        "cpu_total": round(sum(timings.cpu), 3),
        "database_cpu_median": round(statistics.median(timings.database), 3),
        **extra,
    }


# --- Standings page and its floor ------------------------------------------------------------

# The floor: the same rows and columns as the standings table, from a precomputed list, with
# a plain template loop. No query, no computation, no django-tables2: what rendering that
# much HTML costs at the least with Django's template engine.
FLOOR_TEMPLATE = """<!DOCTYPE html><html lang="fr"><head><meta charset="utf-8">
<title>{{ title }}</title></head><body><table class="striped standings"><thead><tr>
<th>Rang</th><th>N°</th><th>Pilote</th><th>Écurie</th><th>Points</th>
{% for name in events %}<th class="num">{{ name }}</th>{% endfor %}</tr></thead><tbody>
{% for row in rows %}<tr data-number="{{ row.number }}"><td>{{ row.rank }}</td>\
<td>{{ row.number }}</td><td class="driver"><a href="{{ row.url }}">{{ row.name }}</a></td>\
<td class="hide-narrow">{{ row.team|default:"—" }}</td><td class="num total">{{ row.total }}</td>\
{% for cell in row.cells %}<td class="num">{% if cell %}<span class="{{ cell.css }}">\
{{ cell.points }}</span> <small class="place" title="{{ cell.title }}">{{ cell.place }}</small>\
{% else %}—{% endif %}</td>{% endfor %}</tr>
{% endfor %}</tbody></table></body></html>"""

_floor_rows: dict[str, dict[str, Any]] = {}


def floor_context(championship: Championship) -> dict[str, Any]:
    """The standings page's rows and columns, computed once (outside the timing)."""
    from standings.selectors import standings_for
    from standings.tables import driver_url_for, place_mark

    standings = standings_for(championship=championship, published_only=True)
    url = driver_url_for(championship)
    rows = []
    for line in standings.lines:
        cells = []
        for event in standings.events:
            result = line.results.get(event.pk)
            if result is None:
                cells.append(None)
                continue
            counted = event.pk in line.counted
            short, long = place_mark(result.position, result.status)
            cells.append(
                {
                    "css": "pts" if counted else "pts not-counted",
                    "points": result.points if counted else f"({result.points})",
                    "title": long,
                    "place": short,
                }
            )
        rows.append(
            {
                "rank": line.rank,
                "number": line.driver.number,
                "name": line.driver.name,
                "url": url(line.driver),
                "team": line.driver.team.name if line.driver.team else None,
                "total": line.points,
                "cells": cells,
            }
        )
    return {"title": str(championship), "events": [e.name for e in standings.events], "rows": rows}


def floor_view(request: HttpRequest, slug: str) -> HttpResponse:
    template = engines["django"].from_string(FLOOR_TEMPLATE)
    return HttpResponse(template.render(_floor_rows[slug], request))


def _urlpatterns() -> list[Any]:
    from paddock.urls import urlpatterns

    return [path("bench-floor/<slug:slug>/", floor_view, name="bench-floor"), *urlpatterns]


class BenchUrls:
    """A URLconf: the project's own, plus the floor view (the project's urls stay untouched)."""

    @property
    def urlpatterns(self) -> list[Any]:
        return _urlpatterns()


#: The standings page as built for its first visitor: no cache to answer from (the cached
#: page is ``bench.spike.measure_cached_standings``).
NO_CACHE = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}


def measure_standings(championship: Championship, *, runs: int) -> dict[str, Any]:
    """The unpaginated standings page, anonymous visitor, and its floor, through the Client:
    the page built (the public cache off), not answered from the cache."""
    size = championship.drivers.count()
    _floor_rows[championship.slug] = floor_context(championship)
    client = Client()
    page = reverse("standings", args=[championship.slug])
    with override_settings(ROOT_URLCONF=BenchUrls(), CACHES=NO_CACHE):
        floor = reverse("bench-floor", args=[championship.slug])

        def get(url: str) -> HttpResponse:
            response = client.get(url)
            assert response.status_code == 200, (url, response.status_code)
            return response

        for url in (page, floor):
            rows = get(url).content.decode().count("<tr data-number=")
            assert rows == size, f"{url}: {rows} rows for {size} drivers"
        with CaptureQueriesContext(connection) as captured:
            get(page)
        # Read now: the capture is a view of the connection's log, which the next request clears.
        queries = len(captured)
        page_times, floor_times = timed_pair(lambda: get(page), lambda: get(floor), runs=runs)
    return {
        "page": summary(
            page_times,
            queries=queries,
            drivers=size,
            cpu_vs_floor=cpu_ratio(page_times, floor_times),
        ),
        "floor": summary(floor_times, drivers=size),
    }


# --- Qualifying classification and allocation ------------------------------------------------


def measure_qualifying(event: Event, *, runs: int) -> dict[str, Any]:
    from qualifying.selectors import general_classification

    drivers = event.entries.count()
    sessions = event.sessions.count()

    def classify() -> None:
        lines = general_classification(event=event)
        assert len(lines) == drivers, (len(lines), drivers)

    return summary(timed(classify, runs=runs), drivers=drivers, sessions=sessions)


def allocation_field(*, drivers: int, teams: int, seed: int) -> list[Any]:
    """``drivers`` in ``teams`` of equal size, shuffled with ``seed``, ranked 1..n."""
    from races.grid.allocation import RankedDriver

    team_of = [number % teams for number in range(drivers)]
    random.Random(seed).shuffle(team_of)
    return [RankedDriver(driver=n, rank=n, team=t) for n, t in enumerate(team_of, start=1)]


def measure_allocation(
    *, drivers: int, teams: int, capacity: int, seed: int, runs: int
) -> dict[str, Any]:
    from races.grid.allocation import allocate

    ranked = allocation_field(drivers=drivers, teams=teams, seed=seed)
    result = allocate(ranked, capacity=capacity)
    assert sum(len(t) for t in result.tables) == drivers
    return summary(
        timed(lambda: allocate(ranked, capacity=capacity), runs=runs),
        drivers=drivers,
        teams=teams,
        tables=len(result.tables),
        conflicts=len(result.conflicts),
    )


# --- Race sheets and their floor -------------------------------------------------------------


def race_sheets_pdf(event: Event) -> bytes:
    """All race sheets of ``event`` in one PDF, as the Celery task builds it (data + render)."""
    from races.sheets.pdf import RaceSheetRenderer
    from races.sheets.selectors import race_sheets

    with translation.override(event.language):
        sheets = race_sheets(event=event, language=event.language)
        return RaceSheetRenderer().render_many(sheets)


def bare_reportlab_documents(count: int, rows: int = 10) -> list[bytes]:
    """``count`` one-page A4 reportlab documents, each with a ``rows``-row table."""
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4
    from reportlab.platypus import SimpleDocTemplate, Table, TableStyle

    documents = []
    for number in range(1, count + 1):
        buffer = io.BytesIO()
        data = [["Pos.", "No.", "Driver", "Team", "Stand", "Finish"]] + [
            [str(r), str(number * 10 + r), f"Driver {r}", f"Team {r % 5}", "", ""]
            for r in range(1, rows + 1)
        ]
        table = Table(data, rowHeights=40)
        table.setStyle(TableStyle([("GRID", (0, 0), (-1, -1), 0.5, colors.black)]))
        SimpleDocTemplate(buffer, pagesize=A4, invariant=True).build([table])
        documents.append(buffer.getvalue())
    return documents


def measure_sheets(event: Event, *, runs: int) -> dict[str, Any]:
    """The batch as the Celery task builds it (data and drawing), its drawing alone, and
    the floor."""
    from pypdf import PdfReader

    from races.sheets.pdf import RaceSheetRenderer
    from races.sheets.selectors import race_sheets

    tables = event.race_tables.count()
    pdf = race_sheets_pdf(event)
    pages = len(PdfReader(io.BytesIO(pdf)).pages)
    assert pages >= tables, (pages, tables)
    sheet_times, floor_times = timed_pair(
        lambda: race_sheets_pdf(event), lambda: bare_reportlab_documents(tables), runs=runs
    )
    with translation.override(event.language):
        data = race_sheets(event=event, language=event.language)
        render_times = timed(lambda: RaceSheetRenderer().render_many(data), runs=runs)
    return {
        "sheets": summary(
            sheet_times,
            tables=tables,
            pages=pages,
            bytes=len(pdf),
            cpu_vs_floor=cpu_ratio(sheet_times, floor_times),
        ),
        "render": summary(render_times, tables=tables),
        "floor": summary(floor_times, documents=tables),
    }


def twelve_megapixel_photo(event: Event, *, long_side: int = 4000) -> bytes:
    """A phone's photo of the event's first race sheet, 4000 × 3000 (12 megapixels) as a
    phone takes it: turned, seen at an angle, JPEG (``bench.camera``)."""
    from bench import camera
    from races.sheets.pdf import RaceSheetRenderer
    from races.sheets.selectors import race_sheets

    table = event.race_tables.order_by("number").first()
    (data,) = race_sheets(event=event, tables=[table])
    page = camera.printed(RaceSheetRenderer().render(data), dpi=200)
    photo = camera.photograph(page, camera.Shot(width=long_side, angle=7, tilt=0.12, seed=12))
    short_side = long_side * 3 // 4
    photo = photo.resize((short_side, long_side))  # exactly 12 megapixels, portrait
    return camera.jpeg(photo, quality=88)


def measure_photo_match(event: Event, *, runs: int, long_side: int = 4000) -> dict[str, Any]:
    """What the server does with a photo sent to the desk, but writing it: open the 12-megapixel
    JPEG, turn it upright, re-encode it with its thumbnail (``races.photos.images``), read
    the sheet's QR code and find its table (``races.photos``). Also the QR reading alone."""
    from django.conf import settings

    from races.photos.images import normalise
    from races.photos.matching import sheet_links
    from races.photos.services import table_for_links

    photo = twelve_megapixel_photo(event, long_side=long_side)
    expected = event.race_tables.order_by("number").first()

    def match() -> None:
        image = normalise(photo, max_bytes=settings.PHOTO_MAX_BYTES)
        found = table_for_links(event, sheet_links(image.picture, first_look=image.stored))
        assert found.table == expected, found

    stored = normalise(photo, max_bytes=settings.PHOTO_MAX_BYTES)
    picture = stored.picture
    reading = timed(lambda: sheet_links(picture, first_look=stored.stored), runs=runs)
    return {
        **summary(
            timed(match, runs=runs), megapixels=round(picture.width * picture.height / 1e6, 1)
        ),
        "bytes": len(photo),
        "qr_read_median": summary(reading)["median"],
    }
