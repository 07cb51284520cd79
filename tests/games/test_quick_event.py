"""Formula Dé quick rules on the event (rules/formule-de-quick-rules.fr.txt, point 10: 1, 2
or 3 laps; point 1: standard cars), through the API and on the race sheet."""

from __future__ import annotations

import io

import pdfplumber
import pytest

from races.pdf import RaceSheetRenderer
from races.services import allocation_run
from races.sheets import race_sheets
from tournament.access import Actor

pytestmark = pytest.mark.django_db

CAR = {"tyres": 4, "brakes": 4, "gearbox": 4, "body": 3, "engine": 3, "road_holding": 2,
       "stand_points": 2}  # fmt: skip


def body(circuit, **fields):
    return {"slug": "quick", "name": "Quick", "date": "2026-05-01", "circuit": circuit.slug,
            "qualifying_mode": "draw", **fields}  # fmt: skip


def test_point_10_a_quick_race_of_4_laps_is_refused(org_api, championship, circuit):
    response = org_api.post(f"/championships/{championship.slug}/events", body(circuit, laps=4))
    assert response.status_code == 400
    assert "laps" in response.json()["errors"]
    ok = org_api.post(f"/championships/{championship.slug}/events", body(circuit, laps=3))
    assert ok.status_code == 201 and ok.json()["race_laps"] == 3


def test_point_1_the_standard_car_is_printed_on_every_grid_line(make_event, organiser):
    event = make_event(3, qualifying_mode="draw", laps=1, separate_teams=False,
                       standard_configuration=CAR)  # fmt: skip
    allocation_run(actor=Actor(user=organiser), event=event, table_size=6)
    (sheet,) = race_sheets(event=event, language="en")
    assert sheet.laps == 1 and sheet.standard_configuration
    assert {line.configuration.tyres for line in sheet.grid} == {4}
    with pdfplumber.open(io.BytesIO(RaceSheetRenderer().render(sheet))) as pdf:
        text = pdf.pages[0].extract_text()
    assert "Standard car" in text
