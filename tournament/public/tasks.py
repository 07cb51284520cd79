"""Background tasks of the ground floor: thin, take ids, safe to run twice."""

from __future__ import annotations

import logging

from celery import shared_task
from django.urls import reverse
from kombu.exceptions import OperationalError
from redis.exceptions import RedisError

from tournament.models import Event
from tournament.public import cache as public_cache

logger = logging.getLogger(__name__)


def event_pages(event: Event) -> list[str]:
    """The public pages a room of phones opens when an event's tables or results come out
    (the others, each opened by a few, are built by their first visitor)."""
    championship = event.championship.slug
    # Only the pages public already: the others would be 404s, each logged "Not Found".
    public = {
        "where": event.published_allocation or event.published_qualifying_tables,
        "event-results": event.published_results,
        "qualifying-general": event.published_qualifying,
    }
    return [
        *([reverse("event", args=[event.slug])] if event.is_public() else []),
        *[reverse(name, args=[event.slug]) for name, shown in public.items() if shown],
        reverse("standings", args=[championship]),
    ]


@shared_task(name="tournament.warm_event_pages", ignore_result=True)
def warm_event_pages(event_id: int) -> list[str]:
    """Build the event's public pages before the phones come (after a publication).

    Answers the pages not stored: those not public (yet), or failed (logged); their
    first visitor builds them.
    """
    event = Event.objects.select_related("championship").filter(pk=event_id).first()
    if event is None:
        return []
    return public_cache.warm(event_pages(event))


def warm_event_pages_soon(event_id: int) -> None:
    """Hand the build of the event's pages to a worker (inline without Redis); a queue that
    cannot be reached costs the build only: the first visitors build the pages then."""
    try:
        warm_event_pages.delay(event_id)
    except (OperationalError, RedisError, OSError):
        logger.warning("event %s: task queue unreachable, pages built on first visit", event_id)
