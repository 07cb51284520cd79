"""When qualifying closes, and what may still change it (DOMAIN.md, "What the day enforces").

Once an event's race tables exist they were built on the general classification: the
referees' links no longer change runs, race control may still correct one with a reason and
is told whose ranks moved. A stopwatch under the event's plausible floor needs confirming.
The writes themselves are ``qualifying.services``'.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _

from qualifying import scoring
from qualifying.selectors import general_classification
from tournament.access import Actor
from tournament.errors import Conflict, InvalidInput
from tournament.models import Driver, Event


def qualifying_closed(*, event: Event) -> bool:
    """True once the event's race tables exist: they were built on the classification
    (DOMAIN.md, "Qualifying is closed by the allocation")."""
    return event.race_tables.exists()  # type: ignore[attr-defined]


@dataclass(frozen=True)
class RankMove:
    """A driver whose general qualifying rank a correction changed."""

    driver: Driver
    before: int
    after: int


def check_open(actor: Actor, event: Event, reason: str) -> list[RankMove] | None:
    """Who may still change runs: anyone allowed while qualifying is open (None); once the
    race tables exist, race control alone, with a reason (an empty list to fill)."""
    if not qualifying_closed(event=event):
        return None
    if not actor.can_organise(event.championship):
        raise Conflict(
            _(
                "Qualifying is closed: the race tables were built on its classification. "
                "Ask race control to correct this run."
            )
        )
    if not reason.strip():
        raise InvalidInput(
            _(
                "The race tables were built on this classification: give a reason for "
                "changing a run now."
            ),
            {"reason": [_("Required once the race tables exist.")]},
        )
    return []


def ranks(event: Event) -> dict[int, tuple[int, Driver]]:
    """Each driver's general rank, by number."""
    return {
        line.driver.number: (line.rank, line.driver) for line in general_classification(event=event)
    }


def rank_moves(before: dict[int, tuple[int, Driver]], event: Event) -> list[RankMove]:
    """The drivers whose rank is no longer the one in ``before`` (``ranks`` taken before the
    change), in their new order."""
    after = ranks(event)
    return [
        RankMove(driver=driver, before=before[number][0] if number in before else 0, after=rank)
        for number, (rank, driver) in sorted(after.items(), key=lambda item: item[1][0])
        if number not in before or before[number][0] != rank
    ]


def check_stopwatch(event: Event, data: Mapping[str, Any], stored_cs: int | None) -> None:
    """Below the event's plausible floor or above the ceiling (5:00), a stopwatch needs
    ``confirm_short`` (RunForm words
    it with the text typed; this is the same rule for any other caller)."""
    stopwatch = data.get("stopwatch")
    if (
        data.get("eliminated")
        or stopwatch is None
        or stopwatch == stored_cs
        or data.get("confirm_short")
    ):
        return
    if stopwatch > scoring.DEFAULT_MAX_STOPWATCH_CS:
        message = _(
            "%(read)s is above the plausible ceiling (%(ceiling)s): each full minute adds a "
            "throw. Correct it, or confirm the long time."
        ) % {
            "read": scoring.format_stopwatch(stopwatch),
            "ceiling": scoring.format_stopwatch(scoring.DEFAULT_MAX_STOPWATCH_CS),
        }
        raise InvalidInput(message, {"stopwatch": [message]})
    if stopwatch >= event.min_stopwatch_cs:
        return
    message = _(
        "%(read)s is under this event's plausible floor (%(floor)s): correct it, or confirm "
        "the short time."
    ) % {"read": scoring.format_stopwatch(stopwatch), "floor": event.min_stopwatch}
    raise InvalidInput(message, {"stopwatch": [message]})
