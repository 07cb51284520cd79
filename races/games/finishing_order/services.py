"""The finishing-order game's writes: its tables and grids (``races.variants``' allocation
hook), its result saved through ``PUT .../tables/{t}/result`` in the Formula Dé shape, and
its places for the championship's scale. The rules live in ``rules.py``."""

from __future__ import annotations

import secrets
from collections.abc import Collection, Hashable, Mapping, Sequence
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from races.games.finishing_order import rules
from races.grid.allocation import Allocation, RankedDriver
from races.grid.state import mark_started
from races.models import RaceResult, RaceTable, ResultStatus
from races.results.points import DayLine, table_lines
from races.results.services import result_locked_for_save
from tournament.access import Actor
from tournament.errors import InvalidInput, NotAllowed
from tournament.models import Driver, Event
from tournament.players import odds

#: A secure random source for the grids drawn (API.md: "a secure random order per table").
DRAW = secrets.SystemRandom()


def allocation(
    *, event: Event, drivers: Sequence[RankedDriver], size: int
) -> tuple[int, Allocation]:
    """Tables by rating in the game's family, then entry order (``drivers`` come by
    registration order); each grid drawn or by rating, as the event says."""
    numbers = [d.driver for d in sorted(drivers, key=lambda d: d.rank)]
    players = dict(
        Driver.objects.filter(championship=event.championship, number__in=numbers).values_list(
            "number", "player_id"
        )
    )
    ratings = odds.ratings_of(players.values(), event.family)
    seats = [
        rules.Seat(number, ratings.get(players.get(number)), entry)  # type: ignore[arg-type]
        for entry, number in enumerate(numbers)
    ]
    grids = [rules.grid(table, event.grid, DRAW) for table in rules.tables(seats, size)]
    return size, Allocation(tables=grids, swaps=[], conflicts=[])


def _messages(
    problems: Sequence[rules.Problem], names: Mapping[Hashable, str]
) -> dict[str, list[str]]:
    texts = {
        "duplicate": _("%(driver)s is written more than once."),
        "unknown_driver": _("%(driver)s is not on this table's grid."),
        "missing": _("%(driver)s is missing: every driver of the grid needs a line."),
        "bad_cause": _("%(driver)s: a retirement's cause is “other”, its words in the note."),
        "bad_lap": _("%(driver)s: the lap is a whole number from 1 to the race's laps."),
        "lap_order": _(
            "%(driver)s: retirements are listed in the order they happened, so their laps "
            "never go down; an earlier retirement is on a later lap."
        ),
    }
    errors: dict[str, list[str]] = {}
    for problem in problems:
        who = names.get(problem.driver, str(problem.driver))
        errors.setdefault(str(problem.driver), []).append(texts[problem.kind] % {"driver": who})
    return errors


def result_save(
    *,
    actor: Actor,
    table: RaceTable,
    version: int,
    finish: list[int],
    retired: list[dict[str, Any]],
    dns: list[int],
    submit: bool,
) -> RaceResult:
    """Save the crossing order the referee wrote; ``submit`` hands it to race control.
    The race floor's workflow: refused once confirmed or when ``version`` is stale."""
    if not actor.can_referee(table):
        raise NotAllowed(_("Only this table's referee or an organiser may enter its result."))
    with transaction.atomic():
        table, result = result_locked_for_save(table=table, version=version)
        grid = {s.driver.number: s.driver.name for s in table.slots.select_related("driver")}
        problems = rules.problems(
            grid=list(grid),
            finish=finish,
            retired=retired,
            dns=dns,
            laps=table.event.laps,
            complete=submit,
        )
        if problems:
            errors = _messages(problems, {n: f"{n} {name}" for n, name in grid.items()})
            raise InvalidInput(next(iter(errors.values()))[0], errors)
        result = result or RaceResult(table=table, version=0)
        result.finish = list(finish)
        result.retired = [
            {
                "driver": r.get("driver"),
                "cause": rules.CAUSE,
                "lap": r.get("lap"),
                "note": str(r.get("note") or ""),
            }
            for r in retired
        ]
        result.dns = list(dns)
        result.game_data = {}
        result.version += 1
        result.submitted_at = timezone.now() if submit else None
        actor.stamp(result).save()
        table.result_status = ResultStatus.SUBMITTED if submit else ResultStatus.DRAFT
        actor.stamp(table).save(update_fields=["result_status"])
        mark_started(actor, table)  # a table starts at its first result save
    return result


def sheet_complete(table: RaceTable, data: Mapping[str, Any]) -> bool:
    """A stored sheet names every grid driver once."""
    grid = list(table.slots.values_list("driver__number", flat=True))
    return not rules.problems(
        grid=grid,
        finish=data.get("finish") or [],
        retired=data.get("retired") or [],
        dns=data.get("dns") or [],
        laps=table.event.laps,
        complete=True,
    )


def game_table_lines(
    table: RaceTable,
    result: RaceResult,
    *,
    first_rank: int,
    disqualified: Collection[Hashable] = (),
) -> list[DayLine]:
    """The table's places and points: the championship's scale and mode, finishers only
    (the race floor's ``Placed`` in the finishing-order game's order). The disqualified
    (§1-2-3) are taken out before scoring, as in Formula Dé: the places behind move up
    and score their new places; they follow with status ``dsq``."""
    championship = table.event.championship
    return table_lines(
        rules.placed(result.finish, result.retired, result.dns, disqualified=disqualified),
        table=table.number,
        first_rank=first_rank,
        scale=championship.points_scale,
        mode=championship.points_mode,  # type: ignore[arg-type]
    )
