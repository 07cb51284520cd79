"""Writes and reads of Rallyman: stages, times, start orders, classifications, the results
of the rally and the race-control sheet's data (rules: ``races.games.rallyman.rules``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import translation
from django.utils.translation import gettext as _

from qualifying.models import RollSource
from races.games._ranking import scale_points
from races.games.rallyman import rules as rallyman
from races.games.rallyman.pdf import (
    PrintedRank,
    PrintedStage,
    PrintedTime,
    RallySheet,
    RallySheetData,
)
from races.grid.allocation import Allocation, RankedDriver
from races.grid.state import checked_reason
from races.models import (
    GridSlot,
    ResultLine,
    Stage,
    StageTime,
)
from races.sanctions import rules as sanction_rules
from tournament.access import Actor
from tournament.errors import Conflict, InvalidInput, NotAllowed
from tournament.models import Driver, Event, Sanction
from tournament.registration.services import require_organiser
from tournament.signals import results_changed_soon

# ---------------------------------------------------------------------------
# Rallyman: stages, times, start orders, classifications
# ---------------------------------------------------------------------------


def _require_rallyman(event: Event) -> None:
    if event.game != Event.Game.RALLYMAN:
        raise InvalidInput(_("Special stages only exist in a Rallyman event."))


def stage_create(
    *, actor: Actor, event: Event, number: int, route: str, service_after: bool
) -> Stage:
    """Add a special stage (ART.2): its route of zones and whether a service park follows."""
    require_organiser(actor, event.championship)
    _require_rallyman(event)
    route = " ".join((route or "").split())
    bad = rallyman.route_problems(route)
    if not 1 <= number <= 99:
        raise InvalidInput(_("Stages are numbered 1 to 99."), {"number": [_("1 to 99.")]})
    if bad:
        message = (
            _("Write the route as zones C, J, L or V with their number (e.g. C8 C3-J6-J5-C4 C5).")
            if bad == [""]
            else _("Not a zone: %(zones)s (zones are C, J, L or V with a number).")
            % {"zones": ", ".join(bad)}
        )
        raise InvalidInput(message, {"route": [message]})
    if len(route) > 200:
        raise InvalidInput(_("The route is too long."), {"route": [_("200 characters at most.")]})
    with transaction.atomic():
        if Stage.objects.filter(event=event, number=number).exists():
            raise Conflict(_("Stage %(number)s already exists.") % {"number": number})
        stage = Stage(event=event, number=number, route=route, service_after=service_after)
        try:
            with transaction.atomic():
                actor.stamp(stage).save()
        except IntegrityError as exc:
            raise Conflict(_("Stage %(number)s already exists.") % {"number": number}) from exc
    return stage


def stage_update(*, actor: Actor, stage: Stage, route: str, service_after: bool) -> Stage:
    """Change a stage's route or service park."""
    require_organiser(actor, stage.event.championship)
    route = " ".join((route or "").split())
    bad = rallyman.route_problems(route)
    if bad:
        message = _("Not a zone: %(zones)s (zones are C, J, L or V with a number).") % {
            "zones": ", ".join(bad) or "—"
        }
        raise InvalidInput(message, {"route": [message]})
    stage.route, stage.service_after = route, service_after
    actor.stamp(stage).save()
    return stage


def rally_drivers(event: Event) -> list[Driver]:
    """The rally's drivers: in the stage-1 start order when set, else in registration
    order (as the allocation forms the games when no start order is set)."""
    entries = event.entries.select_related("driver", "driver__team").order_by("registered_at", "id")
    if any(e.checked_in for e in entries):
        entries = [e for e in entries if e.checked_in]
    drivers = {e.driver.number: e.driver for e in entries}
    first = Stage.objects.filter(event=event, number=1).first()
    order = [n for n in (first.start_order if first else []) if n in drivers]
    rest = [n for n in drivers if n not in order]
    return [drivers[n] for n in [*order, *rest]]


def start_order_set(
    *, actor: Actor, stage: Stage, order: Sequence[int] | None = None, draw: bool = False
) -> Stage:
    """Set (or draw) the start order of stage 1 (ART.4-2); later stages follow the
    classification. Refused once times are entered for the stage."""
    event = stage.event
    require_organiser(actor, event.championship)
    if stage.number != 1:
        raise InvalidInput(
            _("Only stage 1's start order is set by hand: the others follow the classification.")
        )
    if StageTime.objects.filter(stage=stage).exists():
        raise Conflict(_("Times are entered for this stage: its start order can no longer change."))
    numbers = [d.number for d in rally_drivers(event)]
    if draw:
        chosen = [int(n) for n in rallyman.draw_start_order(sorted(numbers))]
    else:
        chosen = list(order or [])
        unknown = [n for n in chosen if n not in numbers]
        twice = sorted({n for n in chosen if chosen.count(n) > 1})
        missing = [n for n in numbers if n not in chosen]
        if unknown or twice or missing:
            parts = []
            if unknown:
                parts.append(_("not registered: %(n)s") % {"n": ", ".join(map(str, unknown))})
            if twice:
                parts.append(_("written twice: %(n)s") % {"n": ", ".join(map(str, twice))})
            if missing:
                parts.append(_("missing: %(n)s") % {"n": ", ".join(map(str, missing))})
            message = _("The start order must list every driver once (%(parts)s).") % {
                "parts": "; ".join(parts)
            }
            raise InvalidInput(message, {"order": [message]})
    stage.start_order = chosen
    actor.stamp(stage).save(update_fields=["start_order"])
    return stage


def _entries_of(stage: Stage) -> list[rallyman.StageEntry]:
    return [
        rallyman.StageEntry(
            driver=t.driver.number,
            chrono=t.chrono,
            seconds_held=t.seconds_held,
            retired=t.retired,
        )
        for t in stage.times.select_related("driver")
    ]


def stages_of(event: Event) -> list[Stage]:
    return list(Stage.objects.filter(event=event).order_by("number"))


def rally_after(event: Event, upto: int | None = None) -> list[rallyman.RallyLine]:
    """The classification after stage ``upto`` (every stage when None)."""
    stages = [s for s in stages_of(event) if upto is None or s.number <= upto]
    return rallyman.rally_classification(
        [_entries_of(s) for s in stages], drivers=[d.number for d in rally_drivers(event)]
    )


def start_order_of(stage: Stage) -> list[int]:
    """The stage's start order: stage 1 as set, later ones by the classification so far."""
    if stage.number == 1:
        return list(stage.start_order) or [d.number for d in rally_drivers(stage.event)]
    previous = (
        Stage.objects.filter(event=stage.event, number__lt=stage.number).order_by("-number").first()
    )
    if previous is None:
        return [d.number for d in rally_drivers(stage.event)]
    lines = rally_after(stage.event, previous.number)
    return [int(n) for n in rallyman.next_start_order(start_order_of(previous), lines)]


def _stage_problem_messages(
    problems: Sequence[rallyman.Problem], names: Mapping[int, str]
) -> dict[str, list[str]]:
    texts = {
        "unknown_driver": _("%(driver)s is not in this rally."),
        "not_starting": _("%(driver)s does not start this stage (not in the rally or retired)."),
        "chrono_required": _("%(driver)s: write the chrono (mm:ss) or tick retired."),
        "bad_chrono": _("%(driver)s: “%(value)s” is not a chrono mm:ss (e.g. 07:40)."),
        "bad_seconds": _("%(driver)s: seconds held must be a whole number, 0 or more."),
        "seconds_exceed_chrono": _("%(driver)s: more seconds held than the chrono."),
        "bad_split": _(
            "%(driver)s: intermediate time “%(value)s” is not a chrono mm:ss (e.g. 02:10)."
        ),
        "splits_order": _(
            "%(driver)s: intermediate times go in the order of the points, never above the chrono."
        ),
        "missing": _("%(driver)s has no time for this stage."),
        "bad_tyres": _("%(driver)s: tyres are asphalt or snow."),
        "tyres_kept": _(
            "%(driver)s keeps the tyres of the previous stage (%(value)s): no service park "
            "before this stage (Règlement+, “Choix des pneus”)."
        ),
    }
    tyres = {"asphalt": _("asphalt"), "snow": _("snow")}
    errors: dict[str, list[str]] = {}
    for problem in problems:
        who = names.get(problem.driver, str(problem.driver))  # type: ignore[call-overload]
        value = tyres.get(problem.value, problem.value)  # type: ignore[call-overload]
        errors.setdefault(str(problem.driver), []).append(
            texts[problem.kind] % {"driver": who, "value": value}
        )
    return errors


def previous_stage(stage: Stage) -> Stage | None:
    return (
        Stage.objects.filter(event=stage.event, number__lt=stage.number).order_by("-number").first()
    )


def tyre_choice(stage: Stage) -> tuple[bool, dict[int, str]]:
    """Whether drivers choose tyres before ``stage`` (the first, or after a service park:
    Règlement+), and the tyres each driver had on the stage before."""
    before = previous_stage(stage)
    if before is None:
        return True, {}
    kept = dict(before.times.exclude(tyres="").values_list("driver__number", "tyres"))
    return rallyman.tyre_choice_open(stage.number, service_before=before.service_after), kept


REASON_KEPT = 100


def stage_snow_set(
    *, actor: Actor, stage: Stage, snow: Sequence[bool] | None = None, reason: str = ""
) -> Stage:
    """The race director's snow draw before a stage (Règlement+): one die per zone of its
    route, a zone snowy for every game when its die shows the symbol. ``snow`` records
    the dice rolled at the table (one yes/no per zone); None lets the system roll. A second
    draw needs a ``reason`` (recorded in the stage's history, every draw listed there);
    none once the stage's first time is entered."""
    event = stage.event
    require_organiser(actor, event.championship)
    _require_rallyman(event)
    reason = checked_reason(reason)
    if len(reason) > REASON_KEPT:  # the history keeps the reason of a change in 100
        text = _("The reason is too long (%(count)s characters at most).") % {"count": REASON_KEPT}
        raise InvalidInput(text, {"reason": [text]})
    zones = rallyman.route_zones(stage.route)
    if snow is None:
        drawn, source = list(rallyman.snow_draw(len(zones))), RollSource.SYSTEM
    elif rallyman.snow_invalid(len(zones), list(snow)):
        message = _(
            "Give one answer per zone of the route (%(count)s zones: %(zones)s): snowy or not."
        ) % {"count": len(zones), "zones": " ".join(zones)}
        raise InvalidInput(message, {"snow": [message]})
    else:
        drawn, source = list(snow), RollSource.PHYSICAL
    with transaction.atomic():
        stage = Stage.objects.select_for_update().get(pk=stage.pk)
        refusal = rallyman.snow_redraw_refusal(
            drawn=bool(stage.snow_source),
            timed=StageTime.objects.filter(stage=stage).exists(),
            reason=reason,
        )
        if refusal == "timed":
            raise Conflict(
                _("Times are entered for stage %(number)s: its snow can no longer change.")
                % {"number": stage.number}
            )
        if refusal == "reason_required":
            raise Conflict(
                _(
                    "The snow of stage %(number)s is already drawn (%(zones)s): the race "
                    "director draws it once. To draw again, say why (a die off the table, "
                    "a wrong tick)."
                )
                % {"number": stage.number, "zones": " ".join(snowy_zones(stage)) or _("no snow")},
                {"reason": [_("A reason is required to draw the snow again.")]},
            )
        stage.snow, stage.snow_source = drawn, source
        if reason:
            stage._change_reason = reason  # type: ignore[attr-defined]
        actor.stamp(stage).save(update_fields=["snow", "snow_source"])
    return stage


def snowy_zones(stage: Stage) -> list[str]:
    """The zones of the stage's route that the snow draw made snowy."""
    zones = rallyman.route_zones(stage.route)
    return [zone for zone, snowy in zip(zones, stage.snow or [], strict=False) if snowy]


def stage_times_set(
    *, actor: Actor, stage: Stage, times: Mapping[int, Mapping[str, Any]]
) -> list[StageTime]:
    """Record drivers' times on a stage (ART.11, Règlement+): all or nothing.

    Organisers and the desk write every driver; a game's referee (table link or account)
    the drivers of their game. Once every stage is fully timed the rally's places and points
    are stored as result lines, so the day's results and standings include the rally.
    """
    event = stage.event
    if not actor.can_desk(event.championship):
        slots = GridSlot.objects.filter(event=event, driver__number__in=list(times)).select_related(
            "table"
        )
        tables = {s.table for s in slots}
        if (
            not times
            or len(tables) != 1
            or len(slots) != len(times)
            or not actor.can_referee(next(iter(tables)))
        ):
            raise NotAllowed(
                _("Only an organiser, or the referee of these drivers' game, may enter times.")
            )
    drivers = {d.number: d for d in rally_drivers(event)}
    starters = start_order_of(stage)
    choosing, kept = tyre_choice(stage)
    problems = rallyman.entry_problems(
        times, starters=starters, tyre_choice=choosing, tyres_before=kept
    )
    names = {n: f"{n} {d.name}" for n, d in drivers.items()}
    if problems:
        errors = _stage_problem_messages(problems, names)
        raise InvalidInput(next(iter(errors.values()))[0], errors)
    entries = {}
    for number, values in times.items():
        try:
            entries[number] = rallyman.entry_of(number, values)
        except (rallyman.ChronoError, TypeError, ValueError) as exc:  # entry_problems missed it
            message = _("%(driver)s: these times cannot be read.") % {
                "driver": names.get(number, str(number))
            }
            raise InvalidInput(message, {str(number): [message]}) from exc
    saved = []
    with transaction.atomic():
        for number, values in times.items():
            entry = entries[number]
            record = StageTime.objects.filter(stage=stage, driver=drivers[number]).first()
            record = record or StageTime(stage=stage, driver=drivers[number], version=0)
            record.chrono = entry.chrono
            record.seconds_held = entry.seconds_held
            record.retired = entry.retired
            if values.get("splits") is not None:  # not sent: the splits written before stay
                record.splits = list(entry.splits)
            if values.get("tyres"):
                record.tyres = str(values["tyres"])
            elif not choosing and kept.get(number):  # the tyres of the stage before
                record.tyres = kept[number]
            record.version += 1
            actor.stamp(record).save()
            saved.append(record)
        rally_results_store(actor=actor, event=event)
        if event.published_results:  # the rally's places count in the ratings
            results_changed_soon(event.family)
    return saved


def stage_complete(stage: Stage) -> bool:
    """True when every starter of the stage has a time or retired."""
    timed = set(stage.times.values_list("driver__number", flat=True))
    return all(n in timed for n in start_order_of(stage))


def rally_results_store(*, event: Event, actor: Actor | None = None) -> int:
    """Store the final rally classification as result lines once every stage is timed.

    Places come from the final scratch (shared on equal totals), points from the
    championship's scale by place (a shared place takes the better points); retired
    drivers score 0. Each driver's line sits at the table of their game (allocation);
    until then, or while a stage is incomplete, the rally has no result lines.
    """
    ResultLine.objects.filter(event=event).delete()
    stages = stages_of(event)
    if not stages or not all(stage_complete(s) for s in stages):
        return 0
    slots = {
        s.driver.number: s
        for s in GridSlot.objects.filter(event=event).select_related("table", "driver")
    }
    sanctions = [
        sanction_rules.Sanction(driver=n, kind=k, value=v)  # type: ignore[arg-type]
        for n, k, v in Sanction.objects.filter(event=event, withdrawn_at__isnull=True).values_list(
            "driver__number", "kind", "value"
        )
    ]
    # §1-2-3: the disqualified are classed after everyone, with no points.
    out = sanction_rules.disqualified(sanctions)
    removed = sanction_rules.points_removed(sanctions)
    classified = [line for line in rally_after(event) if line.driver in slots]
    # The ranks close up without the disqualified.
    lines = [line for line in classified if line.driver not in out]
    ranks = {line.driver: rank for rank, line in _closed_ranks(lines)}
    lines += [line for line in classified if line.driver in out]
    if not lines:
        return 0
    by_table: dict[int, int] = {}
    rows = []
    for index, line in enumerate(lines, start=1):
        slot = slots[line.driver]
        by_table[slot.table_id] = by_table.get(slot.table_id, 0) + 1
        if line.driver in out:
            status, rank, points = ResultLine.Status.DSQ, index, 0
        else:
            finished = line.retired_in is None
            rank = ranks[line.driver]
            status = ResultLine.Status.FINISHED if finished else ResultLine.Status.RETIRED
            points = scale_points(event.championship.points_scale, rank) if finished else 0
        taken = min(points, removed.get(line.driver, 0))
        rows.append(
            ResultLine(
                event=event,
                table=slot.table,
                driver=slot.driver,
                position=by_table[slot.table_id],
                place=rank,  # the rally is classified across the whole event
                rank=rank,
                status=status,
                points=points - taken,
                points_removed=taken,
            )
        )
    ResultLine.objects.bulk_create(rows)
    return len(rows)


def rally_rescore(*, event: Event) -> int:
    """The rally's result lines stored again (a sanction was recorded or withdrawn)."""
    return rally_results_store(event=event)


def _closed_ranks(lines: Sequence[rallyman.RallyLine]) -> list[tuple[int, rallyman.RallyLine]]:
    """Shared ranks (1, 2, 2, 4) of ``lines`` as they are, once some were taken out."""
    ranked: list[tuple[int, rallyman.RallyLine]] = []
    for index, line in enumerate(lines):
        shared = index and line.rank == lines[index - 1].rank
        ranked.append((ranked[-1][0] if shared else index + 1, line))
    return ranked


@dataclass(frozen=True)
class StartLine:
    """A driver in start order, as ``allocation_run`` reads a classification line."""

    driver: Driver
    rank: int


def rally_start_lines(*, event: Event, lines: Sequence[Any]) -> list[StartLine]:
    """The rally's drivers in stage-1 start order when it is set, else in the order of
    ``lines`` (the general classification: qualifying, else registration order)."""
    first = Stage.objects.filter(event=event, number=1).first()
    order = {n: i for i, n in enumerate(first.start_order if first else [])}
    ordered = sorted(lines, key=lambda line: order.get(line.driver.number, len(order)))
    return [StartLine(driver=line.driver, rank=i) for i, line in enumerate(ordered, start=1)]


def rally_allocation(
    *, event: Event, drivers: Sequence[RankedDriver], size: int
) -> tuple[int, Allocation]:
    """Rallyman: games of up to 4 (ART.4-3) formed from the start order as it stands
    (``drivers`` by rank), never reordered: no team-mate swap, the start order decides."""
    size = min(size, rallyman.TABLE_SIZE)
    order = [d.driver for d in sorted(drivers, key=lambda d: d.rank)]
    return size, Allocation(tables=rallyman.games(order, size=size), swaps=[], conflicts=[])


def rally_sheet_data(*, event: Event, public: bool = False) -> Any:
    """The FEUILLE P.C. COURSE's data: stages, chrono grid, scratches, re-classifications.
    ``public``: printed for a reader who is not race control, each driver named as they
    chose to be shown (DOMAIN.md "Corrections to 'Before the day'")."""
    drivers = {d.number: d for d in rally_drivers(event)}
    names = {n: d.public_name if public else d.name for n, d in drivers.items()}
    stages = stages_of(event)
    times: dict[tuple[int, int], Any] = {}
    scratches: dict[int, list[Any]] = {}
    after: dict[int, list[Any]] = {}
    for stage in stages:
        for record in stage.times.select_related("driver"):
            entry = rallyman.StageEntry(
                record.driver.number, record.chrono, record.seconds_held, record.retired
            )
            times[(stage.number, record.driver.number)] = PrintedTime(
                chrono=rallyman.format_chrono(record.chrono),
                held=str(record.seconds_held) if record.seconds_held else "",
                time=rallyman.format_chrono(entry.time),
                retired=record.retired,
            )
        scratches[stage.number] = [
            PrintedRank(
                line.rank,
                int(line.driver),
                names[line.driver],  # type: ignore[index]
                rallyman.format_chrono(line.time) if not line.retired else _("retired"),
            )  # fmt: skip
            for line in rallyman.stage_scratch(_entries_of(stage))
            if line.driver in drivers
        ]
        after[stage.number] = [
            PrintedRank(
                line.rank,
                int(line.driver),
                names[line.driver],  # type: ignore[index]
                rallyman.format_chrono(line.total),
                _("retired in ES%(number)s") % {"number": line.retired_in}
                if line.retired_in
                else "",
            )  # fmt: skip
            for line in rally_after(event, stage.number)
        ]
    return RallySheetData(
        rally=event.name,
        championship=str(event.championship),
        date=event.date,
        stages=[
            PrintedStage(
                s.number,
                s.route,
                s.service_after,
                tuple(snowy_zones(s)) if s.snow else None,
            )
            for s in stages
        ],
        drivers=list(names.items()),
        times=times,
        scratches=scratches,
        after=after,
        language=event.language if event.language in ("fr", "en") else "fr",
    )


def rally_sheets_pdf(
    *,
    event: Event,
    tables: Sequence[Any] | None = None,
    language: str | None = None,
    progress: Any = None,
    referee_link: bool = True,
) -> bytes:
    """A rally's printed sheet (the race floor's ``Variant.sheets``): every game of the
    rally runs the same stages, so each table's sheet is the FEUILLE P.C. COURSE; named as
    race control names drivers for race control and the table's referee only."""
    with translation.override(language or event.language):
        return RallySheet().render(rally_sheet_data(event=event, public=not referee_link))
