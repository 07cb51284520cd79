"""Sanctions the organisers decide (§1-2-3): what each kind needs and what it does. No
database here.

§1-2-3 of ``rules/formule-de-competition-rules.fr.txt``: "Si le pilote ne respecte pas
l'injonction d'un commissaire, l'organisateur décidera des conséquences à donner." The
text leaves the consequences to the organisers; DOMAIN.md lists the ones Paddock records:

- ``warning``: written down, nothing else changes;
- ``throws``: ``value`` throws added to the driver's run of one qualifying ``session``
  (its absolute time grows by as many throws, §1-1-10);
- ``points``: ``value`` championship points removed (DOMAIN.md, "What the day
  enforces"): the event's line shows what it kept (never below 0 for the event:
  :func:`races.results.points.points_after_sanction`), while the championship
  total loses the whole value after best-K (:func:`championship_total`), even where the
  event scored fewer points or none; the total may go below zero;
- ``disqualified``: classed last of the event, 0 points, shown as such.

Each has a reason. A withdrawn sanction no longer applies (and stays in the history).
Problems are structured values; callers translate them.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import Literal, get_args

Kind = Literal["warning", "throws", "points", "disqualified"]
KINDS: tuple[str, ...] = get_args(Kind)
MAX_VALUE = 999  # throws or points: more is a typing slip, not a sanction
REASON_MAX = 200

ProblemKind = Literal[
    "bad_kind",
    "value_required",
    "value_not_allowed",
    "session_required",
    "session_not_allowed",
    "reason_required",
    "reason_too_long",
]


@dataclass(frozen=True)
class SanctionProblem:
    field: Literal["kind", "value", "session", "reason"]
    kind: ProblemKind


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def sanction_problems(
    *, kind: str, value: object, session: object, reason: str
) -> list[SanctionProblem]:
    """Every problem of a sanction as the organisers write it; empty when it can be recorded.

    ``throws`` and ``points`` need a whole ``value`` of 1 to :data:`MAX_VALUE`; the others
    take none. ``throws`` needs the qualifying ``session`` whose run it changes; the others
    take none. Every sanction needs a reason (200 characters at most).
    """
    problems: list[SanctionProblem] = []
    if kind not in KINDS:
        problems.append(SanctionProblem("kind", "bad_kind"))
    elif kind in ("throws", "points"):
        if not (_is_int(value) and 1 <= value <= MAX_VALUE):  # type: ignore[operator]
            problems.append(SanctionProblem("value", "value_required"))
    elif value not in (None, 0):
        problems.append(SanctionProblem("value", "value_not_allowed"))
    if kind == "throws" and not (_is_int(session) and session >= 1):  # type: ignore[operator]
        problems.append(SanctionProblem("session", "session_required"))
    elif kind != "throws" and session is not None:
        problems.append(SanctionProblem("session", "session_not_allowed"))
    text = (reason or "").strip()
    if not text:
        problems.append(SanctionProblem("reason", "reason_required"))
    elif len(text) > REASON_MAX:
        problems.append(SanctionProblem("reason", "reason_too_long"))
    return problems


@dataclass(frozen=True)
class Sanction:
    """A sanction in force (withdrawn ones are left out by the caller)."""

    driver: Hashable
    kind: Kind
    value: int | None = None
    session: int | None = None


def throws_added(sanctions: Iterable[Sanction]) -> dict[tuple[Hashable, int], int]:
    """Throws added to each (driver, session) run, summed over the sanctions in force."""
    added: dict[tuple[Hashable, int], int] = {}
    for sanction in sanctions:
        if sanction.kind == "throws" and sanction.session is not None:
            key = (sanction.driver, sanction.session)
            added[key] = added.get(key, 0) + (sanction.value or 0)
    return added


def points_removed(sanctions: Iterable[Sanction]) -> dict[Hashable, int]:
    """Championship points removed from each driver for the event, summed."""
    removed: dict[Hashable, int] = {}
    for sanction in sanctions:
        if sanction.kind == "points":
            removed[sanction.driver] = removed.get(sanction.driver, 0) + (sanction.value or 0)
    return removed


def disqualified(sanctions: Iterable[Sanction]) -> set[Hashable]:
    """The drivers disqualified from the event."""
    return {s.driver for s in sanctions if s.kind == "disqualified"}


def championship_total(counted: Iterable[int], removed: int) -> int:
    """A driver's championship total once points sanctions apply (§1-2-3; DOMAIN.md, "What
    the day enforces": "Points removed come off the championship total after best-K").

    ``counted`` are the points the counted results scored (best-K chosen on those, so a
    penalty cannot be dropped as a worst result); ``removed`` is every point removed by a
    sanction in force, taken off in full even where the event scored fewer points (a
    sanction on a 0-point result still costs its points). The total may go below zero.
    """
    if not _is_int(removed) or removed < 0:
        raise ValueError(f"points removed must be a whole number from 0, got {removed!r}")
    return sum(counted) - removed
