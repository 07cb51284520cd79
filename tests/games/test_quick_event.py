"""Formula Dé quick rules on the event (rules/formule-de-quick-rules.fr.txt, point 10: 1, 2
or 3 laps; point 1: standard cars), through the API and on the race sheet."""

from __future__ import annotations

import io

import pdfplumber
import pytest

from qualifying.services import draw_record
from races.grid.services import allocation_run
from races.sheets.pdf import RaceSheetRenderer
from races.sheets.selectors import race_sheets
from tournament.access import Actor

pytestmark = pytest.mark.django_db

# Point 1: 22 points on the car, none at a stand (the quick rules have no stands).
CAR = {"tyres": 4, "brakes": 4, "gearbox": 4, "body": 3, "engine": 3, "road_holding": 4,
       "stand_points": 0}  # fmt: skip


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
    draw_record(actor=Actor(user=organiser), event=event, rolls={1: [5], 2: [12], 3: [9]})
    allocation_run(actor=Actor(user=organiser), event=event, table_size=6)
    (sheet,) = race_sheets(event=event, language="en")
    assert sheet.laps == 1 and sheet.standard_configuration
    assert {line.configuration.tyres for line in sheet.grid} == {4}
    with pdfplumber.open(io.BytesIO(RaceSheetRenderer().render(sheet))) as pdf:
        text = pdf.pages[0].extract_text()
    assert "Standard car" in text


@pytest.fixture
def spa(db):
    """A circuit of 5 laps: a quick race on it needs its own laps (point 10)."""
    from tournament.models import Circuit

    board = {"rain_from": 1, "rain_to": 4, "variable_from": 5, "variable_to": 8, "sun_from": 9}
    return Circuit.objects.create(slug="spa", name="Spa", laps=5, sun_to=20, **board)


def event_form(circuit, **fields):
    return {"name": "Quick", "slug": "quick", "date": "2026-05-01", "circuit": circuit.pk,
            "laps": "", "table_size": "8", "qualifying_mode": "draw", "language": "en",
            "stand_numbers": "", "crash_limit": "1", "game": "formula_de", **fields}  # fmt: skip


def test_point_10_the_form_refuses_a_quick_event_racing_the_circuits_5_laps(
    client, organiser, championship, spa
):
    from django.urls import reverse

    from tournament.models import Event

    client.cookies["django_language"] = "en"
    client.force_login(organiser)
    url = reverse("event-new", args=[championship.slug])
    refused = client.post(url, event_form(spa))
    assert refused.status_code == 200 and "1, 2 or 3 laps" in refused.content.decode()
    assert not Event.objects.filter(slug="quick").exists()
    assert client.post(url, event_form(spa, laps="2")).status_code == 302
    # Editing: emptying the laps falls back on the circuit's 5.
    settings = reverse("event-settings", args=["quick"])
    emptied = client.post(settings, {**event_form(spa), "minute_penalty": "on"})
    assert emptied.status_code == 200 and "1, 2 or 3 laps" in emptied.content.decode()
    assert Event.objects.get(slug="quick").laps == 2


def test_point_10_the_api_refuses_a_quick_event_racing_the_circuits_5_laps(
    org_api, championship, spa
):
    response = org_api.post(f"/championships/{championship.slug}/events", body(spa))
    assert response.status_code == 400
    message = response.json()["errors"]["laps"][0]
    assert "5" in message and "set" in message


def test_point_10_the_form_tells_to_set_the_laps(client, organiser, championship, spa):
    from django.urls import reverse

    client.cookies["django_language"] = "en"
    client.force_login(organiser)
    refused = client.post(reverse("event-new", args=[championship.slug]), event_form(spa))
    assert "set the event" in refused.content.decode()
