"""Where the day stands, for race control's desk: one line per step of a tournament day,
in the order the day runs, each done or not, with what it counts and where to do it. An
event announced before the day (DOMAIN.md "Before the day") starts with sign-up's steps:
the announcement, the opening, the list of registrants, the messages to them.

Race day's rows (tables, sheets, weather, results) live on the floor above: they are read
through the event's reverse relations (``event.race_tables``, ``event.sheet_batches``),
never by importing that floor.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from django.db.models import Count, Q
from django.urls import reverse
from django.utils import formats, timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from qualifying.selectors import TableProgress
from tournament.models import Entry, Event
from tournament.signup.models import Announcement, Message, Registration


@dataclass(frozen=True)
class Step:
    key: str
    label: str
    done: bool
    detail: str
    url: str


class EntryCount(Protocol):
    """What the steps read of an entry (an ``Entry``, or the desk's plain row of it)."""

    checked_in: bool
    absent: bool


def day_steps(
    *,
    event: Event,
    entries: Sequence[EntryCount],
    progress: list[TableProgress],
    sessions: int | None = None,
    organiser: bool = True,
) -> list[Step]:
    """The steps of ``event``'s day (the desk's "where we are" checklist); ``sessions``: how
    many the event has, when the caller knows. Read by the desk (``organiser`` False), the
    steps done on the organisers' pages link nowhere (the desk is refused them)."""
    desk = reverse("event-desk", args=[event.slug])
    allocation = reverse("allocation", args=[event.slug]) if organiser else ""
    registered = len(entries)
    checked_in = sum(1 for entry in entries if entry.checked_in)
    absent = sum(1 for entry in entries if entry.absent)
    steps = [
        *signup_steps(event, organiser=organiser),
        Step(
            "registered",
            _("Drivers registered"),
            registered > 0,
            str(registered),
            desk + "#entries",
        ),
        Step(
            "checked_in",
            _("Drivers checked in"),
            # Done when every registered driver is either here or marked absent.
            registered > 0 and checked_in + absent == registered,
            f"{checked_in} / {registered}"
            + (
                " · " + ngettext("%(count)s absent", "%(count)s absent", absent) % {"count": absent}
                if absent
                else ""
            ),
            desk + "#entries",
        ),
    ]
    if event.qualifying_mode == Event.QualifyingMode.DRAW:
        rolled = event.draw_rolls.values("driver").distinct().count()
        steps.append(
            Step("draw", _("Grid drawn (d20)"), rolled > 0, f"{rolled} / {registered}", allocation)
        )
    else:
        if sessions is None:
            sessions = event.sessions.count()
        expected = sum(p.drivers for p in progress) * sessions
        entered = sum(sum(p.runs_by_session.values()) for p in progress)
        steps += [
            Step(
                "qualifying_tables",
                _("Qualifying tables set"),
                bool(progress),
                str(len(progress)),
                desk + "#tables",
            ),
            Step(
                "sessions",
                _("Qualifying sessions opened"),
                sessions > 0,
                str(sessions),
                desk + "#sessions",
            ),
            Step(
                "runs",
                _("Runs entered"),
                expected > 0 and entered >= expected,
                f"{entered} / {expected}",
                desk + "#tables",
            ),
            Step(
                "classification",
                _("Qualifying classification published"),
                event.published_qualifying,
                _("published") if event.published_qualifying else _("not published"),
                desk + "#publish",
            ),
        ]
    counted = event.race_tables.aggregate(
        tables=Count("pk"), confirmed=Count("pk", filter=Q(result_status="confirmed"))
    )
    tables, confirmed = counted["tables"], counted["confirmed"]
    printed = event.sheet_batches.filter(kind="race", status="done").exists()
    # A missing one-to-one row raises an AttributeError too: hasattr says whether it exists.
    weather = hasattr(event, "race_weather")
    steps += [
        Step(
            "allocation",
            _("Race tables allocated and published"),
            tables > 0 and event.published_allocation,
            ngettext("%(count)s table", "%(count)s tables", tables) % {"count": tables}
            + (" · " + (_("published") if event.published_allocation else _("not published"))),
            allocation,
        ),
        Step("sheets", _("Race sheets printed"), printed, "", allocation),
        Step("weather", _("Race weather drawn"), weather, "", allocation),
        Step(
            "results",
            _("Results confirmed"),
            tables > 0 and confirmed == tables,
            f"{confirmed} / {tables}",
            reverse("results-desk", args=[event.slug]),
        ),
        Step(
            "standings",
            _("Results and standings published"),
            event.published_results,
            _("published") if event.published_results else _("not published"),
            desk + "#publish",
        ),
    ]
    return steps


def _when(moment: object) -> str:
    return formats.date_format(timezone.localtime(moment), "SHORT_DATETIME_FORMAT")


def signup_steps(event: Event, *, organiser: bool = True) -> list[Step]:
    """Sign-up's steps, first of the day's when the event has an announcement (none
    otherwise): announced (its registration window set), open, the list of registrants
    (done once sign-up has closed), the messages sent to them. The announcement's page is
    the organisers' (``organiser`` False: its steps link nowhere)."""
    announcement = Announcement.objects.filter(event=event).first()
    page = reverse("signup-announcement", args=[event.slug]) if organiser else ""
    if announcement is None:
        # A new event, nobody registered yet: its organiser's next step may be the sign-up
        # (issue 41: "a person who has never seen Paddock finds the next step"); an event
        # whose drivers race control registers itself is not asked again.
        if not organiser or Entry.objects.filter(event=event).exists():
            return []
        return [
            Step(
                "signup_announced",
                _("Sign-up announced"),
                False,
                _("not yet: announce the event to let players sign up on the website"),
                page,
            )
        ]
    now = timezone.now()
    registrations = reverse("signup-desk", args=[event.slug])
    opens, closes = announcement.opens_at, announcement.closes_at
    if opens is None:
        window = _("no opening date yet")
    elif opens > now:
        window = _("opens on %(date)s") % {"date": _when(opens)}
    elif closes is not None and closes <= now:
        window = _("closed on %(date)s") % {"date": _when(closes)}
    elif closes is not None:
        window = _("open until %(date)s") % {"date": _when(closes)}
    else:
        window = _("open")
    counts = Registration.objects.filter(event=event).aggregate(
        accepted=Count("pk", filter=Q(status=Registration.Status.ACCEPTED)),
        waiting=Count("pk", filter=Q(status=Registration.Status.WAITING)),
    )
    seats = "" if announcement.capacity is None else f" / {announcement.capacity}"
    sent = Message.objects.filter(event=event).count()
    return [
        Step("signup_announced", _("Sign-up announced"), opens is not None, window, page),
        Step("signup_open", _("Sign-up opened"), opens is not None and opens <= now, "", page),
        Step(
            "signup_list",
            _("Registrations: the list"),
            closes is not None and closes <= now,
            _("accepted: %(accepted)s · waiting: %(waiting)s")
            % {"accepted": f"{counts['accepted']}{seats}", "waiting": counts["waiting"]},
            registrations,
        ),
        Step(
            "signup_messages",
            _("Messages to registrants"),
            sent > 0,
            ngettext("%(count)s message", "%(count)s messages", sent) % {"count": sent},
            registrations,
        ),
    ]
