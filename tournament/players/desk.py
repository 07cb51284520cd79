"""Race control's pages on players: the proposed matches ("Same person" merges, "Not the
same" dismisses), the changes made (each undoable), and the split of a wrong match.

Open to administrators and to organisers of a championship; each lists only what its
reader may decide (``changes.may_decide``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.db.models import Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from tournament.access import Actor, actor_for
from tournament.errors import ServiceError
from tournament.models import Driver, Player, PlayerChange
from tournament.players import changes
from tournament.players.matching import proposals


def _organiser(request: HttpRequest) -> Actor:
    """The actor, if an administrator or an organiser of some championship; else 403."""
    actor = actor_for(request)
    if changes.organised_championships(actor) == set():
        if not actor.is_authenticated:
            raise PermissionDenied(_("Log in as an organiser of a championship."))
        raise PermissionDenied(_("Only organisers of a championship decide about players."))
    return actor


_ID = re.compile(r"[0-9]{1,18}")


def _player(value: str | None) -> Player | None:
    if not _ID.fullmatch(value or ""):
        return None
    return Player.objects.filter(pk=int(value or 0)).first()


@require_safe
def matches(request: HttpRequest) -> HttpResponse:
    """The proposed matches, each with its evidence and two buttons."""
    actor = _organiser(request)
    return render(request, "players/matches.html", {"proposals": proposals(actor)})


@require_POST
def merge(request: HttpRequest) -> HttpResponse:
    """ "Same person": the second player is merged into the first."""
    actor = _organiser(request)
    keep, other = _player(request.POST.get("keep")), _player(request.POST.get("other"))
    if keep is None or other is None:
        messages.error(request, _("These players no longer exist: reload the page."))
        return redirect("player-matches")
    try:
        changes.players_merge(
            actor=actor, keep=keep, other=other, reason=request.POST.get("reason", "")
        )
    except ServiceError as exc:
        messages.error(request, exc.message)
        return redirect("player-matches")
    messages.success(
        request,
        _("%(other)s and %(keep)s are now one player (undo it under “Changes to players”).")
        % {"other": other.name, "keep": keep.name},
    )
    return redirect("player-matches")


@require_POST
def not_same(request: HttpRequest) -> HttpResponse:
    """ "Not the same": the pair is not proposed again."""
    actor = _organiser(request)
    one, two = _player(request.POST.get("player")), _player(request.POST.get("other"))
    if one is None or two is None:
        messages.error(request, _("These players no longer exist: reload the page."))
        return redirect("player-matches")
    try:
        changes.players_not_same(actor=actor, player=one, other=two)
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(
            request,
            _("%(one)s and %(two)s are two people: not proposed again.")
            % {"one": one.name, "two": two.name},
        )
    return redirect("player-matches")


@require_safe
def change_list(request: HttpRequest) -> HttpResponse:
    """The merges and splits of the players the reader runs, newest first."""
    actor = _organiser(request)
    found = PlayerChange.objects.select_related("player", "other")
    mine = changes.organised_championships(actor)
    if mine is not None:
        players = Driver.objects.filter(championship__in=mine).values("player")
        found = found.filter(Q(player__in=players) | Q(other__in=players))
    found = list(found.distinct()[:200])
    # Two players of one name are told apart by their seats: championship and number.
    seats = {
        driver.pk: driver
        for driver in Driver.objects.filter(
            Q(pk__in={pk for change in found for pk in change.drivers})
            | Q(player__in={change.player_id for change in found})
        ).select_related("championship")
    }
    rows = [
        {
            "change": change,
            "undoable": change.undone_at is None,
            "moved": _seats_of(seats[pk] for pk in change.drivers if pk in seats),
            "stays": _seats_of(
                driver
                for driver in seats.values()
                if driver.player_id == change.player_id and driver.pk not in change.drivers
            ),
        }
        for change in found
    ]
    return render(request, "players/changes.html", {"rows": rows})


def _seats_of(drivers: Iterable[Driver]) -> str:
    """``Coupe de France (2026) · n° 3, …``: the drivers' seats, as the matches page says."""
    return ", ".join(
        f"{d.championship.name} ({d.championship.season}) · n° {d.number}"
        for d in sorted(
            drivers, key=lambda d: (d.championship.season, d.championship.name, d.number)
        )
    )


@require_POST
def change_undo(request: HttpRequest, pk: int) -> HttpResponse:
    actor = _organiser(request)
    change = get_object_or_404(PlayerChange, pk=pk)
    try:
        changes.change_undo(actor=actor, change=change)
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("Undone: the drivers are back where they were."))
    return redirect("player-changes")


@require_http_methods(["GET", "POST"])
def split(request: HttpRequest, pk: int) -> HttpResponse:
    """Choose the drivers of a player who are someone else: they get a player of their own."""
    actor = _organiser(request)
    player = get_object_or_404(Player, pk=pk)
    if not changes.may_decide(actor, [player]):
        raise PermissionDenied(_("You run no championship of this player."))
    drivers = Driver.objects.filter(player=player).select_related("championship", "team")
    if request.method == "POST":
        chosen = [int(v) for v in request.POST.getlist("drivers") if _ID.fullmatch(v)]
        try:
            changes.player_split(
                actor=actor, player=player, drivers=chosen, reason=request.POST.get("reason", "")
            )
        except ServiceError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(request, _("Split: the chosen drivers are a new player."))
            return redirect("player-changes")
    return render(
        request,
        "players/split.html",
        {"player": player, "drivers": drivers.order_by("championship__season", "number")},
    )
