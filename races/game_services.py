"""Writes and reads for the other racing games (Rallyman stages, Cannes–Monaco and
Racetrack table sheets, quick-rules settings).

The rules live in the pure modules of ``races.games``; here we check who acts, validate,
save and record, reusing the race-result workflow of ``races.services`` (draft →
submitted → confirmed, versions, history) for the table games.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from races import games
from races.allocation import Allocation, RankedDriver, allocate
from races.games import rallyman
from races.models import (
    GridSlot,
    RaceResult,
    RaceTable,
    ResultLine,
    ResultStatus,
    Stage,
    StageTime,
)
from races.services import result_locked_for_save
from tournament.access import Actor
from tournament.errors import Conflict, InvalidInput, NotAllowed
from tournament.models import Driver, Event
from tournament.points import DayLine
from tournament.services import require_organiser

# ---------------------------------------------------------------------------
# Table games: Cannes–Monaco, Racetrack
# ---------------------------------------------------------------------------

GAME_FIELDS = {"cannes_monaco": ("squares", "crossed"), "racetrack": ("runs",)}


def _problem_messages(
    problems: Sequence[Any], names: Mapping[Hashable, str], *, crash_limit: int
) -> dict[str, list[str]]:
    texts = {
        "unknown_driver": _("%(driver)s is not on this table's grid."),
        "missing": _("%(driver)s is missing: every driver of the grid needs a line."),
        "bad_square": _("%(driver)s: the square must be a whole number from 0 to 36."),
        "bad_number": _("%(driver)s: %(field)s must be a whole number, 0 or more."),
        "finished_and_eliminated": _("%(driver)s cannot both finish and be eliminated."),
        "turns_required": _("%(driver)s finished: write the number of game turns."),
        "over_crash_limit": _(
            "%(driver)s has %(value)s crash(es), the event's limit: the car is eliminated."
        ),
        "eliminated_below_limit": _(
            "%(driver)s is eliminated with %(value)s crash(es), below the event's limit "
            "of %(limit)s (in this variant a collision adds a crash to both cars)."
        ),
        "eliminated_without_collision": _(
            "%(driver)s is eliminated with %(value)s crash(es), below the event's limit "
            "of %(limit)s, and collisions are off in this event: only crashes eliminate."
        ),
        "collision_alone": _(
            "%(driver)s is eliminated by a collision without reaching the crash limit: a "
            "collision eliminates both cars, so the other car must be eliminated too."
        ),
    }
    fields = {"turns": _("turns"), "margin": _("margin"), "crashes": _("crashes")}
    errors: dict[str, list[str]] = {}
    for problem in problems:
        who = names.get(problem.driver, str(problem.driver))
        text = texts[problem.kind] % {
            "driver": who,
            "field": fields.get(getattr(problem, "field", None) or "", ""),
            "value": problem.value,
            "limit": crash_limit,
        }
        errors.setdefault(str(problem.driver), []).append(text)
    return errors


def _grid(table: RaceTable) -> dict[int, str]:
    return {
        s.driver.number: f"{s.driver.number} {s.driver.name}"
        for s in table.slots.select_related("driver").order_by("position")
    }


def _game_problems(
    event: Event, data: Mapping[str, Any], grid: Sequence[int], complete: bool
) -> list[Any]:
    if event.game == "cannes_monaco":
        return games.cannes_monaco.problems(
            data.get("squares", {}), data.get("crossed", []), grid=grid, complete=complete
        )
    return games.racetrack.problems(
        data.get("runs", {}),
        grid=grid,
        crash_limit=event.crash_limit,
        collisions=event.collisions,
        complete=complete,
    )


def game_data_of(event: Event, data: Mapping[str, Any]) -> dict[str, Any]:
    """The sheet as stored in ``RaceResult.game_data``: driver keys as strings (JSON)."""
    if event.game == "cannes_monaco":
        return {
            "squares": {str(k): v for k, v in (data.get("squares") or {}).items()},
            "crossed": [int(n) for n in data.get("crossed") or []],
        }
    return {
        "runs": {
            str(k): {
                "turns": v.get("turns", 0),
                "margin": v.get("margin", 0),
                "crashes": v.get("crashes", 0),
                "finished": bool(v.get("finished")),
                "eliminated": bool(v.get("eliminated")),
            }
            for k, v in (data.get("runs") or {}).items()
        }
    }


def _as_numbers(event: Event, stored: Mapping[str, Any]) -> dict[str, Any]:
    """A stored sheet with int driver keys, as the pure modules take it."""
    if event.game == "cannes_monaco":
        return {
            "squares": {int(k): v for k, v in (stored.get("squares") or {}).items()},
            "crossed": [int(n) for n in stored.get("crossed") or []],
        }
    return {"runs": {int(k): v for k, v in (stored.get("runs") or {}).items()}}


def game_result_save(
    *, actor: Actor, table: RaceTable, version: int, data: Mapping[str, Any], submit: bool
) -> RaceResult:
    """Save a Cannes–Monaco or Racetrack sheet; ``submit`` hands it to race control.

    Same workflow as :func:`races.services.result_save`: refused once confirmed or when
    ``version`` is stale (409 with the stored result); a draft may be incomplete.
    """
    event = table.event
    if games.table_game(event.game) is None:
        raise InvalidInput(_("This event's game has no table sheet of this kind."))
    if not actor.can_referee(table):
        raise NotAllowed(_("Only this table's referee or an organiser may enter its result."))
    with transaction.atomic():
        table, result = result_locked_for_save(table=table, version=version)
        grid = _grid(table)
        if event.game == Event.Game.CANNES_MONACO and not games.cannes_monaco.table_size_ok(
            len(grid)
        ):
            raise InvalidInput(
                _(
                    "A Cannes–Monaco race is for %(min)s to %(max)s drivers and this table "
                    "has %(count)s: run the allocation again."
                )
                % {
                    "min": games.cannes_monaco.MIN_DRIVERS,
                    "max": games.cannes_monaco.MAX_DRIVERS,
                    "count": len(grid),
                }
            )
        problems = _game_problems(event, data, list(grid), submit)
        if problems:
            errors = _problem_messages(problems, grid, crash_limit=event.crash_limit)
            raise InvalidInput(next(iter(errors.values()))[0], errors)
        result = result or RaceResult(table=table, version=0)
        result.game_data = game_data_of(event, data)
        result.finish, result.retired, result.dns = [], [], []
        result.version += 1
        result.submitted_at = timezone.now() if submit else None
        actor.stamp(result).save()
        table.result_status = ResultStatus.SUBMITTED if submit else ResultStatus.DRAFT
        actor.stamp(table).save(update_fields=["result_status"])
    return result


def game_sheet_complete(table: RaceTable, stored: Mapping[str, Any]) -> bool:
    """True when a stored sheet (e.g. a version restored from the history) is complete."""
    data = _as_numbers(table.event, stored)
    return not _game_problems(table.event, data, list(_grid(table)), True)


def game_classification(table: RaceTable, result: RaceResult) -> list[Any]:
    """The table classification of a complete sheet, by the game's own module."""
    event = table.event
    grid = list(_grid(table))
    data = _as_numbers(event, result.game_data or {})
    if event.game == "cannes_monaco":
        cars = games.cannes_monaco.cars(data["squares"], data["crossed"], grid=grid)
        return games.cannes_monaco.classification(cars)
    runs = [games.racetrack.run_of(n, data["runs"].get(n, {})) for n in grid]
    return games.racetrack.classification(runs, scale=event.championship.points_scale)


def game_table_lines(table: RaceTable, result: RaceResult, *, first_rank: int) -> list[DayLine]:
    """The table's lines for ``ResultLine`` at confirmation: the game's places and points.

    ``position`` is 1..n (the database keeps it unique; ties in grid order), ``rank`` the
    day rank where a shared place stays shared.
    """
    return [
        DayLine(
            driver=line.driver,
            table=table.number,
            position=line.position,
            rank=first_rank + line.place - 1,
            status=line.status,
            cause=None,
            lap=None,
            points=line.points,
        )
        for line in game_classification(table, result)
    ]


def game_fields(table: RaceTable, result: RaceResult | None) -> dict[str, Any]:
    """The game's fields of a table result for the API (nothing for Formula Dé)."""
    game = table.event.game
    if game not in GAME_FIELDS:
        return {}
    stored = (result.game_data if result else None) or {}
    if game == "cannes_monaco":
        return {
            "squares": dict(stored.get("squares") or {}),
            "crossed": list(stored.get("crossed") or []),
        }
    return {"runs": dict(stored.get("runs") or {})}


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
    }
    errors: dict[str, list[str]] = {}
    for problem in problems:
        who = names.get(problem.driver, str(problem.driver))  # type: ignore[call-overload]
        errors.setdefault(str(problem.driver), []).append(
            texts[problem.kind] % {"driver": who, "value": problem.value}
        )
    return errors


def stage_times_set(
    *, actor: Actor, stage: Stage, times: Mapping[int, Mapping[str, Any]]
) -> list[StageTime]:
    """Record drivers' times on a stage (ART.11, Règlement+): all or nothing.

    Organisers write every driver; a game's referee (table link or account) the drivers
    of their game. Once every stage is fully timed the rally's places and points are
    stored as result lines, so the day's results and standings include the rally.
    """
    event = stage.event
    if not actor.can_organise(event.championship):
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
    problems = rallyman.entry_problems(times, starters=starters)
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
            record.version += 1
            actor.stamp(record).save()
            saved.append(record)
        rally_results_store(actor=actor, event=event)
    return saved


def stage_complete(stage: Stage) -> bool:
    """True when every starter of the stage has a time or retired."""
    timed = set(stage.times.values_list("driver__number", flat=True))
    return all(n in timed for n in start_order_of(stage))


def rally_results_store(*, actor: Actor, event: Event) -> int:
    """Store the final rally classification as result lines once every stage is timed.

    Places come from the final scratch (shared on equal totals), points from the
    championship's scale by place (a shared place takes the better points); retired
    drivers score 0. Each driver's line sits at the table of their game (allocation);
    until then, or while a stage is incomplete, the rally has no result lines.
    """
    from races.games._ranking import scale_points

    ResultLine.objects.filter(event=event).delete()
    stages = stages_of(event)
    if not stages or not all(stage_complete(s) for s in stages):
        return 0
    slots = {
        s.driver.number: s
        for s in GridSlot.objects.filter(event=event).select_related("table", "driver")
    }
    lines = [line for line in rally_after(event) if line.driver in slots]
    if not lines:
        return 0
    by_table: dict[int, int] = {}
    rows = []
    for line in lines:
        slot = slots[line.driver]
        by_table[slot.table_id] = by_table.get(slot.table_id, 0) + 1
        finished = line.retired_in is None
        rows.append(
            ResultLine(
                event=event,
                table=slot.table,
                driver=slot.driver,
                position=by_table[slot.table_id],
                rank=line.rank,
                status=ResultLine.Status.FINISHED if finished else ResultLine.Status.RETIRED,
                points=scale_points(event.championship.points_scale, line.rank) if finished else 0,
            )
        )
    ResultLine.objects.bulk_create(rows)
    return len(rows)


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


def game_allocation(
    *, event: Event, drivers: Sequence[RankedDriver], size: int
) -> tuple[int, Allocation] | None:
    """Tables of the games with their own table rules, with the table size used; None for
    the games seated by :func:`races.allocation.allocate` as they are (Formula Dé,
    Racetrack).

    - Rallyman: games of up to 4 (ART.4-3) formed from the start order as it stands
      (``drivers`` by rank), never reordered: no team-mate swap, the start order decides.
    - Cannes–Monaco: races of 3 to 6 drivers ("pour 3 à 6 pilotes"); refused below 3.
    """
    if event.game == Event.Game.RALLYMAN:
        size = min(size, rallyman.TABLE_SIZE)
        order = [d.driver for d in sorted(drivers, key=lambda d: d.rank)]
        return size, Allocation(tables=rallyman.games(order, size=size), swaps=[], conflicts=[])
    if event.game == Event.Game.CANNES_MONACO:
        try:
            size = games.cannes_monaco.table_capacity(len(drivers), size)
        except ValueError as exc:
            raise InvalidInput(
                _(
                    "A Cannes–Monaco race needs at least %(min)s drivers: %(count)s in all "
                    "for this event."
                )
                % {"min": games.cannes_monaco.MIN_DRIVERS, "count": len(drivers)}
            ) from exc
        return size, allocate(drivers, capacity=size, separate_teams=event.separate_teams)
    return None


# ---------------------------------------------------------------------------
# Printed sheets: plain data for races.game_pdf
# ---------------------------------------------------------------------------


def rally_sheet_data(*, event: Event) -> Any:
    """The FEUILLE P.C. COURSE's data: stages, chrono grid, scratches, re-classifications."""
    from races.game_pdf import PrintedRank, PrintedStage, PrintedTime, RallySheetData

    drivers = {d.number: d for d in rally_drivers(event)}
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
                drivers[line.driver].name,  # type: ignore[index,call-overload]
                rallyman.format_chrono(line.time) if not line.retired else _("retired"),
            )  # fmt: skip
            for line in rallyman.stage_scratch(_entries_of(stage))
            if line.driver in drivers
        ]
        after[stage.number] = [
            PrintedRank(
                line.rank,
                int(line.driver),
                drivers[line.driver].name,  # type: ignore[index,call-overload]
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
        stages=[PrintedStage(s.number, s.route, s.service_after) for s in stages],
        drivers=[(n, d.name) for n, d in drivers.items()],
        times=times,
        scratches=scratches,
        after=after,
        language=event.language if event.language in ("fr", "en") else "fr",
    )


def table_sheet_data(*, table: RaceTable) -> Any:
    """A Cannes–Monaco or Racetrack table's sheet data."""
    from races.game_pdf import TableGameData

    event = table.event
    return TableGameData(
        game=event.game,
        game_name=str(event.get_game_display()),
        championship=str(event.championship),
        event=event.name,
        date=event.date,
        table_number=table.number,
        drivers=[
            (s.position, s.driver.number, s.driver.name)
            for s in table.slots.select_related("driver").order_by("position")
        ],
        crash_limit=event.crash_limit,
        collisions=event.collisions,
        language=event.language if event.language in ("fr", "en") else "fr",
    )
