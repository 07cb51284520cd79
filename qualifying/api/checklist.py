"""JSON API v1: where an event's day stands (``GET /api/v1/events/{event}/checklist``,
API.md "Every game's evening"): the steps its game declares, in the day's order, each done
or not, with what it counts. Mounted by ``paddock.api`` under the qualifying ids."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.utils.translation import gettext as _
from ninja import Router, Schema
from pydantic import Field

from qualifying.desk import checklist
from tournament.apikit import ERRORS, actor_of, get_event, require_token
from tournament.errors import NotAllowed

router = Router(tags=["Qualifying"])


class StepOut(Schema):
    step: str = Field(
        description="entries, checkin, qualifying_tables, sessions, runs, "
        "qualifying_published, draw, tables, sheets, race_weather, results, published, or "
        "the game's own (stages, snow)."
    )
    done: bool
    count: int | None = Field(None, description="How many are done (drivers, tables, runs…).")
    total: int | None = Field(None, description="Out of how many, when the step has a total.")


@router.get("/events/{event}/checklist", response={200: list[StepOut], **ERRORS}, exclude_none=True)
def event_checklist(request: HttpRequest, event: str) -> list[dict[str, Any]]:
    """The steps of the event's game only (optional acts, such as messages to registrants,
    are not steps), in the day's order: organisers and the desk."""
    actor = actor_of(request)
    require_token(actor)
    found = get_event(event)
    if not actor.can_desk(found.championship):
        raise NotAllowed(_("Only the organisers and the desk of this championship may do this."))
    return checklist(event=found)
