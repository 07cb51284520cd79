"""Writes for race day: allocation and swaps, referee links and the batch of printed
sheets. The race weather and the table draws are in ``races.weather.services``; stands,
configurations and a table's start in ``races.grid.start``.

The rules themselves live in the pure modules ``races.grid.allocation`` (and, for the quick
rules' draw, ``qualifying.scoring``); here we check who acts, validate, save, and record.
"""

from __future__ import annotations

import logging
from typing import Any

from django.db import transaction
from django.db.models import F, Q
from django.utils.translation import gettext as _
from simple_history.utils import bulk_create_with_history

from qualifying.models import QualifyingTable
from qualifying.selectors import draw_pending_ties, general_classification
from races import variants
from races.grid import allocation as allocation_rules
from races.grid.state import (
    checked_reason,
    delete_recorded,
    require_tables_not_started,
    start_weather,
)
from races.models import (
    AllocationRecord,
    CarConfiguration,
    GridSlot,
    ManualSwap,
    RaceTable,
    RaceWeather,
    ReplacedLink,
    ResultStatus,
    SheetBatch,
    WeatherDraw,
)
from races.sheets.tasks import build_sheet_batch
from tournament.access import Actor
from tournament.errors import Conflict, InvalidInput
from tournament.models import Driver, Event
from tournament.players import odds
from tournament.registration.services import require_desk, require_organiser
from tournament.sealing import new_link_secret

logger = logging.getLogger(__name__)


def allocation_run(*, actor: Actor, event: Event, table_size: int | None = None) -> list[RaceTable]:
    """Allocate the drivers to race tables by general classification (§1-3-2, §1-3-3).

    In the quick rules' draw with ``seed_by_rating`` (a club's choice), the tables are
    seeded by the players' ratings and each grid follows the d20
    (``allocation.allocate_by_rating``).

    Re-running is allowed until the first result and while no table has started; it
    clears stands, configurations and table weather draws. Existing tables keep their
    referee and link. In the quick rules' draw, refused while d20 ties wait for their
    re-roll (DOMAIN.md "What the day enforces").
    """
    require_organiser(actor, event.championship)
    size = event.table_size if table_size is None else table_size
    if not 2 <= size <= 20:
        raise InvalidInput(_("A table seats 2 to 20 drivers."), {"table_size": [_("2 to 20.")]})
    if event.qualifying_mode == Event.QualifyingMode.DRAW:
        _require_draw_settled(event)
    lines: list[Any] = general_classification(event=event)
    lines = variants.start_lines(event, lines)  # a rally: stage 1's start order
    checked = set(event.entries.filter(checked_in=True).values_list("driver_id", flat=True))
    if checked:  # only the drivers present when the event uses check-in
        lines = [line for line in lines if line.driver.pk in checked]
    absent = set(event.entries.filter(absent=True).values_list("driver_id", flat=True))
    lines = [line for line in lines if line.driver.pk not in absent]
    if not lines:
        raise InvalidInput(_("Register drivers for the event first."))
    ranked = [
        allocation_rules.RankedDriver(
            driver=line.driver.number, rank=line.rank, team=line.driver.team_id
        )
        for line in lines
    ]
    special = variants.special_allocation(event, ranked, size)  # a game's own tables
    if special is not None:
        size, result = special
    elif event.is_quick_rules and event.seed_by_rating:  # a club's choice, not the rule
        players = {line.driver.number: line.driver.player_id for line in lines}
        ratings = odds.ratings_of(players.values(), odds.family_of(event))
        result = allocation_rules.allocate_by_rating(
            ranked,
            {n: ratings[p] for n, p in players.items() if p in ratings},
            default=odds.DEFAULT_RATING,
            capacity=size,
            separate_teams=event.separate_teams,
        )
    else:
        result = allocation_rules.allocate(
            ranked, capacity=size, separate_teams=event.separate_teams
        )
    drivers = {line.driver.number: line.driver for line in lines}
    ranks = {line.driver.number: line.rank for line in lines}
    moved = {swap.moved_down for swap in result.swaps} | {swap.moved_up for swap in result.swaps}
    with transaction.atomic():
        require_tables_not_started(event)
        race = RaceWeather.objects.filter(event=event).first()
        # Children first, each deletion recorded with who: table weather draws, car
        # configurations, grid places, then the tables the new allocation no longer uses.
        delete_recorded(actor, WeatherDraw.objects.filter(table__event=event))
        delete_recorded(actor, CarConfiguration.objects.filter(slot__event=event))
        delete_recorded(actor, GridSlot.objects.filter(event=event))
        delete_recorded(actor, RaceTable.objects.filter(event=event, number__gt=len(result.tables)))
        tables = []
        for index, numbers in enumerate(result.tables, start=1):
            table, _created = RaceTable.objects.get_or_create(event=event, number=index)
            start_weather(table, race, event)
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


def tables_started(event: Event) -> list[int]:
    """The race tables of ``event`` that started, in number order: a weather drawn at the
    table, a stand chosen, a car configured, a result (a draft, a photo of its sheet) or a
    start recorded. While this is empty the tables may be undone (DOMAIN.md "Every game's
    evening")."""
    return sorted(
        set(
            RaceTable.objects.filter(event=event)
            .filter(
                Q(weather_draws__undone_at__isnull=True, weather_draws__isnull=False)
                | Q(slots__stand__isnull=False)
                | Q(slots__configuration__isnull=False)
                | Q(result__isnull=False)
                | Q(photos__isnull=False)
                | Q(started_at__isnull=False)
                | ~Q(result_status=ResultStatus.EMPTY)
            )
            .values_list("number", flat=True)
        )
    )


def allocation_undo(*, actor: Actor, event: Event) -> int:
    """Undo the race tables of ``event`` (organisers): their grids, their links and the
    allocation's record, each deletion recorded with who. Refused (409, naming them) once a
    table started (:func:`tables_started`): after that the tables stay. Answers how many
    tables were undone."""
    require_organiser(actor, event.championship)
    with transaction.atomic():
        Event.objects.select_for_update().filter(pk=event.pk).first()
        started = tables_started(event)
        if started:
            raise Conflict(
                _(
                    "Table(s) %(tables)s started (a weather, a stand, a configuration or a "
                    "result): the tables stay."
                )
                % {"tables": ", ".join(str(n) for n in started)},
                {"tables": [str(n) for n in started]},
            )
        count = RaceTable.objects.filter(event=event).count()
        delete_recorded(actor, WeatherDraw.objects.filter(table__event=event))
        delete_recorded(actor, GridSlot.objects.filter(event=event))
        delete_recorded(actor, RaceTable.objects.filter(event=event))
        AllocationRecord.objects.filter(event=event).delete()
        SheetBatch.objects.filter(event=event, kind="race").delete()
    return count


def _require_draw_settled(event: Event) -> None:
    """The quick rules' grid exists only once every entered driver has a d20 and every tie
    is re-rolled (point 2: « selon le lancer d'un dé 20 »): never in number order."""
    if event.is_quick_rules and not event.draw_rolls.exists():  # type: ignore[attr-defined]
        raise Conflict(
            _(
                "No d20 is rolled yet: the quick rules' grid comes from the d20 draw (the "
                "lowest roll takes pole). Make the draw first."
            ),
            {"draw": [_("Make the d20 draw first.")]},
        )
    groups = draw_pending_ties(event=event)
    if not groups:
        return
    names = "; ".join(", ".join(f"{d.number} {d.name}" for d in group) for group in groups)
    raise Conflict(
        _(
            "The d20 draw is not finished: %(groups)s still need a roll or a re-roll to "
            "break their tie. Record their dice first; the grid comes from them."
        )
        % {"groups": names},
        {"draw": [names]},
    )


def _renumber(table: RaceTable, actor: Actor) -> None:
    """Keep a grid sorted by qualifying rank after a swap (positions 1..n)."""
    slots = list(table.slots.order_by("rank", "driver__number"))
    # Out of the way first, so the unique (table, position) never sees two equal positions.
    table.slots.update(position=F("position") + 1000)
    for position, slot in enumerate(slots, start=1):
        slot.position = position
        actor.stamp(slot).save(update_fields=["position"])


def _teammates_at(table: RaceTable, driver: Driver, leaving: Driver) -> list[Driver]:
    if driver.team_id is None:
        return []
    return [
        slot.driver
        for slot in table.slots.select_related("driver").order_by("position")
        if slot.driver.team_id == driver.team_id and slot.driver.pk != leaving.pk
    ]


def swap_clashes(*, event: Event, a: int, b: int) -> list[tuple[Driver, Driver, int]]:
    """The team-mate clashes a swap of drivers ``a`` and ``b`` would create when the event
    keeps team-mates apart (§1-3-3): ``(driver, team-mate, table)`` for each."""
    if not event.separate_teams:
        return []
    slots = {
        s.driver.number: s
        for s in GridSlot.objects.filter(event=event, driver__number__in=[a, b]).select_related(
            "driver", "table"
        )
    }
    if len(slots) != 2 or slots[a].table_id == slots[b].table_id:
        return []
    clashes = []
    for mover, other in ((slots[a], slots[b]), (slots[b], slots[a])):
        for mate in _teammates_at(other.table, mover.driver, other.driver):
            clashes.append((mover.driver, mate, other.table.number))
    return clashes


def swap_drivers(*, actor: Actor, event: Event, a: int, b: int, reason: str = "") -> ManualSwap:
    """Exchange two drivers' tables by hand (recorded: who, when, why).

    The record comes back with ``clashes``: the team-mate clashes the swap created (see
    :func:`swap_clashes`), for the organiser to be told at once.
    """
    require_organiser(actor, event.championship)
    if a == b:
        raise InvalidInput(_("Choose two different drivers."))
    # DOMAIN.md: swaps need a reason (recorded with who and when).
    reason = checked_reason(
        reason,
        required=True,
        message=_("Say why these two drivers swap tables: the reason is kept with the swap."),
    )
    with transaction.atomic():
        require_tables_not_started(event)
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
        clashes = swap_clashes(event=event, a=a, b=b)
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
        # Stands follow the grid (§4-0-1): a driver who arrives chooses in their grid place,
        # so the drivers behind them choose again too.
        for arrived in (slot_a, slot_b):
            arrived.refresh_from_db(fields=["position"])
            behind = GridSlot.objects.filter(
                table=arrived.table, position__gt=arrived.position, stand__isnull=False
            )
            for slot in behind.order_by("position"):
                slot.stand = None
                actor.stamp(slot).save(update_fields=["stand"])
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
    record.clashes = clashes  # type: ignore[attr-defined]
    return record


def referee_link_regenerate(*, actor: Actor, table: RaceTable | QualifyingTable) -> Any:
    """Give a table a new referee link; the old one then says it was replaced."""
    require_organiser(actor, table.event.championship)
    with transaction.atomic():
        # Locked, and its link read again: two renewals at once would both replace the same
        # old link (unique among the replaced ones: the second answered 500, issue 20).
        locked = type(table).objects.select_for_update(no_key=True).get(pk=table.pk)
        kind = "race" if isinstance(table, RaceTable) else "qualifying"
        ReplacedLink.objects.create(
            digest=locked.token_digest, kind=kind, table_id=table.pk, actor=actor.label
        )
        table.token = new_link_secret()
        actor.stamp(table).save(update_fields=["token_digest", "token_sealed"])
    return table


def sheet_batch_request(
    *, actor: Actor, event: Event, kind: str, language: str, inline: bool = False
) -> SheetBatch:
    """Queue the build of all of an event's sheets in one PDF (replacing the last one).

    ``inline`` builds it within the request (the organiser's choice when no worker runs);
    an unreachable queue builds it inline too, so that a request is never lost. The batch
    comes back with ``ran_inline`` and ``queue_unreachable`` saying which happened. The
    desk may (the day's sheets).
    """
    require_desk(actor, event.championship)
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
