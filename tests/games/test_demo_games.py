"""load_demo's other games (races/games/demo.py): the Club championship's five events,
loaded twice without change, with their results in the standings."""

from __future__ import annotations

import io

import pdfplumber
import pytest
from django.core.management import call_command
from django.urls import reverse

from races.models import RaceResult, ResultLine, Stage, StageTime
from races.sheets.pdf import RaceSheetRenderer
from races.sheets.selectors import race_sheets
from standings.selectors import standings_for
from tests.template_db import empty_database
from tournament.models import Event

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def demo(django_db_setup, django_db_blocker):
    """The demo loaded twice, committed once for the module and emptied after its last test
    (each test's own writes are rolled back)."""
    with django_db_blocker.unblock():
        call_command("load_demo", "--quiet")
        first = (StageTime.objects.count(), ResultLine.objects.count(), Event.objects.count())
        call_command("load_demo", "--quiet")
        try:
            assert (
                StageTime.objects.count(),
                ResultLine.objects.count(),
                Event.objects.count(),
            ) == first
            yield
        finally:
            empty_database()


def test_five_events_of_the_club_championship(demo):
    games = dict(Event.objects.filter(championship__slug="demo-club").values_list("slug", "game"))
    assert games == {
        "demo-course-rapide": "formula_de",
        "demo-rallye-des-groseilles": "rallyman",
        "demo-coupe-cannes-monaco": "cannes_monaco",
        "demo-grand-prix-sur-papier": "racetrack",
        "demo-soiree-heat": "finishing_order",
    }


def test_quick_rules_event_two_laps_standard_car_printed(demo):
    event = Event.objects.get(slug="demo-course-rapide")
    assert (event.qualifying_mode, event.race_laps) == ("draw", 2)
    sheet = race_sheets(event=event, language="en")[0]
    assert sheet.standard_configuration and sheet.grid[0].configuration.tyres == 7
    with pdfplumber.open(io.BytesIO(RaceSheetRenderer().render(sheet))) as pdf:
        text = pdf.pages[0].extract_text()
    assert "Standard car" in text


def test_rally_three_stages_timed_and_classified(demo):
    event = Event.objects.get(slug="demo-rallye-des-groseilles")
    assert Stage.objects.filter(event=event).count() == 3
    assert StageTime.objects.filter(stage__event=event).count() == 8 + 8 + 7
    lines = ResultLine.objects.filter(event=event)
    assert lines.count() == 8
    assert lines.get(driver__number=4).status == "retired"
    assert lines.get(rank=1).points == 10


def test_cannes_monaco_points_of_the_rule_at_table_1(demo):
    event = Event.objects.get(slug="demo-coupe-cannes-monaco")
    table1 = ResultLine.objects.filter(event=event, table__number=1).order_by("position")
    # Over the line (36 − 30 + 3 = 9), 34 (4), 31 (1), last on 30 (0).
    assert [line.points for line in table1] == [9, 4, 1, 0]


def test_racetrack_results_and_club_standings(demo):
    event = Event.objects.get(slug="demo-grand-prix-sur-papier")
    statuses = list(
        ResultLine.objects.filter(event=event)
        .order_by("position")
        .values_list("status", "rank", "points")
    )
    assert statuses[:5] == [
        ("finished", 1, 10), ("finished", 2, 8), ("finished", 3, 6), ("finished", 3, 6),
        ("running", 5, 4),
    ]  # fmt: skip
    assert {s for s, _r, _p in statuses[5:]} == {"eliminated"}
    # The demo's collision: a car out with no crash of its own ("Accidents").
    runs = RaceResult.objects.get(table__event=event).game_data["runs"].values()
    assert sum(1 for run in runs if run["eliminated"] and run["crashes"] == 0) == 1
    club = event.championship
    standings = standings_for(championship=club)
    # The quick race, the rally, both table games and the Heat evening (its table 1).
    assert len(standings.events) == 5
    assert len(standings.lines) == 8 and standings.lines[0].points > 0


def test_the_rally_has_a_stage_with_snow_and_tyres_recorded(demo):
    """Règlement+: the snow drawn before each stage; ES2 has snowy zones, printed on the
    P.C. sheet; tyres recorded where the drivers chose them."""
    stages = {s.number: s for s in Stage.objects.filter(event__slug="demo-rallye-des-groseilles")}
    assert all(stage.snow for stage in stages.values())
    assert [z for z, s in zip("LCV", stages[2].snow, strict=True) if s] == ["C"]
    assert StageTime.objects.get(stage=stages[2], driver__number=7).tyres == "snow"
    from races.games.rallyman.pdf import RallySheet
    from races.games.rallyman.services import rally_sheet_data

    event = Event.objects.get(slug="demo-rallye-des-groseilles")
    with pdfplumber.open(io.BytesIO(RallySheet().render(rally_sheet_data(event=event)))) as pdf:
        text = "\n".join(page.extract_text() or "" for page in pdf.pages)
    assert "L0 L1-C7-C6-L2-L3-V2-V3-C5 C4 C " in text  # ES2's snowy zone


def test_a_heat_evening_of_two_tables_by_its_own_name(demo, client):
    """A finishing-order event named "Heat: Pedal to the Metal", no circuit: table 1
    confirmed with a retirement and its note, table 2 sent to race control; its own ratings
    family; its referee page and sheet open from the table link."""
    event = Event.objects.get(slug="demo-soiree-heat")
    assert (event.game_name, event.circuit_id, event.family) == (
        "Heat: Pedal to the Metal",
        None,
        "heat-pedal-to-the-metal",
    )
    tables = {t.number: t for t in event.race_tables.all()}
    assert {n: t.result_status for n, t in tables.items()} == {1: "confirmed", 2: "submitted"}
    assert [t.slots.count() for t in tables.values()] == [4, 4]
    lines = ResultLine.objects.filter(table=tables[1]).order_by("position")
    assert [(line.status, line.points) for line in lines] == [
        ("finished", 10), ("finished", 8), ("finished", 6), ("retired", 0),
    ]  # fmt: skip
    retired = RaceResult.objects.get(table=tables[1]).retired[0]
    assert retired["lap"] == 2 and retired["note"].startswith("Moteur en surchauffe")
    assert RaceResult.objects.get(table=tables[2]).dns != []
    token = tables[2].token
    page = client.get(reverse("finishing-order-entry", args=[token]))
    assert page.status_code == 200 and "Heat: Pedal to the Metal" in page.content.decode()
    sheet = client.get(reverse("finishing-order-sheet", args=[token]))
    with pdfplumber.open(io.BytesIO(sheet.content)) as pdf:
        assert "Heat: Pedal to the Metal · Table 2" in pdf.pages[0].extract_text()
