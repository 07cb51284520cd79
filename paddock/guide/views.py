"""The guide's pages (``/guide/``, ``/guide/<page>/``), in the reader's language.

Its links to an event's pages are filled with the event the reader chose (``?event=``) or,
by default, the nearest one they may see: for a club's people, their championships' next
event (else their last); for everyone else, the next published one. A reader who may see
none gets the page where events are listed instead. An event is never named to someone
who may not see it (``Event.is_public``, ``Actor.can_desk``).
"""

from __future__ import annotations

import re

from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from paddock.guide import loader
from tournament.access import actor_for
from tournament.models import Event

#: How many events the reader may pick from.
CHOICES = 12

_PUBLISHED = (
    Q(published_qualifying_tables=True)
    | Q(published_allocation=True)
    | Q(published_qualifying=True)
    | Q(published_results=True)
)
#: An event's address as ``slug_validator`` takes it (``tournament.models``).
_SLUG = re.compile(r"[a-z0-9-]{1,100}")
_LEFT = re.compile(
    r'href="([^"]*(?:' + "|".join(map(re.escape, loader.PLACEHOLDERS.values())) + r')[^"]*)"'
)


@require_safe
def index(request: HttpRequest) -> HttpResponse:
    return _page(request, "index")


@require_safe
def page(request: HttpRequest, page: str) -> HttpResponse:
    if page not in loader.PAGES:
        raise Http404(_("The guide has no such page."))
    return _page(request, page)


def _page(request: HttpRequest, slug: str) -> HttpResponse:
    language = loader.language_of(get_language())
    shown = loader.page(slug, language)
    events = events_for(request)
    event = chosen_event(request, events)
    return render(
        request,
        "guide/page.html",
        {
            "page": shown,
            "html": filled(shown.html, event, signed_in=request.user.is_authenticated),
            "pages": [loader.page(other, language) for other in loader.PAGES],
            "event": event,
            "events": events,
        },
    )


def events_for(request: HttpRequest) -> list[Event]:
    """The events the guide may lead this reader to, the nearest first (the coming ones by
    date, then the past ones, the latest first)."""
    actor = actor_for(request)
    rows = Event.objects.select_related("championship")
    if actor.is_superuser():
        pass
    elif actor.is_authenticated:
        user = actor.user
        rows = rows.filter(
            Q(championship__organisers__pk=user.pk)
            | Q(championship__club__memberships__user_id=user.pk)
            | _PUBLISHED
        ).distinct()
    else:
        rows = rows.filter(_PUBLISHED)
    today = timezone.localdate()
    coming = list(rows.filter(date__gte=today).order_by("date", "pk")[:CHOICES])
    past = list(rows.filter(date__lt=today).order_by("-date", "-pk")[:CHOICES])
    shown = [e for e in coming + past if e.is_public() or actor.can_desk(e.championship)]
    return shown[:CHOICES]


def chosen_event(request: HttpRequest, events: list[Event]) -> Event | None:
    """The event named by ``?event=`` when the reader may see it, else the nearest."""
    wanted = request.GET.get("event", "")
    # Only what could be a slug is looked up: PostgreSQL refuses a NUL in a query (a 500).
    if _SLUG.fullmatch(wanted):
        actor = actor_for(request)
        found = Event.objects.select_related("championship").filter(slug=wanted).first()
        if found is not None and (found.is_public() or actor.can_desk(found.championship)):
            return found
    return events[0] if events else None


def filled(html: str, event: Event | None, *, signed_in: bool) -> str:
    """The page's links with the event's and championship's addresses; without an event,
    the links that need one lead to where events are listed."""
    if event is not None:
        html = html.replace(loader.PLACEHOLDERS["event"], event.slug)
        return html.replace(loader.PLACEHOLDERS["championship"], event.championship.slug)
    elsewhere = reverse("my-clubs" if signed_in else "home")
    return _LEFT.sub(f'href="{elsewhere}"', html)
