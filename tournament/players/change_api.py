"""API v1, Players: race control's merges and splits, and their undo (``changes.py``).

The same rule as the pages: an administrator, or an organiser of a championship of each
player concerned. Each answers the recorded change."""

from __future__ import annotations

import datetime
from typing import Any

from django.http import HttpRequest
from django.utils.translation import gettext as _
from ninja import Router, Schema
from ninja.responses import Status
from pydantic import Field

from tournament.access import Actor
from tournament.apikit import ERRORS, Int, actor_of, require_token
from tournament.errors import InvalidInput, NotAllowed, NotFound
from tournament.models import Driver, Player, PlayerChange
from tournament.players import changes

player_changes_router = Router(tags=["Players"])


class PlayerRefOut(Schema):
    id: int
    name: str


class SeatRef(Schema):
    championship: str = Field(description="The championship's slug.")
    number: Int


class PlayerChangeOut(Schema):
    id: int
    kind: str = Field(description="merge or split")
    player: PlayerRefOut = Field(description="Merge: the player kept. Split: the one left.")
    other: PlayerRefOut = Field(description="Merge: the player merged. Split: the new player.")
    drivers: list[SeatRef] = Field(description="The drivers that moved.")
    reason: str
    by: str
    at: datetime.datetime
    undone_at: datetime.datetime | None
    undone_by: str


class MergeIn(Schema):
    keep: Int
    merge: Int
    reason: str = Field("", max_length=200)


class SplitIn(Schema):
    driver: SeatRef | None = Field(None, description="The driver who is someone else (API.md).")
    drivers: list[SeatRef] = Field([], description="Several drivers who are someone else.")
    reason: str = Field("", max_length=200)


def change_out(change: PlayerChange) -> dict[str, Any]:
    seats = Driver.objects.filter(pk__in=change.drivers).select_related("championship")
    return {
        "id": change.pk,
        "kind": change.kind,
        "player": {"id": change.player_id, "name": change.player.name},
        "other": {"id": change.other_id, "name": change.other.name},
        "drivers": [
            {"championship": d.championship.slug, "number": d.number}
            for d in seats.order_by("championship__season", "championship__slug", "number")
        ],
        "reason": change.reason,
        "by": change.actor,
        "at": change.created_at,
        "undone_at": change.undone_at,
        "undone_by": change.undone_by,
    }


def _deciding(request: HttpRequest) -> Actor:
    """The caller, if an administrator or an organiser of some championship (else 403)."""
    actor = actor_of(request)
    require_token(actor)
    if changes.organised_championships(actor) == set():
        raise NotAllowed(_("Only organisers of a championship decide about players."))
    return actor


def _player(pk: int) -> Player:
    player = Player.objects.filter(pk=pk).first()
    if player is None:
        raise NotFound(_("Unknown player %(id)s.") % {"id": pk})
    return player


@player_changes_router.post("/players/merge", response={201: PlayerChangeOut, **ERRORS})
def players_merge(request: HttpRequest, payload: MergeIn) -> Status[Any]:
    """Race control says two players are one person: ``merge``'s drivers move to ``keep``.
    409 when both drive in one championship or hold two licence numbers."""
    actor = _deciding(request)
    change = changes.players_merge(
        actor=actor,
        keep=_player(payload.keep),
        other=_player(payload.merge),
        reason=payload.reason,
    )
    return Status(201, change_out(change))


@player_changes_router.post("/players/{id}/split", response={201: PlayerChangeOut, **ERRORS})
def player_split(request: HttpRequest, id: int, payload: SplitIn) -> Status[Any]:
    """Some drivers of the player are someone else: they move to a new player (at least one
    driver stays)."""
    actor = _deciding(request)
    player = _player(id)
    seats = [*([payload.driver] if payload.driver else []), *payload.drivers]
    if not seats:
        message = _("Name the driver who is someone else.")
        raise InvalidInput(message, {"driver": [message]})
    chosen = []
    for seat in seats:
        driver = Driver.objects.filter(
            championship__slug=seat.championship, number=seat.number, player=player
        ).first()
        if driver is None:
            message = _("Driver %(number)s of %(championship)s is not this player's.") % {
                "number": seat.number,
                "championship": seat.championship,
            }
            raise InvalidInput(message, {"drivers": [message]})
        chosen.append(driver.pk)
    change = changes.player_split(actor=actor, player=player, drivers=chosen, reason=payload.reason)
    return Status(201, change_out(change))


@player_changes_router.post("/players/changes/{id}/undo", response={200: PlayerChangeOut, **ERRORS})
def player_change_undo(request: HttpRequest, id: int) -> dict[str, Any]:
    """Undo a merge or a split exactly (409 once undone, or when later changes moved the
    same drivers: undo those first)."""
    actor = _deciding(request)
    change = PlayerChange.objects.filter(pk=id).first()
    if change is None:
        raise NotFound(_("Unknown change %(id)s.") % {"id": id})
    return change_out(changes.change_undo(actor=actor, change=change))
