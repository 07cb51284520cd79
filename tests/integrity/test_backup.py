"""Backup: ``export_championship`` then ``import_championship`` into an empty database
gives back the same championship, history included (issue 5, "nothing lost").

The championship is the security tests' event (qualifying, allocation, stands, a submitted
result, sheets) plus what it lacks: a confirmed result with its lines, race weather, a
weather draw, a configuration, a swap, a replaced link, d20 draws, a rally stage, and an
entry deleted after the fact (its history must survive without its row).
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from qualifying.models import DrawRoll
from races.models import (
    CarConfiguration,
    ManualSwap,
    RaceTable,
    RaceWeather,
    Stage,
    StageTime,
    WeatherDraw,
)
from races.services import referee_link_regenerate, result_confirm
from tests.security.conftest import build_world
from tournament.access import Actor
from tournament.backup import LABELS, NOT_EXPORTED
from tournament.models import Championship, Driver, Entry

pytestmark = pytest.mark.django_db(transaction=True)


def build_championship() -> str:
    world = build_world(get_user_model())
    organiser = Actor(user=world.users["organiser"])
    event, first, second = world.event, world.rtables[0], world.rtables[1]
    result_confirm(actor=organiser, table=first)
    RaceWeather.objects.create(event=event, roll=6, source="physical", weather="variable")
    WeatherDraw.objects.create(
        table=second, number=1, roll=15, source="system", drawn="sun", weather="sun", track="dry"
    )
    slot = second.slots.order_by("position").first()
    CarConfiguration.objects.create(
        slot=slot, tyres=4, brakes=3, gearbox=4, body=3, engine=3, road_holding=3, stand_points=2
    )
    drivers = list(Driver.objects.filter(championship=world.championship).order_by("number"))
    ManualSwap.objects.create(
        event=event,
        driver_a=drivers[0],
        driver_b=drivers[1],
        table_a=1,
        table_b=2,
        reason="Téléphone à l'autre table",
        user=world.users["organiser"],
    )
    referee_link_regenerate(actor=organiser, table=world.qtables[1])
    DrawRoll.objects.create(event=event, driver=drivers[2], rolls=[7, 12], source="physical")
    stage = Stage.objects.create(event=event, number=1, route="C8 C3-J6", start_order=[1, 2])
    StageTime.objects.create(stage=stage, driver=drivers[0], chrono=95, splits=[30, 61])
    late = Driver.objects.create(
        championship=world.championship, number=99, first_name="Zoé", last_name="Tardive"
    )
    Entry.objects.create(event=event, driver=late).delete()
    return world.championship.slug


def export(slug: str) -> str:
    out = io.StringIO()
    call_command("export_championship", slug, stdout=out)
    return out.getvalue()


def test_every_model_of_the_apps_is_backed_up_or_excluded_on_purpose() -> None:
    labels = {
        model._meta.label
        for app in ("tournament", "qualifying", "races")
        for model in apps.get_app_config(app).get_models()
    }
    assert labels - NOT_EXPORTED == set(LABELS)


def test_export_flush_import_export_gives_the_same_file(tmp_path: Path) -> None:
    slug = build_championship()
    first = export(slug)
    data = json.loads(first)
    present = {row["model"] for row in data["objects"]}
    assert {label.lower() for label in LABELS} == present, "a kind of row is missing"
    assert {u["username"] for u in data["users"]} >= {"orga", "arbitre1", "arbitre2"}
    deleted = [
        row
        for row in data["objects"]
        if row["model"] == "tournament.historicalentry" and row["fields"]["history_type"] == "-"
    ]
    assert len(deleted) == 1
    file = tmp_path / "cf.json"
    file.write_text(first, encoding="utf-8")

    call_command("flush", interactive=False, verbosity=0)
    assert not Championship.objects.exists() and not get_user_model().objects.exists()
    out = io.StringIO()
    call_command("import_championship", str(file), stdout=out)

    assert slug in out.getvalue()
    second = export(slug)
    assert second == first
    # People came back as accounts without a password, ready for `changepassword`.
    organiser = get_user_model().objects.get(username="orga")
    assert not organiser.has_usable_password()
    assert Championship.objects.get(slug=slug).organisers.filter(pk=organiser.pk).exists()
    # New rows never take an id still named by history (the deleted entry's).
    event = RaceTable.objects.first().event
    fresh = Driver.objects.create(
        championship=event.championship, number=100, first_name="A", last_name="B"
    )
    assert Entry.objects.create(event=event, driver=fresh).pk > deleted[0]["fields"]["id"]


def _refusal(tmp_path: Path, content: str) -> str:
    file = tmp_path / "bad.json"
    file.write_text(content, encoding="utf-8")
    with pytest.raises(CommandError) as refused:
        call_command("import_championship", str(file))
    return str(refused.value)


def test_import_refuses_a_championship_that_exists(tmp_path: Path) -> None:
    slug = build_championship()
    message = _refusal(tmp_path, export(slug))
    assert "already exists" in message
    assert Championship.objects.filter(slug=slug).count() == 1


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("{not json", "not JSON"),
        ("[1, 2]", "not a Paddock championship export"),
        ('{"format": "paddock.championship", "version": 7}', "version 7"),
        (
            '{"format": "paddock.championship", "version": 1, "championship": "x",'
            ' "users": [], "objects": [{"model": "auth.user", "fields": {}}]}',
            "unknown kind",
        ),
        (
            '{"format": "paddock.championship", "version": 1, "championship": "x",'
            ' "users": [], "objects": ["oops"]}',
            "damaged",
        ),
    ],
)
def test_import_refuses_a_bad_file(tmp_path: Path, content: str, words: str) -> None:
    assert words in _refusal(tmp_path, content)


def test_import_refuses_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="Cannot read"):
        call_command("import_championship", str(tmp_path / "nowhere.json"))


def test_a_file_breaking_a_rule_imports_nothing(tmp_path: Path) -> None:
    slug = build_championship()
    data: dict[str, Any] = json.loads(export(slug))
    call_command("flush", interactive=False, verbosity=0)
    for row in data["objects"]:
        if row["model"] == "qualifying.run":
            row["fields"]["tyres"] = "slick"  # the database refuses it (run_tyres)
            break
    message = _refusal(tmp_path, json.dumps(data))
    assert "nothing was imported" in message
    assert not Championship.objects.exists()
