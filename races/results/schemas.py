"""The shapes of a table's result in the API (floor 3): the common body and answer that
every game's result extends (``races.variants``: a game adds its own fields), kept apart from
the router so that a game's package reads them while Django starts."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from ninja import Schema
from pydantic import BaseModel, Field, SkipValidation, StrictBool

from races.grid.api import RetirementCauseName
from tournament.apikit import INT32_MAX, DriverNumber

ResultStatusName = Literal["empty", "draft", "submitted", "confirmed"]
#: A stored version as a client sends it back: 0 for a table with nothing entered yet.
Version = Annotated[int, Field(strict=True, ge=0, le=INT32_MAX)]


class RetirementIn(BaseModel):
    # A BaseModel, not a ninja Schema: a Schema reads the attributes of anything, so a
    # bare 7 would be "driver missing, cause missing" instead of "send an object".
    driver: DriverNumber
    # The service judges cause and lap so that its refusal names the driver (the types
    # document the contract; a wrong value is a 400 "7 Gaëlle Roux: unknown retirement cause.").
    cause: SkipValidation[RetirementCauseName] = Field(
        description="off_track, blocked, body, engine, road_holding or other (with a note)."
    )
    lap: SkipValidation[int | None] = Field(
        None, description="The lap it happened in, 1 to the race's laps; may wait in a draft."
    )
    note: Annotated[str, Field(max_length=200)] | None = Field(
        None, description="Required with the cause “other” (disqualification, withdrawal…)."
    )

    def as_service_input(self) -> dict[str, Any]:
        return {"driver": self.driver, "cause": self.cause, "lap": self.lap, "note": self.note}


# The body every game shares (no docstring: it would describe the API's ``ResultIn``,
# which adds each game's own fields).
class ResultInBase(Schema):
    version: Version = Field(description="The version you read (0 for an empty table).")
    finish: list[DriverNumber] = Field(
        default_factory=list, description="Drivers in the order they crossed the line."
    )
    retired: list[RetirementIn] = Field(
        default_factory=list, description="Retirements in the order they happened."
    )
    dns: list[DriverNumber] = Field(default_factory=list, description="Drivers who did not start.")
    submit: StrictBool = Field(
        False, description="true: hand the result to race control (every grid driver once)."
    )
    notes: dict[str, Annotated[str, Field(max_length=200)]] | None = Field(
        None,
        description="Finishers' notes by driver number (e.g. an engine broken on the last "
        "lap, kept as a finisher under §16-0-6).",
    )


class VersionIn(Schema):
    version: Version | None = Field(None, description="The version you read; 409 if stale.")


class ReopenIn(VersionIn):
    reason: Annotated[str, Field(max_length=200)]


class RetirementOut(Schema):
    driver: int
    cause: str
    lap: int | None
    note: str


class ResultOut(Schema):
    version: int
    status: ResultStatusName
    finish: list[int]
    retired: list[RetirementOut]
    dns: list[int]
    notes: dict[str, str] = Field(default_factory=dict, description="Finishers' notes.")
