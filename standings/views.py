"""Public pages of results and standings: an event's day classification, the championship
and team standings, a driver's page, the room's projector and the points chart.

Organisers see what is not published yet; everyone else sees an event's results once
``published_results`` is set, and standings over published events only.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _

from races.models import GridSlot, RaceTable, ResultLine, ResultStatus
from races.results import points
from races.selectors import event_results
from standings.forms import ScoringForm
from standings.selectors import Standings, standings_for, team_standings_for
from standings.services import championship_scoring_set
from standings.tables import (
    DriverResultsTable,
    EventResultTable,
    StandingsTable,
    TeamStandingsTable,
    driver_url_for,
    place_mark,
    retirement_words,
)
from tournament.access import actor_for
from tournament.errors import ServiceError
from tournament.models import Championship, Driver, Event, Sanction
from tournament.players.odds import event_favourites
from tournament.public.cache import public_page
from tournament.registration.forms import apply_errors
from tournament.registration.tables import sorted_or_exported


def _championship(request: HttpRequest, slug: str) -> tuple[Championship, bool]:
    """The championship, and whether the reader sees unpublished results (its organisers
    and its desk)."""
    championship = get_object_or_404(Championship, slug=slug)
    return championship, actor_for(request).can_desk(championship)


#: The tables the standings pages read (tournament.public.cache: their counters key the cache).
STANDINGS_TABLES = (
    "tournament.Championship",
    "tournament.Event",
    "tournament.Driver",
    "tournament.Team",
    "tournament.Entry",
    "races.ResultLine",
    "tournament.Sanction",  # points removed, disqualifications, warnings shown (§1-2-3)
)

# --- An event's results ----------------------------------------------------------------------


def sanction_words(event: Event) -> dict[int, str]:
    """The sanctions in force at ``event`` in words, by driver id (§1-2-3)."""
    words: dict[int, list[str]] = {}
    for sanction in Sanction.objects.filter(event=event, withdrawn_at__isnull=True):
        words.setdefault(sanction.driver_id, []).append(
            f"{sanction.words()} (« {sanction.reason} »)"
        )
    return {driver: "; ".join(texts) for driver, texts in words.items()}


@public_page(
    "tournament.Championship",
    "tournament.Event",
    "tournament.Circuit",
    "tournament.Driver",
    "tournament.Team",
    "races.RaceTable",
    "races.ResultLine",
    "tournament.Sanction",
    params=("table", "sort"),
)
def event_results_view(request: HttpRequest, slug: str) -> HttpResponse:
    event = get_object_or_404(Event.objects.select_related("championship", "circuit"), slug=slug)
    is_organiser = actor_for(request).can_desk(event.championship)
    if not event.published_results and not is_organiser:
        raise Http404(_("The results of this event are not published yet."))
    lines = event_results(event=event)
    tables = list(
        RaceTable.objects.filter(event=event).order_by("number").values("number", "result_status")
    )
    chosen = request.GET.get("table", "")
    # A table's number or nothing: "²" passes isdigit() but not int(), "١" is a 1.
    chosen = str(int(chosen)) if chosen.isdecimal() and len(chosen) < 10 else ""
    if chosen.isdigit():
        lines = [line for line in lines if line.table.number == int(chosen)]
    table = EventResultTable.from_lines(
        lines, driver_url=driver_url_for(event.championship), sanctions=sanction_words(event)
    )
    if chosen.isdigit():
        table.columns.hide("table")  # its number is in the menu; the export keeps it
    suffix = f"-table-{chosen}" if chosen.isdigit() else ""
    exported = sorted_or_exported(request, table, f"{event.slug}-results{suffix}")
    if exported:
        return exported
    return render(
        request,
        "standings/event_results.html",
        {
            "event": event,
            "table": table,
            "tables": tables,
            "chosen": chosen,
            "pending": [
                t["number"] for t in tables if t["result_status"] != ResultStatus.CONFIRMED
            ],
            "is_organiser": is_organiser,
        },
    )


# --- Championship standings ------------------------------------------------------------------

CHART_TOP = 8
# Okabe–Ito colours: told apart by most colour-blind readers, on light and dark backgrounds.
CHART_COLOURS = (
    "#E69F00",
    "#56B4E9",
    "#009E73",
    "#D55E00",
    "#0072B2",
    "#CC79A7",
    "#F0E442",
    "#999999",
)


@dataclass(frozen=True)
class ChartSeries:
    driver: Driver
    colour: str
    totals: list[int]
    points: str  # the polyline's "x,y x,y" list
    dots: list[tuple[float, float, int, str]]  # x, y, total, event name


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    left: int
    right: int
    top: int
    bottom: int
    series: list[ChartSeries]
    x_labels: list[tuple[float, str, str, str]]  # x, short label, event name, anchor
    y_ticks: list[tuple[float, int]]


def _nice_step(maximum: int, ticks: int = 4) -> int:
    """A round step (1, 2, 5, 10, 20, 50...) giving about ``ticks`` gridlines up to ``maximum``."""
    step = 1
    while True:
        for factor in (1, 2, 5):
            if step * factor * ticks >= maximum:
                return step * factor
        step *= 10


def progression_chart(
    standings: Standings, *, best: int | None, top: int = CHART_TOP
) -> Chart | None:
    """Cumulative points of the ``top`` drivers after each event, as SVG geometry.

    The total after event k is what the standings would have said then: best-K applies to
    the results so far, hence the same ``points.standings`` rule on each prefix of events.
    """
    lines = standings.lines[:top]
    if not lines or not standings.events:
        return None
    ids = [line.driver.pk for line in lines]
    totals: dict[int, list[int]] = {pk: [] for pk in ids}
    for k in range(1, len(standings.events) + 1):
        so_far = {event.pk for event in standings.events[:k]}
        results = [
            result
            for line in lines
            for event_id, result in line.results.items()
            if event_id in so_far
        ]
        removed = {
            line.driver.pk: sum(n for e, n in line.removed.items() if e in so_far) for line in lines
        }
        for line in points.standings(ids, results, best=best, removed=removed):
            # The chart starts at 0: a total a sanction took below zero is drawn at 0 (the
            # table beside it gives the total).
            totals[line.driver].append(max(0, line.points))

    width, height, left, right, top_margin, bottom = 400, 240, 34, 10, 10, 26
    plot_w, plot_h = width - left - right, height - top_margin - bottom
    maximum = max(max(values) for values in totals.values())
    step = _nice_step(max(maximum, 1))
    y_max = step * -(-max(maximum, 1) // step)
    count = len(standings.events)

    def x_at(index: int) -> float:
        if count == 1:
            return left + plot_w / 2
        return round(left + plot_w * index / (count - 1), 1)

    def y_at(value: int) -> float:
        return round(top_margin + plot_h * (1 - value / y_max), 1)

    every = 1 if count <= 8 else -(-count // 8)  # keep the dates from overlapping
    x_labels = [
        (
            x_at(i),
            event.date.strftime("%d/%m"),
            event.name,
            "end" if i == count - 1 and count > 1 else "middle",  # not cut at the edge
        )
        for i, event in enumerate(standings.events)
        if i % every == 0 or i == count - 1
    ]
    series = []
    for index, line in enumerate(lines):
        values = totals[line.driver.pk]
        coords = [(x_at(i), y_at(v)) for i, v in enumerate(values)]
        series.append(
            ChartSeries(
                driver=line.driver,
                colour=CHART_COLOURS[index % len(CHART_COLOURS)],
                totals=values,
                points=" ".join(f"{x},{y}" for x, y in coords),
                dots=[
                    (x, y, v, e.name)
                    for (x, y), v, e in zip(coords, values, standings.events, strict=True)
                ],
            )
        )
    return Chart(
        width=width,
        height=height,
        left=left,
        right=width - right,
        top=top_margin,
        bottom=height - bottom,
        series=series,
        x_labels=x_labels,
        y_ticks=[(y_at(v), v) for v in range(0, y_max + 1, step)],
    )


@public_page(*STANDINGS_TABLES, params=("sort",))
def standings_view(request: HttpRequest, slug: str) -> HttpResponse:
    championship, is_organiser = _championship(request, slug)
    standings = standings_for(championship=championship, published_only=not is_organiser)
    table = StandingsTable.from_standings(standings, driver_url=driver_url_for(championship))
    exported = sorted_or_exported(request, table, f"{championship.slug}-standings")
    if exported:
        return exported
    return render(
        request,
        "standings/standings.html",
        {
            "championship": championship,
            "standings": standings,
            "table": table,
            "chart": progression_chart(standings, best=championship.best_results),
            "is_organiser": is_organiser,
        },
    )


@public_page(*STANDINGS_TABLES, params=("sort",))
def team_standings_view(request: HttpRequest, slug: str) -> HttpResponse:
    championship, is_organiser = _championship(request, slug)
    standings = standings_for(championship=championship, published_only=not is_organiser)
    teams = team_standings_for(championship=championship, standings=standings)
    table = TeamStandingsTable.from_standings(teams, standings)
    exported = sorted_or_exported(request, table, f"{championship.slug}-teams")
    if exported:
        return exported
    return render(
        request,
        "standings/teams.html",
        {
            "championship": championship,
            "standings": standings,
            "table": table,
            "is_organiser": is_organiser,
        },
    )


# --- The room's projector --------------------------------------------------------------------

PROJECTOR_ROWS = 10  # what a 16:9 screen shows whole, at 768 px as at 1080 px
PROJECTOR_SECONDS = 15


def favourites_event(championship: Championship) -> Event | None:
    """The event whose tables' favourites the projector shows: the latest one that shows
    them (``show_favourites``) with its tables published and its results not yet."""
    return (
        Event.objects.filter(
            championship=championship,
            show_favourites=True,
            published_allocation=True,
            published_results=False,
        )
        .order_by("-date", "-pk")
        .first()
    )


@public_page(
    *STANDINGS_TABLES,
    "races.RaceTable",
    "races.GridSlot",
    "tournament.PlayerRating",
    params=("rows", "page"),
)
def standings_projector(request: HttpRequest, slug: str) -> HttpResponse:
    """Big standings for the room's screen, a page of rows at a time, turning by itself.

    Published events only, even for an organiser: the screen faces the whole room. Every
    15 s htmx fetches the next page's fragment (and the latest results with it). While an
    event that shows its favourites races (tables published, results not yet), one more
    page shows each table's favourites.
    """
    championship = get_object_or_404(Championship, slug=slug)
    standings = standings_for(championship=championship, published_only=True)
    try:
        rows = max(5, min(100, int(request.GET.get("rows", PROJECTOR_ROWS))))
    except ValueError:
        rows = PROJECTOR_ROWS
    event = favourites_event(championship)
    favourites = event_favourites(event) if event is not None else []
    standing_pages = max(1, -(-len(standings.lines) // rows))
    pages = standing_pages + (1 if favourites else 0)
    try:
        page = int(request.GET.get("page", 1))
    except ValueError:
        page = 1
    page = (page - 1) % pages + 1
    context = {
        "championship": championship,
        "standings": standings,
        "lines": standings.lines[(page - 1) * rows : page * rows],
        "favourites": favourites if page > standing_pages else [],
        "favourites_event": event,
        "last_event": standings.events[-1] if standings.events else None,
        "page": page,
        "pages": pages,
        "next_url": reverse("standings-projector", args=[championship.slug])
        + f"?page={page % pages + 1}&rows={rows}",
        "seconds": PROJECTOR_SECONDS,
    }
    if getattr(request, "htmx", False):
        return render(request, "standings/_projector_board.html", context)
    # The projector's page around its board, the league's too (standings/leagues/views.py).
    frame = {"title": context["championship"], "board": "standings/_projector_board.html"}
    return render(request, "standings/projector.html", context | frame)


# --- A driver's page -------------------------------------------------------------------------


@public_page(*STANDINGS_TABLES, "races.RaceTable", "races.GridSlot", params=("sort",))
def driver_view(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    championship, is_organiser = _championship(request, slug)
    driver = get_object_or_404(
        Driver.objects.select_related("team"), championship=championship, number=number
    )
    standings = standings_for(championship=championship, published_only=not is_organiser)
    line = next((s for s in standings.lines if s.driver.pk == driver.pk), None)
    result_lines = {
        r.event_id: r
        for r in ResultLine.objects.filter(
            driver=driver, event__in=standings.events
        ).select_related("table")
    }
    results = []
    for event in reversed(standings.events):  # latest first: what a player looks for
        stored = result_lines.get(event.pk)
        if stored is None:
            continue
        short, long = place_mark(stored.position, stored.status)
        results.append(
            {
                "event": event,
                "line": stored,
                "place": short,
                "place_long": long,
                "retirement": retirement_words(
                    stored.status, stored.get_cause_display(), stored.lap, stored.note
                ),
                "counted": line is not None and event.pk in line.counted,
            }
        )
    export = DriverResultsTable(
        [
            {
                "event": r["event"].name,
                "date": r["event"].date,
                "table": r["line"].table.number,
                "position": r["line"].position,
                "status": r["line"].get_status_display(),
                "retirement": r["retirement"],
                "points": r["line"].points,
                "counted": r["counted"],
            }
            for r in results
        ]
    )
    exported = sorted_or_exported(request, export, f"{championship.slug}-{driver.number}")
    if exported:
        return exported
    slots = GridSlot.objects.filter(driver=driver).select_related("table", "event")
    if not is_organiser:
        slots = slots.filter(event__published_allocation=True)
    seat = slots.order_by("-event__date", "-event__pk").first()
    sanctions = Sanction.objects.filter(driver=driver).select_related("event")
    if not is_organiser:
        sanctions = sanctions.filter(event__published_results=True)
    return render(
        request,
        "standings/driver.html",
        {
            "championship": championship,
            "driver": driver,
            "line": line,
            "drivers_count": len(standings.lines),
            "results": results,
            "seat": seat,
            "sanctions": sanctions.order_by("-event__date", "created_at"),
            "is_organiser": is_organiser,
        },
    )


def championship_scoring(request: HttpRequest, slug: str) -> HttpResponse:
    """The organiser picks the points scale (a preset or custom), the mode and best-K."""
    championship = get_object_or_404(Championship, slug=slug)
    actor = actor_for(request)
    if not actor.can_organise(championship):
        raise PermissionDenied(
            _("Only the organisers of this championship may change its scoring.")
        )
    form = ScoringForm(
        request.POST if request.method == "POST" else None,
        initial=ScoringForm.initial_for(championship),
    )
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            changed = championship_scoring_set(
                actor=actor,
                championship=championship,
                points_scale=data["points_scale"],
                points_mode=data["points_mode"],
                best_results=data["best_results"],
            )
        except ServiceError as exc:
            apply_errors(form, exc)
        else:
            messages.success(
                request,
                _("Scoring saved; %(count)s confirmed result lines took the new points.")
                % {"count": changed},
            )
            return redirect("championship", slug=championship.slug)
    confirmed = ResultLine.objects.filter(event__championship=championship).exists()
    return render(
        request,
        "tournament/scoring.html",
        {"form": form, "championship": championship, "confirmed": confirmed},
    )
