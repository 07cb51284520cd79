"""Writes of race results: draft → submitted (referee) → confirmed (race control), reopened
or restored with a reason; places and points stored at confirmation, rescored when the
championship's scale changes. The other games' sheets come in through ``races.variants``."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import replace
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from races import variants
from races.grid.state import checked_reason, locked_for_start, mark_started
from races.models import (
    GridSlot,
    RaceResult,
    RaceTable,
    RaceWeather,
    ResultLine,
    ResultStatus,
)
from races.results.points import DayLine, table_lines
from races.results.rules import (
    Retirement,
    TableResult,
    disqualified_last,
    result_problems,
    table_classification,
)
from races.sanctions import rules as sanction_rules
from tournament.access import Actor, last_saved
from tournament.errors import Conflict, InvalidInput, NotAllowed
from tournament.models import Championship, Event, Sanction
from tournament.registration.services import require_desk, require_organiser
from tournament.signals import results_changed_soon

# --- Race results: draft → submitted (referee) → confirmed (race control) -----------------


def _result_problem_messages(problems: list[Any], names: Mapping[int, str]) -> dict[str, list[str]]:
    """Translated sentences, each naming the driver, for the problems of a result."""
    texts = {
        "unknown_driver": _("%(driver)s is not on this table's grid."),
        "duplicate": _("%(driver)s is written more than once."),
        "missing": _("%(driver)s is missing: every driver of the grid appears exactly once."),
        "bad_cause": _("%(driver)s: unknown retirement cause."),
        "note_required": _("%(driver)s: “other” needs a note (disqualification, withdrawal…)."),
        "note_too_long": _("%(driver)s: the note is too long (200 characters at most)."),
        "bad_lap": _("%(driver)s: the retirement lap must be between 1 and the race's laps."),
        "lap_order": _(
            "%(driver)s: retirements are listed in the order they happened, so their laps "
            "never go down; an earlier retirement is on lap %(detail)s."
        ),
        "note_not_finisher": _(
            "%(driver)s: a note on its own is for a finisher (e.g. an engine broken on the "
            "last lap, §16-0-6); a retirement's note goes with the retirement."
        ),
    }
    errors: dict[str, list[str]] = {}
    for problem in problems:
        who = names.get(problem.driver, str(problem.driver))
        text = texts[problem.kind] % {"driver": who, "detail": problem.detail}
        errors.setdefault(str(problem.driver), []).append(text)
    return errors


def finisher_notes(result: RaceResult | None) -> dict[int, str]:
    """The finishers' notes of a Formula Dé sheet (§16-0-6), by driver number."""
    stored = ((result.game_data or {}).get("notes") if result else None) or {}
    return {int(n): str(note) for n, note in stored.items() if str(n).isdigit() and note}


def _table_result(
    finish: list[int],
    retired: list[Mapping[str, Any]],
    dns: list[int],
    notes: Mapping[int, str] | None = None,
) -> Any:
    return TableResult(
        finish=tuple(finish),
        retired=tuple(
            Retirement(
                driver=r.get("driver"),
                cause=r.get("cause"),  # type: ignore[arg-type]
                lap=r.get("lap"),
                note=str(r.get("note") or ""),
            )
            for r in retired
        ),
        dns=tuple(dns),
        notes=dict(notes or {}),
    )


def result_save(
    *,
    actor: Actor,
    table: RaceTable,
    version: int,
    finish: list[int],
    retired: list[Mapping[str, Any]],
    dns: list[int],
    submit: bool,
    notes: Mapping[int, str] | None = None,
) -> RaceResult:
    """Save what the referee wrote; ``submit`` asks race control to confirm it.

    ``notes`` are finishers' notes by driver number (e.g. an engine broken on the last
    lap, kept as a finisher under §16-0-6), stored with the sheet and in its history.

    A draft may be incomplete; a submitted result has every grid driver exactly once.
    Refused once confirmed, or when ``version`` is not the stored one (nothing is lost:
    the stored result comes back with the refusal).
    """
    if not actor.can_referee(table):
        raise NotAllowed(_("Only this table's referee or an organiser may enter its result."))
    with transaction.atomic():
        table, result = result_locked_for_save(table=table, version=version)
        grid = {s.driver.number: s.driver.name for s in table.slots.select_related("driver")}
        notes = {n: str(note).strip() for n, note in (notes or {}).items() if str(note).strip()}
        problems = result_problems(
            _table_result(finish, retired, dns, notes),
            grid=list(grid),
            laps=table.event.race_laps,
            complete=submit,
        )
        if problems:
            names = {n: f"{n} {name}" for n, name in grid.items()}
            errors = _result_problem_messages(problems, names)
            raise InvalidInput(next(iter(errors.values()))[0], errors)
        result = result or RaceResult(table=table, version=0)
        result.finish = list(finish)
        result.retired = [
            {
                "driver": r.get("driver"),
                "cause": r.get("cause"),
                "lap": r.get("lap"),
                "note": str(r.get("note") or ""),
            }
            for r in retired
        ]
        result.dns = list(dns)
        # Formula Dé keeps its finishers' notes here (the other games their own sheet).
        result.game_data = {"notes": {str(n): note for n, note in notes.items()}} if notes else {}
        result.version += 1
        result.submitted_at = timezone.now() if submit else None
        actor.stamp(result).save()
        table.result_status = ResultStatus.SUBMITTED if submit else ResultStatus.DRAFT
        actor.stamp(table).save(update_fields=["result_status"])
        mark_started(actor, table)
    return result


def result_locked_for_save(
    *, table: RaceTable, version: int
) -> tuple[RaceTable, RaceResult | None]:
    """Inside the caller's transaction: the table locked and its stored result, or a refusal.

    The state of the stored result comes first: a referee whose result was confirmed or
    changed meanwhile must be told so (with the stored result), not about typos. Where the
    event draws a race weather (§2-0-1, §3-0-1), nothing is saved before it is drawn: a
    first save starts the table, and a started table would forbid the draw for every table
    of the event (DOMAIN.md, "The race's order").
    """
    table = locked_for_start(table)
    result = RaceResult.objects.filter(table=table).first()
    stored_version = result.version if result else 0
    if table.result_status == ResultStatus.CONFIRMED:
        raise Conflict(
            _("This result is confirmed: only race control can reopen it."), current=result
        )
    if version != stored_version:
        raise Conflict(
            _("%(who)s saved this result meanwhile, at %(time)s: check it and save again.")
            % last_saved(result, [table]),
            current=result,
        )
    require_race_weather(table)
    return table, result


def require_race_weather(table: RaceTable) -> None:
    """Refuse a result of ``table`` while its event's race weather is not drawn, where the
    event draws one (§2-0-1: the overall pole draws it before the race is run)."""
    event = table.event
    if event.draws_race_weather and not RaceWeather.objects.filter(event=event).exists():
        raise Conflict(
            _(
                "The race weather is not drawn yet: the overall pole draws it (§2-0-1) "
                "before the race is run, so no result of %(table)s can be saved before then. "
                "Ask race control to draw it."
            )
            % {"table": table},
            {"race_weather": [_("Race control draws the race weather first.")]},
        )


def event_sanctions(event: Event) -> list[sanction_rules.Sanction]:
    """The sanctions in force at ``event`` (§1-2-3), drivers by number."""
    return [
        sanction_rules.Sanction(
            driver=number,
            kind=kind,  # type: ignore[arg-type]
            value=value,
            session=session,
        )
        for number, kind, value, session in Sanction.objects.filter(
            event=event, withdrawn_at__isnull=True
        ).values_list("driver__number", "kind", "value", "session")
    ]


def _first_rank(table: RaceTable, disqualified: Collection[int]) -> int:
    """Day ranks of a table start after every driver of the tables before it (the
    disqualified are classed last of the event, after everyone)."""
    before = GridSlot.objects.filter(event=table.event_id, table__number__lt=table.number)
    return before.exclude(driver__number__in=list(disqualified)).count() + 1


def _disqualified_ranks(event: Event, disqualified: Collection[int]) -> dict[int, int]:
    """Day ranks of the disqualified: last of the event, in table and grid order."""
    slots = GridSlot.objects.filter(event=event)
    total = slots.count()
    chosen = list(
        slots.filter(driver__number__in=list(disqualified))
        .order_by("table__number", "position")
        .values_list("driver__number", flat=True)
    )
    return {number: total - len(chosen) + index for index, number in enumerate(chosen, 1)}


def _scored_lines(
    table: RaceTable, result: RaceResult, sanctions: list[sanction_rules.Sanction] | None = None
) -> list[DayLine]:
    """The table's places and points under its championship's current scale and mode,
    with the event's sanctions applied (§1-2-3): the disqualified classed last of the
    event with 0 points, points removed (never below 0 for the event)."""
    event = table.event
    sanctions = event_sanctions(event) if sanctions is None else sanctions
    disqualified = sanction_rules.disqualified(sanctions)
    removed = sanction_rules.points_removed(sanctions)
    first = _first_rank(table, disqualified)  # type: ignore[arg-type]
    game_lines = variants.variant_of(event.game).table_lines
    if game_lines is not None:  # the game's own places and points, without the disqualified
        lines = game_lines(table, result, first_rank=first, disqualified=disqualified)
    else:
        placed = table_classification(_table_result(result.finish, result.retired, result.dns))
        lines = table_lines(
            disqualified_last(placed, disqualified),
            table=table.number,
            first_rank=first,
            scale=event.championship.points_scale,
            mode=event.championship.points_mode,  # type: ignore[arg-type]
        )
    ranks = _disqualified_ranks(event, disqualified) if disqualified else {}
    out = []
    for line in lines:
        if line.status == "dsq":
            line = replace(line, rank=ranks.get(line.driver, line.rank))  # type: ignore[call-overload]
        taken = min(line.points, removed.get(line.driver, 0))
        if taken:
            line = replace(line, points=line.points - taken, removed=taken)
        out.append(line)
    return out


def _store_lines(table: RaceTable, result: RaceResult, lines: list[DayLine]) -> None:
    """Inside the caller's transaction: the table's confirmed lines, replaced."""
    drivers = {s.driver.number: s.driver for s in table.slots.select_related("driver")}
    notes = {r["driver"]: r.get("note", "") for r in result.retired}
    notes.update(finisher_notes(result))
    ResultLine.objects.filter(table=table).delete()
    ResultLine.objects.bulk_create(
        ResultLine(
            event=table.event,
            table=table,
            driver=drivers[line.driver],
            position=line.position,
            place=line.table_place,
            rank=line.rank,
            status=line.status,
            cause=line.cause or "",
            lap=line.lap,
            note=notes.get(line.driver, ""),
            points=line.points,
            points_removed=line.removed,
        )
        for line in lines
    )


def event_rescore(*, event: Event) -> int:
    """Places, ranks and points of every confirmed table of ``event``, computed again
    (a sanction recorded or withdrawn); the caller holds the transaction and records the
    sanction. Answers how many tables were scored again."""
    sanctions = event_sanctions(event)
    tables = RaceTable.objects.filter(event=event, result_status=ResultStatus.CONFIRMED)
    count = 0
    for table in tables.select_related("event__championship", "result"):
        _store_lines(table, table.result, _scored_lines(table, table.result, sanctions))
        count += 1
    return count


def results_rescore(*, championship: Championship) -> int:
    """Stored points of every confirmed table, recomputed after a change of scale or mode.

    Places do not change, only points; the caller holds the transaction and records the
    championship's change. Answers how many result lines changed their points.
    """
    tables = RaceTable.objects.filter(
        event__championship=championship, result_status=ResultStatus.CONFIRMED
    ).select_related("event__championship", "result")
    changed: list[ResultLine] = []
    for table in tables:
        scored = {line.driver: line for line in _scored_lines(table, table.result)}
        for line in ResultLine.objects.filter(table=table).select_related("driver"):
            new = scored.get(line.driver.number)
            points, removed = (new.points, new.removed) if new is not None else (0, 0)
            if (line.points, line.points_removed) != (points, removed):
                line.points, line.points_removed = points, removed
                changed.append(line)
    ResultLine.objects.bulk_update(changed, ["points", "points_removed"])
    return len(changed)


def result_confirm(*, actor: Actor, table: RaceTable, version: int | None = None) -> RaceResult:
    """Race control (or its desk) confirms a submitted result; its places and points are
    stored."""
    event = table.event
    require_desk(actor, event.championship)
    with transaction.atomic():
        table = RaceTable.objects.select_for_update(no_key=True).get(pk=table.pk)
        result = RaceResult.objects.filter(table=table).first()
        if result is None or table.result_status != ResultStatus.SUBMITTED:
            raise Conflict(_("Only a submitted result can be confirmed."), current=result)
        if version is not None and version != result.version:
            raise Conflict(
                _("%(who)s changed this result meanwhile, at %(time)s: check it first.")
                % last_saved(result, [table]),
                current=result,
            )
        _store_lines(table, result, _scored_lines(table, result))
        result.version += 1
        result.confirmed_at = timezone.now()
        result.confirmed_by = actor.user if actor.is_authenticated else None
        actor.stamp(result).save()
        table.result_status = ResultStatus.CONFIRMED
        actor.stamp(table).save(update_fields=["result_status"])
        if event.published_results:  # counted in the ratings once published only
            results_changed_soon(event.family)
    return result


def result_reopen(
    *, actor: Actor, table: RaceTable, reason: str, version: int | None = None
) -> RaceResult:
    """Race control reopens a confirmed result (with a reason): back to submitted."""
    require_organiser(actor, table.event.championship)
    if not reason or not reason.strip():
        raise InvalidInput(
            _("Say why the result is reopened."), {"reason": [_("A reason is required.")]}
        )
    reason = checked_reason(reason)
    with transaction.atomic():
        table = RaceTable.objects.select_for_update(no_key=True).get(pk=table.pk)
        result = RaceResult.objects.filter(table=table).first()
        if result is None or table.result_status != ResultStatus.CONFIRMED:
            raise Conflict(_("Only a confirmed result can be reopened."), current=result)
        if version is not None and version != result.version:
            raise Conflict(
                _("%(who)s changed this result meanwhile, at %(time)s: check it first.")
                % last_saved(result, [table]),
                current=result,
            )
        ResultLine.objects.filter(table=table).delete()
        result.version += 1
        result.confirmed_at = None
        result.confirmed_by = None
        result.reopen_reason = reason
        actor.stamp(result).save()
        table.result_status = ResultStatus.SUBMITTED
        actor.stamp(table).save(update_fields=["result_status"])
        if table.event.published_results:
            results_changed_soon(table.event.family)
    return result


def result_restore(
    *, actor: Actor, table: RaceTable, history_id: int, version: int | None = None
) -> RaceResult:
    """Race control puts an earlier version of a table's result back, as a new version.

    The restored sheet is written like a referee's save: a new version, recorded in the
    history with who and "restored version N", and it waits for confirmation again
    (submitted when every driver is written, draft otherwise). A confirmed result is
    refused: its places and points are in the standings, so race control reopens it first
    (with a reason) and then restores. ``version`` guards against a change meanwhile.
    """
    require_organiser(actor, table.event.championship)
    with transaction.atomic():
        table = RaceTable.objects.select_for_update(no_key=True).get(pk=table.pk)
        result = RaceResult.objects.filter(table=table).first()
        record = (
            RaceResult.history.filter(table_id=table.pk, history_id=history_id).first()
            if result is not None
            else None
        )
        if result is None or record is None:
            raise InvalidInput(_("This version is not in the history of this table's result."))
        if table.result_status == ResultStatus.CONFIRMED:
            raise Conflict(
                _("This result is confirmed: reopen it first, then restore a version."),
                current=result,
            )
        if version is not None and version != result.version:
            raise Conflict(
                _("%(who)s changed this result meanwhile, at %(time)s: check it first.")
                % last_saved(result, [table]),
                current=result,
            )
        grid = {s.driver.number: s.driver.name for s in table.slots.select_related("driver")}
        restored = _table_result(list(record.finish), list(record.retired), list(record.dns))
        complete = not result_problems(
            restored, grid=list(grid), laps=table.event.race_laps, complete=True
        )
        problems = result_problems(
            restored, grid=list(grid), laps=table.event.race_laps, complete=False
        )
        sheet_complete = variants.variant_of(table.event.game).sheet_complete
        if sheet_complete is not None:  # the game's own sheet
            complete = sheet_complete(table, record.game_data or {})
        if problems:
            names = {n: f"{n} {name}" for n, name in grid.items()}
            errors = _result_problem_messages(problems, names)
            raise InvalidInput(next(iter(errors.values()))[0], errors)
        result.finish = list(record.finish)
        result.retired = [dict(r) for r in record.retired]
        result.dns = list(record.dns)
        result.game_data = record.game_data
        result.version += 1
        result.submitted_at = timezone.now() if complete else None
        result._change_reason = _("restored version %(version)s") % {  # type: ignore[attr-defined]
            "version": record.version
        }
        actor.stamp(result).save()
        table.result_status = ResultStatus.SUBMITTED if complete else ResultStatus.DRAFT
        actor.stamp(table).save(update_fields=["result_status"])
    return result
