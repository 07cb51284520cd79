"""Every model of the three apps has its admin page, for data fixes (issue 2), and the
results are read-only there: they change through their workflow, never behind it."""

from __future__ import annotations

import re

import pytest
from django.apps import apps
from django.contrib import admin
from django.urls import reverse

from qualifying.models import DrawRoll, QualifyingSession, Run
from qualifying.services import draw_record, session_create
from races.grid.services import allocation_run
from races.models import RaceResult, ResultLine, Stage, StageTime
from tournament.access import Actor
from tournament.models import Driver

APPS = ("tournament", "qualifying", "races")


def _models():
    for label in APPS:
        for model in apps.get_app_config(label).get_models():
            if not model.__name__.startswith("Historical"):
                yield model


@pytest.mark.parametrize("model", list(_models()), ids=lambda m: m._meta.label)
def test_every_model_is_in_the_admin(model):
    assert admin.site.is_registered(model), f"{model._meta.label} has no admin page"


@pytest.mark.django_db
@pytest.mark.parametrize("model", list(_models()), ids=lambda m: m._meta.label)
def test_every_admin_list_opens_for_a_superuser(client, django_user_model, model):
    client.force_login(django_user_model.objects.create_superuser("root", password="x"))
    url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
    assert client.get(url, {"q": "1"}).status_code == 200


@pytest.mark.parametrize("model", [RaceResult, ResultLine])
def test_results_cannot_be_edited_in_the_admin(rf, model):
    model_admin = admin.site._registry[model]
    request = rf.get("/")
    assert not model_admin.has_add_permission(request)
    assert not model_admin.has_change_permission(request)
    assert not model_admin.has_delete_permission(request)


# --- The admin is no side door (issue 32): what a workflow changes with a reason ------------


@pytest.fixture
def root(client, django_user_model):
    client.force_login(django_user_model.objects.create_superuser("root", password="x"))
    client.cookies["django_language"] = "en"
    return client


@pytest.fixture
def qualified(make_event, organiser):
    """A competition: one session (weather drawn), four runs, no race table yet."""
    actor = Actor(user=organiser)
    event = make_event(n_drivers=4, separate_teams=False)
    session = session_create(actor=actor, event=event, number=1, weather_roll=15)
    for driver in Driver.objects.filter(championship=event.championship):
        Run.objects.create(session=session, driver=driver, tyres="hard",
                           throws=10 + driver.number, stopwatch_cs=5000)  # fmt: skip
    return event


def change_url(obj) -> str:
    return reverse(f"admin:{obj._meta.app_label}_{obj._meta.model_name}_change", args=[obj.pk])


def pointer(page: str) -> str:
    """The href of the page the admin points to ("" when it points nowhere)."""
    match = re.search(r'<a href="([^"]+)" class="workflow-page">', page)
    return match.group(1) if match else ""


def assert_read_only(root, obj, data: dict, points_to: str) -> None:
    model_admin = admin.site._registry[type(obj)]
    page = root.get(change_url(obj)).content.decode()
    assert 'name="_save"' not in page
    assert pointer(page) == points_to
    assert root.post(change_url(obj), data).status_code == 403
    assert not model_admin.has_add_permission(root.get("/").wsgi_request)


@pytest.mark.django_db
def test_a_sessions_weather_is_read_only_and_points_to_the_desk(root, qualified):
    session = QualifyingSession.objects.get(event=qualified)
    assert_read_only(root, session, {"roll": "2", "weather": "rain"},
                     reverse("event-desk", args=[qualified.slug]))  # fmt: skip
    session.refresh_from_db()
    assert (session.roll, session.weather) == (15, "sun")


@pytest.mark.django_db
def test_runs_are_read_only_once_the_race_tables_exist(root, qualified, organiser):
    run = Run.objects.get(session__event=qualified, driver__number=1)
    assert 'name="_save"' in root.get(change_url(run)).content.decode()  # a data fix, before

    allocation_run(actor=Actor(user=organiser), event=qualified, table_size=4)

    assert_read_only(root, run, {"throws": "1"}, reverse("event-desk", args=[qualified.slug]))
    assert Run.objects.get(pk=run.pk).throws == 11


@pytest.mark.django_db
def test_d20_rolls_are_read_only(root, make_event, organiser):
    event = make_event(n_drivers=2, qualifying_mode="draw", separate_teams=False)
    draw_record(actor=Actor(user=organiser), event=event, rolls={1: [4], 2: [9]})
    roll = DrawRoll.objects.get(event=event, driver__number=1)
    assert_read_only(root, roll, {"rolls": "[20]"}, reverse("allocation", args=[event.slug]))
    assert "POST /api/v1/events/gp/draw" in root.get(change_url(roll)).content.decode()
    assert DrawRoll.objects.get(pk=roll.pk).rolls == [4]


@pytest.mark.django_db
def test_rallyman_stages_their_snow_and_times_are_read_only(root, make_event):
    event = make_event(n_drivers=2, game="rallyman")
    stage = Stage.objects.create(event=event, number=1, route="C1 J2", snow=[True, False],
                                 snow_source="system")  # fmt: skip
    time = StageTime.objects.create(stage=stage, driver=Driver.objects.get(number=1), chrono=70)

    assert_read_only(root, stage, {"snow": "[false, false]", "route": "C1"},
                     reverse("rally-desk", args=[event.slug]))  # fmt: skip
    assert 'name="times-0-chrono"' not in root.get(change_url(stage)).content.decode()
    assert_read_only(root, time, {"chrono": "5"},
                     reverse("rally-stage-times", args=[event.slug, 1]))  # fmt: skip
    stage.refresh_from_db()
    assert (stage.snow, stage.route, StageTime.objects.get(pk=time.pk).chrono) == (
        [True, False], "C1 J2", 70
    )  # fmt: skip


@pytest.mark.django_db
def test_a_championship_slug_is_derived_from_its_name_in_the_admin(client, django_user_model):
    """Issue 32, item 8: the slug was typed by hand; the admin now derives it from the name
    and season as they are typed (Django's prepopulated fields)."""
    client.force_login(django_user_model.objects.create_superuser("root", password="x"))
    html = client.get(reverse("admin:tournament_championship_add")).content.decode()
    assert "prepopulated-fields" in html
    assert "&quot;#id_slug&quot;" in html and "&quot;#id_name&quot;" in html
