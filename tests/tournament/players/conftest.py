"""Players across championships: two seasons of one club (organised by ``pc``) and another
club's championship (organised by ``club``), drivers registered through the services."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from tournament.access import Actor
from tournament.models import Championship, Driver
from tournament.registration.services import driver_create


@dataclass
class Clubs:
    """The organisers' actors and the three championships."""

    admin: Actor
    pc: Actor
    club: Actor
    season_2025: Championship
    season_2026: Championship
    other_club: Championship

    def register(self, championship: Championship, number: int, first: str, last: str,
                 **more: Any) -> Driver:  # fmt: skip
        """A driver registered as race control does (``driver_create``), with its player."""
        return driver_create(
            actor=self.admin, championship=championship, number=number, first_name=first,
            last_name=last, **more,
        )  # fmt: skip


@pytest.fixture
def clubs(db, django_user_model, organiser, championship) -> Clubs:
    """``cf`` (2026, the root fixture) and ``cf-2025`` organised by ``pc``; ``club-2026``
    organised by ``club`` only."""
    admin = django_user_model.objects.create_superuser("admin", "admin@example.org", "x")
    club_user = django_user_model.objects.create_user("club", password="x")
    season_2025 = Championship.objects.create(
        slug="cf-2025", name="Coupe de France", season="2025", points_scale=[10, 8, 6]
    )
    season_2025.organisers.add(organiser)
    other = Championship.objects.create(
        slug="club-2026", name="Club du Dé", season="2026", points_scale=[5, 3, 1]
    )
    other.organisers.add(club_user)
    return Clubs(
        admin=Actor(user=admin),
        pc=Actor(user=organiser),
        club=Actor(user=club_user),
        season_2025=season_2025,
        season_2026=championship,
        other_club=other,
    )
