"""The API's shapes of a qualifying run (the API contract, ``API.md``, "Qualifying"): what a
client sends (validated by the desk's ``RunForm``, so the API and the pages refuse the same
things with the same sentences) and what it gets back. Used by ``qualifying.api.router``."""

from __future__ import annotations

import datetime
from typing import Any, Literal

from django.utils.translation import gettext as _
from ninja import Schema
from pydantic import Field, SkipValidation, StrictBool

from qualifying.forms import RunForm, StopwatchField
from qualifying.models import Run
from qualifying.referee.words import rank_moves_text
from tournament.apikit import (
    CURRENT_SERIALIZERS,
    DriverNumber,
    DriverOut,
    Int,
    driver_out,
    invalid_fields,
)
from tournament.models import Event

TyresName = Literal["hard", "soft", "rain"]

RUN_FIELDS = (
    "tyres",
    "throws",
    "placement_errors",
    "exit_squares",
    "stopwatch",
    "confirm_short",
    "eliminated",
    "performed_at",
    "reason",
)


def form_errors(form: Any) -> dict[str, list[str]]:
    return {field: [str(m) for m in messages] for field, messages in form.errors.items()}


# The types below document the contract; RunForm does the validation (SkipValidation), so
# that a typo is refused with the very sentence the referee's page shows.
class RunFields(Schema):
    tyres: SkipValidation[TyresName]
    throws: SkipValidation[int | None] = Field(None, description="Optional when eliminated.")
    placement_errors: SkipValidation[int] = 0
    exit_squares: SkipValidation[int] = 0
    stopwatch: SkipValidation[str | None] = Field(
        None, description="m:ss, m:ss.cc or 1'45\"20; optional when eliminated."
    )
    confirm_short: StrictBool = Field(
        False,
        description="The stopwatch is below the event's plausible floor (min_stopwatch) and "
        "is right: without it such a run is a 400 showing both readings.",
    )
    eliminated: StrictBool = False
    performed_at: SkipValidation[datetime.datetime | None] = Field(
        None, description="When the lap was run (ISO); orders the runs. Default: now."
    )
    reason: SkipValidation[str | None] = Field(
        None,
        description="Why race control changes a run once the race tables exist (required then).",
    )


class RunIn(RunFields):
    driver: DriverNumber


class RunPatchIn(Schema):
    version: Int
    tyres: SkipValidation[TyresName | None] = None
    throws: SkipValidation[int | None] = None
    placement_errors: SkipValidation[int | None] = None
    exit_squares: SkipValidation[int | None] = None
    stopwatch: SkipValidation[str | None] = None
    confirm_short: StrictBool = False
    eliminated: StrictBool | None = None
    performed_at: SkipValidation[datetime.datetime | None] = None
    reason: SkipValidation[str | None] = None


class CancelIn(Schema):
    reason: str


class BreakdownOut(Schema):
    throws: int
    placement: int
    corner_exits: int
    minutes: int
    sanction: int = Field(0, description="Throws added by an organisers' sanction (§1-2-3).")


class RankChangeOut(Schema):
    driver: DriverOut
    before: int | None
    after: int


class RunOut(Schema):
    driver: DriverOut
    session: int
    version: int
    tyres: TyresName
    throws: int | None
    placement_errors: int
    exit_squares: int
    stopwatch: str | None
    eliminated: bool
    absolute_time: int | None
    breakdown: BreakdownOut | None
    performed_at: datetime.datetime
    cancelled: bool
    cancel_reason: str
    reason: str = Field(description="Why race control changed it after the allocation.")
    warning: str | None = Field(
        None,
        description="Once the race tables exist: the general classification moved after the "
        "grids were built (rank_changes says whose).",
    )
    rank_changes: list[RankChangeOut] | None = Field(
        None, description="Once the race tables exist: the drivers whose general rank moved."
    )


def breakdown_out(breakdown: Any) -> dict[str, int] | None:
    if breakdown is None:
        return None
    return {
        "throws": breakdown.throws,
        "placement": breakdown.placement,
        "corner_exits": breakdown.corner_exits,
        "minutes": breakdown.minutes,
        "sanction": breakdown.sanction,
    }


def run_out(run: Run) -> dict[str, Any]:
    breakdown = run.breakdown()
    return {
        "driver": driver_out(run.driver),
        "session": run.session.number,
        "version": run.version,
        "tyres": run.tyres,
        "throws": run.throws,
        "placement_errors": run.placement_errors,
        "exit_squares": run.exit_squares,
        "stopwatch": run.stopwatch,
        "eliminated": run.eliminated,
        "absolute_time": breakdown.total if breakdown else None,
        "breakdown": breakdown_out(breakdown),
        "performed_at": run.performed_at,
        "cancelled": run.cancelled,
        "cancel_reason": run.cancel_reason,
        "reason": run.reason,
        "warning": rank_moves_text(run.rank_moves) if run.rank_moves else None,
        "rank_changes": None
        if run.rank_moves is None
        else [
            {"driver": driver_out(m.driver), "before": m.before or None, "after": m.after}
            for m in run.rank_moves
        ],
    }


CURRENT_SERIALIZERS[Run] = run_out


def clean_run(
    data: dict[str, Any], *, event: Event, stored_cs: int | None = None
) -> dict[str, Any]:
    """RunForm's cleaned data, or a 400 naming every field RunForm refused (a stopwatch under
    the event's floor: the detail gives both readings)."""
    stopwatch = data.get("stopwatch")
    if stopwatch is not None and not isinstance(stopwatch, str):
        # RunForm reads a bare integer as centiseconds (its own callers' shortcut); a JSON
        # client must write the time as text like on paper.
        raise invalid_fields({"stopwatch": [str(StopwatchField.default_error_messages["invalid"])]})
    reason = data.get("reason")
    if reason is not None and not isinstance(reason, str):
        raise invalid_fields({"reason": [_("Write the reason as text, in quotes.")]})
    form = RunForm(data=data, min_stopwatch_cs=event.min_stopwatch_cs, stored_cs=stored_cs)
    if not form.is_valid():
        short = [
            e for e in form.errors.as_data().get("stopwatch", []) if e.code in ("short", "long")
        ]
        error = invalid_fields(form_errors(form))
        if short and len(form.errors) == 1:
            error.message = str(short[0].message)
        raise error
    cleaned = dict(form.cleaned_data)
    performed_at = cleaned.get("performed_at")
    if performed_at is not None and not 1900 <= performed_at.year <= 9000:
        # Far dates overflow when converted to UTC on save.
        raise invalid_fields({"performed_at": [_("Enter a valid date/time.")]})
    return cleaned


def stored_values(run: Run) -> dict[str, Any]:
    """A run's values as a client would send them, for merging a partial correction."""
    return {
        "tyres": run.tyres,
        "throws": run.throws,
        "placement_errors": run.placement_errors,
        "exit_squares": run.exit_squares,
        "stopwatch": run.stopwatch,
        "eliminated": run.eliminated,
        "performed_at": run.performed_at.isoformat(),
    }
