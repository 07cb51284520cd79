"""A run's history told in words a referee reads: every value of a recorded run, what a
correction changed (no internal columns: version, record times), who did it in the page's
language, and whose general rank moved after the race tables were built."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.utils import formats, timezone
from django.utils.translation import gettext as _

from qualifying import scoring
from qualifying.closure import RankMove
from qualifying.models import QualifyingSession, QualifyingTable, Run, Tyres
from qualifying.selectors import run_history
from tournament.access import label_in_language

#: Columns a person never needs to see change: bookkeeping of the record itself.
INTERNAL = frozenset({"id", "version", "recorded_at", "session", "driver", "cancelled"})
#: The values of a run, in the order of the sheet.
SHOWN = ("tyres", "throws", "placement_errors", "exit_squares", "stopwatch_cs", "eliminated")


def value_words(name: str, value: Any) -> str:
    """One stored value of a run as a person reads it."""
    if value is None or value == "":
        return "—"
    if name == "stopwatch_cs":
        return scoring.format_stopwatch(value)
    if name == "tyres":
        return str(Tyres(value).label) if value in Tyres.values else str(value)
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, datetime):
        return formats.date_format(timezone.localtime(value), "SHORT_DATETIME_FORMAT")
    return str(value)


def label_of(name: str) -> str:
    if name == "stopwatch_cs":
        return _("stopwatch")
    return str(Run._meta.get_field(name).verbose_name)


def run_values(record: Any) -> str:
    """Every value of a run, stopwatch included: "tyres Soft, throws 18, …"."""
    if record.eliminated:
        parts = [_("eliminated")]
        parts += [
            f"{label_of(name)} {value_words(name, getattr(record, name))}"
            for name in ("tyres", "throws", "stopwatch_cs")
            if getattr(record, name) is not None
        ]
        return ", ".join(parts)
    return ", ".join(
        f"{label_of(name)} {value_words(name, getattr(record, name))}" for name in SHOWN
    )


def changed_values(record: Any, previous: Any) -> list[str]:
    """ "throws: 18 → 19" for each value a correction changed (the reason is told apart)."""
    lines = []
    for change in record.diff_against(previous).changes:
        name = change.field
        if name in INTERNAL or name in ("reason", "cancel_reason"):
            continue
        lines.append(
            f"{label_of(name)}: {value_words(name, change.old)} → {value_words(name, change.new)}"
        )
    return lines


@dataclass
class HistoryLine:
    when: datetime
    who: str
    what: str
    details: list[str] = field(default_factory=list)
    reason: str = ""


def history_lines(
    table: QualifyingTable, session: QualifyingSession, driver: Any
) -> list[HistoryLine]:
    """The driver's runs in ``session``, newest first, each version told in words."""
    records = list(reversed(run_history(session=session, driver=driver)))
    previous: dict[int, Any] = {}
    lines = []
    for record in records:
        before = previous.get(record.id)
        previous[record.id] = record
        who = label_in_language(
            record.history_actor
            or (record.history_user.get_username() if record.history_user else ""),
            [table],
        )
        reason = record.reason
        if record.history_type == "+" or before is None:
            what, details = _("recorded the run"), [run_values(record)]
        elif record.history_type == "-":
            what, details = _("deleted the run"), []
        elif record.cancelled and not before.cancelled:
            what, details, reason = _("cancelled the run for a redo"), [], record.cancel_reason
        else:
            what, details = _("corrected the run"), changed_values(record, before)
            if not details and not reason:
                continue  # saved without a change: nothing to tell
        lines.append(HistoryLine(record.history_date, who or _("unknown"), what, details, reason))
    lines.reverse()
    return lines


def rank_moves_text(moves: Sequence[RankMove]) -> str:
    """The warning race control reads after changing a run once the race tables exist."""
    moved = "; ".join(
        _("%(driver)s: rank %(before)s → %(after)s")
        % {
            "driver": f"{move.driver.number} {move.driver.name}",
            "before": move.before or "—",
            "after": move.after,
        }
        for move in moves
    )
    return _(
        "The general classification moved after the race tables were built (%(moved)s). "
        "The grids still follow the former one: run the allocation again while no result is "
        "in, or swap drivers by hand."
    ) % {"moved": moved}
