"""The registry of games (ground floor, no database): what the core knows of a game.

Formula Dé, the main game (its qualifying, race and sheets are the apps themselves), is
registered here. Every other game is one package under ``races/games/`` and registers a
:class:`GameSpec` when Django starts (``races/games/apps.py``); the core then asks this
registry, never a game by its name: the values of ``Event.game`` (``game_choices``, a
callable that migrations keep as a reference), the settings the event form and the API
show, whether the game needs a circuit, the name of an event's game and its ratings family,
the answer of ``GET /api/v1/games``. The race floor's own hooks (allocation, scoring, the
result's shape) are registered beside it in ``races.variants``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal, get_args

from django.utils.text import slugify
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from tournament.errors import NotInThisGame

#: The main game: ``Event.game``'s default, the one game the core may name.
MAIN_GAME = "formula_de"
#: What a game's table result is (``GET /api/v1/games``).
ResultKind = Literal["finish", "squares", "runs", "stages"]
#: A named game's grid (``Event.grid``): a secure random draw per table, or by rating.
GRIDS = [("draw", _("A random draw at each table")), ("rating", _("By rating, best first"))]
#: The longest ratings family (a slug of the organiser's name for a named game).
FAMILY_MAX = 50
#: The day of a game that only seats its tables and takes their results (DOMAIN.md "Every
#: game's evening"): sign-up, check-in, tables, sheets, results, publication.
BASIC_DAY: tuple[str, ...] = ("entries", "checkin", "tables", "sheets", "results", "published")
#: Formula Dé's qualifying (§1): its tables, sessions, runs and published classification.
QUALIFYING_STEPS: tuple[str, ...] = (
    "qualifying_tables",
    "sessions",
    "runs",
    "qualifying_published",
)
#: What a game may do at a race table beside its result: not steps of the checklist, but
#: routes a game without them refuses (``409 not_in_this_game``).
TABLE_ACTS: tuple[str, ...] = ("stands", "configurations")


@dataclass(frozen=True)
class GameSpec:
    """A game as the core sees it. ``settings`` are the event's fields (their API names) the
    game reads beside every event's (name, date, circuit, table size, language)."""

    key: str
    name: Any  # a lazy translation: shown in the user's language
    result: ResultKind
    settings: tuple[str, ...] = ()
    #: The words that name this game in code and texts: no module outside its package may
    #: use them (``tests/games/test_registry.py``). The key is always one.
    words: tuple[str, ...] = ()
    #: Whether an event of this game is run on one of the catalogue's circuits.
    circuit: bool = True
    #: The organiser names the game (``Event.game_name``): each name is its own family of
    #: ratings and careers, and the name is shown wherever the game's is.
    named: bool = False
    #: A setting of another game sent for an event of this one is a 400 naming it.
    strict_settings: bool = False
    #: The game's own refusals of an event's settings: ``{field: [message, ...]}``.
    clean: Callable[[Any], Mapping[str, list[str]]] | None = None
    #: The game's own pages of an event, linked from its desk: ``(URL name taking the
    #: event's slug, label)``, its main page first.
    desk_pages: tuple[tuple[str, Any], ...] = ()
    #: The game's day (DOMAIN.md "Every game's evening"): its steps in the day's order, by
    #: their API names (``GET .../checklist``) and its own (e.g. a rally's ``snow``).
    day: tuple[str, ...] = BASIC_DAY
    #: What the game does beside its steps (``stands``, ``configurations``, an optional
    #: step of some settings): a route of something neither in ``day`` nor here is a 409.
    acts: tuple[str, ...] = ()
    #: The steps of an event's day when its settings change them (Formula Dé's quick rules
    #: draw the grid instead of qualifying): ``event -> steps``, each one of ``day``.
    day_of: Callable[[Any], tuple[str, ...]] | None = None
    #: Whether the results are confirmed table by table (else stored for the whole event
    #: at once, as a rally classified across its stages).
    results_per_table: bool = True
    #: What the results page says of how a table is classified and scored (its words, a
    #: lazy translation), or nothing.
    result_note: Any = None

    def steps(self, event: Any = None) -> tuple[str, ...]:
        """The checklist's steps of ``event`` (of the game's day when none), in order."""
        if event is not None and self.day_of is not None:
            return self.day_of(event)
        return self.day

    def has(self, step: str) -> bool:
        """Whether the game has ``step`` at all (a step of its day or one of its acts)."""
        return step in self.day or step in self.acts

    def family(self, game_name: str = "") -> str:
        """The ratings family of an event of this game named ``game_name``."""
        return named_family(game_name) or self.key if self.named else self.key

    def label(self, game_name: str = "") -> str:
        """The game's name as pages show it: the organiser's for a named game."""
        return game_name if self.named and game_name else str(self.name)

    def event_errors(self, event: Any) -> dict[str, list[str]]:
        """What this game refuses in an event's settings (``Event.clean``), by field."""
        errors: dict[str, list[str]] = {}
        if self.circuit and not event.circuit_id:
            errors["circuit"] = [str(_("This field is required."))]
        for name, texts in (self.clean(event) if self.clean else {}).items():
            errors.setdefault(name, []).extend(texts)
        return errors

    def names_of(self) -> tuple[str, ...]:
        """Every word naming the game, in lowercase (its key first)."""
        return tuple(dict.fromkeys(w.lower() for w in (self.key, *self.words)))


def named_family(game_name: str) -> str:
    """The family of a game the organisers name: the slug of the name in any script
    (Unicode letters kept: "Хит" is ``хит``, "Ηeat Ελλάς" ``ηeat-ελλάς``); a slug longer
    than the field keeps its start and ends with a hash of the whole, so that two names
    differing after the cut stay two families. Empty when the name has no letter or digit."""
    slug = slugify(game_name, allow_unicode=True)
    if len(slug) <= FAMILY_MAX:
        return slug
    digest = hashlib.sha256(slug.encode()).hexdigest()[:10]
    return f"{slug[: FAMILY_MAX - len(digest) - 1].strip('-')}-{digest}"


_GAMES: dict[str, GameSpec] = {}


#: The floors above's checks of a game before it registers (its result rules).
_CHECKS: list[Callable[[GameSpec], str | None]] = []


def add_check(check: Callable[[GameSpec], str | None]) -> None:
    """A check every game passes to register: ``check(spec)`` answers why not, or None."""
    if check not in _CHECKS:
        _CHECKS.append(check)


def register(spec: GameSpec) -> None:
    """Add ``spec`` (once, at start-up); a second registration of a key replaces it.

    A game declares its result shape (``result``), and has result rules for it (the race
    floor's check): one that does not is refused with a ``ValueError`` saying what is
    missing, never given the main game's rules."""
    if spec.result not in get_args(ResultKind):
        raise ValueError(
            f"the game {spec.key!r} must declare its result shape (GameSpec.result): one of "
            f"{', '.join(get_args(ResultKind))}, not {spec.result!r}"
        )
    for check in _CHECKS:
        why = check(spec)
        if why:
            raise ValueError(why)
    _GAMES[spec.key] = spec


def unregister(key: str) -> None:
    """Forget a game (a test's toy game); the main game stays."""
    if key != MAIN_GAME:
        _GAMES.pop(key, None)


@contextmanager
def registered(spec: GameSpec) -> Iterator[GameSpec]:
    """``spec`` registered for the block (tests)."""
    before = _GAMES.get(spec.key)
    register(spec)
    try:
        yield spec
    finally:
        if before is None:
            unregister(spec.key)
        else:
            register(before)


def games() -> list[GameSpec]:
    """Every registered game, the main game first, then in the order they registered."""
    return list(_GAMES.values())


def game(key: str) -> GameSpec | None:
    return _GAMES.get(key)


def is_known(key: object) -> bool:
    return isinstance(key, str) and key in _GAMES


def game_choices() -> list[tuple[str, str]]:
    """``Event.game``'s choices, read when asked (a game registered later is one too)."""
    return [(spec.key, spec.name) for spec in _GAMES.values()]


def spec_of(key: str) -> GameSpec:
    """The game of ``key``; an unknown key (a removed game's rows) reads as the main game's
    rules so that its pages still open."""
    return _GAMES.get(key) or _GAMES[MAIN_GAME]


def all_settings() -> set[str]:
    return {name for spec in _GAMES.values() for name in spec.settings}


def foreign_settings(key: str, sent: set[str] | frozenset[str]) -> list[str]:
    """The settings in ``sent`` that belong to another game than ``key`` and not to it,
    where that is refused: the game is strict, or the setting is only a strict game's (an
    older game keeps accepting what it always accepted)."""
    own = spec_of(key)
    found = []
    for name in sorted(sent & all_settings()):
        if name in own.settings:
            continue
        owners = [s for s in _GAMES.values() if name in s.settings]
        if own.strict_settings or all(s.strict_settings for s in owners):
            found.append(name)
    return found


#: What each step is called in a refusal ("this game has no …").
STEP_NAMES: dict[str, Any] = {
    "qualifying_tables": _("qualifying tables"),
    "sessions": _("qualifying sessions"),
    "runs": _("qualifying runs"),
    "qualifying_published": _("qualifying classification"),
    "draw": _("d20 draw for the grid"),
    "race_weather": _("d20 race weather"),
    "stands": _("stands"),
    "configurations": _("car configurations"),
    "stages": _("special stages"),
    "snow": _("snow draw"),
}


def has_step(event: Any, step: str) -> bool:
    """Whether ``event``'s game has ``step`` (DOMAIN.md "Every game's evening")."""
    return spec_of(event.game).has(step)


def require_step(event: Any, step: str) -> None:
    """Refuse (409, ``not_in_this_game``) a step that ``event``'s game does not have."""
    if has_step(event, step):
        return
    raise NotInThisGame(
        gettext("%(game)s has no %(step)s: it is not a step of this game's day.")
        % {"game": event.game_label, "step": STEP_NAMES.get(step, step)}
    )


# --- Event.game's enumeration, read from the registry ---------------------------------------


class GameValue(str):
    """One game's key, with its ``label`` (as a ``TextChoices`` member has)."""

    __slots__ = ()

    @property
    def label(self) -> str:
        return str(spec_of(self).name)

    @property
    def value(self) -> str:
        return str(self)


class _Enumeration(type):
    """``Event.Game``: ``Event.Game.FORMULA_DE``, ``.values``, ``.choices``, ``.labels``,
    ``Event.Game("…").label``, iteration and ``in``, all from the registry."""

    def __getattr__(cls, name: str) -> GameValue:
        if name.isupper() and name.lower() in _GAMES:
            return GameValue(name.lower())
        raise AttributeError(name)

    def __call__(cls, value: object) -> GameValue:  # type: ignore[override]
        if not is_known(value):
            raise ValueError(f"{value!r} is not a registered game")
        return GameValue(value)

    def __iter__(cls) -> Iterator[GameValue]:
        return iter([GameValue(key) for key in _GAMES])

    def __contains__(cls, value: object) -> bool:
        return is_known(value)

    @property
    def values(cls) -> list[str]:
        return list(_GAMES)

    @property
    def labels(cls) -> list[str]:
        return [spec.name for spec in _GAMES.values()]

    @property
    def names(cls) -> list[str]:
        return [key.upper() for key in _GAMES]

    @property
    def choices(cls) -> list[tuple[str, str]]:
        return game_choices()


class GameEnumeration(metaclass=_Enumeration):
    """The registered games as an enumeration (``Event.Game``)."""


def main_game_day(event: Any) -> tuple[str, ...]:
    """Formula Dé's day: a competition qualifies (§1) and waits for the race weather
    (§3-0-1); the quick rules draw the grid with a d20 and leave the weather optional."""
    if getattr(event, "qualifying_mode", "") == "draw":
        return ("entries", "checkin", "draw", "tables", "sheets", "results", "published")
    return tuple(step for step in _MAIN_DAY if step != "draw")


_MAIN_DAY: tuple[str, ...] = (
    "entries",
    "checkin",
    *QUALIFYING_STEPS,
    "draw",
    "tables",
    "sheets",
    "race_weather",
    "results",
    "published",
)


register(
    GameSpec(
        key=MAIN_GAME,
        name=_("Formula Dé"),
        result="finish",
        day=_MAIN_DAY,
        acts=TABLE_ACTS,
        day_of=main_game_day,
        result_note=_(
            "Each table is classified by finishing order, then retired drivers (latest "
            "retirement first), then drivers who did not start; the day follows table 1, "
            "then table 2… Only finishers score (§21-1-2)."
        ),
        settings=(
            "laps",
            "qualifying_mode",
            "minute_penalty",
            "allow_redo",
            "separate_teams",
            "stand_numbers",
            "use_configurations",
            "min_stopwatch",
            "standard_configuration",
            "seed_by_rating",
            "show_favourites",
        ),
    )
)
