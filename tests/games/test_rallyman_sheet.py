"""The FEUILLE P.C. COURSE (races/games/rallyman/pdf.py RallySheet) read back: rally name, date, the
route of each stage, service parks, the chrono grid, scratches, re-classification, final
(rules/rallyman-rules.fr.txt ART.2: the example "Rallye des Groseilles")."""

from __future__ import annotations

import datetime
import io
import json

import pdfplumber
import pytest
from django.urls import reverse

from races.games.rallyman.services import rally_sheet_data, stage_snow_set, stage_times_set
from races.models import Stage, StageTime
from tournament.access import Actor
from tournament.models import Driver, Event

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

    from races.games.rallyman.pdf import RallySheet

    text = text_of(RallySheet().render(replace(data, language="en")))
    assert "Re-classification ES1+ES2" in text
    assert "Final scratch" in text
    assert "Service park after" in text


def section(text: str, title: str) -> list[str]:
    """The lines under ``title`` up to the next heading (a line without a digit first)."""
    lines = text.splitlines()
    start = lines.index(title) + 2  # the title, then the column header
    rows = []
    for line in lines[start:]:
        if not line[:1].isdigit():
            break
        rows.append(line)
    return rows


def test_sheet_rows_service_parks_reclassification_and_final(groseilles, organiser):
    # ART.2: "des assistances sont prévues après l'ES1 et l'ES2"; ART.4-2: ES2 starts in the
    # ES1 order, ES3 in the ES1+ES2 order; equal totals share the rank (DOMAIN.md).
    from dataclasses import replace

    from races.games.rallyman.pdf import RallySheet

    actor = Actor(user=organiser)
    es2 = Stage.objects.get(event=groseilles, number=2)
    stage_times_set(actor=actor, stage=es2, times={
        2: {"chrono": "07:00"}, 1: {"chrono": "06:30"}, 3: {"chrono": "07:05"},
    })  # fmt: skip
    es3 = Stage.objects.get(event=groseilles, number=3)
    stage_times_set(actor=actor, stage=es3, times={
        1: {"chrono": "04:00"}, 2: {"chrono": "03:55"}, 3: {"chrono": "03:00"},
    })  # fmt: skip
    data = replace(rally_sheet_data(event=groseilles), language="en")
    text = text_of(RallySheet().render(data))
    lines = text.splitlines()
    # A service park after ES1 and ES2, none after ES3; no snow drawn yet (Règlement+).
    assert lines[lines.index("Stage Route Snow Service park after") + 1 :][:3] == [
        "ES1 C8 C3-J6-J5-C4 C5 not drawn ✔",
        "ES2 L0 L1-C7-C6-L2-L3-V2-V3-C5 C4 not drawn ✔",
        "ES3 J1 J4 not drawn —",
    ]
    # The text's picture of the snow face is missing (DOMAIN.md): the sheet says so.
    assert "does not show the snow face" in " ".join(lines) and "1 face in 6" in " ".join(lines)
    assert section(text, "Re-classification ES1") == [
        "1 2 Pilote2 Lefèvre 07:15",
        "2 1 Pilote1 Lefèvre 07:40",
        "3 3 Pilote3 Lefèvre 08:10",
        "4 4 Pilote4 Lefèvre 00:00 retired in ES1",
    ]
    # 07:40 + 06:30 = 14:10; 07:15 + 07:00 = 14:15; 08:10 + 07:05 = 15:15.
    assert section(text, "Re-classification ES1+ES2") == [
        "1 1 Pilote1 Lefèvre 14:10",
        "2 2 Pilote2 Lefèvre 14:15",
        "3 3 Pilote3 Lefèvre 15:15",
        "4 4 Pilote4 Lefèvre 00:00 retired in ES1",
    ]
    assert section(text, "Scratch ES3") == [
        "1 3 Pilote3 Lefèvre 03:00",
        "2 2 Pilote2 Lefèvre 03:55",
        "3 1 Pilote1 Lefèvre 04:00",
    ]
    # 14:10 + 04:00 = 14:15 + 03:55 = 18:10: a shared first place; 15:15 + 03:00 = 18:15.
    assert section(text, "Final scratch") == [
        "1 1 Pilote1 Lefèvre 18:10",
        "1 2 Pilote2 Lefèvre 18:10",
        "3 3 Pilote3 Lefèvre 18:15",
        "4 4 Pilote4 Lefèvre 00:00 retired in ES1",
    ]
    assert "2 Pilote2 Lefèvre 07:20 5 07:15 07:00 07:00 03:55 03:55" in lines


def test_the_snow_of_each_stage_is_printed(groseilles, organiser):
    """Règlement+: the snow draw of each stage is printed on the P.C. sheet."""
    from dataclasses import replace

    from races.games.rallyman.pdf import RallySheet

    actor = Actor(user=organiser)
    StageTime.objects.filter(stage__event=groseilles).delete()  # drawn before the stages
    es1 = Stage.objects.get(event=groseilles, number=1)
    stage_snow_set(actor=actor, stage=es1, snow=[True, True])
    es2 = Stage.objects.get(event=groseilles, number=2)
    stage_snow_set(actor=actor, stage=es2, snow=[False] * 3)
    data = replace(rally_sheet_data(event=groseilles), language="en")
    lines = text_of(RallySheet().render(data)).splitlines()
    assert lines[lines.index("Stage Route Snow Service park after") + 1 :][:3] == [
        "ES1 C8 C3-J6-J5-C4 C5 C J ✔",
        "ES2 L0 L1-C7-C6-L2-L3-V2-V3-C5 C4 no snow ✔",
        "ES3 J1 J4 not drawn —",
    ]
    # The text's picture of the snow face is missing (DOMAIN.md): the sheet says so.
    assert "does not show the snow face" in " ".join(lines) and "1 face in 6" in " ".join(lines)


def test_published_the_public_reads_each_driver_as_they_chose(client, groseilles, organiser):
    """DOMAIN.md "Corrections to 'Before the day'": once published, the sheet, the
    classification and the API are the public's, and a driver who chose the short name reads
    "Pilote2 L." there; race control's own copy of the sheet keeps the full name."""
    Driver.objects.filter(championship=groseilles.championship, number=2).update(
        public_name_choice="short"
    )
    Event.objects.filter(pk=groseilles.pk).update(published_results=True)
    sheet = text_of(client.get(reverse("rally-sheet", args=["groseilles"])).content)
    page = client.get(reverse("rally-classification", args=["groseilles"])).content.decode()
    api = json.dumps(client.get("/api/v1/events/groseilles/rally").json(), ensure_ascii=False)
    for text in (sheet, page, api):
        assert "Pilote2 L." in text and "Pilote2 Lefèvre" not in text
    client.force_login(organiser)
    assert "Pilote2 Lefèvre" in text_of(
        client.get(reverse("rally-sheet", args=["groseilles"])).content
    )
