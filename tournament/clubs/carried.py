"""A championship's club on its travels (DOMAIN.md "Clubs and who may do what": "a bundle
brings its championship's club along"): the bundle to a laptop and a championship's backup
name the clubs their rows point at by slug and name, never by this server's ids; where they
land, each is found by its slug, else made (without members: the people of a club are the
server's own, never in a file).

Ground floor: the club model only."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tournament.clubs.models import Club


def listed(club_ids: Iterable[int | None]) -> list[dict[str, Any]]:
    """The clubs of ``club_ids`` as a file carries them: ``{id, slug, name}`` (the id is the
    sending server's, only to match the rows of the same file)."""
    wanted = {pk for pk in club_ids if pk is not None}
    return [
        {"id": club.pk, "slug": club.slug, "name": club.name}
        for club in Club.objects.filter(pk__in=wanted).order_by("pk")
    ]


def ids_here(clubs: Any) -> dict[Any, int]:
    """The sending server's club id → this server's, each club found by its slug or made.
    Anything that is not a list of ``{id, slug, name}`` brings no club (an older file)."""
    mapping: dict[Any, int] = {}
    if not isinstance(clubs, list):
        return mapping
    for item in clubs:
        if not isinstance(item, dict):
            continue
        slug, name = item.get("slug"), item.get("name")
        if not isinstance(slug, str) or not slug or not isinstance(name, str):
            continue
        club = Club.objects.filter(slug=slug[:60]).first() or Club.objects.create(
            slug=slug[:60], name=name[:200] or slug
        )
        mapping[item.get("id")] = club.pk
    return mapping


def club_here(fields: dict[str, Any], mapping: dict[Any, int]) -> None:
    """A row's ``club`` (the sending server's id) replaced by this server's; none when the
    file does not name that club."""
    if "club" in fields:
        fields["club"] = mapping.get(fields["club"])


#: The rows of a championship's backup that point at a club.
_CLUBBED = {
    "tournament.championship",
    "tournament.historicalchampionship",
    "tournament.circuit",
    "tournament.historicalcircuit",
}


def listed_in(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The clubs the serialized rows ``objects`` point at."""
    return listed(row["fields"].get("club") for row in objects if row["model"] in _CLUBBED)


def rows_here(objects: list[dict[str, Any]], clubs: Any) -> None:
    """Each serialized row's club, from the file's ``clubs``, made this server's."""
    mapping = ids_here(clubs)
    for row in objects:
        if row["model"] in _CLUBBED:
            club_here(row["fields"], mapping)
