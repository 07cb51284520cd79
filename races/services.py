"""Writes for race day: allocation and swaps, race weather and table draws, stands,
configurations, referee links and the batch of printed sheets.

The rules themselves live in the pure modules ``races.allocation``, ``races.weather`` and
``races.configuration``; here we check who acts, validate, save, and record.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from simple_history.utils import bulk_create_with_history

from qualifying.models import QualifyingTable
from qualifying.selectors import general_classification
from qualifying.services import roll_or_record
from races import allocation as allocation_rules
from races import configuration as configuration_rules
from races import games
from races import weather as weather_rules
from races.models import (
    AllocationRecord,
    CarConfiguration,
    GridSlot,
    ManualSwap,
    RaceResult,
    RaceTable,
    RaceWeather,
    ReplacedLink,
    ResultLine,
    ResultStatus,
    SheetBatch,
    WeatherDraw,
)
from tournament.access import Actor
from tournament.errors import Conflict, InvalidInput, NotAllowed
from tournament.models import Championship, Event
from tournament.points import DayLine
from tournament.services import require_organiser

logger = logging.getLogger(__name__)

PART_NAMES = {
    "tyres": gettext_lazy("tyres"),
    "brakes": gettext_lazy("brakes"),
    "gearbox": gettext_lazy("gearbox"),
    "body": gettext_lazy("body"),
    "engine": gettext_lazy("engine"),
    "road_holding": gettext_lazy("road holding"),
    "stand_points": gettext_lazy("stand points"),
    "total": gettext_lazy("total"),
}


def results_started(event: Event) -> bool:
    """True once any race table of ``event`` has a result that is no longer empty."""
    return RaceTable.objects.filter(event=event).exclude(result_status=ResultStatus.EMPTY).exists()


def _require_no_results(event: Event) -> None:
    if results_started(event):
        raise Conflict(_("Results are already being entered: the tables can no longer change."))


def _last_session_weather(event: Event) -> str | None:
    session = event.sessions.order_by("-number").first()
    return session.weather if session else None


def _start_weather(table: RaceTable, race: RaceWeather | None, event: Event) -> None:
    """Set a table's weather as the race starts (§3-2-2 … §3-2-4)."""
    if race is None:
        table.weather, table.track, table.weather_fixed, table.last_draw = "", "", False, ""
        return
    state = weather_rules.race_start(race.weather, _last_session_weather(event))  # type: ignore[arg-type]
    table.weather, table.track = state.weather, state.track
    table.weather_fixed, table.last_draw = state.fixed, state.last_draw or ""


def _delete_recorded(actor: Actor, rows: Any) -> None:
    """Delete ``rows`` one by one, so that each leaves a history row naming ``actor``
    (a queryset's ``delete()`` records the rows without saying who)."""
    for row in rows.order_by("pk"):
        actor.stamp(row).delete()


def allocation_run(*, actor: Actor, event: Event, table_size: int | None = None) -> list[RaceTable]:
    """Allocate the drivers to race tables by general classification (§1-3-2, §1-3-3).

    Re-running is allowed until the first result; it clears stands and configurations.
    Existing tables keep their referee and link.
    """
    require_organiser(actor, event.championship)
    size = event.table_size if table_size is None else table_size
    if not 2 <= size <= 20:
        raise InvalidInput(_("A table seats 2 to 20 drivers."), {"table_size": [_("2 to 20.")]})
    lines: list[Any] = general_classification(event=event)
    if event.game == Event.Game.RALLYMAN:  # games of up to 4 in stage-1 start order
        from races.game_services import rally_start_lines

        lines = rally_start_lines(event=event, lines=lines)
    checked = set(event.entries.filter(checked_in=True).values_list("driver_id", flat=True))
    if checked:  # only the drivers present when the event uses check-in
        lines = [line for line in lines if line.driver.pk in checked]
    if not lines:
        raise InvalidInput(_("Register drivers for the event first."))
    ranked = [
        allocation_rules.RankedDriver(
            driver=line.driver.number, rank=line.rank, team=line.driver.team_id
        )
        for line in lines
    ]
    from races.game_services import game_allocation  # Rallyman, Cannes–Monaco table rules

    special = game_allocation(event=event, drivers=ranked, size=size)
    if special is not None:
        size, result = special
    else:
        result = allocation_rules.allocate(
            ranked, capacity=size, separate_teams=event.separate_teams
        )
    drivers = {line.driver.number: line.driver for line in lines}
    ranks = {line.driver.number: line.rank for line in lines}
    moved = {swap.moved_down for swap in result.swaps} | {swap.moved_up for swap in result.swaps}
    with transaction.atomic():
        _require_no_results(event)
        race = RaceWeather.objects.filter(event=event).first()
        # Children first, each deletion recorded with who: table weather draws, car
        # configurations, grid places, then the tables the new allocation no longer uses.
        _delete_recorded(actor, WeatherDraw.objects.filter(table__event=event))
        _delete_recorded(actor, CarConfiguration.objects.filter(slot__event=event))
        _delete_recorded(actor, GridSlot.objects.filter(event=event))
        _delete_recorded(
            actor, RaceTable.objects.filter(event=event, number__gt=len(result.tables))
        )
        tables = []
        for index, numbers in enumerate(result.tables, start=1):
            table, _created = RaceTable.objects.get_or_create(event=event, number=index)
            _start_weather(table, race, event)
            actor.stamp(table).save()
            bulk_create_with_history(
                [
                    GridSlot(
                        event=event,
                        table=table,
                        driver=drivers[number],
                        position=position,
                        rank=ranks[number],
                        swapped=number in moved,
                    )
                    for position, number in enumerate(numbers, start=1)
                ],
                GridSlot,
                default_user=actor.user if actor.is_authenticated else None,
                custom_historical_attrs={"history_actor": actor.label},
            )
            tables.append(table)
        AllocationRecord.objects.update_or_create(
            event=event,
            defaults={
                "table_size": size,
                "actor": actor.label,
                "swaps": [
                    {
                        "moved_down": s.moved_down,
                        "moved_up": s.moved_up,
                        "from_table": s.from_table,
                        "to_table": s.to_table,
                        "teammate": s.teammate,
                    }
                    for s in result.swaps
                ],
                # Only conflicts the event wanted avoided are worth a warning.
                "conflicts": [
                    {"table": c.table, "drivers": list(c.drivers)} for c in result.conflicts
                ]
                if event.separate_teams
                else [],
            },
        )
    return tables


def _renumber(table: RaceTable, actor: Actor) -> None:
    """Keep a grid sorted by qualifying rank after a swap (positions 1..n)."""
    slots = list(table.slots.order_by("rank", "driver__number"))
    # Out of the way first, so the unique (table, position) never sees two equal positions.
    table.slots.update(position=F("position") + 1000)
    for position, slot in enumerate(slots, start=1):
        slot.position = position
        actor.stamp(slot).save(update_fields=["position"])


def _checked_reason(reason: str) -> str:
    """A reason as stored: trimmed, refused (not cut) beyond the 200 characters kept."""
    reason = (reason or "").strip()
    if len(reason) > 200:
        message = _("The reason is too long (200 characters at most).")
        raise InvalidInput(message, {"reason": [message]})
    return reason


def swap_drivers(*, actor: Actor, event: Event, a: int, b: int, reason: str = "") -> ManualSwap:
    """Exchange two drivers' tables by hand (recorded: who, when, why)."""
    require_organiser(actor, event.championship)
    if a == b:
        raise InvalidInput(_("Choose two different drivers."))
    reason = _checked_reason(reason)
    with transaction.atomic():
        _require_no_results(event)
        slots = {
            s.driver.number: s
            for s in GridSlot.objects.select_for_update()
            .filter(event=event, driver__number__in=[a, b])
            .select_related("driver", "table")
        }
        missing = [n for n in (a, b) if n not in slots]
        if missing:
            raise InvalidInput(
                _("Not on any table of this event: %(numbers)s.")
                % {"numbers": ", ".join(str(n) for n in missing)}
            )
        slot_a, slot_b = slots[a], slots[b]
        if slot_a.table_id == slot_b.table_id:
            raise InvalidInput(_("These two drivers already sit at the same table."))
        table_a, table_b = slot_a.table, slot_b.table
        # A stand belongs to a table: a driver who moves chooses again.
        for index, (slot, table) in enumerate(((slot_a, table_b), (slot_b, table_a))):
            slot.table = table
            slot.stand = None
            # A parking position no grid uses (nor _renumber's +1000 shift) until renumbered.
            slot.position = 5000 + index
            actor.stamp(slot).save(update_fields=["table", "stand", "position"])
        _renumber(table_a, actor)
        _renumber(table_b, actor)
        record = ManualSwap.objects.create(
            event=event,
            driver_a=slot_a.driver,
            driver_b=slot_b.driver,
            table_a=table_a.number,
            table_b=table_b.number,
            reason=reason,
            user=actor.user if actor.is_authenticated else None,
            actor=actor.label,
        )
    return record


def race_weather_draw(*, actor: Actor, event: Event, roll: int | None = None) -> RaceWeather:
    """The overall pole's d20 for the race (§2-0-1, §3-2-1); sets every table's start."""
    require_organiser(actor, event.championship)
    value, source = roll_or_record(roll)
    weather = event.circuit.weather_scale.weather_for(value)
    with transaction.atomic():
        if WeatherDraw.objects.filter(table__event=event).exists() or results_started(event):
            raise Conflict(_("The race has started: its weather can no longer be drawn again."))
        race = RaceWeather.objects.filter(event=event).first() or RaceWeather(event=event)
        race.roll, race.source, race.weather = value, source, weather
        actor.stamp(race).save()
        for table in RaceTable.objects.filter(event=event):
            _start_weather(table, race, event)
            actor.stamp(table).save()
    return race


def table_weather_draw(*, actor: Actor, table: RaceTable, roll: int | None = None) -> WeatherDraw:
    """A weather draw at one table of a variable race (§3-2-4 … §3-2-6)."""
    if not actor.can_referee(table):
        raise NotAllowed(_("Only this table's referee or an organiser may draw its weather."))
    event = table.event
    value, source = roll_or_record(roll)
    drawn = event.circuit.weather_scale.weather_for(value)
    with transaction.atomic():
        table = RaceTable.objects.select_for_update().get(pk=table.pk)
        race = RaceWeather.objects.filter(event=event).first()
        if race is None or race.weather != "variable":
            raise Conflict(_("The weather evolves only in a variable race."))
        state = weather_rules.TableWeather(
            weather=table.weather,  # type: ignore[arg-type]
            track=table.track,  # type: ignore[arg-type]
            fixed=table.weather_fixed,
            last_draw=table.last_draw or None,  # type: ignore[arg-type]
        )
        try:
            after = weather_rules.apply_draw(state, drawn)  # type: ignore[arg-type]
        except weather_rules.WeatherFixed as exc:
            raise Conflict(
                _("The weather of this table is fixed for the rest of the race.")
            ) from exc
        table.weather, table.track = after.weather, after.track
        table.weather_fixed, table.last_draw = after.fixed, after.last_draw or ""
        actor.stamp(table).save()
        number = table.weather_draws.count() + 1
        draw = WeatherDraw(
            table=table,
            number=number,
            roll=value,
            source=source,
            drawn=drawn,
            weather=after.weather,
            track=after.track,
            fixed=after.fixed,
            actor=actor.label,
        )
        actor.stamp(draw).save()
        return draw


def _slots_by_number(table: RaceTable, numbers: list[int]) -> dict[int, GridSlot]:
    slots = {s.driver.number: s for s in table.slots.select_related("driver")}
    missing = [n for n in numbers if n not in slots]
    if missing:
        raise InvalidInput(
            _("Not on the grid of %(table)s: %(numbers)s.")
            % {"table": table, "numbers": ", ".join(str(n) for n in missing)},
            {str(n): [_("Not at this table.")] for n in missing},
        )
    return slots


def stands_set(
    *, actor: Actor, table: RaceTable, stands: Mapping[int, int | None]
) -> list[GridSlot]:
    """Record the stands chosen (§4-0-1): one per driver, never twice at a table."""
    if not actor.can_referee(table):
        raise NotAllowed(_("Only this table's referee or an organiser may record its stands."))
    allowed = set(table.event.stands())
    errors: dict[str, list[str]] = {}
    for number, stand in stands.items():
        if stand is not None and stand not in allowed:
            errors[str(number)] = [
                _("Stand %(stand)s does not exist here (stands: %(stands)s).")
                % {"stand": stand, "stands": ", ".join(str(s) for s in sorted(allowed))}
            ]
    if errors:
        raise InvalidInput(next(iter(errors.values()))[0], errors)
    with transaction.atomic():
        if table.result_status == ResultStatus.CONFIRMED:
            raise Conflict(_("This table's result is confirmed: its stands can no longer change."))
        slots = _slots_by_number(table, list(stands))
        final = {s.driver.number: s.stand for s in slots.values()}
        final.update(stands)
        taken: dict[int, int] = {}
        for number, stand in sorted(final.items(), key=lambda item: slots[item[0]].position):
            if stand is None:
                continue
            if stand in taken:
                raise InvalidInput(
                    _("Stand %(stand)s is already taken by driver %(other)s at this table.")
                    % {"stand": stand, "other": taken[stand]},
                    {str(number): [_("Stand already taken.")]},
                )
            taken[stand] = number
        # Free the stands first so that exchanging two stands does not trip the constraint.
        changed = [slots[n] for n, stand in stands.items() if slots[n].stand != stand]
        for slot in changed:
            slot.stand = None
            actor.stamp(slot).save(update_fields=["stand"])
        for slot in changed:
            slot.stand = stands[slot.driver.number]
            try:
                with transaction.atomic():
                    actor.stamp(slot).save(update_fields=["stand"])
            except IntegrityError as exc:  # someone else took it meanwhile
                raise Conflict(
                    _("Stand %(stand)s was just taken.") % {"stand": slot.stand}
                ) from exc
    return list(table.slots.select_related("driver"))


def configuration_messages(problems: list[Any]) -> dict[str, list[str]]:
    """Translated sentences naming the part and the rule for each configuration problem."""
    errors: dict[str, list[str]] = {}
    for problem in problems:
        name = PART_NAMES.get(problem.field, problem.field)
        if problem.kind == "missing":
            text = _("%(part)s: missing (%(rule)s).")
        elif problem.kind == "not_integer":
            text = _("%(part)s: a whole number is needed (%(rule)s).")
        elif problem.kind == "below_minimum":
            text = _("%(part)s: at least 1 point per part (%(rule)s).")
        elif problem.kind == "stand_range":
            text = _("%(part)s: 0 to 2 points at the stand (%(rule)s).")
        else:
            text = _("The parts and stand points add up to %(value)s, not 22 (%(rule)s).")
        errors.setdefault(problem.field, []).append(
            text % {"part": name, "rule": problem.rule, "value": problem.value}
        )
    return errors


def configurations_set(
    *, actor: Actor, table: RaceTable, configurations: Mapping[int, Mapping[str, object]]
) -> list[CarConfiguration]:
    """Record car configurations (§5) for drivers of ``table``; all or nothing."""
    if not actor.can_referee(table):
        raise NotAllowed(_("Only this table's referee or an organiser may record configurations."))
    if not table.event.use_configurations:
        raise Conflict(_("This event does not record car configurations."))
    if table.result_status == ResultStatus.CONFIRMED:
        raise Conflict(
            _("This table's result is confirmed: its configurations can no longer change.")
        )
    errors: dict[str, list[str]] = {}
    parsed = {}
    for number, values in configurations.items():
        problems = configuration_rules.configuration_problems(values)
        if problems:
            for field, messages in configuration_messages(problems).items():
                errors[f"{number}.{field}"] = messages
        else:
            parsed[number] = configuration_rules.parse_configuration(values)
    if errors:
        first = next(iter(errors))
        raise InvalidInput(
            _("Driver %(number)s: %(message)s")
            % {"number": first.split(".")[0], "message": errors[first][0]},
            errors,
        )
    saved = []
    with transaction.atomic():
        slots = _slots_by_number(table, list(configurations))
        for number, config in parsed.items():
            record = CarConfiguration.objects.filter(slot=slots[number]).first()
            record = record or CarConfiguration(slot=slots[number])
            for field in configuration_rules.PARTS:
                setattr(record, field, getattr(config, field))
            record.stand_points = config.stand_points
            actor.stamp(record).save()
            saved.append(record)
    return saved


def referee_link_regenerate(*, actor: Actor, table: RaceTable | QualifyingTable) -> Any:
    """Give a table a new referee link; the old one then says it was replaced."""
    require_organiser(actor, table.event.championship)
    with transaction.atomic():
        kind = "race" if isinstance(table, RaceTable) else "qualifying"
        ReplacedLink.objects.create(
            token=table.token, kind=kind, table_id=table.pk, actor=actor.label
        )
        table.token = type(table)._meta.get_field("token").get_default()
        actor.stamp(table).save(update_fields=["token"])
    return table


def referee_account_set(*, actor: Actor, table: RaceTable | QualifyingTable, username: str) -> Any:
    """Assign the referee account ``username`` to a table (qualifying or race); an empty
    name removes it. The account then opens that table's pages and API, like its link,
    and nothing more (recorded with who, before and after)."""
    from django.contrib.auth import get_user_model

    require_organiser(actor, table.event.championship)
    username = (username or "").strip()
    user = None
    if username:
        readable = len(username) <= 150 and "\x00" not in username
        accounts = get_user_model().objects.filter(username=username, is_active=True)
        user = accounts.first() if readable else None
        if user is None:
            message = _("No active account is named “%(username)s”.") % {"username": username[:150]}
            raise InvalidInput(message, {"referee_account": [message]})
    if table.referee_id == (user.pk if user is not None else None):
        return table
    with transaction.atomic():
        table.referee = user
        actor.stamp(table).save(update_fields=["referee"])
    return table


def sheet_batch_request(
    *, actor: Actor, event: Event, kind: str, language: str, inline: bool = False
) -> SheetBatch:
    """Queue the build of all of an event's sheets in one PDF (replacing the last one).

    ``inline`` builds it within the request (the organiser's choice when no worker runs);
    an unreachable queue builds it inline too, so that a request is never lost. The batch
    comes back with ``ran_inline`` and ``queue_unreachable`` saying which happened.
    """
    require_organiser(actor, event.championship)
    if kind not in SheetBatch.Kind.values:
        raise InvalidInput(_("Unknown kind of sheets."))
    with transaction.atomic():
        batch, _created = SheetBatch.objects.select_for_update().get_or_create(
            event=event, kind=kind
        )
        batch.status = SheetBatch.Status.QUEUED
        batch.done = 0
        batch.total = 0
        batch.error = ""
        batch.language = language if language in ("fr", "en") else "fr"
        batch.save()
        batch.ran_inline = batch.queue_unreachable = False  # type: ignore[attr-defined]
        transaction.on_commit(lambda: _sheet_batch_send(batch, inline=inline))
    return batch


def _sheet_batch_send(batch: SheetBatch, *, inline: bool) -> None:
    """Hand the batch to a worker, or build it here when asked or when the queue is down."""
    from kombu.exceptions import OperationalError
    from redis.exceptions import RedisError

    from races.tasks import build_sheet_batch

    if not inline:
        try:
            build_sheet_batch.delay(batch.pk)
            batch.ran_inline = bool(build_sheet_batch.app.conf.task_always_eager)  # type: ignore[attr-defined]
            return
        except (OperationalError, RedisError, OSError):
            logger.warning("sheet batch %s: task queue unreachable, building inline", batch.pk)
            batch.queue_unreachable = True  # type: ignore[attr-defined]
    batch.ran_inline = True  # type: ignore[attr-defined]
    try:
        build_sheet_batch(batch.pk)
    except Exception:  # noqa: BLE001 - the batch row now says "failed" and why
        logger.exception("sheet batch %s failed", batch.pk)


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
    }
    errors: dict[str, list[str]] = {}
    for problem in problems:
        who = names.get(problem.driver, str(problem.driver))
        errors.setdefault(str(problem.driver), []).append(texts[problem.kind] % {"driver": who})
    return errors


def _table_result(finish: list[int], retired: list[Mapping[str, Any]], dns: list[int]) -> Any:
    from races.results import Retirement, TableResult

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
) -> RaceResult:
    """Save what the referee wrote; ``submit`` asks race control to confirm it.

    A draft may be incomplete; a submitted result has every grid driver exactly once.
    Refused once confirmed, or when ``version`` is not the stored one (nothing is lost:
    the stored result comes back with the refusal).
    """
    from races.results import result_problems

    if not actor.can_referee(table):
        raise NotAllowed(_("Only this table's referee or an organiser may enter its result."))
    with transaction.atomic():
        table, result = result_locked_for_save(table=table, version=version)
        grid = {s.driver.number: s.driver.name for s in table.slots.select_related("driver")}
        problems = result_problems(
            _table_result(finish, retired, dns),
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
        result.version += 1
        result.submitted_at = timezone.now() if submit else None
        actor.stamp(result).save()
        table.result_status = ResultStatus.SUBMITTED if submit else ResultStatus.DRAFT
        actor.stamp(table).save(update_fields=["result_status"])
    return result


def result_locked_for_save(
    *, table: RaceTable, version: int
) -> tuple[RaceTable, RaceResult | None]:
    """Inside the caller's transaction: the table locked and its stored result, or a refusal.

    The state of the stored result comes first: a referee whose result was confirmed or
    changed meanwhile must be told so (with the stored result), not about typos.
    """
    table = RaceTable.objects.select_for_update().get(pk=table.pk)
    result = RaceResult.objects.filter(table=table).first()
    stored_version = result.version if result else 0
    if table.result_status == ResultStatus.CONFIRMED:
        raise Conflict(
            _("This result is confirmed: only race control can reopen it."), current=result
        )
    if version != stored_version:
        raise Conflict(
            _(
                "The result changed meanwhile (version %(stored)s, you had %(sent)s): "
                "check it and save again."
            )
            % {"stored": stored_version, "sent": version},
            current=result,
        )
    return table, result


def _first_rank(table: RaceTable) -> int:
    """Day ranks of a table start after every driver of the tables before it."""
    return GridSlot.objects.filter(event=table.event_id, table__number__lt=table.number).count() + 1


def _scored_lines(table: RaceTable, result: RaceResult) -> list[DayLine]:
    """The table's places and points under its championship's current scale and mode."""
    from races.results import table_classification
    from tournament.points import table_lines

    event = table.event
    if games.table_game(event.game) is not None:  # the game's own places and points
        from races.game_services import game_table_lines

        return game_table_lines(table, result, first_rank=_first_rank(table))
    placed = table_classification(_table_result(result.finish, result.retired, result.dns))
    return table_lines(
        placed,
        table=table.number,
        first_rank=_first_rank(table),
        scale=event.championship.points_scale,
        mode=event.championship.points_mode,  # type: ignore[arg-type]
    )


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
        points = {line.driver: line.points for line in _scored_lines(table, table.result)}
        for line in ResultLine.objects.filter(table=table).select_related("driver"):
            new = points.get(line.driver.number, 0)
            if line.points != new:
                line.points = new
                changed.append(line)
    ResultLine.objects.bulk_update(changed, ["points"])
    return len(changed)


def result_confirm(*, actor: Actor, table: RaceTable, version: int | None = None) -> RaceResult:
    """Race control confirms a submitted result; its places and points are stored."""
    event = table.event
    require_organiser(actor, event.championship)
    with transaction.atomic():
        table = RaceTable.objects.select_for_update().get(pk=table.pk)
        result = RaceResult.objects.filter(table=table).first()
        if result is None or table.result_status != ResultStatus.SUBMITTED:
            raise Conflict(_("Only a submitted result can be confirmed."), current=result)
        if version is not None and version != result.version:
            raise Conflict(
                _("The result changed meanwhile (version %(stored)s, you had %(sent)s).")
                % {"stored": result.version, "sent": version},
                current=result,
            )
        lines = _scored_lines(table, result)
        drivers = {s.driver.number: s.driver for s in table.slots.select_related("driver")}
        notes = {r["driver"]: r.get("note", "") for r in result.retired}
        ResultLine.objects.filter(table=table).delete()
        ResultLine.objects.bulk_create(
            ResultLine(
                event=event,
                table=table,
                driver=drivers[line.driver],
                position=line.position,
                rank=line.rank,
                status=line.status,
                cause=line.cause or "",
                lap=line.lap,
                note=notes.get(line.driver, ""),
                points=line.points,
            )
            for line in lines
        )
        result.version += 1
        result.confirmed_at = timezone.now()
        result.confirmed_by = actor.user if actor.is_authenticated else None
        actor.stamp(result).save()
        table.result_status = ResultStatus.CONFIRMED
        actor.stamp(table).save(update_fields=["result_status"])
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
    reason = _checked_reason(reason)
    with transaction.atomic():
        table = RaceTable.objects.select_for_update().get(pk=table.pk)
        result = RaceResult.objects.filter(table=table).first()
        if result is None or table.result_status != ResultStatus.CONFIRMED:
            raise Conflict(_("Only a confirmed result can be reopened."), current=result)
        if version is not None and version != result.version:
            raise Conflict(
                _("The result changed meanwhile (version %(stored)s, you had %(sent)s).")
                % {"stored": result.version, "sent": version},
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
    from races.results import result_problems

    require_organiser(actor, table.event.championship)
    with transaction.atomic():
        table = RaceTable.objects.select_for_update().get(pk=table.pk)
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
                _("The result changed meanwhile (version %(stored)s, you had %(sent)s).")
                % {"stored": result.version, "sent": version},
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
        if games.table_game(table.event.game) is not None:  # the game's own sheet
            from races.game_services import game_sheet_complete

            complete = game_sheet_complete(table, record.game_data or {})
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
