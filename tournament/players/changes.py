"""Race control's changes to players: a merge (two players are one person), a split (some
drivers of a player are someone else), "not the same" (a proposal dismissed), and the undo
of a merge or a split. Each is a ``PlayerChange`` saying who, when and which drivers moved.

Who may: an administrator (superuser), or an organiser of a championship of each player
concerned (a club running its own seasons). Two clubs' players are merged by an
administrator, who sees both sides, or by the organisers of a league that counts both
(asked through ``signals.players_deciders``); nobody else decides about a player they never ran.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from tournament.access import Actor
from tournament.clubs import rights
from tournament.errors import Conflict, InvalidInput, NotAllowed
from tournament.models import Championship, Driver, Event, NotSamePlayer, Player, PlayerChange
from tournament.players.identity import new_player
from tournament.signals import players_deciders, results_changed_here


def organised_championships(actor: Actor) -> set[int] | None:
    """The ids of the championships ``actor`` organises (as its club's owner or organiser,
    or a guest organiser); None for an administrator (all)."""
    if actor.is_superuser():
        return None
    if not actor.is_authenticated or actor.table is not None:
        return set()
    organised = Championship.objects.filter(rights.organised_filter(actor.user))
    return set(organised.values_list("pk", flat=True))


def _may_sides(actor: Actor, sides: Iterable[Iterable[int]]) -> bool:
    """True when ``actor`` organises a championship of each side (championship ids)."""
    mine = organised_championships(actor)
    if mine is None:
        return True
    sides = [set(side) for side in sides]
    if all(mine & side for side in sides):
        return True
    if not actor.is_authenticated or actor.table is not None:
        return False
    answers = players_deciders.send(sender=None, actor=actor, sides=sides)
    return any(answer is True for _receiver, answer in answers)


def may_decide(actor: Actor, players: Iterable[Player]) -> bool:
    """True when ``actor`` may merge, split or dismiss these players (module docstring)."""
    return _may_sides(
        actor,
        (
            Driver.objects.filter(player=player).values_list("championship_id", flat=True)
            for player in players
        ),
    )


def _require_sides(actor: Actor, *drivers: Iterable[int]) -> None:
    """Refuse unless ``actor`` organises a championship of each group of drivers (ids)."""
    sides = [
        Driver.objects.filter(pk__in=list(ids)).values_list("championship_id", flat=True)
        for ids in drivers
    ]
    if not _may_sides(actor, sides):
        raise _refusal()


def _require(actor: Actor, *players: Player) -> None:
    if not may_decide(actor, players):
        raise _refusal()


def _refusal() -> NotAllowed:
    return NotAllowed(
        _(
            "Only an administrator, or an organiser of a championship of each player, may "
            "change these players."
        )
    )


def _rate_again(drivers: Iterable[int]) -> None:
    """The moved drivers' results are another player's now: the ratings of the games they
    count in are computed again in this transaction, so that the kept player's career, the
    API and the ranking read the new owners as soon as the change commits."""
    events = Event.objects.filter(
        published_results=True, entries__driver__in=list(drivers)
    ).distinct()
    if games := sorted({event.family for event in events.only("game", "game_name")}):
        results_changed_here(*games)


def _locked(*ids: int) -> dict[int, Player]:
    players = Player.objects.select_for_update().filter(pk__in=ids).order_by("pk")
    return {player.pk: player for player in players}


@transaction.atomic
def players_merge(*, actor: Actor, keep: Player, other: Player, reason: str = "") -> PlayerChange:
    """``other`` is the same person as ``keep``: its drivers move to ``keep`` and it is
    marked merged into it (kept, so that the merge can be undone).

    Refused when both drive in one championship (one person drives once per championship)
    or hold different licence numbers (two licences, two people).
    """
    if keep.pk == other.pk:
        raise InvalidInput(_("A player cannot be merged into itself."))
    locked = _locked(keep.pk, other.pk)
    keep, other = locked[keep.pk], locked[other.pk]
    if keep.merged_into_id or other.merged_into_id:
        raise Conflict(_("One of these players was already merged into another: reload."))
    _require_merge(actor, keep, other)
    if keep.licence and other.licence and keep.licence != other.licence:
        raise Conflict(
            _("These players hold two licence numbers (%(one)s, %(two)s): two people, not merged.")
            % {"one": keep.licence, "two": other.licence}
        )
    drivers = list(Driver.objects.filter(player=other).select_related("championship"))
    both = Driver.objects.filter(
        player=keep, championship__in=[d.championship_id for d in drivers]
    ).select_related("championship")
    shared = sorted({str(d.championship) for d in both})
    if shared:
        raise Conflict(
            _(
                "Both players drive in %(championships)s: one person drives once per "
                "championship, so they are two people. Nothing merged."
            )
            % {"championships": ", ".join(shared)}
        )
    Driver.objects.filter(pk__in=[d.pk for d in drivers]).update(player=keep)
    other.merged_into = keep
    other.save(update_fields=["merged_into"])
    _rate_again(d.pk for d in drivers)
    return PlayerChange.objects.create(
        kind=PlayerChange.Kind.MERGE,
        player=keep,
        other=other,
        drivers=sorted(d.pk for d in drivers),
        reason=(reason or "").strip()[:200],
        actor=actor.label[:120],
    )


@transaction.atomic
def player_split(
    *, actor: Actor, player: Player, drivers: Iterable[int], reason: str = ""
) -> PlayerChange:
    """Some drivers of ``player`` are someone else: they move to a new player (named after
    the first of them). At least one driver must stay with ``player``."""
    player = _locked(player.pk)[player.pk]
    _require(actor, player)
    own = {d.pk: d for d in Driver.objects.filter(player=player).order_by("pk")}
    wanted = sorted(set(drivers))
    if not wanted:
        raise InvalidInput(_("Choose the drivers who are someone else."))
    unknown = [pk for pk in wanted if pk not in own]
    if unknown:
        raise InvalidInput(_("These drivers are not this player's any more: reload the page."))
    if len(wanted) == len(own):
        raise InvalidInput(
            _("Leave at least one driver to this player: the others move to a new player.")
        )
    # Both players after the split are ones the actor runs (the module's rule).
    _require_sides(actor, wanted, [pk for pk in own if pk not in wanted])
    first = own[wanted[0]]
    other = new_player(first.first_name, first.last_name, first.email)
    Driver.objects.filter(pk__in=wanted).update(player=other)
    _rate_again(wanted)
    return PlayerChange.objects.create(
        kind=PlayerChange.Kind.SPLIT,
        player=player,
        other=other,
        drivers=wanted,
        reason=(reason or "").strip()[:200],
        actor=actor.label[:120],
    )


@transaction.atomic
def change_undo(*, actor: Actor, change: PlayerChange) -> PlayerChange:
    """Put back what ``change`` moved, exactly, and record who undid it and when.

    A merge undone: its drivers go back to the merged player, which stands alone again. A
    split undone: the drivers go back, and the player the split made (now without drivers)
    is marked merged into the first one. Refused when later changes moved those drivers or
    players (undo those first).
    """
    change = PlayerChange.objects.select_for_update().get(pk=change.pk)
    if change.undone_at is not None:
        raise Conflict(_("This change was already undone."))
    locked = _locked(change.player_id, change.other_id)
    player, other = locked[change.player_id], locked[change.other_id]
    moved = set(change.drivers)
    stay = Driver.objects.filter(player=player).exclude(pk__in=moved).values_list("pk", flat=True)
    _require_sides(actor, moved, stay)
    if change.kind == PlayerChange.Kind.MERGE:
        here = set(Driver.objects.filter(player=player, pk__in=moved).values_list("pk", flat=True))
        if here != moved or other.merged_into_id != player.pk:
            raise Conflict(_("Later changes moved these drivers or players: undo them first."))
        Driver.objects.filter(pk__in=moved).update(player=other)
        other.merged_into = None
        other.save(update_fields=["merged_into"])
    else:
        theirs = set(Driver.objects.filter(player=other).values_list("pk", flat=True))
        if theirs != moved or Player.objects.filter(merged_into=other).exists():
            raise Conflict(_("Later changes moved these drivers or players: undo them first."))
        Driver.objects.filter(pk__in=moved).update(player=player)
        other.merged_into = player
        other.save(update_fields=["merged_into"])
    _rate_again(moved)
    change.undone_at = timezone.now()
    change.undone_by = actor.label[:120]
    change.save(update_fields=["undone_at", "undone_by"])
    return change


@transaction.atomic
def players_not_same(*, actor: Actor, player: Player, other: Player) -> NotSamePlayer:
    """Race control says these two are different people: never proposed again."""
    if player.pk == other.pk:
        raise InvalidInput(_("Choose two different players."))
    _require(actor, player, other)
    low, high = sorted((player.pk, other.pk))
    found, _created = NotSamePlayer.objects.get_or_create(
        player_id=low, other_id=high, defaults={"actor": actor.label[:120]}
    )
    return found


def _require_merge(actor: Actor, keep: Player, other: Player) -> None:
    """A merge's right: as any change's (``_require``), or, when one of the two claims the
    licence number the other holds (``Player.claimed_licence``), an organiser of a
    championship its holder already plays in: the claim was typed by someone who may not
    see that holder, and only the holder's organisers confirm it (issue 32)."""
    for holder, claimant in ((keep, other), (other, keep)):
        played = Driver.objects.filter(player=holder).values_list("championship_id", flat=True)
        claimed = bool(holder.licence) and claimant.claimed_licence == holder.licence
        if claimed and _may_sides(actor, [played]):
            return
    _require(actor, keep, other)
