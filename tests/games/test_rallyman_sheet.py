"""The FEUILLE P.C. COURSE (races/game_pdf.py RallySheet) read back: rally name, date, the
route of each stage, service parks, the chrono grid, scratches, re-classification, final
(rules/rallyman-rules.fr.txt ART.2: the example "Rallye des Groseilles")."""

from __future__ import annotations

import datetime
import io

import pdfplumber
import pytest
from django.urls import reverse

from races.game_services import rally_sheet_data, stage_times_set
from races.models import Stage
from tournament.access import Actor

pytestmark = pytest.mark.django_db


def text_of(pdf: bytes) -> str:
    with pdfplumber.open(io.BytesIO(pdf)) as document:
        return "\n".join(page.extract_text() or "" for page in document.pages)


@pytest.fixture
def groseilles(make_event, organiser):
    event = make_event(4, slug="groseilles", game="rallyman")
    event.name = "Rallye des Groseilles"
    event.date = datetime.date(2009, 12, 25)
    event.language = "fr"
    event.save()
    Stage.objects.create(event=event, number=1, route="C8 C3-J6-J5-C4 C5", service_after=True,
                         start_order=[1, 2, 3, 4])  # fmt: skip
    Stage.objects.create(
        event=event, number=2, route="L0 L1-C7-C6-L2-L3-V2-V3-C5 C4", service_after=True
    )
    Stage.objects.create(event=event, number=3, route="J1 J4")
    actor = Actor(user=organiser)
    stage1 = Stage.objects.get(event=event, number=1)
    stage_times_set(actor=actor, stage=stage1, times={
        1: {"chrono": "07:40"}, 2: {"chrono": "07:20", "seconds_held": 5},
        3: {"chrono": "08:10"}, 4: {"retired": True},
    })  # fmt: skip
    return event


def test_sheet_shows_name_date_routes_service_parks_and_times(client, groseilles, organiser):
    client.force_login(organiser)
    response = client.get(reverse("rally-sheet", args=["groseilles"]))
    assert response.status_code == 200
    text = text_of(response.content)
    assert "FEUILLE P.C. COURSE" in text
    assert "Rallye des Groseilles" in text
    assert "25 décembre 2009" in text
    assert (
        "C8 C3-J6-J5-C4 C5" in text and "L0 L1-C7-C6-L2-L3-V2-V3-C5 C4" in text and "J1 J4" in text
    )
    assert "Scratch ES1" in text
    # 07:20 − 5 s held = 07:15, the best time of ES1.
    assert "1 2 Pilote2 Lefèvre 07:15" in text
    assert "07:40" in text and "08:10" in text


def test_sheet_has_reclassification_and_final_in_english(groseilles):
    data = rally_sheet_data(event=groseilles)
    from dataclasses import replace

    from races.game_pdf import RallySheet

    text = text_of(RallySheet().render(replace(data, language="en")))
    assert "Re-classification ES1+ES2" in text
    assert "Final scratch" in text
    assert "Service park after" in text
