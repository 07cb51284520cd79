"""Fixtures of the offline tables' tests: an event of four drivers, qualifying table 1 (drivers
1-3) and table 2 (driver 4), session 1 open (sunny)."""

from __future__ import annotations

import pytest

from qualifying.models import QualifyingTable
from qualifying.seating.services import qualifying_table_set
from qualifying.services import session_create
from tournament.access import Actor


@pytest.fixture
def event(make_event, organiser):
    actor = Actor(user=organiser)
    event = make_event(n_drivers=4)
    qualifying_table_set(actor=actor, event=event, number=1, drivers=[1, 2, 3])
    qualifying_table_set(actor=actor, event=event, number=2, drivers=[4])
    session_create(actor=actor, event=event, number=1, weather_roll=15)
    return event


@pytest.fixture
def table(event):
    return QualifyingTable.objects.get(event=event, number=1)


@pytest.fixture
def other_table(event):
    return QualifyingTable.objects.get(event=event, number=2)


def run_row(number: int, **fields: str) -> dict[str, str]:
    """A qualifying run as the table's page posts it."""
    values = {
        "tyres": "soft",
        "throws": "18",
        "placement_errors": "0",
        "exit_squares": "2",
        "stopwatch": "1:05.20",
        **fields,
    }
    return {f"d{number}-{key}": value for key, value in values.items()}
