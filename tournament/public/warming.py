"""No cold room after a restart: the day's public pages built before a server serves.

A server restarted in the middle of the day (a laptop's lid, a deployment, a crash) meets a
room of phones whose pages its cache may no longer hold (``make venue``'s folder emptied,
Redis flushed, a restore's new incarnation, a cache of its own per process). Its first
visitors would each wait for a build while a thousand others queue behind them (p95 555 ms
measured on the spike, against 71 warm).

``warm_before_serving`` runs in each gunicorn worker as it loads the application
(``paddock.wsgi``), before the worker takes its first request: the phones that connect
meanwhile wait in the socket's queue and then find the pages stored. The builds are
single-flight (``tournament.public.cache``): a worker finding another worker's, or another
server's, build in progress waits for it instead of building its own.

Which pages: those a room opens after a publication (``tasks.event_pages``), of the day's
public events (dated today), else of the last day's (the results people look at again).
Bounded in time, since gunicorn kills a worker that stays silent for its ``--timeout``
(30 s): a page not built by then is built by its first visitor, as before.
"""

from __future__ import annotations

import datetime
import logging
import os
import time
from collections.abc import Iterable

from django.db import DatabaseError, connections
from django.db.models import Q
from django.utils import timezone

from tournament.models import Event
from tournament.public import cache as public_cache
from tournament.public.tasks import event_pages

logger = logging.getLogger(__name__)

#: At most this many events warmed (a day with more holds more than one room).
MAX_EVENTS = 10
#: An event something of which is published (``Event.is_public``), as a query.
PUBLIC = (
    Q(published_qualifying_tables=True)
    | Q(published_allocation=True)
    | Q(published_qualifying=True)
    | Q(published_results=True)
)
#: The time the builds may take at start: well within gunicorn's worker timeout (30 s).
BUDGET_SECONDS = 15.0


def events_of_the_day(today: datetime.date | None = None) -> list[Event]:
    """The public events dated ``today`` (the server's local date), else those of the last
    day before it that had one."""
    day = today or timezone.localdate()
    public = Event.objects.select_related("championship").filter(PUBLIC).order_by("pk")
    events = list(public.filter(date=day)[:MAX_EVENTS])
    if events:
        return events
    last = public.filter(date__lt=day).order_by("-date").values_list("date", flat=True).first()
    return list(public.filter(date=last)[:MAX_EVENTS]) if last else []


def pages_of_the_day(events: Iterable[Event]) -> list[str]:
    """The public pages of ``events``, each once (two events share their standings)."""
    return list(dict.fromkeys(path for event in events for path in event_pages(event)))


def warm_before_serving() -> list[str]:
    """Build the day's public pages now; answers those built (or found built). Never
    raises: a server whose database is not there yet still starts, and serves the error
    page or builds the pages later."""
    started = time.monotonic()
    try:
        paths = pages_of_the_day(events_of_the_day())
    except DatabaseError:
        logger.warning("Public pages not built at start: the database did not answer")
        return []
    finally:
        connections.close_all()
    if not paths:
        return []
    missed = public_cache.warm(paths, budget=BUDGET_SECONDS)
    built = [path for path in paths if path not in missed]
    logger.info(
        "Process %s: %d public pages ready in %.1f s (%d left to their first visitor)",
        os.getpid(),
        len(built),
        time.monotonic() - started,
        len(missed),
    )
    return built
