"""Backup: ``export_championship`` then ``import_championship`` into an empty database
gives back the same championship, history included (issue 5, "nothing lost").

The championship is the security tests' event (qualifying, allocation, stands, a submitted
result, sheets) plus what it lacks: a confirmed result with its lines, race weather, a
weather draw, a configuration, a swap, a replaced link, d20 draws, a rally stage, and an
entry deleted after the fact (its history must survive without its row).

No secret travels in clear (issue 14): referee links are in the file as digests and sealed
copies only, and opened again on import (or renewed when this server's key cannot open
them); the printed sheets (every link of an event) stay out; e-mail addresses are kept.
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
from django.test import Client, override_settings
from django.urls import reverse

from paddock.venue.championship_backup import LABELS, NOT_EXPORTED
from qualifying.models import DrawRoll, QualifyingTable
from races.grid.services import referee_link_regenerate
from races.models import (
    CarConfiguration,
    ManualSwap,
    RaceTable,
    RaceWeather,
    RaceWeatherDraw,
    ResultLine,
    Stage,
    StageTime,
    WeatherDraw,
)
from races.results.services import result_confirm
from races.sanctions.services import sanction_record, sanction_withdraw
from tests.security.conftest import World, build_world
from tests.template_db import empty_database
from tournament.access import Actor, table_for_link
from tournament.models import Championship, Club, Driver, Entry
from tournament.players.identity import new_player

pytestmark = pytest.mark.django_db(transaction=True)


def build_championship() -> str:
    return build_championship_world().championship.slug


def build_championship_world() -> World:
    world = build_world(get_user_model())
    organiser = Actor(user=world.users["organiser"])
    event, first, second = world.event, world.rtables[0], world.rtables[1]
    result_confirm(actor=organiser, table=first)
    # The world drew its race weather before any result (§2-0-1): the file keeps these.
    RaceWeatherDraw.objects.filter(event=event).delete()
    RaceWeather.objects.filter(event=event).delete()
    RaceWeather.objects.create(event=event, roll=6, source="physical", weather="variable")
    RaceWeatherDraw.objects.create(event=event, number=1, roll=3, source="physical", weather="rain")
    RaceWeatherDraw.objects.create(
        event=event, number=2, roll=6, source="physical", weather="variable", reason="Wrong scale"
    )
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
    world.replaced = world.qtables[1].token  # type: ignore[attr-defined]
    world.qtables[1] = referee_link_regenerate(actor=organiser, table=world.qtables[1])
    Driver.objects.filter(championship=world.championship, number=1).update(
        email="pilote1@example.org"
    )
    get_user_model().objects.filter(username="orga").update(email="orga@example.org")
    DrawRoll.objects.create(event=event, driver=drivers[2], rolls=[7, 12], source="physical")
    stage = Stage.objects.create(event=event, number=1, route="C8 C3-J6", start_order=[1, 2])
    StageTime.objects.create(stage=stage, driver=drivers[0], chrono=95, splits=[30, 61])
    late = Driver.objects.create(
        championship=world.championship, number=99, first_name="Zoé", last_name="Tardive"
    )
    Entry.objects.create(event=event, driver=late).delete()
    sanction = sanction_record(
        actor=organiser, event=event, driver=drivers[0].number, kind="points", value=2,
        reason="Ignored « Levier »",
    )  # fmt: skip
    sanction_withdraw(actor=organiser, sanction=sanction, reason="Appeal")
    # Every driver a player (the file lists them apart), one with a licence number.
    for driver in Driver.objects.filter(championship=world.championship).order_by("pk"):
        licence = "FFJ-0001" if driver.number == 1 else None
        driver.player = new_player(driver.first_name, driver.last_name, driver.email, licence)
        driver.save(update_fields=["player"])
    return world


def export(slug: str) -> str:
    out = io.StringIO()
    call_command("export_championship", slug, stdout=out)
    return out.getvalue()


def test_every_model_of_the_apps_is_backed_up_or_excluded_on_purpose() -> None:
    labels = {
        model._meta.label
        for app in ("tournament", "qualifying", "races", "leagues")
        for model in apps.get_app_config(app).get_models()
    }
    assert labels - NOT_EXPORTED == set(LABELS)


def _clubs_by_slug(text: str) -> dict[str, Any]:
    """The file with each club named by its slug instead of the server's id (ids are the
    server's own: DOMAIN.md, "a bundle brings its championship's club along")."""
    data = json.loads(text)
    slugs = {club["id"]: club["slug"] for club in data["clubs"]}
    for row in data["objects"]:
        if "club" in row["fields"]:
            row["fields"]["club"] = slugs.get(row["fields"]["club"], row["fields"]["club"])
    data["clubs"] = [{**club, "id": None} for club in data["clubs"]]
    return data


def test_export_flush_import_export_gives_the_same_file(tmp_path: Path) -> None:
    slug = build_championship()
    # The championship belongs to a club: it comes back in that club (by slug), made here.
    club = Club.objects.create(slug="ecurie-d-aix", name="Écurie d’Aix <b>")
    Championship.objects.filter(slug=slug).update(club=club)
    first = export(slug)
    assert json.loads(first)["clubs"] == [{"id": club.pk, "slug": club.slug, "name": club.name}]
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

    empty_database()
    assert not Championship.objects.exists() and not get_user_model().objects.exists()
    out = io.StringIO()
    call_command("import_championship", str(file), stdout=out)

    assert slug in out.getvalue()
    landed = Championship.objects.select_related("club").get(slug=slug).club
    assert (landed.slug, landed.name) == ("ecurie-d-aix", "Écurie d’Aix <b>")
    assert not landed.memberships.exists()  # its people stay with the server they are on
    second = export(slug)
    assert _clubs_by_slug(second) == _clubs_by_slug(first)
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
    empty_database()
    for row in data["objects"]:
        if row["model"] == "qualifying.run":
            row["fields"]["tyres"] = "slick"  # the database refuses it (run_tyres)
            break
    message = _refusal(tmp_path, json.dumps(data))
    assert "nothing was imported" in message
    assert not Championship.objects.exists()


# --- Secrets (issue 14) ----------------------------------------------------------------------


def links_of(world: World) -> dict[str, tuple[str, int]]:
    """Every live link of the world: token → (URL name, table id)."""
    links = {t.token: ("qtable", t.pk) for t in world.qtables}
    links.update({t.token: ("rtable", t.pk) for t in world.rtables})
    return links


def test_a_backup_holds_no_link_and_no_token_in_clear_but_keeps_emails() -> None:
    world = build_championship_world()
    text = export(world.championship.slug)

    secrets = [*links_of(world), world.replaced, *world.api_tokens.values()]
    assert len(secrets) == 9
    assert [secret for secret in secrets if secret in text] == []
    # The printed sheets show every link: they are not backed up (build them again).
    assert "races.sheetbatch" not in {row["model"] for row in json.loads(text)["objects"]}
    # The organisers' contact data is kept, on purpose (README, "Backup").
    assert "pilote1@example.org" in text and "orga@example.org" in text


def _results(slug: str) -> list[tuple[Any, ...]]:
    return list(
        ResultLine.objects.filter(event__championship__slug=slug)
        .order_by("table__number", "position")
        .values_list("table__number", "driver__number", "position", "status", "points")
    )


def _import_into_an_empty_database(tmp_path: Path, text: str) -> str:
    file = tmp_path / "cf.json"
    file.write_text(text, encoding="utf-8")
    empty_database()
    out = io.StringIO()
    call_command("import_championship", str(file), stdout=out)
    return out.getvalue()


def test_links_open_the_same_tables_after_an_import_on_this_server(tmp_path: Path) -> None:
    world = build_championship_world()
    results = _results(world.championship.slug)
    said = _import_into_an_empty_database(tmp_path, export(world.championship.slug))

    assert "renewed" not in said
    assert _results(world.championship.slug) == results and results
    client = Client()
    for token, (page, pk) in links_of(world).items():
        assert table_for_link(token).pk == pk
        assert client.get(reverse(page, args=[token])).status_code == 200
    assert client.get(reverse("qtable", args=[world.replaced])).status_code == 410


def test_links_another_servers_key_cannot_open_are_renewed_on_import(tmp_path: Path) -> None:
    world = build_championship_world()
    results = _results(world.championship.slug)
    text = export(world.championship.slug)
    links = links_of(world)

    with override_settings(SECRET_KEY="the-other-servers-key-" + "k" * 40):
        said = _import_into_an_empty_database(tmp_path, text)

        assert "4 referee links were renewed" in said
        assert _results(world.championship.slug) == results and results
        client = Client()
        for token, (page, pk) in links.items():
            # The old link says it was replaced; the table's new one opens it.
            assert client.get(reverse(page, args=[token])).status_code == 410
            model = QualifyingTable if page == "qtable" else RaceTable
            table = model.objects.get(pk=pk)
            assert table.token != token
            assert client.get(reverse(page, args=[table.token])).status_code == 200
