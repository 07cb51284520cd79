"""Reads of a club's people beyond its members (DOMAIN.md "Many clubs on one server"): the
guest seats of its championships, and who gave each."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tournament.clubs.models import Club, GuestSeat
from tournament.models import Championship


@dataclass(frozen=True)
class SeatRow:
    """One guest seat on a championship of the club, and who gave it (when known)."""

    user: Any
    championship: Championship
    given: GuestSeat | None


def guest_seats(*, club: Club) -> list[SeatRow]:
    """Every guest seat of ``club``'s championships, by championship then username: who,
    which, given by whom (a seat given before that was kept, or in the admin: unknown)."""
    given = {
        (seat.championship_id, seat.user_id): seat
        for seat in GuestSeat.objects.filter(championship__club=club).select_related("given_by")
    }
    seats = (
        Championship.organisers.through.objects.filter(championship__club=club)
        .select_related("championship", "user")
        .order_by("championship__name", "championship__season", "user__username")
    )
    return [
        SeatRow(seat.user, seat.championship, given.get((seat.championship_id, seat.user_id)))
        for seat in seats
    ]
