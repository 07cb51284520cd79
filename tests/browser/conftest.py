"""Fixtures of the browser tests."""

from __future__ import annotations

import pytest

from qualifying.models import Run
from qualifying.services import session_create
from tournament.access import Actor
from tournament.models import Driver

#: Six drivers classified 4, 2, 5, 1, 6, 3 (no team): tables of three are [4, 2, 5] and
#: [1, 6, 3].
NAMES = {
    1: ("Élodie", "Lefèvre"),
    2: ("Théo", "Marchand"),
    3: ("Léa", "Morel"),
    4: ("Hugo", "Moreau"),
    5: ("Zoé", "Girard"),
    6: ("Jules", "Fournier"),
}
ORDER = [4, 2, 5, 1, 6, 3]


@pytest.fixture
def classified(make_event, organiser):
    """An event of six drivers qualified in :data:`ORDER` in one sunny session."""
    event = make_event(n_drivers=6)
    for number, (first, last) in NAMES.items():
        Driver.objects.filter(championship=event.championship, number=number).update(
            first_name=first, last_name=last, team=None
        )
    session = session_create(actor=Actor(user=organiser), event=event, number=1, weather_roll=15)
    for index, number in enumerate(ORDER):
        Run.objects.create(
            session=session,
            driver=Driver.objects.get(championship=event.championship, number=number),
            tyres="hard",
            throws=10 + index,
            stopwatch_cs=5000,
        )
    return event
