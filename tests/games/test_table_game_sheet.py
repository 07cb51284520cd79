"""The Cannes–Monaco and Racetrack table sheets (races/games/table_sheet/pdf.py TableGameSheet) read
back through the table link: the accident rules of the event are printed
(rules/racetrack-rules.fr.txt "Accidents": a crash eliminates, a collision eliminates both
cars; variants of N crashes and of no collisions), and Cannes–Monaco's 3 to 6 drivers
("pour 3 à 6 pilotes")."""

from __future__ import annotations

import io
import re

import pytest
from django.urls import reverse
from pypdf import PdfReader

from races.grid.services import allocation_run
from races.models import RaceTable
from tournament.access import Actor

pytestmark = pytest.mark.django_db


def sheet_text(client, make_event, organiser, **options) -> str:
    event = make_event(4, separate_teams=False, qualifying_mode="draw", language="en", **options)
    allocation_run(actor=Actor(user=organiser), event=event, table_size=6)
    table = RaceTable.objects.get(event=event)
    response = client.get(reverse("game-table-sheet", args=[table.token]))
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    text = "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(response.content)).pages)
    return re.sub(r"\s+", " ", text)  # the hint wraps: compare words, not lines


def test_racetrack_sheet_prints_the_rule_a_crash_and_a_collision_eliminate(
    client, make_event, organiser
):
    text = sheet_text(client, make_event, organiser, game="racetrack")
    assert "Racetrack · Table 1" in text
    assert "1 Pilote1 Lefèvre" in text and "4 Pilote4 Lefèvre" in text
    assert "A crash eliminates." in text
    assert "Collisions on: a collision eliminates both cars." in text


def test_racetrack_sheet_prints_the_variants(client, make_event, organiser):
    text = sheet_text(
        client, make_event, organiser, game="racetrack", crash_limit=3, collisions=False
    )
    assert "Eliminated after 3 crashes." in text
    assert "Collisions off: cars pass through each other." in text
    assert "A crash eliminates." not in text and "Collisions on" not in text


def test_racetrack_sheet_variant_of_n_crashes_with_collisions(client, make_event, organiser):
    text = sheet_text(client, make_event, organiser, game="racetrack", crash_limit=2)
    assert "Eliminated after 2 crashes." in text
    assert "Collisions on: a collision adds a crash to both cars." in text


def test_cannes_monaco_sheet_prints_its_points_and_3_to_6_drivers(client, make_event, organiser):
    text = sheet_text(client, make_event, organiser, game="cannes_monaco")
    assert "Cannes–Monaco 1925 · Table 1" in text
    assert "over the line counts as 36, plus 3." in text
    assert "A race of 3 to 6 drivers." in text
    assert "crash" not in text.lower() and "collision" not in text.lower()
