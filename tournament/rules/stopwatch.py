"""The stopwatch's reading: what a referee types, read as centiseconds, and written back
(§1-1-13 for whole minutes). No database here: the event's form, its model and the
qualifying floor read a time the same way.

Exception messages are plain English on purpose: callers translate them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


def _check_count(name: str, value: int) -> None:
    # bool is an int subclass; a stray True would silently count as 1.
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if value < 0:
        raise ValueError(f"{name} must not be negative, got {value}")


class StopwatchError(ValueError):
    """A stopwatch reading that cannot be understood."""


# Phones autocorrect ' and " into typographic marks: right single quote, prime,
# right/left double quote, double prime.
_MINUTE_MARK = "(?::|'|\u2019|\u2032)"
_SECOND_MARK = "(?:\"|''|\u2019\u2019|\u2032\u2032|\u201d|\u201c|\u2033)"
_STOPWATCH_RE = re.compile(
    rf"""
    (?:(?P<minutes>[0-9]+){_MINUTE_MARK})?
    (?P<seconds>[0-9]{{1,2}})
    (?:
        [.,](?P<decimals>[0-9]{{1,2}})          # a dot or comma needs digits after it
      | {_SECOND_MARK}(?P<quoted>[0-9]{{1,2}})? # 1'45" alone is a whole second
    )?
    """,
    re.VERBOSE,
)


# Three groups, minutes seconds hundredths, as a phone's number pad or a hurried hand
# writes them: 1.48.20, 1,48,20, 1 48 20 (a decimal pad has no colon). Two groups split by
# a space are minutes and seconds (1 48); two split by a dot or comma stay seconds (1.48 =
# 1.48 s: see ``short_reading``).
_GROUPS_RE = re.compile(
    r"(?P<minutes>[0-9]+)\s*[.,\s]\s*(?P<seconds>[0-9]{2})\s*[.,\s]\s*(?P<decimals>[0-9]{1,2})"
    r"|(?P<m2>[0-9]+)\s+(?P<s2>[0-9]{2})"
)


def parse_stopwatch(text: str) -> int:
    """Return the centiseconds of a stopwatch reading typed by a referee.

    Accepted: ``m:ss``, ``m:ss.cc``, ``m:ss.c`` (tenths), ``m:ss,cc`` (French comma),
    ``1'45"20``, ``1'45``, ``1'45''20`` (two apostrophes as typed on phones), three groups
    ``1.45.20``, ``1,45,20`` or ``1 45 20`` (a number pad has no colon), ``1 45``, and
    ``ss.cc`` / ``45`` without minutes (seconds below 60). Surrounding spaces are
    ignored. Anything else raises :class:`StopwatchError`.
    """
    if not isinstance(text, str):
        raise StopwatchError(f"stopwatch time must be text, got {text!r}")
    cleaned = text.strip()
    match = _STOPWATCH_RE.fullmatch(cleaned)
    if match is None:
        return _parse_groups(text, cleaned)
    minutes_text = match["minutes"]
    seconds_text = match["seconds"]
    # "1:5" is more likely a typo for 1:50 or 1:05 than either; refuse to guess.
    if minutes_text is not None and len(seconds_text) != 2:
        raise StopwatchError(f"seconds need two digits after the minutes: {text!r}")
    seconds = int(seconds_text)
    if seconds > 59:
        raise StopwatchError(f"seconds must be between 0 and 59: {text!r}")
    minutes = int(minutes_text) if minutes_text is not None else 0
    decimals = match["decimals"] or match["quoted"] or ""
    # One decimal digit is tenths, as a stopwatch shows it: 1:45.2 = 1:45.20.
    hundredths = int(decimals.ljust(2, "0")) if decimals else 0
    return (minutes * 60 + seconds) * 100 + hundredths


def _parse_groups(text: str, cleaned: str) -> int:
    match = _GROUPS_RE.fullmatch(cleaned)
    if match is None:
        raise StopwatchError(f"unreadable stopwatch time: {text!r}")
    minutes = int(match["minutes"] or match["m2"])
    seconds = int(match["seconds"] or match["s2"])
    if seconds > 59:
        raise StopwatchError(f"seconds must be between 0 and 59: {text!r}")
    decimals = match["decimals"] or ""
    hundredths = int(decimals.ljust(2, "0")) if decimals else 0
    return (minutes * 60 + seconds) * 100 + hundredths


#: The event's plausible floor when it sets none (DOMAIN.md, "What the day enforces").
DEFAULT_MIN_STOPWATCH_CS = 20 * 100
#: The plausible ceiling (DOMAIN.md: default 5:00): above it each full minute adds a throw.
DEFAULT_MAX_STOPWATCH_CS = 5 * 60 * 100

# "1,48" or "1.48": seconds and hundredths by the letter, minutes and seconds by habit.
_MINUTES_HABIT_RE = re.compile(r"(?P<minutes>[0-9]{1,2})[.,](?P<seconds>[0-5][0-9])")


@dataclass(frozen=True)
class ShortReading:
    """A stopwatch reading below the event's plausible floor: what was read, and what
    the referee more likely meant (None when no other reading is at hand)."""

    read_cs: int
    meant_cs: int | None


def short_reading(text: str, *, floor_cs: int) -> ShortReading | None:
    """None when ``text`` reads at or above ``floor_cs``; else both readings.

    A qualifying lap takes minutes of dice and gear changes (§1-0-1, §1-1-13), so a time
    under the floor is almost always a typing habit: "1,48" read as 1.48 s was 1:48. The
    text is read first as :func:`parse_stopwatch` reads it (raises the same errors).
    """
    read = parse_stopwatch(text)
    if read >= floor_cs:
        return None
    habit = _MINUTES_HABIT_RE.fullmatch(text.strip())
    meant = None
    if habit is not None:
        meant = (int(habit["minutes"]) * 60 + int(habit["seconds"])) * 100
        if meant < floor_cs:
            meant = None
    return ShortReading(read_cs=read, meant_cs=meant)


def stopwatch_parts(centiseconds: int) -> tuple[int, int, int]:
    """``(minutes, seconds, hundredths)``: what a reading says, for echoing it in words."""
    _check_count("stopwatch time", centiseconds)
    minutes, rest = divmod(centiseconds, 6000)
    seconds, hundredths = divmod(rest, 100)
    return minutes, seconds, hundredths


def format_stopwatch(centiseconds: int) -> str:
    """Return ``m:ss.cc`` (minutes not padded, never wrapped into hours)."""
    _check_count("stopwatch time", centiseconds)
    minutes, rest = divmod(centiseconds, 6000)
    seconds, hundredths = divmod(rest, 100)
    return f"{minutes}:{seconds:02d}.{hundredths:02d}"


def full_minutes(centiseconds: int) -> int:
    """Whole minutes elapsed (§1-1-13: "chaque minute pleine")."""
    _check_count("stopwatch time", centiseconds)
    return centiseconds // 6000
