"""Shared ranks for the other games' classifications: no database here.

Every game ranks by a key where a smaller key is better; equal keys share the rank and
use up the places they cover (1, 2, 2, 4), like the championship standings.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import TypeVar

T = TypeVar("T")


def shared_ranks(items: Sequence[T], key: Callable[[T], Hashable]) -> list[tuple[int, T]]:
    """``items`` sorted by ``key`` (stable), each with its 1-based rank; equal keys share it."""
    ordered = sorted(items, key=key)  # type: ignore[arg-type]
    ranked: list[tuple[int, T]] = []
    for index, item in enumerate(ordered):
        if index and key(item) == key(ordered[index - 1]):
            ranked.append((ranked[-1][0], item))
        else:
            ranked.append((index + 1, item))
    return ranked


def scale_points(scale: Sequence[int], rank: int) -> int:
    """Points of ``rank`` on a championship scale; ranks beyond it score 0.

    A shared rank is the better of the places it covers, so it takes the better points.
    """
    return scale[rank - 1] if 1 <= rank <= len(scale) else 0


def is_int(value: object) -> bool:
    # bool is an int subclass; a ticked box must not count as 1.
    return isinstance(value, int) and not isinstance(value, bool)
