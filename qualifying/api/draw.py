"""JSON API v1, Qualifying: the quick rules' d20 draw for the grid (the API contract, ``API.md``,
mode ``draw``). Mounted by ``paddock.api`` beside ``qualifying.api.router``, under the same
operation ids."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from django.http import HttpRequest
from django.utils.translation import gettext as _
from ninja import Router, Schema
from pydantic import BeforeValidator, Field

from qualifying import services
from qualifying.models import DrawRoll
from tournament.apikit import (
    ERRORS,
    DriverOut,
    actor_of,
    driver_out,
    get_event,
    require_token,
)
from tournament.errors import InvalidInput

router = Router(tags=["Qualifying"])

Roll = Annotated[int, Field(strict=True, ge=1, le=20)]


def _one_roll_as_list(value: Any) -> Any:
    return value if isinstance(value, list) else [value]


#: ``roll`` or ``[roll, re-roll, ...]``, always a list once validated (no union: a union's
#: member names would leak into the error's field name).
Rolls = Annotated[
    list[Roll],
    BeforeValidator(_one_roll_as_list, json_schema_input_type=Roll | list[Roll]),
]


# ---------------------------------------------------------------------------
# Quick rules: the d20 draw
# ---------------------------------------------------------------------------


class DrawIn(Schema):
    rolls: dict[str, Rolls] | None = Field(
        None,
        description='{"<number>": roll or [roll, re-roll, ...]}; drivers left out are '
        "rolled by the system.",
    )
    reason: Annotated[str, Field(max_length=200)] = Field(
        "",
        description="Required for any roll once the race tables exist, a rewritten one or "
        "the system's roll of a driver without one (organisers only; the answer's warning "
        "says what it changed).",
    )


class DrawLineOut(Schema):
    rank: int
    driver: DriverOut
    rolls: list[int]
    source: Literal["physical", "system"] | None


class DrawOut(Schema):
    order: list[DrawLineOut]
    pending_ties: list[list[DriverOut]]
    warning: str | None = Field(
        None,
        description="Set when a roll after the race tables were built changed something: "
        "grids that no longer follow the draw, a driver on no grid.",
    )


def _draw_rolls(payload: DrawIn | None) -> dict[int, list[int]]:
    rolls: dict[int, list[int]] = {}
    bad: list[str] = []
    for key, value in ((payload.rolls if payload else None) or {}).items():
        if not (key.strip().isascii() and key.strip().isdigit()) or len(key.strip()) > 9:
            bad.append(key)
            continue
        rolls[int(key)] = list(value)
    if bad:
        raise InvalidInput(
            _("Rolls are given by driver number: %(keys)s.") % {"keys": ", ".join(bad)},
            {"rolls": [_("“%(value)s” is not a driver number.") % {"value": k} for k in bad]},
        )
    return rolls


@router.post("/events/{event}/draw", response={200: DrawOut, **ERRORS})
def draw(request: HttpRequest, event: str, payload: DrawIn | None = None) -> dict[str, Any]:
    """Quick rules §2: record physical rolls, roll the rest; lowest roll takes pole.

    Once the race tables exist, any roll (physical, or the system's for a driver without
    one) is a 409 unless an organiser gives a ``reason``; the answer's ``warning`` then says
    what it changed (grids that no longer follow the draw, a driver on no grid)."""
    actor = actor_of(request)
    require_token(actor)
    found = get_event(event)
    rolls = _draw_rolls(payload)
    outcome = services.draw_record(
        actor=actor, event=found, rolls=rolls, reason=payload.reason if payload else ""
    )
    records = {
        r.driver.number: r
        for r in DrawRoll.objects.filter(event=found).select_related(
            "driver", "driver__team", "driver__player"
        )
    }
    drivers = {number: record.driver for number, record in records.items()}
    missing = [n for n in outcome.order if n not in drivers]
    if missing:  # physical drivers who have not rolled yet have no record
        for entry in found.entries.filter(driver__number__in=missing).select_related(
            "driver", "driver__team", "driver__player"
        ):
            drivers[entry.driver.number] = entry.driver
    return {
        "order": [
            {
                "rank": rank,
                "driver": driver_out(drivers[number]),
                "rolls": list(outcome.rolls.get(number, ())),
                "source": records[number].source if number in records else None,
            }
            for rank, number in enumerate(outcome.order, start=1)
        ],
        "pending_ties": [[driver_out(drivers[n]) for n in group] for group in outcome.pending_ties],
        "warning": outcome.warning,
    }
