"""Writes and reads of the table sheet that Cannes–Monaco and Racetrack share: a referee's
sheet at a table, in the game's own fields, scored by the game's pure rules.

The rules live in the pure modules of ``races.games``; here we check who acts, validate,
save and record, reusing the race-result workflow of ``races.grid.services`` (draft →
submitted → confirmed, versions, history) for the table games.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection, Hashable, Mapping, Sequence
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from races.games import table_game
from races.games.cannes_monaco import rules as cannes_monaco
from races.games.racetrack import rules as racetrack
from races.games.table_sheet.pdf import TableGameData, TableGameSheet
from races.grid.allocation import Allocation, RankedDriver, allocate
from races.models import (
    RaceResult,
    RaceTable,
    ResultStatus,
)
from races.results.points import DayLine, disqualified_after
from races.results.services import result_locked_for_save
from tournament.access import Actor
from tournament.errors import InvalidInput, NotAllowed
from tournament.models import Event

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
        "place_required": _(
            "%(driver)s was still running when the race stopped at the winner: write their "
            "place (1 = the closest to the line)."
        ),
        "crossed_twice": _("%(driver)s is written twice in the crossing order."),
        "too_many_running": _(
            "%(driver)s is still running, with %(value)s cars in all: the race runs until "
            "the second-to-last car crosses the line, so at most one car is still running. "
            "Mark the others finished or eliminated."
        ),
        "survivor_must_cross": _(
            "%(driver)s is the last car in the race: it wins only once it completes its lap. "
            "Did it cross the line? If so, tick “Finished” and write its game turns; if not, "
            "tick “Eliminated”."
        ),
    }
    fields = {
        "turns": _("turns"),
        "margin": _("margin"),
        "crashes": _("crashes"),
        "place": _("place"),
    }
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
        return cannes_monaco.problems(
            data.get("squares", {}), data.get("crossed", []), grid=grid, complete=complete
        )
    return racetrack.problems(
        data.get("runs", {}),
        grid=grid,
        crash_limit=event.crash_limit,
        collisions=event.collisions,
        end=event.race_end,  # type: ignore[arg-type]
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
                # Racetrack stopped at the winner: the referee's place of a running car.
                **({"place": v["place"]} if v.get("place") is not None else {}),
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

    Same workflow as :func:`races.results.services.result_save`: refused once confirmed or when
    ``version`` is stale (409 with the stored result); a draft may be incomplete.
    """
    event = table.event
    if table_game(event.game) is None:
        raise InvalidInput(_("This event's game has no table sheet of this kind."))
    if not actor.can_referee(table):
        raise NotAllowed(_("Only this table's referee or an organiser may enter its result."))
    with transaction.atomic():
        table, result = result_locked_for_save(table=table, version=version)
        grid = _grid(table)
        if event.game == Event.Game.CANNES_MONACO and not cannes_monaco.table_size_ok(len(grid)):
            raise InvalidInput(
                _(
                    "A Cannes–Monaco race is for %(min)s to %(max)s drivers and this table "
                    "has %(count)s: run the allocation again."
                )
                % {
                    "min": cannes_monaco.MIN_DRIVERS,
                    "max": cannes_monaco.MAX_DRIVERS,
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


def game_classification(
    table: RaceTable, result: RaceResult, *, first_rank: int = 1, grid: Sequence[int]
) -> list[Any]:
    """The table classification of a complete sheet, by the game's own module, of the
    drivers of ``grid`` (the table's, the disqualified taken out); Racetrack scores by the
    day rank (from ``first_rank``) in the championship's ``overall`` mode."""
    event = table.event
    data = _as_numbers(event, result.game_data or {})
    if event.game == "cannes_monaco":
        crossed = [n for n in data["crossed"] if n in grid]
        cars = cannes_monaco.cars(data["squares"], crossed, grid=grid)
        return cannes_monaco.classification(cars)
    runs = [racetrack.run_of(n, data["runs"].get(n, {})) for n in grid]
    return racetrack.classification(
        runs,
        scale=event.championship.points_scale,
        end=event.race_end,  # type: ignore[arg-type]
        mode=event.championship.points_mode,  # type: ignore[arg-type]
        first_rank=first_rank,
    )


def game_table_lines(
    table: RaceTable,
    result: RaceResult,
    *,
    first_rank: int,
    disqualified: Collection[int] = (),
) -> list[DayLine]:
    """The table's lines for ``ResultLine`` at confirmation: the game's places and points.

    ``position`` is 1..n (the database keeps it unique; ties in grid order), ``rank`` the
    day rank where a shared place stays shared. The disqualified (§1-2-3) are taken out
    before the game classifies and scores the table; they follow with status ``dsq``.
    """
    grid = list(_grid(table))
    kept = [n for n in grid if n not in disqualified]
    lines = [
        DayLine(
            driver=line.driver,
            table=table.number,
            position=line.position,
            rank=first_rank + line.place - 1,
            status=line.status,
            cause=None,
            lap=None,
            points=line.points,
            place=line.place,
        )
        for line in game_classification(table, result, first_rank=first_rank, grid=kept)
    ]
    return disqualified_after(lines, [n for n in grid if n in disqualified], table=table.number)


def game_fields(table: RaceTable, result: RaceResult | None) -> dict[str, Any]:
    """The game's fields of a table result for the API (nothing for Formula Dé)."""
    game = table.event.game
    if game not in GAME_FIELDS:
        return {}
    stored = (result.game_data if result else None) or {}
    if game == "cannes_monaco":
        crossed = list(stored.get("crossed") or [])
        return {
            "squares": dict(stored.get("squares") or {}),
            "crossed": crossed,
            "winner": crossed[0] if crossed else None,
        }
    return {"runs": dict(stored.get("runs") or {})}


def cannes_monaco_allocation(
    *, event: Event, drivers: Sequence[RankedDriver], size: int
) -> tuple[int, Allocation]:
    """Cannes–Monaco tables: races of 3 to 6 drivers ("pour 3 à 6 pilotes"); refused below 3."""
    try:
        size = cannes_monaco.table_capacity(len(drivers), size)
    except ValueError as exc:
        raise InvalidInput(
            _(
                "A Cannes–Monaco race needs at least %(min)s drivers: %(count)s in all "
                "for this event."
            )
            % {"min": cannes_monaco.MIN_DRIVERS, "count": len(drivers)}
        ) from exc
    return size, allocate(drivers, capacity=size, separate_teams=event.separate_teams)


# ---------------------------------------------------------------------------
# Printed sheets: plain data for races.game_pdf
# ---------------------------------------------------------------------------


def sheets_pdf(
    *,
    event: Event,
    tables: Sequence[RaceTable] | None = None,
    language: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    referee_link: bool = True,  # the sheet prints no referee link
) -> bytes:
    """The sheets of ``event``'s tables (or of ``tables``) in one PDF (the race floor's
    ``Variant.sheets``): the batch, a table's API sheet and its referee's link print it."""
    if tables is None:
        tables = list(event.race_tables.order_by("number"))
    data = [table_sheet_data(table=table) for table in tables]
    if language in ("fr", "en"):
        data = [dataclasses.replace(d, language=language) for d in data]
    if progress is not None:
        progress(0, len(data))
    return TableGameSheet().render_many(data, progress=progress)


def table_sheet_data(*, table: RaceTable) -> Any:
    """A Cannes–Monaco or Racetrack table's sheet data."""
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
        race_end=event.race_end,
        language=event.language if event.language in ("fr", "en") else "fr",
    )
