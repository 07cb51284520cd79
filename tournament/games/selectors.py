"""Reads of the games in use (ground floor): the ratings families the events make, and the
events of one family. A named game's family is the slug of its name, so that two events of
"Heat" rate together, never with another game (DOMAIN.md "Any racing game")."""

from __future__ import annotations

from django.db.models import QuerySet

from tournament.games import registry
from tournament.models import Event


def named_families() -> list[tuple[str, str, str]]:
    """``(game, name, family)`` of every named game the events use, by family (the first
    name an organiser gave a family is its name)."""
    named = [spec.key for spec in registry.games() if spec.named]
    found: dict[str, tuple[str, str, str]] = {}
    rows = (
        Event.objects.filter(game__in=named).order_by("date", "pk").values_list("game", "game_name")
    )
    for game, name in rows:
        family = registry.spec_of(game).family(name)
        found.setdefault(family, (game, name, family))
    return [found[family] for family in sorted(found)]


def families() -> list[str]:
    """Every ratings family: each game's own key, then each named game's family in use."""
    keys = [spec.key for spec in registry.games() if not spec.named]
    return keys + [family for _game, _name, family in named_families() if family not in keys]


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
