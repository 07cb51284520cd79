"""Rallyman: stage times, scratches, re-classifications and start orders. No database here.

Article numbers refer to ``rules/rallyman-rules.fr.txt``. A rally has special stages (ES,
3 by default, ART.2). Per driver and stage the race director writes the chrono of the
speed cards as ``mm:ss`` (ART.11; minutes may exceed 59) and the seconds tokens still held,
which are subtracted ("Temps de la pile chrono - Nombre de secondes = Temps final réalisé
dans l'ES", Règlement+ ART.14–15); or that the driver retired.

- Stage scratch: by stage time; the best time wins the stage (ART.11).
- Re-classification after stage k: by the sum of stage times 1..k (ART.4-2: ES3 starts in
  the ES1+ES2 order); the final scratch after the last stage (ART.2: the winner took the
  least time over the stages).
- Start order (ART.4-2): stage 1 set by the organisers (or drawn); stage k+1 in the
  order of the classification after stage k, a tie keeping the previous start order.
- Intermediate time points (Règlement+, "points de prise de temps intermédiaires"): at
  each point a driver calls out their speed-card pile so far; optional, ``mm:ss`` each,
  in the order of the points, so never decreasing and never above the stage's chrono.
- Product choices (DOMAIN.md): equal times share the rank; a retired driver is classified
  after every driver still running (those who went further first) and does not start
  later stages.
- Snow (Règlement+, "Définition des conditions climatiques"): before each stage the race
  director "lance autant de dés que de ZONES constituant la spéciale"; each zone whose
  die shows the snow symbol is snowy, for every game (the rally runs the same stages).
  A zone is one of the four boards C, J, L, V (ART.2: "en combinant 1, 2, 3 ou 4 ZONES
  (C, J, L, V)"; "Le dos des ZONES est enneigé": a snowy zone is turned over whole); a
  route writes the junctions it passes (C8, C3…), so a stage's zones are the letters of
  its junctions, each once, in the order the route first enters them: "C8 C3-J6-J5-C4
  C5" is zones C and J, "L0 L1-C7-C6-L2-L3-V2-V3-C5 C4" zones L, C and V (never more
  than four). DOMAIN.md: a second draw for a stage needs a reason, and none once its
  times are entered.
  Tyres ("Choix des pneus"): each driver chooses asphalt or snow tyres "au départ de la
  première ES et au départ des ES précédées d'une assistance"; otherwise "les pilotes
  conservent les pneus de la spéciale précédente".

Problems are structured values and exception messages plain English: callers translate.
"""

from __future__ import annotations

import random
import re
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from races.games._ranking import is_int, shared_ranks

TABLE_SIZE = 4  # "Up to 4 drivers per game" (ART.4-3: start procedure for 1 to 4 pilots)
STAGES = 3  # ART.2: "Le rallye va se courir en 3 étapes chronométrées"

_CHRONO = re.compile(r"^\s*(\d{1,3})\s*[:'’]\s*(\d{2})\s*\"?\s*$")
_ROUTE_ZONE = re.compile(r"^[CJLV]\d{1,2}$", re.IGNORECASE)

ProblemKind = Literal[
    "unknown_driver",
    "not_starting",
    "chrono_required",
    "bad_chrono",
    "bad_seconds",
    "seconds_exceed_chrono",
    "bad_split",
    "splits_order",
    "missing",
    "bad_tyres",
    "tyres_kept",
]
Tyres = Literal["asphalt", "snow"]
TYRES: tuple[str, ...] = ("asphalt", "snow")
#: Product choice (the text is silent on the dice's faces): a system snow draw rolls a
#: six-sided die per zone, the snow symbol on one face.
SNOW_FACES = 6


class ChronoError(ValueError):
    """Not a ``mm:ss`` chrono."""


def parse_chrono(text: str) -> int:
    """Seconds of a ``mm:ss`` chrono ("07:40" → 460, "75:10" → 4510); minutes may exceed 59."""
    match = _CHRONO.match(text or "")
    if match is None:
        raise ChronoError(f"not a mm:ss chrono: {text!r}")
    minutes, seconds = int(match.group(1)), int(match.group(2))
    if seconds > 59:
        raise ChronoError(f"seconds above 59: {text!r}")
    return minutes * 60 + seconds


def format_chrono(seconds: int | None) -> str:
    """``mm:ss`` of a number of seconds (at least two digits of minutes); "" for None."""
    if seconds is None:
        return ""
    sign = "-" if seconds < 0 else ""
    minutes, rest = divmod(abs(seconds), 60)
    return f"{sign}{minutes:02d}:{rest:02d}"


def route_labels(route: str) -> list[str]:
    """The junctions of a route as written on the sheet ("C8 C3-J6-J5-C4 C5" → 6 labels)."""
    return [part for part in re.split(r"[\s\-/]+", route.strip()) if part]


def route_zones(route: str) -> list[str]:
    """The ZONES a route crosses (ART.2: boards C, J, L, V), each once, in the order the
    route first enters them: "C8 C3-J6-J5-C4 C5" → ["C", "J"]. A junction label is a point
    of its zone, not a zone; labels that are not a zone's (see :func:`route_problems`)
    count for none."""
    zones: list[str] = []
    for label in route_labels(route):
        if _ROUTE_ZONE.match(label) and label[0].upper() not in zones:
            zones.append(label[0].upper())
    return zones


def route_problems(route: str) -> list[str]:
    """The parts of a route that are not zones C, J, L or V with a number (ART.2)."""
    labels = route_labels(route)
    if not labels:
        return [""]
    return [label for label in labels if not _ROUTE_ZONE.match(label)]


def parse_splits(values: object) -> list[int]:
    """Seconds of each intermediate time (``["02:10", "04:05"]``), blanks skipped.

    Raises :class:`ChronoError` for a value that is not a ``mm:ss`` chrono, and for
    anything but a list (or None, no split).
    """
    if values is None:
        return []
    if not isinstance(values, list | tuple):
        raise ChronoError(f"not a list of mm:ss chronos: {values!r}")
    return [parse_chrono(str(value)) for value in values if str(value).strip()]


@dataclass(frozen=True)
class StageEntry:
    """What the race director writes for one driver on one stage."""

    driver: Hashable
    chrono: int | None = None  # seconds of the speed cards
    seconds_held: int = 0
    retired: bool = False
    splits: tuple[int, ...] = ()  # pile at each intermediate point, seconds

    @property
    def time(self) -> int | None:
        """Stage time: chrono minus the seconds tokens held; None when retired."""
        if self.retired or self.chrono is None:
            return None
        return self.chrono - self.seconds_held


@dataclass(frozen=True)
class Problem:
    kind: ProblemKind
    driver: Hashable
    value: object = None


def entry_problems(
    entries: Mapping[Hashable, Mapping[str, object]],
    *,
    starters: Sequence[Hashable],
    complete: bool = False,
    tyre_choice: bool = True,
    tyres_before: Mapping[Hashable, str | None] | None = None,
) -> list[Problem]:
    """Every problem of the times written for a stage, each naming the driver.

    ``entries`` maps a driver to ``{chrono: "mm:ss", seconds_held, retired, splits,
    tyres}`` (``splits`` optional: a list of ``mm:ss``; ``tyres`` optional: asphalt or
    snow); ``starters`` are the drivers who start this stage (not retired before).
    ``complete`` asks for a line for every starter. Without a ``tyre_choice`` at this
    stage (:func:`tyre_choice_open`), a driver keeps ``tyres_before`` (Règlement+).
    """
    allowed = set(starters)
    found: list[Problem] = []
    for driver, entry in entries.items():
        if driver not in allowed:
            found.append(Problem("not_starting", driver))
            continue
        tyres = entry.get("tyres")
        if tyres not in (None, ""):
            before = (tyres_before or {}).get(driver)
            if tyres not in TYRES:
                found.append(Problem("bad_tyres", driver, tyres))
            elif not tyre_choice and before and tyres != before:
                found.append(Problem("tyres_kept", driver, before))
        splits: list[int] | None = None
        try:
            splits = parse_splits(entry.get("splits"))
        except ChronoError:
            bad = entry.get("splits")
            if isinstance(bad, list | tuple):
                bad = next((v for v in bad if not _is_chrono(v)), bad)
            found.append(Problem("bad_split", driver, bad))
        else:
            if any(b < a for a, b in zip(splits, splits[1:], strict=False)):
                found.append(Problem("splits_order", driver))
                splits = None
        held = entry.get("seconds_held", 0)
        if held is None:
            held = 0
        if not is_int(held) or held < 0:  # type: ignore[operator]
            found.append(Problem("bad_seconds", driver, held))
            held = None
        if entry.get("retired"):
            continue
        chrono = entry.get("chrono")
        if chrono in (None, ""):
            found.append(Problem("chrono_required", driver))
            continue
        try:
            seconds = parse_chrono(str(chrono))
        except ChronoError:
            found.append(Problem("bad_chrono", driver, chrono))
            continue
        if held is not None and held > seconds:  # type: ignore[operator]
            found.append(Problem("seconds_exceed_chrono", driver, held))
        if splits and splits[-1] > seconds:
            found.append(Problem("splits_order", driver))
    if complete:
        found.extend(Problem("missing", driver) for driver in starters if driver not in entries)
    return found


def _is_chrono(value: object) -> bool:
    try:
        parse_chrono(str(value))
    except ChronoError:
        return not str(value).strip()  # a blank split is skipped, not wrong
    return True


def entry_of(driver: Hashable, values: Mapping[str, object]) -> StageEntry:
    """A valid entry (see :func:`entry_problems`) as a :class:`StageEntry`."""
    retired = bool(values.get("retired"))
    chrono = values.get("chrono")
    return StageEntry(
        driver=driver,
        chrono=None if retired or chrono in (None, "") else parse_chrono(str(chrono)),
        seconds_held=int(values.get("seconds_held") or 0),  # type: ignore[call-overload]
        retired=retired,
        splits=tuple(parse_splits(values.get("splits"))),
    )


@dataclass(frozen=True)
class StageLine:
    rank: int
    driver: Hashable
    time: int | None
    retired: bool


def stage_scratch(entries: Sequence[StageEntry]) -> list[StageLine]:
    """A stage's scratch: by stage time, equal times sharing the rank; retired last."""

    def key(entry: StageEntry) -> tuple[int, int]:
        time = entry.time
        return (1, 0) if time is None else (0, time)

    return [
        StageLine(rank=rank, driver=e.driver, time=e.time, retired=e.time is None)
        for rank, e in shared_ranks(list(entries), key=key)
    ]


@dataclass(frozen=True)
class RallyLine:
    """A driver's line in the classification after some stages.

    ``stages`` holds each stage time (None from the stage the driver retired in);
    ``total`` the sum of the stage times driven; ``retired_in`` the stage they retired in.
    """

    rank: int
    driver: Hashable
    total: int
    stages: tuple[int | None, ...]
    retired_in: int | None


def rally_classification(
    stages: Sequence[Sequence[StageEntry]], *, drivers: Sequence[Hashable]
) -> list[RallyLine]:
    """Re-classification after ``len(stages)`` stages (the final scratch after the last).

    Drivers still running by total time (equal totals share the rank), then the retired:
    the later the retirement the better, then by total. ``drivers`` lists everyone who
    started the rally; a driver without a line in a stage (nor retired before) counts as
    not yet timed and is classified with the retired of that stage.
    """
    by_stage = [{entry.driver: entry for entry in stage} for stage in stages]
    lines: list[RallyLine] = []
    for driver in drivers:
        times: list[int | None] = []
        retired_in: int | None = None
        for number, stage in enumerate(by_stage, start=1):
            entry = stage.get(driver)
            time = entry.time if entry is not None else None
            if retired_in is None and time is None:
                retired_in = number
            times.append(None if retired_in is not None else time)
        total = sum(t for t in times if t is not None)
        lines.append(RallyLine(0, driver, total, tuple(times), retired_in))

    def key(line: RallyLine) -> tuple[int, int, int]:
        if line.retired_in is None:
            return (0, 0, line.total)
        return (1, -line.retired_in, line.total)

    return [
        RallyLine(rank, line.driver, line.total, line.stages, line.retired_in)
        for rank, line in shared_ranks(lines, key=key)
    ]


def next_start_order(
    previous: Sequence[Hashable], classification: Sequence[RallyLine]
) -> list[Hashable]:
    """The start order of the next stage (ART.4-2): by the classification so far, equal
    ranks keeping the previous start order; retired drivers do not start."""
    before = {driver: index for index, driver in enumerate(previous)}
    running = [line for line in classification if line.retired_in is None]
    running.sort(key=lambda line: (line.rank, before.get(line.driver, len(before))))
    return [line.driver for line in running]


def tyre_choice_open(stage: int, *, service_before: bool) -> bool:
    """True when drivers choose their tyres before ``stage`` (Règlement+, "Choix des
    pneus"): the first stage, and every stage preceded by a service park."""
    return stage == 1 or service_before


def snow_invalid(zones: int, snow: object) -> bool:
    """True when ``snow`` is not one yes/no per zone of the stage's route."""
    return (
        not isinstance(snow, list | tuple)
        or len(snow) != zones
        or any(not isinstance(value, bool) for value in snow)
    )


SnowRedrawRefusal = Literal["timed", "reason_required"]


def snow_redraw_refusal(*, drawn: bool, timed: bool, reason: str) -> SnowRedrawRefusal | None:
    """Why a stage's snow may not be drawn now, None when it may (DOMAIN.md: "A second draw
    for a stage needs a reason, like the race weather").

    The race director draws the snow once, "avant que ne s'élançe le premier pilote": once
    a time of the stage is entered the stage was run on it and it never changes; before,
    a second draw (a die off the table, a wrong tick) needs a reason.
    """
    if timed:
        return "timed"
    if drawn and not (reason or "").strip():
        return "reason_required"
    return None


def snow_draw(zones: int, *, rng: random.Random | None = None) -> tuple[bool, ...]:
    """The race director's snow draw by the system: one die per zone (Règlement+), a zone
    snowy when its die shows the symbol (one face of :data:`SNOW_FACES`)."""
    roll = rng or random.SystemRandom()
    return tuple(roll.randint(1, SNOW_FACES) == 1 for _ in range(zones))


def draw_start_order(
    drivers: Sequence[Hashable], *, rng: random.Random | None = None
) -> list[Hashable]:
    """A drawn stage-1 start order (ART.4-2 leaves it to the organisers)."""
    order = list(drivers)
    (rng or random.SystemRandom()).shuffle(order)
    return order


def games(start_order: Sequence[Hashable], *, size: int = TABLE_SIZE) -> list[list[Hashable]]:
    """Games of up to ``size`` drivers formed from the start order, as even as possible."""
    if size < 1:
        raise ValueError("a game needs at least one driver")
    count = -(-len(start_order) // size)
    if count == 0:
        return []
    base, extra = divmod(len(start_order), count)
    result: list[list[Hashable]] = []
    index = 0
    for number in range(count):
        take = base + (1 if number < extra else 0)
        result.append(list(start_order[index : index + take]))
        index += take
    return result
