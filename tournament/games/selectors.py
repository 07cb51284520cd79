"""Reads of the games in use (ground floor): the ratings families the events make, and the
events of one family. A named game's family is the slug of its name, so that two events of
"Heat" rate together, never with another game (DOMAIN.md "Any racing game")."""

from __future__ import annotations

from django.db.models import Q, QuerySet

from tournament.games import registry
from tournament.models import Event

#: An event anyone may see (``Event.is_public``), in a query.
PUBLIC = (
    Q(published_qualifying_tables=True)
    | Q(published_allocation=True)
    | Q(published_qualifying=True)
    | Q(published_results=True)
)


def named_families(*, public: bool = False) -> list[tuple[str, str, str]]:
    """``(game, name, family)`` of every named game the events use (``public``: the events
    anyone may see), by family; the first name an organiser gave a family is its name."""
    named = [spec.key for spec in registry.games() if spec.named]
    events = Event.objects.filter(game__in=named)
    if public:
        events = events.filter(PUBLIC)
    found: dict[str, tuple[str, str, str]] = {}
    for game, name in events.order_by("date", "pk").values_list("game", "game_name"):
        family = registry.spec_of(game).family(name)
        found.setdefault(family, (game, name, family))
    return [found[family] for family in sorted(found)]


def families() -> list[str]:
    """Every ratings family: each game's own key, then each named game's family in use."""
    keys = [spec.key for spec in registry.games() if not spec.named]
    return keys + [family for _game, _name, family in named_families() if family not in keys]


def families_named(*, public: bool = False) -> list[tuple[str, str]]:
    """``(family, name)`` of every ratings family: each game's own in the registry's order,
    then each named game in use (``public``: by the events anyone may see), in one query."""
    own = [(spec.key, str(spec.name)) for spec in registry.games() if not spec.named]
    keys = {key for key, _name in own}
    named = [(family, name) for _game, name, family in named_families(public=public)]
    return own + [(family, name) for family, name in named if family not in keys]


def family_events(family: str) -> QuerySet[Event]:
    """The events whose results count in ``family``."""
    spec = registry.game(family)
    if spec is not None and not spec.named:
        return Event.objects.filter(game=family)
    named = [s.key for s in registry.games() if s.named]
    ids = [
        pk
        for pk, game, name in Event.objects.filter(game__in=named).values_list(
            "pk", "game", "game_name"
        )
        if registry.spec_of(game).family(name) == family
    ]
    return Event.objects.filter(pk__in=ids)


def family_name(family: str) -> str:
    """A family in words: its game's name, or the name the organisers gave it; the family
    itself when nothing has it any more."""
    spec = registry.game(family)
    if spec is not None and not spec.named:
        return str(spec.name)
    for _game, name, found in named_families():
        if found == family:
            return name
    return family
