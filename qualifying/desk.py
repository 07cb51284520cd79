"""Where the day stands, for race control's desk: one line per step of a tournament day,
in the order the day runs, each done or not, with what it counts and where to do it. An
event announced before the day (DOMAIN.md "Before the day") starts with sign-up's steps:
the announcement, the opening, the list of registrants (the messages to them are an
optional act, not a step).

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

from qualifying.selectors import TableProgress, qualifying_progress
from tournament.games.registry import GameSpec, spec_of
from tournament.models import Entry, Event
from tournament.signup.models import Announcement, Registration


@dataclass(frozen=True)
class Step:
    key: str
    label: str
    done: bool
    detail: str
    url: str
    #: What the step counts (``GET .../checklist``): done so far, out of ``total``.
    count: int | None = None
    total: int | None = None


class EntryCount(Protocol):
    """What the steps read of an entry (an ``Entry``, or the desk's plain row of it)."""

    checked_in: bool
    absent: bool


def day_steps(
    *,
    event: Event,
    entries: Sequence[EntryCount] | None = None,
    progress: list[TableProgress] | None = None,
    sessions: int | None = None,
    organiser: bool = True,
    signup: bool = True,
) -> list[Step]:
    """The steps of ``event``'s day (the desk's "where we are" checklist): the steps its
    game declares (``GameSpec.steps``, DOMAIN.md "Every game's evening"), in their order,
    after sign-up's (unless ``signup`` is False: the API's checklist is the game's day).
    ``sessions``: how many the event has, when the caller knows. Read by the desk
    (``organiser`` False), the steps done on the organisers' pages link nowhere."""
    spec = spec_of(event.game)
    wanted = spec.steps(event)
    if entries is None:
        entries = list(Entry.objects.filter(event=event).only("checked_in", "absent"))
    desk = reverse("event-desk", args=[event.slug])
    allocation = reverse("allocation", args=[event.slug]) if organiser else ""
    registered = len(entries)
    checked_in = sum(1 for entry in entries if entry.checked_in)
    absent = sum(1 for entry in entries if entry.absent)
    made: dict[str, Step] = {
        "entries": Step(
            "entries",
            _("Drivers registered"),
            registered > 0,
            str(registered),
            desk + "#entries",
            registered,
        ),
        "checkin": Step(
            "checkin",
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
            checked_in + absent,
            registered,
        ),
    }
    if "draw" in wanted:
        rolled = event.draw_rolls.values("driver").distinct().count()
        made["draw"] = Step(
            "draw",
            _("Grid drawn (d20)"),
            rolled > 0,
            f"{rolled} / {registered}",
            allocation,
            rolled,
            registered,
        )
    if "qualifying_tables" in wanted:
        made.update(_qualifying_steps(event, desk, progress, sessions))
    made.update(_race_steps(event, spec, wanted, allocation, organiser))
    steps = [made[key] for key in wanted if key in made]
    return [*signup_steps(event, organiser=organiser), *steps] if signup else steps


def _qualifying_steps(
    event: Event, desk: str, progress: list[TableProgress] | None, sessions: int | None
) -> dict[str, Step]:
    if progress is None:
        progress = qualifying_progress(event=event)
    if sessions is None:
        sessions = event.sessions.count()
    expected = sum(p.drivers for p in progress) * sessions
    entered = sum(sum(p.runs_by_session.values()) for p in progress)
    published = event.published_qualifying
    steps = [
        Step(
            "qualifying_tables",
            _("Qualifying tables set"),
            bool(progress),
            str(len(progress)),
            desk + "#tables",
            len(progress),
        ),
        Step(
            "sessions",
            _("Qualifying sessions opened"),
            sessions > 0,
            str(sessions),
            desk + "#sessions",
            sessions,
        ),
        Step(
            "runs",
            _("Runs entered"),
            expected > 0 and entered >= expected,
            f"{entered} / {expected}",
            desk + "#tables",
            entered,
            expected,
        ),
        Step(
            "qualifying_published",
            _("Qualifying classification published"),
            published,
            _("published") if published else _("not published"),
            desk + "#publish",
        ),
    ]
    return {step.key: step for step in steps}


def _race_steps(
    event: Event, spec: GameSpec, wanted: Sequence[str], allocation: str, organiser: bool
) -> dict[str, Step]:
    counted = event.race_tables.aggregate(
        tables=Count("pk"), confirmed=Count("pk", filter=Q(result_status="confirmed"))
    )
    tables, confirmed = counted["tables"], counted["confirmed"]
    if spec.results_per_table:
        results_done, count, total = tables > 0 and confirmed == tables, confirmed, tables
    else:  # stored for the whole event at once (a rally classified across its stages)
        lines = event.result_lines.count()
        results_done, count, total = lines > 0, lines, None
    printed = event.sheet_batches.filter(kind="race", status="done").exists()
    own_page = reverse(spec.desk_pages[0][0], args=[event.slug]) if spec.desk_pages else ""
    steps = [
        Step(
            "tables",
            _("Race tables allocated and published"),
            tables > 0 and event.published_allocation,
            ngettext("%(count)s table", "%(count)s tables", tables) % {"count": tables}
            + (" · " + (_("published") if event.published_allocation else _("not published"))),
            allocation,
            tables,
        ),
        # Printed, or past: once every table's result is in, its sheet served its race.
        Step(
            "sheets",
            _("Race sheets printed"),
            printed or results_done,
            "",
            reverse("event-desk", args=[event.slug]) + "#sheets",
        ),
        Step(
            "results",
            _("Results confirmed"),
            results_done,
            f"{count} / {total}" if total is not None else str(count),
            reverse("results-desk", args=[event.slug]),
            count,
            total,
        ),
        Step(
            "published",
            _("Results and standings published"),
            event.published_results,
            _("published") if event.published_results else _("not published"),
            reverse("event-desk", args=[event.slug]) + "#publish",
        ),
    ]
    if "race_weather" in wanted:
        # A missing one-to-one row raises an AttributeError too: hasattr says whether it exists.
        steps.append(
            Step(
                "race_weather",
                _("Race weather drawn"),
                hasattr(event, "race_weather"),
                "",
                allocation,
            )
        )
    if "stages" in wanted or "snow" in wanted:
        stages = event.stages.aggregate(
            count=Count("pk"), snowy=Count("pk", filter=~Q(snow_source=""))
        )
        steps += [
            Step(
                "stages",
                _("Special stages set"),
                stages["count"] > 0,
                str(stages["count"]),
                own_page,
                stages["count"],
            ),
            Step(
                "snow",
                _("Snow drawn before each stage"),
                stages["count"] > 0 and stages["snowy"] == stages["count"],
                f"{stages['snowy']} / {stages['count']}",
                own_page,
                stages["snowy"],
                stages["count"],
            ),
        ]
    return {step.key: step for step in steps}


def checklist(*, event: Event) -> list[dict[str, object]]:
    """``GET /api/v1/events/{event}/checklist``: the game's steps, in the day's order."""
    rows: list[dict[str, object]] = []
    for step in day_steps(event=event, organiser=False, signup=False):
        row: dict[str, object] = {"step": step.key, "done": step.done}
        if step.count is not None:
            row["count"] = step.count
        if step.total is not None:
            row["total"] = step.total
        rows.append(row)
    return rows


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
    ]
